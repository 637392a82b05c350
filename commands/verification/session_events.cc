#include "commands/verification/session_events.h"

namespace svc::commands::verification {

std::string_view TypeOf(const SessionEvent& e) {
  if (const auto* v = std::get_if<VerdictReached>(&e)) return v->type;
  return std::visit(
      [](const auto& v) -> std::string_view {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, VerdictReached>) {
          return v.type;
        } else {
          return T::kType;
        }
      },
      e);
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
        } else if constexpr (std::is_same_v<T, MediaCaptured>) {
          j["mediaId"] = e.media_id;
          j["kind"] = e.kind;
          j["mime"] = e.mime;
          j["sha256"] = e.sha256;
          j["sizeBytes"] = e.size_bytes;
          j["blob"] = e.blob;
          j["challengeId"] = OrNull(e.challenge_id);
          if (!e.challenge_actions.empty()) j["challengeActions"] = e.challenge_actions;
          j["analysis"] = e.analysis.is_object() ? e.analysis : core::Json(nullptr);
          j["extractedSealed"] = OrNull(e.extracted_sealed);
        } else if constexpr (std::is_same_v<T, LivenessChallengeIssued>) {
          j["challengeId"] = e.challenge_id;
          j["actions"] = e.actions;
          j["expiresAtMicros"] = e.expires_at_micros;
        } else if constexpr (std::is_same_v<T, SessionSubmitted>) {
          j["trackingId"] = e.tracking_id;
          j["submission"] = e.submission;
          j["mediaIds"] = e.media_ids;
        } else if constexpr (std::is_same_v<T, StageCompleted>) {
          j["trackingId"] = e.tracking_id;
          j["stage"] = e.stage;
          j["outcome"] = e.outcome;
          j["summary"] = e.summary.is_object() ? e.summary : core::Json::object();
          j["detailsSealed"] = OrNull(e.details_sealed);
        } else if constexpr (std::is_same_v<T, VerdictReached>) {
          j["trackingId"] = e.tracking_id;
          j["outcome"] = e.outcome;
          j["reasonCodes"] = e.reason_codes;
          j["trustScore"] = e.trust_score.is_number() ? e.trust_score : core::Json(nullptr);
          j["caseId"] = OrNull(e.case_id);
          j["decision"] = e.decision;
          j["report"] = e.report;
        }
      },
      event);
  return core::DumpJson(j);
}

core::Result<const SessionEvent*> DecodeShared(const eventstore::RecordedEvent& recorded) {
  if (const auto* e = std::any_cast<SessionEvent>(&recorded.decoded)) return e;
  SVC_ASSIGN_OR_RETURN(SessionEvent e, Decode(recorded.event));
  recorded.decoded = std::move(e);
  return std::any_cast<SessionEvent>(&recorded.decoded);
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
  auto strings = [&](const char* k) {
    std::vector<std::string> out;
    auto it = j.find(k);
    if (it != j.end() && it->is_array()) {
      for (const auto& v : *it) {
        if (v.is_string()) out.push_back(v.get<std::string>());
      }
    }
    return out;
  };
  auto member = [&](const char* k) {
    auto it = j.find(k);
    return it != j.end() ? *it : core::Json(nullptr);
  };
  if (env.type == MediaCaptured::kType) {
    MediaCaptured e;
    e.media_id = Str(j, "mediaId");
    e.kind = Str(j, "kind");
    e.mime = Str(j, "mime");
    e.sha256 = Str(j, "sha256");
    e.size_bytes = core::IntOr(j, "sizeBytes", 0);
    e.blob = Str(j, "blob");
    e.challenge_id = Str(j, "challengeId");
    e.challenge_actions = strings("challengeActions");
    e.analysis = member("analysis");
    e.extracted_sealed = Str(j, "extractedSealed");
    return SessionEvent(std::move(e));
  }
  if (env.type == LivenessChallengeIssued::kType) {
    LivenessChallengeIssued e;
    e.challenge_id = Str(j, "challengeId");
    e.actions = strings("actions");
    e.expires_at_micros = core::IntOr(j, "expiresAtMicros", 0);
    return SessionEvent(std::move(e));
  }
  if (env.type == SessionSubmitted::kType) {
    SessionSubmitted e;
    e.tracking_id = Str(j, "trackingId");
    e.submission = static_cast<int>(core::IntOr(j, "submission", 0));
    e.media_ids = strings("mediaIds");
    return SessionEvent(std::move(e));
  }
  if (env.type == StageCompleted::kType) {
    StageCompleted e;
    e.tracking_id = Str(j, "trackingId");
    e.stage = Str(j, "stage");
    e.outcome = Str(j, "outcome");
    e.summary = member("summary");
    e.details_sealed = Str(j, "detailsSealed");
    return SessionEvent(std::move(e));
  }
  for (auto t : kVerdictTypes) {
    if (env.type != t) continue;
    VerdictReached e;
    e.type = env.type;
    e.tracking_id = Str(j, "trackingId");
    e.outcome = Str(j, "outcome");
    e.reason_codes = strings("reasonCodes");
    e.trust_score = member("trustScore");
    e.case_id = Str(j, "caseId");
    e.decision = member("decision");
    e.report = member("report");
    return SessionEvent(std::move(e));
  }
  return core::InvalidArgument("not a verification session event: " + env.type);
}

}  // namespace svc::commands::verification
