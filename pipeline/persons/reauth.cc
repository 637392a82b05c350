#include "pipeline/persons/reauth.h"

#include <cmath>

#include "core/crypto.h"
#include "pipeline/verification/stage_details.h"
#include "projections/persons/persons_view.h"
#include "projections/verification_view.h"
#include "projections/view_rows.h"

namespace svc::pipeline::persons {

using PV = projections::PersonsView;
using VV = projections::VerificationView;

core::Result<FaceReference> ReferenceFace(const eventstore::KvStore& views, eventstore::KeyStore& keys,
                                          const std::string& tenant, const std::string& environment,
                                          const std::string& person) {
  auto unavailable = [] {
    return core::FailedPrecondition("no usable face from an approved verification of this person",
                                    "REAUTH_MEDIA_UNAVAILABLE");
  };
  const std::string te = projections::TenantEnv(tenant, environment);
  SVC_ASSIGN_OR_RETURN(auto face, projections::ReadRow(views, PV::Abs(PV::Face(te, person))));
  if (!face.has_value()) return unavailable();
  const std::string session = core::StringOr(*face, "sessionId");
  const std::string tracking = core::StringOr(*face, "trackingId");
  SVC_ASSIGN_OR_RETURN(auto stage, projections::ReadRow(views, VV::Abs(VV::Stage(te, session, tracking, "face_match"))));
  const std::string sealed = stage.has_value() ? core::StringOr(*stage, "detailsSealed") : "";
  if (sealed.empty()) return unavailable();
  SVC_ASSIGN_OR_RETURN(auto key, keys.Get(eventstore::KeyStore::SessionKeyName(tenant, environment, session)));
  if (!key.has_value()) return unavailable();  // the session's data was destroyed
  auto opened = verification::OpenStageDetails(*key, {tenant, environment, session, tracking, "face_match"}, sealed);
  core::SecureZero(*key);
  if (!opened.ok()) return unavailable();
  const core::Json& details = *opened;
  FaceReference ref;
  if (details.contains("selfieEmbedding") && details["selfieEmbedding"].is_array()) {
    for (const auto& f : details["selfieEmbedding"]) ref.embedding.push_back(f.get<float>());
  }
  if (ref.embedding.empty()) return unavailable();
  ref.model = core::StringOr(details, "modelName");
  ref.captured_at = core::StringOr(*face, "verifiedAt");
  const std::string media = core::StringOr(details, "mediaId");
  SVC_ASSIGN_OR_RETURN(auto captures, projections::ScanRows(views, VV::Abs(VV::Media(te, session))));
  for (const auto& m : captures) {
    if (core::StringOr(m, "mediaId") == media) ref.captured_at = core::StringOr(m, "capturedAt");
  }
  return ref;
}

core::Result<core::Json> ReauthAnswer(const verification::BiometricScore& score, const FaceReference& ref,
                                      const verification::BiometricScore& attack) {
  if (score.status == "unavailable") {
    return core::FailedPrecondition("the face engine cannot compare with the reference (" + score.error_code + ")",
                                    "REAUTH_ENGINE_UNAVAILABLE");
  }
  core::Json result = {{"object", "person.reauth_face"},
                       {"referenceCapturedAt", ref.captured_at},
                       {"threshold", kReauthMatch},
                       {"livenessPassed", nullptr},
                       {"deepfakeGenuineConfidence", nullptr},
                       {"presentationAttack", false}};
  if (score.status != "ok" || !score.score.has_value()) {
    result["decision"] = "inconclusive";
    result["match"] = false;
    result["score"] = nullptr;
    result["reasonCodes"] = core::Json::array({score.error_code.empty() ? "FACE_UNREADABLE" : score.error_code});
    return result;
  }
  const double sc = *score.score;
  const bool attack_measured = attack.status == "ok" && attack.score.has_value();
  const bool presentation_attack = attack_measured && *attack.score >= kReauthAttack;
  result["deepfakeGenuineConfidence"] =
      attack_measured ? core::Json(std::round((1.0 - *attack.score) * 10000.0) / 10000.0) : core::Json(nullptr);
  result["presentationAttack"] = presentation_attack;
  const bool match = sc >= kReauthMatch && !presentation_attack, no_match = sc < kReauthNoMatch;
  result["score"] = sc;
  result["decision"] = match ? "match" : no_match ? "no_match" : "inconclusive";
  result["match"] = match;
  core::Json reasons = core::Json::array();
  if (presentation_attack) {
    reasons.push_back("PRESENTATION_ATTACK_SUSPECTED");
    for (const auto& r : attack.reasons) reasons.push_back(r);
  }
  if (no_match) reasons.push_back("FACE_MISMATCH");
  else if (!match && !presentation_attack) reasons.push_back("FACE_MATCH_INCONCLUSIVE");
  result["reasonCodes"] = reasons;
  return result;
}

core::Result<core::Json> ReauthAnswer(const verification::BiometricScore& score, const FaceReference& ref) {
  verification::BiometricScore none;
  none.status = "unavailable";
  return ReauthAnswer(score, ref, none);
}

}  // namespace svc::pipeline::persons
