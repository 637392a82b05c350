#include "projections/persons/arco_projector.h"

#include "commands/audit/timestamps.h"
#include "commands/kyb/company_events.h"
#include "commands/persons/arco_request.h"
#include "commands/persons/person_events.h"
#include "core/clock.h"
#include "core/json.h"

namespace svc::projections {

namespace ps = commands::persons;
using ArV = ArcoView;

namespace {

core::Json TimeOrNull(int64_t micros) {
  return micros > 0 ? core::Json(core::FormatRfc3339(core::Timestamp{micros})) : core::Json(nullptr);
}

// The event type's move, as the history names it.
std::string MoveOf(std::string_view type) {
  std::string t(type.substr(type.find('.') + 1));
  if (t.rfind("request_", 0) == 0) t = t.substr(8);
  return t;  // received, accepted, denied, completed, withdrawn, lapsed, information_requested, …
}

core::Json Served(const ps::ArcoRecord& r, const std::string& id, const core::Json& history, const std::string& at) {
  core::Json subject = {{"type", r.subject_type}, {"personId", core::StringOrNull(r.person_id)}, {"companyId", core::StringOrNull(r.company_id)}};
  if (r.subject_type == "company_member") subject["memberId"] = r.subject_id;
  if (r.subject_type == "ubo_node") subject["uboNodeId"] = r.subject_id;
  return {{"object", "arco_request"},
          {"id", id},
          {"subject", subject},
          {"right", r.right},
          {"requester", r.requester},
          {"identityVerification", {{"method", r.identity_method}, {"reference", core::StringOrNull(r.identity_reference)}}},
          {"reference", core::StringOrNull(r.reference)},
          {"purposes", r.purposes},
          {"status", r.status},
          {"receivedAt", TimeOrNull(r.submitted_micros)},
          {"termCountedFrom", TimeOrNull(r.counted_from_micros)},
          {"responseDueAt", TimeOrNull(r.response_due_micros)},
          {"responseExtended", r.response_extended},
          {"informationRequestableUntil", TimeOrNull(r.ask_information_by_micros)},
          {"informationRequested", r.information_requested},
          {"informationDueAt", TimeOrNull(r.information_due_micros)},
          {"respondedAt", TimeOrNull(r.responded_micros)},
          {"effectDueAt", TimeOrNull(r.effect_due_micros)},
          {"effectExtended", r.effect_extended},
          {"completedAt", TimeOrNull(r.completed_micros)},
          {"denialReason", core::StringOrNull(r.denial_reason)},
          {"fulfilment", r.fulfilled_by.empty() ? core::Json(nullptr)
                                                : core::Json{{"operation", r.fulfilled_by},
                                                             {"reference", core::StringOrNull(r.fulfilment_reference)}}},
          {"history", history},
          {"updatedAt", at}};
}

}  // namespace

std::optional<OpenDeadline> OpenDeadlineOf(const core::Json& row) {
  const std::string status = core::StringOr(row, "status");
  const char* field = status == "received"               ? "responseDueAt"
                      : status == "accepted"             ? "effectDueAt"
                      : status == "awaiting_information" ? "informationDueAt"
                                                         : nullptr;
  if (field == nullptr) return std::nullopt;
  auto due = core::ParseRfc3339(core::StringOr(row, field));
  if (!due.ok()) return std::nullopt;
  return OpenDeadline{status == "received" ? "response" : status == "accepted" ? "effect" : "information", due->micros};
}

void ArcoProjector::AfterCommit() {
  if (queued_.exchange(false)) listeners_.Notify();
}

core::Status ArcoProjector::ApplyOperation(const eventstore::RecordedEvent& re, ViewWriter& view) {
  const auto& env = re.event;
  // Most events of these aggregates name no request: nothing to parse.
  if (env.data.find("\"arcoRequestId\"") == std::string::npos) return core::Status::Ok();
  std::string arc, operation, reference, subject = env.aggregate_id;
  if (env.aggregate_type == ps::kPersonAggregate) {
    SVC_ASSIGN_OR_RETURN(ps::PersonEvent event, ps::Decode(env));
    if (const auto* r = std::get_if<ps::PersonRevised>(&event)) {
      arc = r->arco_request_id, operation = "rectification", reference = "piiVersion " + std::to_string(r->pii_version);
    } else if (const auto* f = std::get_if<ps::ForgetRequested>(&event)) {
      arc = f->arco_request_id, operation = "forget", reference = f->mode;
    } else if (const auto* o = std::get_if<ps::OppositionRecorded>(&event)) {
      arc = o->arco_request_id, operation = "opposition", reference = o->opposition_id;
    }
  } else if (env.aggregate_type == commands::kyb::kCompanyAggregate) {
    // A company member's or owner's erasure (docs/kyb.md#erasure).
    SVC_ASSIGN_OR_RETURN(auto event, commands::kyb::Decode(env));
    if (const auto* f = std::get_if<commands::kyb::SubjectForgotten>(&event)) {
      arc = f->arco_request_id, operation = "member_erasure", reference = f->subject_id, subject = f->subject_id;
    }
  } else {
    SVC_ASSIGN_OR_RETURN(auto event, commands::audit::DecodeTimestamps(env));
    if (const auto* e = std::get_if<commands::audit::EvidenceRecorded>(&event)) {
      arc = e->arco_request_id, operation = "export", reference = e->subject, subject = e->person_id;
    }
  }
  if (arc.empty()) return core::Status::Ok();
  view.Put(ArV::Fulfilment(TenantEnv(env.tenant_id, env.environment), arc, env.id),
           core::DumpJson({{"operation", operation}, {"reference", reference}, {"subjectId", subject}}));
  queued_ = true;
  return core::Status::Ok();
}

core::Status ArcoProjector::Apply(const eventstore::RecordedEvent& re, ViewWriter& view) {
  const auto& env = re.event;
  if (env.aggregate_type == ps::kPersonAggregate || env.aggregate_type == commands::audit::kTimestampsAggregate ||
      env.aggregate_type == commands::kyb::kCompanyAggregate) {
    return ApplyOperation(re, view);
  }
  if (env.aggregate_type != ps::kArcoAggregate) return core::Status::Ok();
  SVC_ASSIGN_OR_RETURN(ps::ArcoEvent event, ps::DecodeArco(env));
  const ps::ArcoRecord& r = ps::RecordOf(event);
  const std::string te = TenantEnv(env.tenant_id, env.environment);
  const std::string& id = env.aggregate_id;
  const std::string at = core::FormatRfc3339(env.occurred_at);
  SVC_ASSIGN_OR_RETURN(auto stored, view.Get(ArV::Request(te, id)));
  core::Json old = stored.has_value() ? core::ParseJsonOrDiscarded(*stored) : core::Json(nullptr);
  core::Json history = old.is_object() ? old.value("history", core::Json::array()) : core::Json::array();
  core::Json entry = {{"event", MoveOf(env.type)}, {"at", at}, {"actor", {{"type", env.actor.type}, {"id", env.actor.id}}}};
  if (!r.deadline.empty()) entry["deadline"] = r.deadline;
  history.push_back(std::move(entry));
  core::Json row = Served(r, id, history, at);
  row["createdAt"] = old.is_object() ? old.value("createdAt", core::Json(at)) : core::Json(at);
  const std::string order = ArV::Order(r.submitted_micros, id);
  if (!old.is_object()) {
    view.Put(ArV::All(te) + order, "");
    view.Put(ArV::BySubject(te, r.subject_type == "person" ? r.person_id : r.subject_id) + order, "");
  } else if (core::StringOr(old, "status") != r.status) {
    view.Delete(ArV::ByStatus(te, core::StringOr(old, "status")) + order);
  }
  view.Put(ArV::ByStatus(te, r.status) + order, "");
  // The timer's queue: the open deadline, moved with the record; a missed one leaves it (the
  // timer warned once and the request stays overdue until it moves).
  const auto was = old.is_object() ? OpenDeadlineOf(old) : std::nullopt;
  const auto now = OpenDeadlineOf(row);
  const bool missed = std::holds_alternative<ps::ArcoDeadlineMissed>(event);
  const bool warned = std::holds_alternative<ps::ArcoDeadlineApproaching>(event);
  if (was && (!now || was->due_micros != now->due_micros || missed)) view.Delete(ArV::Deadline(was->due_micros, te, id));
  if (now && !missed && (!was || was->due_micros != now->due_micros || !stored.has_value() || warned)) {
    // The value: the deadline, and whether its approach was warned already (the timer then only
    // waits for it to pass).
    view.Put(ArV::Deadline(now->due_micros, te, id), now->deadline + (warned ? ":warned" : ""));
  }
  // A fulfilment recorded or refused leaves the manager's queue.
  if (!r.fulfilment_source.empty()) view.Delete(ArV::Fulfilment(te, id, r.fulfilment_source));
  if (std::holds_alternative<ps::ArcoFulfilmentRefused>(event)) {
    history.back()["operation"] = r.refused_operation;
    history.back()["refusal"] = r.refusal;
    row["history"] = history;
  }
  view.Put(ArV::Request(te, id), core::DumpJson(row));
  return core::Status::Ok();
}

}  // namespace svc::projections
