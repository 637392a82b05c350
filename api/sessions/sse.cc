#include "api/sessions/sse.h"

#include "commands/verification/session_events.h"
#include "core/json.h"
#include "projections/verification_projector.h"

namespace svc::api {

bool IsFinalProgress(const core::Json& entry) {
  std::string type = core::StringOr(entry, "type");
  // A verdict (the submission's answer), the expiry, or a refused consent end the stream.
  namespace vs = commands::verification;
  if (type == vs::SessionExpired::kType) return true;
  for (auto t : vs::kVerdictTypes) {
    if (type == t) return true;
  }
  return type == "verification.consent_recorded" && entry.contains("consentGiven") &&
         entry["consentGiven"].is_boolean() && !entry["consentGiven"].get<bool>();
}

SseFeed SessionProgressFeed(const std::string& tenant, const std::string& env, const std::string& session,
                            std::optional<eventstore::LogPosition> after) {
  using VV = projections::VerificationView;
  const std::string te = projections::TenantEnv(tenant, env);
  SseFeed f;
  f.prefix = VV::Abs(VV::Stream(te, session));
  if (after.has_value()) f.after_key = VV::Abs(VV::StreamAt(te, session, *after));
  f.suffix_bytes = 12;  // <partition 4B BE><offset 8B BE>
  f.id_of = [](std::string_view pos) {
    eventstore::LogPosition p{eventstore::GetFixed32BE(pos), eventstore::GetFixed64BE(pos.substr(4))};
    return projections::VerificationProjector::StreamId(p);
  };
  f.event_of = [](const core::Json& row) { return core::StringOr(row, "type"); };
  f.is_final = &IsFinalProgress;
  return f;
}

}  // namespace svc::api
