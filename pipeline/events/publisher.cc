#include "pipeline/events/publisher.h"

#include <future>
#include <map>
#include <set>

#include "commands/event_catalogue.h"
#include "core/clock.h"
#include "core/executor.h"
#include "core/json.h"
#include "core/log.h"
#include "projections/projector.h"
#include "projections/runner.h"
#include "projections/state_records.h"

namespace svc::pipeline::events {

namespace cm = commands;
using eventstore::PublicTopicSink;

namespace {

// The CloudEvents attributes of a record about event `re` (an event's own record, or a state
// record it made): `type`, `subject` and the schema differ, the rest is the event's.
std::vector<std::pair<std::string, std::string>> CloudEventHeaders(const eventstore::RecordedEvent& re,
                                                                   std::string id, std::string_view type,
                                                                   const std::string& subject, std::string dataschema) {
  const auto& e = re.event;
  return {{"ce_specversion", "1.0"},
          {"ce_id", std::move(id)},
          {"ce_source", "/tenants/" + e.tenant_id},
          {"ce_type", std::string(type)},
          {"ce_time", core::FormatRfc3339Micros(e.occurred_at)},
          {"ce_subject", subject},
          {"ce_dataschema", std::move(dataschema)},
          {"content-type", "application/json"},
          {"ce_svcseq", std::to_string(e.aggregate_version)},
          {"ce_svcpos", std::to_string(re.position.partition) + ":" + std::to_string(re.position.offset)},
          {"ce_svcaggregate", e.aggregate_type},
          {"ce_svcenv", e.environment}};
}

}  // namespace

core::Result<std::vector<PublicTopicSink::Record>> PublicRecords(const eventstore::RecordedEvent& re,
                                                                 const std::string& topic_prefix,
                                                                 const std::string& public_base_url,
                                                                 PersonPseudonyms& pseudonyms) {
  const auto& e = re.event;
  const cm::EventTypeInfo* info = cm::FindEventType(e.type);
  if (info == nullptr || info->audience != cm::Audience::kPublic) return std::vector<PublicTopicSink::Record>{};
  const core::Json data = core::ParseJsonOrDiscarded(e.data);
  // A person id is the integrator's handle on a named human: each one becomes the person's
  // pseudonym, in the payload (a JSON string holds an id as it is), the subject and the key.
  SVC_ASSIGN_OR_RETURN(
      const std::string value,
      pseudonyms.Replace(e.tenant_id, e.environment,
                         core::DumpJson(cm::PublicData(data.is_object() ? data : core::Json::object()))));
  SVC_ASSIGN_OR_RETURN(const std::string subject, pseudonyms.Replace(e.tenant_id, e.environment, e.aggregate_id));
  const auto headers =
      CloudEventHeaders(re, e.id, e.type, subject, cm::EventSchemaUri(public_base_url, e.type, info->schema_version));
  std::vector<PublicTopicSink::Record> out;
  // A tenant-level fact (no environment) belongs to both environments' set-up.
  const std::vector<std::string> envs =
      e.environment.empty() ? std::vector<std::string>{"live", "test"} : std::vector<std::string>{e.environment};
  for (const auto& env : envs) {
    out.push_back(PublicTopicSink::Record{topic_prefix + "." + env + "." + info->area, subject, value, headers});
  }
  return out;
}

std::vector<std::string> PublicTopicNames(const std::string& topic_prefix) {
  std::vector<std::string> topics;
  for (const auto& env : {"live", "test"}) {
    for (const auto& area : cm::EventAreas()) topics.push_back(topic_prefix + "." + env + "." + area);
  }
  return topics;
}

std::vector<std::string> StateTopicNames(const std::string& topic_prefix) {
  std::vector<std::string> topics;
  for (const auto& env : {"live", "test"}) {
    for (const auto& s : projections::StateTopics()) topics.push_back(projections::StateTopicName(topic_prefix, env, s.area));
  }
  return topics;
}

core::Status PublicTopicsPublisher::AppendStates(const std::vector<eventstore::RecordedEvent>& events,
                                                 std::vector<PublicTopicSink::Record>& records) {
  if (o_.views == nullptr || o_.projections == nullptr) return core::Status::Ok();
  // Each subject once, with the last of its events in the batch (its position and time).
  struct Touched {
    const projections::StateTopicInfo* info;
    const eventstore::RecordedEvent* last;
  };
  std::vector<std::string> order;
  std::map<std::string, Touched> touched;
  std::map<uint32_t, eventstore::LogPosition> ends;
  std::set<std::string_view> views;
  for (const auto& re : events) {
    ends[re.position.partition] = re.position;
    const auto* info = projections::FindStateTopic(re.event.aggregate_type);
    if (info == nullptr || re.event.environment.empty()) continue;
    const std::string subject = re.event.tenant_id + "/" + re.event.environment + "/" + re.event.aggregate_id;
    if (!touched.contains(subject)) order.push_back(subject);
    touched[subject] = Touched{info, &re};
    views.insert(info->view);
  }
  if (order.empty()) return core::Status::Ok();
  // The rows as they stand once the read models hold the whole batch (perhaps later: a state
  // topic keeps the latest state, and a later batch publishes it again).
  std::vector<eventstore::LogPosition> positions;
  for (const auto& [p, pos] : ends) positions.push_back(pos);
  auto applied = std::make_shared<std::promise<bool>>();
  auto done = applied->get_future();
  o_.projections->WhenApplied(std::move(positions), std::vector<std::string_view>(views.begin(), views.end()),
                              o_.views_wait, [applied](bool ok) { applied->set_value(ok); });
  // Waited in steps, so that a stop is not held up by the wait.
  while (done.wait_for(std::chrono::milliseconds(200)) != std::future_status::ready) {
    if (stop_.load()) return core::Unavailable("public topics: stopping");
  }
  if (!done.get()) return core::Unavailable("public topics: the read models did not apply the batch in time");
  const int cf = o_.views->Cf(projections::kViewsCf);
  for (const auto& subject : order) {
    const auto& [info, last] = touched.at(subject);
    const auto& e = last->event;
    SVC_ASSIGN_OR_RETURN(auto row, o_.views->Get(cf, info->row_key(e.tenant_id, e.environment, e.aggregate_id)));
    std::optional<core::Json> record;
    if (row.has_value()) record = info->record(*row);
    SVC_ASSIGN_OR_RETURN(const std::string key, pseudonyms_.Replace(e.tenant_id, e.environment, e.aggregate_id));
    std::string value;
    if (record.has_value()) {
      SVC_ASSIGN_OR_RETURN(value, pseudonyms_.Replace(e.tenant_id, e.environment, core::DumpJson(*record)));
    }
    records.push_back(PublicTopicSink::Record{
        projections::StateTopicName(o_.sink.topic_prefix, e.environment, info->area), key, value,
        CloudEventHeaders(*last, e.id + "/state", info->type, key,
                          cm::EventSchemaUri(o_.public_base_url, info->type, info->schema_version)),
        !record.has_value()});
  }
  return core::Status::Ok();
}

PublicTopicsPublisher::PublicTopicsPublisher(Options options)
    : o_(std::move(options)), pseudonyms_(o_.keys) {
  if (o_.metrics != nullptr) {
    published_ = &o_.metrics->GetCounter("svc_public_topics_records_total", "Records committed to the public event topics");
    transactions_ = &o_.metrics->GetCounter("svc_public_topics_transactions_total",
                                            "Transactions committed to the public event topics");
    failures_ = &o_.metrics->GetCounter("svc_public_topics_failures_total",
                                        "Publishing attempts that failed and were retried from the last committed point");
  }
}

PublicTopicsPublisher::~PublicTopicsPublisher() { Stop(); }

core::Status PublicTopicsPublisher::Connect() {
  reader_.reset();
  sink_.reset();
  SVC_ASSIGN_OR_RETURN(sink_, PublicTopicSink::Open(o_.sink));
  SVC_RETURN_IF_ERROR(sink_->EnsureTopics(PublicTopicNames(o_.sink.topic_prefix)));
  SVC_RETURN_IF_ERROR(sink_->EnsureTopics(StateTopicNames(o_.sink.topic_prefix), /*compacted=*/true));
  SVC_ASSIGN_OR_RETURN(auto committed, sink_->Committed());
  // What the last transaction left to do once committed, in case this process (or another) died
  // before doing it: destroying is idempotent.
  SVC_RETURN_IF_ERROR(DestroyAfterCommit(committed.after_commit));
  std::vector<eventstore::PartitionCheckpoint> start(o_.log->PartitionCount());
  for (const auto& [p, cp] : committed.resume_points) {
    if (p < start.size()) start[p] = eventstore::DecodeCheckpoint(cp);
  }
  {
    std::lock_guard lock(mu_);
    committed_.assign(start.size(), 0);
    for (size_t p = 0; p < start.size(); ++p) committed_[p] = start[p].next_offset;
  }
  cv_.notify_all();
  SVC_ASSIGN_OR_RETURN(reader_, o_.log->OpenReader("public-topics", start));
  return core::Status::Ok();
}

core::Status PublicTopicsPublisher::PublishOnce() {
  SVC_ASSIGN_OR_RETURN(auto events, reader_->Poll(o_.batch_events, std::chrono::milliseconds(200)));
  if (events.empty()) return core::Status::Ok();
  std::vector<PublicTopicSink::Record> records;
  std::map<uint32_t, std::string> ends;
  core::Json destroy = core::Json::array();
  // The batch's persons' pseudonyms first, the missing keys drawn in one group commit.
  std::vector<PersonPseudonyms::Text> texts;
  for (const auto& re : events) {
    texts.push_back({re.event.tenant_id, re.event.environment, re.event.aggregate_id});
    texts.push_back({re.event.tenant_id, re.event.environment, re.event.data});
  }
  SVC_RETURN_IF_ERROR(pseudonyms_.Prefetch(texts));
  for (const auto& re : events) {
    SVC_ASSIGN_OR_RETURN(auto rs, PublicRecords(re, o_.sink.topic_prefix, o_.public_base_url, pseudonyms_));
    for (auto& r : rs) records.push_back(std::move(r));
    ends[re.position.partition] = eventstore::EncodeCheckpoint(eventstore::CheckpointAfter(re));
    // The person's last need of a pseudonym: once this record is committed, the key goes.
    if (re.event.type == "persons.keys_destroyed" && re.event.aggregate_type == "person") {
      destroy.push_back(PersonPseudonyms::KeyName(re.event.tenant_id, re.event.environment, re.event.aggregate_id));
    }
  }
  SVC_RETURN_IF_ERROR(AppendStates(events, records));
  const std::string after_commit = destroy.empty() ? "" : core::DumpJson(destroy);
  SVC_RETURN_IF_ERROR(sink_->Publish(records, ends, after_commit));
  // A failure here is retried by Connect(), from the transaction's own after-commit record.
  SVC_RETURN_IF_ERROR(DestroyAfterCommit(after_commit));
  {
    std::lock_guard lock(mu_);
    for (const auto& [p, cp] : ends) {
      if (p < committed_.size()) committed_[p] = eventstore::DecodeCheckpoint(cp).next_offset;
    }
  }
  cv_.notify_all();
  if (published_ != nullptr) published_->Add(records.size());
  if (transactions_ != nullptr) transactions_->Add();
  return core::Status::Ok();
}

core::Status PublicTopicsPublisher::DestroyAfterCommit(const std::string& after_commit) {
  if (after_commit.empty()) return core::Status::Ok();
  const core::Json names = core::ParseJsonOrDiscarded(after_commit);
  std::vector<std::string> keys;
  if (names.is_array()) {
    for (const auto& n : names) {
      if (n.is_string() && n.get<std::string>().rfind("pseudonym/", 0) == 0) keys.push_back(n.get<std::string>());
    }
  }
  return pseudonyms_.Destroy(keys);
}

void PublicTopicsPublisher::Loop() {
  core::SetThreadName("svc-public-out");
  bool connected = false;
  while (!stop_.load()) {
    core::Status st = connected ? PublishOnce() : Connect();
    if (st.ok()) {
      connected = true;
      continue;
    }
    // Whatever failed, the next attempt starts again from what Kafka committed.
    connected = false;
    if (failures_ != nullptr) failures_->Add();
    core::LogWarn("public topics: publishing failed; retrying from the last committed point",
                  {{"error", st.ToString()}});
    std::unique_lock lock(mu_);
    cv_.wait_for(lock, std::chrono::seconds(1), [&] { return stop_.load(); });
  }
  reader_.reset();
  sink_.reset();
}

bool PublicTopicsPublisher::WaitCaughtUp(std::chrono::milliseconds timeout) {
  auto ends = o_.log->EndOffsets();
  if (!ends.ok()) return false;
  std::unique_lock lock(mu_);
  return cv_.wait_for(lock, timeout, [&] {
    if (committed_.size() < ends->size()) return false;
    for (size_t p = 0; p < ends->size(); ++p) {
      if (committed_[p] < (*ends)[p]) return false;
    }
    return true;
  });
}

void PublicTopicsPublisher::Start() {
  thread_ = std::thread([this] { Loop(); });
}

void PublicTopicsPublisher::Stop() {
  if (!thread_.joinable()) return;
  stop_.store(true);
  {
    std::lock_guard lock(mu_);
    cv_.notify_all();
  }
  thread_.join();  // a Poll waits at most 200 ms
}

}  // namespace svc::pipeline::events
