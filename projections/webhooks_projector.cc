#include "projections/webhooks_projector.h"

#include "commands/compliance/retention.h"
#include "commands/verification/session_events.h"
#include "commands/verification/session_status.h"
#include "commands/webhooks/endpoint_events.h"
#include "commands/webhooks/webhook_types.h"
#include "core/clock.h"
#include "core/crypto.h"
#include "core/json.h"

namespace svc::projections {

namespace wh = commands::webhooks;
namespace cc = commands::compliance;
namespace vs = commands::verification;

namespace {

// An endpoint's `publicKeys` (v1a): the signing key's public key in force, then the previous one
// while it still signs (after a rotation); [] for a v1 endpoint.
core::Json PublicKeys(const std::string& current, const std::string& previous, const std::string& previous_until) {
  core::Json keys = core::Json::array();
  if (!current.empty()) keys.push_back({{"publicKey", current}, {"validUntil", nullptr}});
  if (!previous.empty()) keys.push_back({{"publicKey", previous}, {"validUntil", previous_until}});
  return keys;
}

using WhV = WebhooksView;

// The `data` of a webhook derived from a domain event (webhook_types.h), by the body's schema;
// null when the type has no data builder.
core::Json WebhookData(const wh::WebhookType& t, const eventstore::EventEnvelope& e, const core::Json& j) {
  if (t.payload_schema == "VerificationVerdictEvent") {
    core::Json data = {{"sessionId", e.aggregate_id},
                       {"trackingId", j.value("trackingId", "")},
                       {"decision", j.value("decision", core::Json())},
                       {"report", j.value("report", core::Json())}};
    if (j.value("outcome", "") == "more_info") {
      // What the applicant is asked for, as the session shows it; the reviewer's words stay sealed
      // in the kept body and are opened at each attempt (pipeline/verification/requested_input.h).
      const auto codes = j.value("reasonCodes", std::vector<std::string>{});
      core::Json asked = {{"reasonCodes", codes},
                          {"captures", vs::RequestedCaptures(codes)},
                          {"message", nullptr},
                          {"requestedAt", core::FormatRfc3339(e.occurred_at)}};
      if (const std::string sealed = j.value("applicantMessageSealed", ""); !sealed.empty()) {
        asked["messageSealed"] = sealed;
      }
      data["requestedInput"] = std::move(asked);
    }
    return data;
  }
  if (t.payload_schema == "VerificationExpiredEvent") return {{"sessionId", e.aggregate_id}};
  if (t.payload_schema == "BreachNotifiedEvent") {
    return {{"breachId", e.aggregate_id},
            {"severity", j.value("severity", "")},
            {"scope", j.value("scope", "")},
            {"detectedAt", core::FormatRfc3339(core::Timestamp{j.value("detected", int64_t{0})})},
            {"subprocessorsAffected", j.value("subprocessorsAffected", core::Json::array())}};
  }
  if (t.payload_schema == "CaseEscalatedEvent") {
    return {{"caseId", e.aggregate_id},
            {"sessionId", j.value("sessionId", core::Json(nullptr))},
            {"level", j.value("level", int64_t{1})},
            {"priority", j.value("priority", "")},
            {"escalatedAt", core::FormatRfc3339(e.occurred_at)},
            {"escalatedBy", j.value("by", core::Json::object())}};
  }
  if (t.payload_schema == "AuditAccessEvent") {
    // Only the accesses of manual review become webhooks (the spec's `audit.event`); the other
    // reveals are in the audit log alone.
    const std::string channel = j.value("channel", "");
    if (channel != "review_case" && channel != "review_media") return nullptr;
    return {{"eventId", e.id},
            {"caseId", j.value("caseId", core::Json(nullptr))},
            {"personId", j.value("personId", core::Json(nullptr))},
            {"channel", channel},
            {"fields", j.value("fields", core::Json::array())},
            {"actor", {{"type", j.value("actorType", "")}, {"id", j.value("actorId", "")}}},
            {"purpose", j.value("purpose", core::Json(nullptr))},
            {"accessedAt", core::FormatRfc3339(e.occurred_at)}};
  }
  if (t.payload_schema == "CompanyVerificationCompletedEvent") {
    return {{"companyId", e.aggregate_id},
            {"run", j.value("run", int64_t{0})},
            {"status", j.value("status", "")},
            {"riskLevel", j.value("level", "")},
            {"riskScore", j.value("score", int64_t{0})},
            {"verifiedAt", core::FormatRfc3339(e.occurred_at)}};
  }
  if (t.payload_schema == "AmlHitFoundEvent") {
    // Ids, the list's public data and the score: never the subject's name.
    return {{"hitId", e.aggregate_id},
            {"screeningId", j.value("screeningId", "")},
            {"subjectType", j.value("subjectType", "")},
            {"subjectId", j.value("subjectId", core::Json(nullptr))},
            {"companyId", j.value("companyId", core::Json(nullptr))},
            {"list", {{"source", j.value("listSource", "")}, {"contentHash", j.value("listHash", "")}}},
            {"entryId", j.value("entryId", "")},
            {"score", j.value("score", 0.0)},
            {"foundAt", core::FormatRfc3339(e.occurred_at)}};
  }
  if (t.payload_schema == "ArcoRequestEvent") {
    // Ids, codes and dates: the request's state after the move (never personal data).
    auto time_or_null = [&](const char* field) {
      const int64_t micros = j.value(field, int64_t{0});
      return micros > 0 ? core::Json(core::FormatRfc3339(core::Timestamp{micros})) : core::Json(nullptr);
    };
    core::Json data = {{"arcoRequestId", e.aggregate_id},
                       {"right", j.value("right", "")},
                       {"status", j.value("status", "")},
                       {"subjectType", j.value("subjectType", "")},
                       {"personId", j.value("personId", core::Json(nullptr))},
                       {"companyId", j.value("companyId", core::Json(nullptr))},
                       {"subjectId", j.value("subjectId", core::Json(nullptr))},
                       {"reference", j.value("reference", core::Json(nullptr))},
                       {"responseDueAt", time_or_null("responseDueMicros")},
                       {"informationDueAt", time_or_null("informationDueMicros")},
                       {"effectDueAt", time_or_null("effectDueMicros")},
                       {"denialReason", j.value("denialReason", core::Json(nullptr))},
                       {"fulfilledBy", j.value("fulfilledBy", core::Json(nullptr))}};
    if (j.contains("deadline")) {
      data["deadline"] = j.value("deadline", "");
      data["deadlineDueAt"] = time_or_null("deadlineDueMicros");
    }
    return data;
  }
  if (t.payload_schema == "AuditCheckpointPublishedEvent") {
    return {{"origin", j.value("origin", "")},
            {"treeSize", j.value("treeSize", int64_t{0})},
            {"rootHash", j.value("rootHash", "")},
            {"checkpoint", j.value("checkpoint", "")}};
  }
  return nullptr;
}

}  // namespace

// compliance.rows_swept (webhook_deliveries): the finished deliveries created before the cutoff
// go, with their bodies, attempts and index entries. Pending and retrying ones stay.
core::Status WebhooksProjector::ApplySweep(const eventstore::RecordedEvent& re, ViewWriter& view) {
  const auto& env = re.event;
  SVC_ASSIGN_OR_RETURN(cc::RetentionEvent event, cc::DecodeRetention(env));
  const auto& swept = std::get<cc::RowsSwept>(event);
  if (swept.resource != cc::kWebhookDeliveriesResource) return core::Status::Ok();
  const std::string te = TenantEnv(env.tenant_id, env.environment);
  const std::string all = WhV::Deliveries(te);
  // Newest first: the entries from the cutoff's inverted time on are the older ones.
  std::vector<std::pair<std::string, std::string>> gone;  // index entry, delivery id
  SVC_RETURN_IF_ERROR(view.Scan(all + WhV::Inverted(swept.before_micros - 1), eventstore::PrefixEnd(all),
                                [&](std::string_view key, std::string_view) {
                                  std::string entry(key.substr(all.size()));
                                  gone.emplace_back(entry, std::string(WhV::IdOfEntry(entry)));
                                  return true;
                                }));
  for (const auto& [entry, whd] : gone) {
    SVC_ASSIGN_OR_RETURN(auto stored, view.Get(WhV::Delivery(te, whd)));
    if (!stored.has_value()) continue;
    core::Json row = core::ParseJsonOrDiscarded(*stored);
    const std::string status = row.value("status", "");
    if (status != "sent" && status != "failed") continue;  // still in flight
    view.Delete(all + entry);
    if (const std::string whe = core::StringOr(row, "endpointId"); !whe.empty()) {
      view.Delete(WhV::EndpointDeliveries(te, whe) + entry);
    }
    view.Delete(WhV::Delivery(te, whd));
    view.Delete(WhV::DeliveryBody(te, whd));
    const std::string attempts = WhV::Attempts(te, whd);
    std::vector<std::string> attempt_keys;
    SVC_RETURN_IF_ERROR(view.Scan(attempts, eventstore::PrefixEnd(attempts), [&](std::string_view key, std::string_view) {
      attempt_keys.emplace_back(key);
      return true;
    }));
    for (const auto& k : attempt_keys) view.Delete(k);
  }
  view.Put(WhV::Swept(te), std::to_string(swept.before_micros));
  return core::Status::Ok();
}

std::string WebhooksProjector::DeliveryId(std::string_view event_id, std::string_view endpoint_id) {
  return "whd_" + core::Sha256Hex(std::string(event_id) + "|" + std::string(endpoint_id)).substr(0, 32);
}

void WebhooksProjector::AfterCommit() {
  // Batches that only recorded final attempts (sent, failed) leave nothing new to dispatch.
  if (!due_added_.exchange(false)) return;
  listeners_.Notify();
}

core::Status WebhooksProjector::Apply(const eventstore::RecordedEvent& re, ViewWriter& view) {
  const auto& env = re.event;
  const wh::WebhookType* derived = wh::WebhookTypeFor(env.aggregate_type, env.type);
  if (env.aggregate_type == cc::kRetentionAggregate) return ApplySweep(re, view);
  // A session created with a callbackUrl (and its secret) keeps its callback here.
  const bool callback_created = env.aggregate_type == vs::kSessionAggregate && env.type == vs::SessionCreated::kType &&
                                env.data.find("\"callbackSecretSealed\"") != std::string::npos;
  if (env.aggregate_type != wh::kEndpointAggregate && env.aggregate_type != wh::kDeliveryAggregate &&
      derived == nullptr && !callback_created) {
    return core::Status::Ok();  // most events: nothing to do, nothing to parse
  }
  const std::string at = core::FormatRfc3339(env.occurred_at);
  const std::string te = TenantEnv(env.tenant_id, env.environment);

  // One delivery to `url`: to endpoint `whe`, or (`callback_session` set, `whe` "") to a session's
  // callbackUrl. The due row's value is the dispatcher's lane: the endpoint, or the session.
  auto deliver = [&](const std::string& whe, const std::string& url, const std::string& type, std::string whd,
                     const std::string& callback_session = "") {
    if (whd.empty()) whd = DeliveryId(env.id, whe.empty() ? "cb:" + callback_session : whe);
    core::Json row = {{"id", whd},
                      {"attempts", 0},
                      {"createdAt", at},
                      {"endpointId", whe.empty() ? core::Json(nullptr) : core::Json(whe)},
                      {"eventId", env.id},
                      {"eventType", type},
                      {"lastError", nullptr},
                      {"lastStatusCode", nullptr},
                      {"nextRetryAt", at},
                      {"sentAt", nullptr},
                      {"status", "pending"},
                      {"targetUrl", url},
                      {"updatedAt", at},
                      {"callbackSessionId", callback_session.empty() ? core::Json(nullptr) : core::Json(callback_session)}};
    view.Put(WhV::Delivery(te, whd), core::DumpJson(row));
    std::string inv = WhV::Inverted(env.occurred_at.micros);
    view.Put(WhV::Deliveries(te) + inv + whd, "");
    if (!whe.empty()) view.Put(WhV::EndpointDeliveries(te, whe) + inv + whd, "");
    view.Put(WhV::Due(env.occurred_at.micros, te, whd), whe.empty() ? callback_session : whe);
    due_added_ = true;
    return std::make_pair(whd, env.occurred_at.micros);
  };

  if (callback_created) {
    SVC_ASSIGN_OR_RETURN(const vs::SessionEvent* decoded, vs::DecodeShared(re));
    const auto& c = std::get<vs::SessionCreated>(*decoded);
    view.Put(WhV::Callback(te, env.aggregate_id),
             core::DumpJson({{"url", c.callback_url}, {"secretSealed", c.callback_secret_sealed}}));
    return core::Status::Ok();
  }

  if (env.aggregate_type == wh::kEndpointAggregate) {
    SVC_ASSIGN_OR_RETURN(wh::EndpointEvent event, wh::DecodeEndpointEvent(env));
    const std::string ep_key = WhV::Endpoint(te, env.aggregate_id), sec_key = WhV::Secret(te, env.aggregate_id);
    if (const auto* c = std::get_if<wh::EndpointCreated>(&event)) {
      core::Json row = {{"id", env.aggregate_id},
                        {"applicationId", c->application_id},
                        {"createdAt", at},
                        {"description", c->description},
                        {"environment", c->environment},
                        {"events", c->events},
                        {"isActive", true},
                        {"updatedAt", at},
                        {"url", c->url},
                        {"signatureScheme", c->public_key.empty() ? "v1" : "v1a"},
                        {"publicKeys", PublicKeys(c->public_key, "", "")}};
      view.Put(ep_key, core::DumpJson(row));
      view.Put(sec_key, core::DumpJson({{"secretSealed", c->secret_sealed},
                                        {"previousSecretSealed", ""},
                                        {"previousValidUntilMicros", 0}}));
      view.Put(WhV::IssuedSecret(te, env.aggregate_id, env.aggregate_version),
               core::DumpJson({{"secretSealed", c->secret_sealed}}));
      view.Put(WhV::Endpoints(te) + WhV::Inverted(env.occurred_at.micros) + env.aggregate_id, "");
      SVC_ASSIGN_OR_RETURN(auto ids, view.Get(WhV::EndpointIds(te)));
      core::Json list = ids ? core::ParseJsonOrDiscarded(*ids) : core::Json::array();
      list.push_back(env.aggregate_id);
      view.Put(WhV::EndpointIds(te), core::DumpJson(list));
      // Registering an endpoint sends it service.test (whatever it subscribed to).
      core::Json body = {{"apiVersion", wh::kWebhookApiVersion},
                         {"id", env.id},
                         {"type", "service.test"},
                         {"data", {{"endpointId", env.aggregate_id}, {"message", "endpoint registered"}}}};
      auto [whd, due] = deliver(env.aggregate_id, c->url, "service.test", "");
      view.Put(WhV::DeliveryBody(te, whd), core::DumpJson({{"body", core::DumpJson(body)}, {"dueMicros", due}}));
      return core::Status::Ok();
    }
    SVC_ASSIGN_OR_RETURN(auto stored, view.Get(ep_key));
    if (!stored.has_value()) return core::DataLoss("webhook endpoint event without its row: " + ep_key);
    core::Json row = core::ParseJsonOrDiscarded(*stored);
    if (const auto* u = std::get_if<wh::EndpointUpdated>(&event)) {
      for (const char* k : {"url", "description", "applicationId", "events", "isActive"}) {
        if (u->changes.contains(k)) row[k] = u->changes[k];
      }
    } else if (const auto* r = std::get_if<wh::SecretRotated>(&event)) {
      view.Put(sec_key, core::DumpJson({{"secretSealed", r->secret_sealed},
                                        {"previousSecretSealed", r->previous_secret_sealed},
                                        {"previousValidUntilMicros", r->previous_valid_until_micros}}));
      // The secret of this rotation, still sealed, by the aggregate version that made it: an
      // idempotent replay of the rotation (same Idempotency-Key) answers with the same secret.
      view.Put(WhV::IssuedSecret(te, env.aggregate_id, env.aggregate_version),
               core::DumpJson({{"secretSealed", r->secret_sealed}}));
      row["publicKeys"] = PublicKeys(r->public_key, r->previous_public_key,
                                     core::FormatRfc3339(core::Timestamp{r->previous_valid_until_micros}));
    }
    row["updatedAt"] = at;
    view.Put(ep_key, core::DumpJson(row));
    return core::Status::Ok();
  }

  if (env.aggregate_type == wh::kDeliveryAggregate) {
    SVC_ASSIGN_OR_RETURN(wh::DeliveryEvent event, wh::DecodeDeliveryEvent(env));
    const std::string& whd_this = env.aggregate_id;
    SVC_ASSIGN_OR_RETURN(auto stored, view.Get(WhV::Delivery(te, whd_this)));
    SVC_ASSIGN_OR_RETURN(auto extra, view.Get(WhV::DeliveryBody(te, whd_this)));
    if (!stored.has_value() || !extra.has_value()) {
      // Removed by a retention sweep (finished and old): a late retry of it has nothing to copy.
      SVC_ASSIGN_OR_RETURN(auto swept, view.Get(WhV::Swept(te)));
      if (swept.has_value()) return core::Status::Ok();
      return core::DataLoss("delivery event without its delivery: " + te + "/" + whd_this);
    }
    core::Json row = core::ParseJsonOrDiscarded(*stored);
    core::Json x = core::ParseJsonOrDiscarded(*extra);
    // The delivery's lane (its due rows' value): the endpoint, or the session of a callback.
    const std::string endpoint_of_row = core::StringOr(row, "endpointId");
    const std::string lane = endpoint_of_row.empty() ? core::StringOr(row, "callbackSessionId") : endpoint_of_row;
    if (const auto* retried = std::get_if<wh::DeliveryRetried>(&event)) {
      // A new delivery of the same event and body, to the endpoint's current URL (or the session's
      // callbackUrl); the original stays as it is.
      std::string whe = core::StringOr(row, "endpointId");
      const std::string session = core::StringOr(row, "callbackSessionId");
      std::string url;
      if (!session.empty()) {
        SVC_ASSIGN_OR_RETURN(auto cb, view.Get(WhV::Callback(te, session)));
        if (!cb.has_value()) return core::DataLoss("delivery retried for a session without a callback: " + session);
        url = core::StringOr(core::ParseJsonOrDiscarded(*cb), "url");
      } else {
        SVC_ASSIGN_OR_RETURN(auto ep, view.Get(WhV::Endpoint(te, whe)));
        if (!ep.has_value()) return core::DataLoss("delivery retried for an unknown endpoint: " + whe);
        url = core::StringOr(core::ParseJsonOrDiscarded(*ep), "url");
      }
      auto [whd, due] = deliver(whe, url, row.value("eventType", ""), retried->new_delivery_id, session);
      // The retried delivery carries the original event's id (webhook-id stays stable).
      SVC_ASSIGN_OR_RETURN(auto fresh, view.Get(WhV::Delivery(te, whd)));
      core::Json fresh_row = core::ParseJsonOrDiscarded(fresh.value_or("{}"));
      fresh_row["eventId"] = row.value("eventId", "");
      view.Put(WhV::Delivery(te, whd), core::DumpJson(fresh_row));
      view.Put(WhV::DeliveryBody(te, whd), core::DumpJson({{"body", x.value("body", "")}, {"dueMicros", due}}));
      return core::Status::Ok();
    }
    if (const auto* started = std::get_if<wh::DeliveryAttemptStarted>(&event)) {
      // Being posted: due again only when its lease has passed (then it is recorded as
      // interrupted, not posted again). The delivery's public row is unchanged.
      int64_t old_due = x.value("dueMicros", int64_t{-1});
      if (old_due < 0) return core::Status::Ok();  // recorded already (a start that lost the race)
      view.Delete(WhV::Due(old_due, te, whd_this));
      x["dueMicros"] = started->lease_until_micros;
      x["started"] = started->attempt;
      view.Put(WhV::Due(started->lease_until_micros, te, whd_this), lane);
      view.Put(WhV::DeliveryBody(te, whd_this), core::DumpJson(x));
      return core::Status::Ok();  // due in the future: no wake-up (the periodic check finds it)
    }
    const auto& a = std::get<wh::DeliveryAttempted>(event);
    const int attempt = a.attempt;
    const std::string& outcome = a.outcome;
    const core::Json status_code = a.status_code > 0 ? core::Json(a.status_code) : core::Json(nullptr);
    const core::Json error = a.error.empty() ? core::Json(nullptr) : core::Json(a.error);
    row["attempts"] = attempt;
    row["lastStatusCode"] = status_code;
    row["lastError"] = error;
    row["updatedAt"] = at;
    // The due row's key holds binary bytes: the row keeps its time as a number (-1 = none).
    int64_t old_due = x.value("dueMicros", int64_t{-1});
    if (old_due >= 0) view.Delete(WhV::Due(old_due, te, whd_this));
    x["dueMicros"] = -1;
    if (outcome == "delivered") {
      row["status"] = "sent";
      row["sentAt"] = at;
      row["nextRetryAt"] = nullptr;
    } else if (outcome == "failed") {
      row["status"] = "failed";
      row["nextRetryAt"] = nullptr;
    } else {
      int64_t next = a.next_retry_at_micros;
      row["nextRetryAt"] = core::FormatRfc3339(core::Timestamp{next});
      x["dueMicros"] = next;
      view.Put(WhV::Due(next, te, whd_this), lane);
      due_added_ = true;
    }
    view.Put(WhV::Delivery(te, whd_this), core::DumpJson(row));
    view.Put(WhV::DeliveryBody(te, whd_this), core::DumpJson(x));
    view.Put(WhV::Attempt(te, whd_this, static_cast<uint32_t>(attempt)), core::DumpJson({{"attempt", attempt},
                                 {"attemptedAt", at},
                                 {"statusCode", status_code},
                                 {"error", error},
                                 {"latencyMs", a.latency_ms},
                                 {"outcome", outcome}}));
    return core::Status::Ok();
  }

  // Events that become webhooks: one delivery per active endpoint subscribed to the type, and a
  // session's own events to its callbackUrl (every type, whatever the endpoints subscribed to).
  if (env.environment.empty() || derived == nullptr) return core::Status::Ok();
  core::Json j = core::ParseJsonOrDiscarded(env.data);
  core::Json data = WebhookData(*derived, env, j);
  if (data.is_null()) return core::Status::Ok();
  const std::string type(derived->type);
  core::Json body = {{"apiVersion", wh::kWebhookApiVersion}, {"id", env.id}, {"type", type}, {"data", data}};
  std::string text = core::DumpJson(body);
  SVC_ASSIGN_OR_RETURN(auto ids, view.Get(WhV::EndpointIds(te)));
  for (const auto& id : ids.has_value() ? core::ParseJsonOrDiscarded(*ids) : core::Json::array()) {
    std::string whe = id.get<std::string>();
    SVC_ASSIGN_OR_RETURN(auto ep, view.Get(WhV::Endpoint(te, whe)));
    if (!ep.has_value()) continue;
    core::Json row = core::ParseJsonOrDiscarded(*ep);
    if (!row.value("isActive", false) || !wh::Subscribed(row.value("events", core::Json()), type)) continue;
    auto [whd, due] = deliver(whe, core::StringOr(row, "url"), type, "");
    view.Put(WhV::DeliveryBody(te, whd), core::DumpJson({{"body", text}, {"dueMicros", due}}));
  }
  if (env.aggregate_type == vs::kSessionAggregate) {
    SVC_ASSIGN_OR_RETURN(auto cb, view.Get(WhV::Callback(te, env.aggregate_id)));
    if (cb.has_value()) {
      auto [whd, due] = deliver("", core::StringOr(core::ParseJsonOrDiscarded(*cb), "url"), type, "", env.aggregate_id);
      view.Put(WhV::DeliveryBody(te, whd), core::DumpJson({{"body", text}, {"dueMicros", due}}));
    }
  }
  return core::Status::Ok();
}

}  // namespace svc::projections
