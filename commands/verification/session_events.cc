#include "commands/verification/session_events.h"

namespace svc::commands::verification {

std::string_view TypeOf(const SessionEvent& e) {
  return std::visit([](const auto& v) { return std::decay_t<decltype(v)>::kType; }, e);
}
int SchemaOf(const SessionEvent& e) {
  return std::visit([](const auto& v) { return std::decay_t<decltype(v)>::kSchema; }, e);
}

namespace {
core::Json OrNull(const std::string& s) { return s.empty() ? core::Json(nullptr) : core::Json(s); }
std::string Str(const core::Json& j, const char* k) {
  auto it = j.find(k);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}
}  // namespace

std::string EncodeData(const SessionEvent& event) {
  core::Json j = core::Json::object();
  std::visit(
      [&](const auto& e) {
        using T = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<T, SessionCreated>) {
          j["publicId"] = e.public_id;
          j["channel"] = e.channel;
          j["applicationId"] = e.application_id;
          j["flowId"] = OrNull(e.flow_id);
          j["flow"] = OrNull(e.flow);
          j["personId"] = OrNull(e.person_id);
          j["clientReference"] = e.has_client_reference ? core::Json(e.client_reference)
                                                        : core::Json(nullptr);
          j["country"] = e.country;
          j["locale"] = e.locale;
          j["notificationsMode"] = e.notifications_mode;
          j["callbackUrl"] = OrNull(e.callback_url);
          j["redirectUrl"] = OrNull(e.redirect_url);
          j["checks"] = e.checks.is_object() ? e.checks : core::Json(nullptr);
          j["policy"] = e.policy.is_object() ? e.policy : core::Json(nullptr);
          j["metaSealed"] = OrNull(e.meta_sealed);
          j["linkTokenSealed"] = OrNull(e.link_token_sealed);
          j["expiresAtMicros"] = e.expires_at_micros;
        } else if constexpr (std::is_same_v<T, ConsentRecorded>) {
          j["accepted"] = e.accepted;
          j["consentedAtMicros"] = e.consented_at_micros;
          j["policyVersion"] = e.policy_version;
          j["subjectSealed"] = OrNull(e.subject_sealed);
        }
      },
      event);
  return core::DumpJson(j);
}

core::Result<SessionEvent> Decode(const eventstore::EventEnvelope& env) {
  // Session events are small and read off the hot path; nlohmann is enough here.
  core::Json j = core::ParseJsonOrDiscarded(env.data);
  if (!j.is_object()) return core::DataLoss("session event data is not an object");
  if (env.type == SessionCreated::kType) {
    SessionCreated e;
    e.public_id = Str(j, "publicId");
    e.channel = Str(j, "channel");
    e.application_id = Str(j, "applicationId");
    e.flow_id = Str(j, "flowId");
    e.flow = Str(j, "flow");
    e.person_id = Str(j, "personId");
    e.has_client_reference = j.contains("clientReference") && j["clientReference"].is_string();
    e.client_reference = Str(j, "clientReference");
    e.country = Str(j, "country");
    e.locale = Str(j, "locale");
    e.notifications_mode = Str(j, "notificationsMode");
    e.callback_url = Str(j, "callbackUrl");
    e.redirect_url = Str(j, "redirectUrl");
    e.checks = j.contains("checks") ? j["checks"] : core::Json(nullptr);
    e.policy = j.contains("policy") ? j["policy"] : core::Json(nullptr);
    e.meta_sealed = Str(j, "metaSealed");
    e.link_token_sealed = Str(j, "linkTokenSealed");
    e.expires_at_micros = j.value("expiresAtMicros", int64_t{0});
    return SessionEvent(std::move(e));
  }
  if (env.type == ConsentRecorded::kType) {
    ConsentRecorded e;
    e.accepted = j.value("accepted", false);
    e.consented_at_micros = j.value("consentedAtMicros", int64_t{0});
    e.policy_version = Str(j, "policyVersion");
    e.subject_sealed = Str(j, "subjectSealed");
    return SessionEvent(std::move(e));
  }
  if (env.type == SessionExpired::kType) return SessionEvent(SessionExpired{});
  return core::InvalidArgument("not a verification session event: " + env.type);
}

}  // namespace svc::commands::verification
