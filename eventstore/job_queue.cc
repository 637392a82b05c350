#include "eventstore/job_queue.h"

#include <librdkafka/rdkafka.h>

#include <atomic>
#include <condition_variable>
#include <map>
#include <optional>
#include <mutex>
#include <set>
#include <thread>

#include "core/executor.h"
#include "core/log.h"
#include "eventstore/envelope.h"
#include "eventstore/kafka_client.h"

namespace svc::eventstore {

namespace {

// One Publish call's records: the delivery reports count down here.
struct Batch {
  std::mutex mu;
  std::condition_variable cv;
  size_t remaining = 0;
  std::string error;
};

void JobBatchDelivered(rd_kafka_t*, const rd_kafka_message_t* msg, void*) {
  auto* b = static_cast<Batch*>(msg->_private);
  if (b == nullptr) return;
  std::lock_guard lock(b->mu);
  if (msg->err && b->error.empty()) b->error = rd_kafka_err2str(msg->err);
  --b->remaining;
  b->cv.notify_all();
}

}  // namespace

struct JobQueue::Impl {
  Options o;
  std::string topic, group;
  std::chrono::milliseconds session{6000};
  rd_kafka_t* producer = nullptr;
  rd_kafka_t* rk = nullptr;  // the group member, once Consume
  std::thread thread;
  std::atomic<bool> stop{false};
  bool closed = false;
  std::function<void(JobRecord)> job;
  std::function<void(uint32_t, bool)> revoked;

  // Per partition given to this member: the next offset after the last record handed on, the
  // handed-on records not done yet, and the offset last committed.
  struct Part {
    int64_t next = -1;
    std::set<int64_t> running;
    int64_t committed = -1;
    int64_t CommitPoint() const { return running.empty() ? next : *running.begin(); }
  };
  mutable std::mutex mu;
  std::map<uint32_t, Part> parts;
  core::Counter* published = nullptr;
  core::Counter* taken = nullptr;
  core::Counter* done = nullptr;

  // Commits the partitions whose first job not done moved (`only`: just that one), synchronously
  // or not.
  void Commit(std::optional<uint32_t> only, bool sync) {
    rd_kafka_topic_partition_list_t* l = rd_kafka_topic_partition_list_new(4);
    {
      std::lock_guard lock(mu);
      for (auto& [p, part] : parts) {
        if (only && *only != p) continue;
        const int64_t at = part.CommitPoint();
        // A synchronous commit (a partition given back) is sent even when unchanged: the last
        // asynchronous one may have failed (a rebalance in progress), and the next owner starts here.
        if (at < 0 || (at == part.committed && !sync)) continue;
        rd_kafka_topic_partition_list_add(l, topic.c_str(), static_cast<int32_t>(p))->offset = at;
        part.committed = at;
      }
    }
    if (l->cnt > 0) {
      if (rd_kafka_resp_err_t err = rd_kafka_commit(rk, l, sync ? 0 : 1); err && sync) {
        core::LogWarn("job queue: could not commit; the next owner runs those jobs again",
                      {{"topic", topic}, {"error", rd_kafka_err2str(err)}});
      }
    }
    rd_kafka_topic_partition_list_destroy(l);
  }

  static void Rebalance(rd_kafka_t* rk, rd_kafka_resp_err_t err, rd_kafka_topic_partition_list_t* list, void* opaque) {
    auto* im = static_cast<Impl*>(opaque);
    const bool cooperative = std::string_view(rd_kafka_rebalance_protocol(rk)) == "COOPERATIVE";
    if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
      {
        std::lock_guard lock(im->mu);
        for (int i = 0; i < list->cnt; ++i) im->parts[static_cast<uint32_t>(list->elems[i].partition)] = Part{};
      }
      for (int i = 0; i < list->cnt; ++i) {
        core::LogInfo("job queue: partition given", {{"topic", im->topic}, {"partition", list->elems[i].partition},
                                                     {"member", im->o.member}});
      }
      if (cooperative) {
        if (rd_kafka_error_t* e = rd_kafka_incremental_assign(rk, list)) rd_kafka_error_destroy(e);
      } else {
        rd_kafka_assign(rk, list);
      }
      return;
    }
    const bool lost = rd_kafka_assignment_lost(rk) != 0;
    for (int i = 0; i < list->cnt; ++i) {
      const auto p = static_cast<uint32_t>(list->elems[i].partition);
      // Its jobs stop first; then what ended is committed, so the next owner starts after it.
      if (im->revoked) im->revoked(p, lost);
      if (!lost) im->Commit(p, /*sync=*/true);
      {
        std::lock_guard lock(im->mu);
        im->parts.erase(p);
      }
      core::LogInfo("job queue: partition given back", {{"topic", im->topic}, {"partition", p},
                                                        {"member", im->o.member}, {"lost", lost}});
    }
    if (err != RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS) {
      core::LogWarn("job queue: rebalance error", {{"topic", im->topic}, {"error", rd_kafka_err2str(err)}});
    }
    if (cooperative) {
      if (rd_kafka_error_t* e = rd_kafka_incremental_unassign(rk, list)) rd_kafka_error_destroy(e);
    } else {
      rd_kafka_assign(rk, nullptr);
    }
  }

  void Loop() {
    auto next_commit = std::chrono::steady_clock::now();
    while (!stop.load()) {
      if (rd_kafka_message_t* msg = rd_kafka_consumer_poll(rk, 100)) {
        if (!msg->err) {
          JobRecord r;
          r.partition = static_cast<uint32_t>(msg->partition);
          r.offset = msg->offset;
          if (msg->key != nullptr) r.key.assign(static_cast<const char*>(msg->key), msg->key_len);
          if (msg->payload != nullptr) r.payload.assign(static_cast<const char*>(msg->payload), msg->len);
          bool mine = false;
          {
            std::lock_guard lock(mu);
            if (auto it = parts.find(r.partition); it != parts.end()) {
              mine = true;
              it->second.next = r.offset + 1;
              it->second.running.insert(r.offset);
            }
          }
          if (mine) {
            if (taken != nullptr) taken->Add();
            job(std::move(r));
          }
        } else if (msg->err != RD_KAFKA_RESP_ERR__PARTITION_EOF) {
          core::LogWarn("job queue: consumer error", {{"topic", topic}, {"error", rd_kafka_message_errstr(msg)}});
        }
        rd_kafka_message_destroy(msg);
      }
      if (std::chrono::steady_clock::now() >= next_commit) {
        Commit(std::nullopt, /*sync=*/false);
        next_commit = std::chrono::steady_clock::now() + std::chrono::milliseconds(200);
      }
    }
  }
};

core::Result<std::unique_ptr<JobQueue>> JobQueue::Open(const Options& options) {
  if (options.brokers.empty()) return core::InvalidArgument("--kafka-brokers is required");
  std::unique_ptr<JobQueue> q(new JobQueue());
  q->impl_ = std::make_unique<Impl>();
  Impl& im = *q->impl_;
  im.o = options;
  im.topic = options.topic_prefix + "." + options.name;
  im.group = options.topic_prefix + "-" + options.name;
  SVC_ASSIGN_OR_RETURN(im.producer, kafka::NewIdempotentProducer(options.brokers, options.timeout, 0, JobBatchDelivered,
                                                                 "job queue " + im.topic));
  // Jobs are kept a week: a job waits there until a worker ends it.
  core::Status st = kafka::EnsureTopic(im.producer, im.topic, options.partitions,
                                       {{"cleanup.policy", "delete"}, {"retention.ms", "604800000"}},
                                       options.create_topic, options.timeout, options.partitions_flag);
  const bool mock = st.ok() && kafka::IsMockCluster(im.producer, options.timeout);
  if (!st.ok()) {
    rd_kafka_destroy(im.producer);
    im.producer = nullptr;
    return st;
  }
  im.session = options.session_timeout.count() > 0 ? options.session_timeout : kafka::DefaultSessionTimeout(mock);
  if (options.metrics != nullptr) {
    im.published = &options.metrics->GetCounter("svc_cluster_jobs_published_total", "Jobs written to a job topic");
    im.taken = &options.metrics->GetCounter("svc_cluster_jobs_taken_total", "Jobs this node was given by its group");
    im.done = &options.metrics->GetCounter("svc_cluster_jobs_done_total", "Jobs this node ended");
  }
  return q;
}

JobQueue::~JobQueue() { Close(); }

core::Status JobQueue::Publish(const std::vector<std::pair<std::string, std::string>>& jobs) {
  Impl& im = *impl_;
  if (jobs.empty()) return core::Status::Ok();
  if (im.producer == nullptr) return core::Unavailable("the job queue is closed");
  Batch batch;
  batch.remaining = jobs.size();
  for (const auto& [key, payload] : jobs) {
    const auto p = static_cast<int32_t>(PartitionForTenant(key, im.o.partitions));
    rd_kafka_resp_err_t err = rd_kafka_producev(
        im.producer, RD_KAFKA_V_TOPIC(im.topic.c_str()), RD_KAFKA_V_PARTITION(p),
        RD_KAFKA_V_KEY(key.data(), key.size()), RD_KAFKA_V_VALUE(const_cast<char*>(payload.data()), payload.size()),
        RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_OPAQUE(&batch), RD_KAFKA_V_END);
    if (err) {
      std::lock_guard lock(batch.mu);
      --batch.remaining;
      if (batch.error.empty()) batch.error = rd_kafka_err2str(err);
    }
  }
  // Delivery reports are served by whoever polls the producer: every publishing thread polls
  // until its own records are acknowledged (message.timeout.ms bounds it).
  for (;;) {
    {
      std::unique_lock lock(batch.mu);
      if (batch.remaining == 0) break;
    }
    rd_kafka_poll(im.producer, 20);
  }
  if (!batch.error.empty()) return core::Unavailable("job queue " + im.topic + ": " + batch.error);
  if (im.published != nullptr) im.published->Add(jobs.size());
  return core::Status::Ok();
}

core::Status JobQueue::Consume(std::function<void(JobRecord)> job, std::function<void(uint32_t, bool)> revoked) {
  Impl& im = *impl_;
  if (im.rk != nullptr) return core::FailedPrecondition("the job queue consumes already");
  im.job = std::move(job);
  im.revoked = std::move(revoked);
  kafka::GroupMember gm;
  gm.brokers = im.o.brokers;
  gm.group = im.group;
  gm.member = im.o.member;
  gm.topic = im.topic;
  gm.session = im.session;
  gm.rebalance = &Impl::Rebalance;
  gm.opaque = &im;
  SVC_ASSIGN_OR_RETURN(im.rk, kafka::JoinGroup(gm));
  im.thread = std::thread([&im] {
    core::SetThreadName("svc-job-queue");
    im.Loop();
  });
  core::LogInfo("job queue joined", {{"member", im.o.member}, {"group", im.group}, {"sessionTimeoutMs", im.session.count()}});
  return core::Status::Ok();
}

void JobQueue::Done(uint32_t partition, int64_t offset) {
  Impl& im = *impl_;
  std::lock_guard lock(im.mu);
  if (auto it = im.parts.find(partition); it != im.parts.end()) {
    if (it->second.running.erase(offset) > 0 && im.done != nullptr) im.done->Add();
  }
}

std::vector<uint32_t> JobQueue::Owned() const {
  std::lock_guard lock(impl_->mu);
  std::vector<uint32_t> out;
  for (const auto& [p, part] : impl_->parts) out.push_back(p);
  return out;
}

std::chrono::milliseconds JobQueue::session_timeout() const { return impl_->session; }

void JobQueue::Leave() {
  if (!impl_) return;
  Impl& im = *impl_;
  im.stop.store(true);
  if (im.thread.joinable()) im.thread.join();
  if (im.rk != nullptr) {
    // Gives every partition back (revoked runs for each, here), then leaves the group.
    rd_kafka_consumer_close(im.rk);
    rd_kafka_destroy(im.rk);
    im.rk = nullptr;
  }
}

void JobQueue::Close() {
  if (!impl_ || impl_->closed) return;
  Impl& im = *impl_;
  im.closed = true;
  Leave();
  if (im.producer != nullptr) {
    rd_kafka_flush(im.producer, 2000);
    rd_kafka_destroy(im.producer);
    im.producer = nullptr;
  }
}

}  // namespace svc::eventstore
