#include "projections/sessions_projector.h"

#include "projections/sessions_view.h"

#include <cmath>
#include <limits>

#include "commands/verification/session_events.h"
#include "commands/verification/session_status.h"
#include "core/clock.h"
#include "core/json.h"

namespace svc::projections {

namespace vs = commands::verification;

namespace {

core::Status Bump(ViewWriter& view, const std::string& key, int delta) {
  SVC_ASSIGN_OR_RETURN(auto row, view.Get(key));
  int64_t n = row.has_value() ? std::stoll(*row) : 0;
  view.Put(key, std::to_string(n + delta));
  return core::Status::Ok();
}

// Index keys use the millisecond times the record shows, so an update can rebuild them from the
// record alone.
int64_t FloorToMillis(int64_t micros) {
  return core::Timestamp{micros}.millis() * 1000 - (micros < 0 && micros % 1000 != 0 ? 1000 : 0);
}

core::Result<int64_t> MicrosOf(const core::Json& r, const char* field) {
  auto t = core::ParseRfc3339(r.value(field, ""));
  if (!t.ok()) return core::DataLoss(std::string("bad ") + field + " in a session row");
  return t->micros;
}

}  // namespace

core::Status SessionsProjector::Apply(const eventstore::RecordedEvent& re, ViewWriter& view) {
  const auto& env = re.event;
  if (env.aggregate_type != "verification_session") return core::Status::Ok();
  SVC_ASSIGN_OR_RETURN(const vs::SessionEvent* decoded, vs::DecodeShared(re));
  const vs::SessionEvent& event = *decoded;
  using V = SessionsView;
  const std::string te = TenantEnv(env.tenant_id, env.environment);
  const std::string id = env.aggregate_id;
  const std::string at = core::FormatRfc3339(env.occurred_at);
  const std::string rec_key = V::Record(te, id);

  if (const auto* c = std::get_if<vs::SessionCreated>(&event)) {
    core::Json r;
    r["id"] = id;
    r["publicId"] = c->public_id;
    r["tenantId"] = env.tenant_id;
    r["applicationId"] = c->application_id;
    r["flowId"] = core::StringOrNull(c->flow_id);
    r["personId"] = core::StringOrNull(c->person_id);
    r["channel"] = c->channel;
    const auto phase = *vs::PhaseAfter(event);
    r["status"] = std::string(phase.status);
    r["currentStep"] = std::string(phase.current_step);
    r["clientReference"] = c->client_reference ? core::Json(*c->client_reference) : core::Json(nullptr);
    r["country"] = c->country;
    r["locale"] = c->locale;
    r["trustScore"] = nullptr;
    r["createdAt"] = at;
    r["updatedAt"] = at;
    r["startedAt"] = nullptr;
    r["completedAt"] = nullptr;
    r["decidedAt"] = nullptr;
    r["expiresAt"] = core::FormatRfc3339(core::Timestamp{c->expires_at_micros});
    std::string rec = core::DumpJson(r);
    // The 201 body as served (VerificationSessionCreated), for the first answer and every
    // idempotent retry: the record's members, then these (appended to the record's text, which
    // the JSON writer made, rather than copying and serialising the record again). A link
    // session's token and a callback's secret are stored sealed and opened when served.
    core::Json extra = {{"linkToken", nullptr},
                        {"hostedUrl", nullptr},
                        {"callbackSecret", nullptr},
                        {"deepLink", nullptr},
                        {"requiresApp", c->channel == "sdk"}};
    if (!c->link_token_sealed.empty()) extra["linkTokenSealed"] = c->link_token_sealed;
    if (!c->callback_secret_sealed.empty()) extra["callbackSecretSealed"] = c->callback_secret_sealed;
    std::string created = rec;
    created.pop_back();  // the record's closing brace
    created.append(",").append(std::string_view(core::DumpJson(extra)).substr(1));
    view.Put(V::Created(te, id), created);
    std::string order = V::Order(FloorToMillis(env.occurred_at.micros), id);
    for (const std::string& filter :
         {V::All(), V::ByStatus(phase.status), V::ByApplication(c->application_id)}) {
      // The unfiltered list's index holds the record itself (sessions_view.h).
      view.Put(V::Index(te, filter) + order, filter == V::All() ? rec : std::string());
      SVC_RETURN_IF_ERROR(Bump(view, V::Counter(te, filter), 1));
    }
    view.Put(rec_key, std::move(rec));
    if (c->client_reference && !c->client_reference->empty()) {
      view.Put(V::Index(te, V::ByClientReference(*c->client_reference)) + order, "");
    }
    view.Put(V::Expiry(FloorToMillis(c->expires_at_micros), env.tenant_id, env.environment, id),
             "");
    SVC_RETURN_IF_ERROR(Bump(view, V::Volume(te, core::FormatDate(env.occurred_at), "created"), 1));
    return core::Status::Ok();
  }

  SVC_ASSIGN_OR_RETURN(auto row, view.Get(rec_key));
  if (!row.has_value()) return core::DataLoss("session event before its creation: " + id);
  core::Json r = core::ParseJsonOrDiscarded(*row);
  std::string old_status = core::StringOr(r, "status");
  r["updatedAt"] = at;
  if (auto phase = vs::PhaseAfter(event)) {
    r["status"] = std::string(phase->status);
    r["currentStep"] = phase->current_step.empty() ? core::Json(nullptr)
                                                   : core::Json(std::string(phase->current_step));
    if (phase->starts) r["startedAt"] = at;
    if (phase->completes) {
      r["completedAt"] = at;
      view.Put(V::Retention(FloorToMillis(env.occurred_at.micros), env.tenant_id, env.environment, id), "");
    }
    if (phase->decides) r["decidedAt"] = at;
    // What the applicant is asked for lasts while the session waits for it.
    r.erase("requestedInput");
  }
  if (const auto* c = std::get_if<vs::ConsentRecorded>(&event)) {
    core::Json consent;
    consent["consentGiven"] = c->accepted;
    consent["recordedAt"] = at;
    consent["consentedAt"] = core::FormatRfc3339(core::Timestamp{c->consented_at_micros});
    // No policy version sent: null, not "" (an empty version names nothing).
    consent["policyVersion"] = c->policy_version.empty() ? core::Json(nullptr)
                                                         : core::Json(c->policy_version);
    view.Put(V::Consent(te, id), core::DumpJson(consent));
  } else if (std::holds_alternative<vs::MediaPurged>(event)) {
    SVC_ASSIGN_OR_RETURN(int64_t completed, MicrosOf(r, "completedAt"));
    view.Delete(V::Retention(completed, env.tenant_id, env.environment, id));
  } else if (std::holds_alternative<vs::SessionSubmitted>(event)) {
    // A submitted session no longer expires while the pipeline runs.
    SVC_ASSIGN_OR_RETURN(int64_t expires, MicrosOf(r, "expiresAt"));
    view.Delete(V::Expiry(expires, env.tenant_id, env.environment, id));
  } else if (const auto* v = std::get_if<vs::VerdictReached>(&event)) {
    // trustScore on the session is the integer percentage of the 0-1 composite (see
    // docs/verification-sessions.md: round(100 x score)).
    r["trustScore"] = v->trust_score.is_number()
                          ? core::Json(static_cast<int64_t>(
                                std::llround(v->trust_score.get<double>() * 100.0)))
                          : core::Json(nullptr);
    if (r["status"] == "awaiting_input") {
      // Asked for more information: what, and (sealed; pipeline/verification/requested_input.h)
      // the reviewer's words for the applicant.
      core::Json asked = {{"reasonCodes", v->reason_codes},
                          {"captures", vs::RequestedCaptures(v->reason_codes)},
                          {"message", nullptr},
                          {"requestedAt", at}};
      if (!v->applicant_message_sealed.empty()) asked["messageSealed"] = v->applicant_message_sealed;
      r["requestedInput"] = std::move(asked);
      // Open for captures again, so it can expire again.
      SVC_ASSIGN_OR_RETURN(int64_t expires, MicrosOf(r, "expiresAt"));
      view.Put(V::Expiry(expires, env.tenant_id, env.environment, id), "");
    }
  }
  std::string new_status = core::StringOr(r, "status");
  SVC_ASSIGN_OR_RETURN(int64_t created, MicrosOf(r, "createdAt"));
  const std::string order = V::Order(created, id);
  std::string record = core::DumpJson(r);
  view.Put(V::Index(te, V::All()) + order, record);
  view.Put(rec_key, std::move(record));
  if (new_status != old_status) {
    view.Delete(V::Index(te, V::ByStatus(old_status)) + order);
    view.Put(V::Index(te, V::ByStatus(new_status)) + order, "");
    SVC_RETURN_IF_ERROR(Bump(view, V::Counter(te, V::ByStatus(old_status)), -1));
    SVC_RETURN_IF_ERROR(Bump(view, V::Counter(te, V::ByStatus(new_status)), 1));
    SVC_RETURN_IF_ERROR(Bump(view, V::Volume(te, core::FormatDate(env.occurred_at), new_status), 1));
    if (!vs::IsOpenStatus(new_status)) {
      SVC_ASSIGN_OR_RETURN(int64_t expires, MicrosOf(r, "expiresAt"));
      view.Delete(V::Expiry(expires, env.tenant_id, env.environment, id));
    }
  }
  return core::Status::Ok();
}

}  // namespace svc::projections
