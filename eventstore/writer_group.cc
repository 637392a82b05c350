#include "eventstore/writer_group.h"

#include <librdkafka/rdkafka.h>

#include <atomic>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "core/executor.h"
#include "core/json.h"
#include "core/log.h"
#include "eventstore/kafka_client.h"

namespace svc::eventstore {


struct WriterGroup::Impl {
  Options o;
  std::string topic;
  std::chrono::milliseconds session{6000};
  rd_kafka_t* rk = nullptr;
  std::thread thread;
  std::atomic<bool> stop{false};
  bool left = false;
  mutable std::mutex mu;
  std::set<uint32_t> assigned;  // what the group gave this member
  std::set<uint32_t> owned;     // of those, the ones taken over
  std::set<uint32_t> let_go;    // fenced by another writer: released by Loop (LetGo)

  // On the group's thread. The offset p's commands resume from, or nothing when the take failed.
  std::optional<int64_t> Take(uint32_t p) {
    core::Result<int64_t> resume = o.take ? o.take(p) : core::Result<int64_t>(int64_t{-2});
    if (!resume.ok()) {
      core::LogWarn("writer group: could not take a partition over; retrying",
                    {{"partition", p}, {"error", resume.status().ToString()}});
      return std::nullopt;
    }
    {
      std::lock_guard lock(mu);
      if (assigned.count(p) != 0) owned.insert(p);
    }
    core::LogInfo("writer group: partition taken over", {{"partition", p}, {"member", o.member}, {"commandsFrom", *resume}});
    return *resume;
  }

  // Where the consumer reads p's commands from: `offset`, and paused until p is taken.
  void Position(uint32_t p, int64_t offset, bool pause) {
    rd_kafka_topic_partition_list_t* l = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(l, topic.c_str(), static_cast<int32_t>(p))->offset = offset;
    if (pause) {
      rd_kafka_pause_partitions(rk, l);
    } else {
      if (rd_kafka_error_t* e = rd_kafka_seek_partitions(rk, l, 5000)) rd_kafka_error_destroy(e);
      rd_kafka_resume_partitions(rk, l);
    }
    rd_kafka_topic_partition_list_destroy(l);
  }

  void Give(uint32_t p, bool lost) {
    bool was_owned = false;
    {
      std::lock_guard lock(mu);
      was_owned = owned.erase(p) > 0;
      assigned.erase(p);
    }
    if (was_owned && o.release) o.release(p, lost);
    core::LogInfo("writer group: partition released", {{"partition", p}, {"member", o.member}, {"lost", lost}});
  }

  static void Rebalance(rd_kafka_t* rk, rd_kafka_resp_err_t err, rd_kafka_topic_partition_list_t* parts, void* opaque) {
    auto* im = static_cast<Impl*>(opaque);
    const bool cooperative = std::string_view(rd_kafka_rebalance_protocol(rk)) == "COOPERATIVE";
    if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
      std::vector<uint32_t> failed;
      // The partitions given at once are taken over at once: each take is a producer's start, a
      // fence and a recovery, mostly waiting on the brokers.
      std::vector<std::optional<int64_t>> resumes(static_cast<size_t>(parts->cnt));
      std::vector<std::thread> takers;
      for (int i = 0; i < parts->cnt; ++i) {
        const auto p = static_cast<uint32_t>(parts->elems[i].partition);
        {
          std::lock_guard lock(im->mu);
          im->assigned.insert(p);
        }
        takers.emplace_back([im, p, &resumes, i] { resumes[static_cast<size_t>(i)] = im->Take(p); });
      }
      for (auto& t : takers) t.join();
      for (int i = 0; i < parts->cnt; ++i) {
        const std::optional<int64_t>& resume = resumes[static_cast<size_t>(i)];
        parts->elems[i].offset = resume.value_or(RD_KAFKA_OFFSET_END);
        if (!resume.has_value()) failed.push_back(static_cast<uint32_t>(parts->elems[i].partition));
      }
      if (cooperative) {
        if (rd_kafka_error_t* e = rd_kafka_incremental_assign(rk, parts)) rd_kafka_error_destroy(e);
      } else {
        rd_kafka_assign(rk, parts);
      }
      // Not taken: its commands wait in the topic until a retry takes it (Loop).
      for (uint32_t p : failed) im->Position(p, RD_KAFKA_OFFSET_END, /*pause=*/true);
      return;
    }
    const bool lost = rd_kafka_assignment_lost(rk) != 0;
    for (int i = 0; i < parts->cnt; ++i) im->Give(static_cast<uint32_t>(parts->elems[i].partition), lost);
    if (err != RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS) {
      core::LogWarn("writer group: rebalance error", {{"error", rd_kafka_err2str(err)}});
    }
    if (cooperative) {
      if (rd_kafka_error_t* e = rd_kafka_incremental_unassign(rk, parts)) rd_kafka_error_destroy(e);
    } else {
      rd_kafka_assign(rk, nullptr);
    }
  }

  void Loop() {
    auto next_retry = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    while (!stop.load()) {
      if (rd_kafka_message_t* msg = rd_kafka_consumer_poll(rk, 100)) {
        CommandRecord record;
        if (!msg->err && o.command && kafka::ReadCommandRecord(msg, &record)) {
          bool mine = false;
          {
            std::lock_guard lock(mu);
            mine = owned.count(record.partition) != 0;
          }
          if (mine) o.command(std::move(record));
        } else if (!msg->err && o.command) {
          core::LogWarn("writer group: a record of the commands topic without its headers; skipped",
                        {{"partition", msg->partition}, {"offset", msg->offset}});
        }
        rd_kafka_message_destroy(msg);
      }
      std::vector<uint32_t> fenced;
      {
        std::lock_guard lock(mu);
        fenced.assign(let_go.begin(), let_go.end());
        let_go.clear();
      }
      for (uint32_t p : fenced) {
        core::LogWarn("writer group: another writer took a partition over before the group said so; letting it go",
                      {{"partition", p}, {"member", o.member}});
        Give(p, /*lost=*/true);
      }
      if (std::chrono::steady_clock::now() < next_retry) continue;
      next_retry = std::chrono::steady_clock::now() + std::chrono::seconds(1);
      std::vector<uint32_t> retry;
      {
        std::lock_guard lock(mu);
        for (uint32_t p : assigned) {
          if (owned.count(p) == 0) retry.push_back(p);
        }
      }
      for (uint32_t p : retry) {
        if (std::optional<int64_t> resume = Take(p)) Position(p, *resume, /*pause=*/false);
      }
    }
  }
};

void WriterGroup::LetGo(uint32_t partition) {
  std::lock_guard lock(impl_->mu);
  if (impl_->owned.count(partition) != 0) impl_->let_go.insert(partition);
}

core::Result<std::unique_ptr<WriterGroup>> WriterGroup::Join(const Options& options) {
  if (options.brokers.empty()) return core::InvalidArgument("--kafka-brokers is required");
  std::unique_ptr<WriterGroup> g(new WriterGroup());
  g->impl_ = std::make_unique<Impl>();
  Impl& im = *g->impl_;
  im.o = options;
  im.topic = options.topic_prefix + ".commands";
  const std::string& topic = im.topic;
  {
    // The commands topic: commands wait there until their partition's writer decides them.
    SVC_ASSIGN_OR_RETURN(rd_kafka_t* meta, kafka::NewMetadataClient(options.brokers));
    core::Status st = kafka::EnsureTopic(meta, topic, options.partitions,
                                         {{"cleanup.policy", "delete"}, {"retention.ms", "604800000"}},
                                         options.create_topic, options.timeout);
    const bool mock = st.ok() && kafka::IsMockCluster(meta, options.timeout);
    rd_kafka_destroy(meta);
    SVC_RETURN_IF_ERROR(st);
    im.session = options.session_timeout.count() > 0 ? options.session_timeout : kafka::DefaultSessionTimeout(mock);
  }
  kafka::GroupMember gm;
  gm.brokers = options.brokers;
  gm.group = options.topic_prefix + "-writers";
  gm.member = options.member.empty() ? "svc-writer" : options.member;
  gm.topic = topic;
  gm.session = im.session;
  gm.rebalance = &Impl::Rebalance;
  gm.opaque = &im;
  gm.fetch_wait_ms = 10;  // a command waits for no batch
  SVC_ASSIGN_OR_RETURN(im.rk, kafka::JoinGroup(gm));
  im.thread = std::thread([&im] {
    core::SetThreadName("svc-writer-group");
    im.Loop();
  });
  core::LogInfo("writer group joined", {{"member", options.member},
                                        {"group", options.topic_prefix + "-writers"},
                                        {"sessionTimeoutMs", im.session.count()}});
  return g;
}

WriterGroup::~WriterGroup() { Leave(); }

void WriterGroup::Leave() {
  if (!impl_ || impl_->left) return;
  Impl& im = *impl_;
  im.left = true;
  im.stop.store(true);
  if (im.thread.joinable()) im.thread.join();
  if (im.rk != nullptr) {
    // Revokes every partition (release runs for each, here), then leaves the group: the others
    // are given them at the rebalance this starts.
    rd_kafka_consumer_close(im.rk);
    rd_kafka_destroy(im.rk);
    im.rk = nullptr;
  }
}

std::vector<uint32_t> WriterGroup::Owned() const {
  std::lock_guard lock(impl_->mu);
  return {impl_->owned.begin(), impl_->owned.end()};
}

std::chrono::milliseconds WriterGroup::session_timeout() const { return impl_->session; }

}  // namespace svc::eventstore
