#pragma once
// Re-authentication of a person by face (POST /v1/persons/{id}/reauth-face; docs/persons.md):
// the reference is the face of the person's last approved verification — the face-match stage's
// sealed details (the selfie's embedding) opened with that session's key — and the decision is
// made from the engine's 1:1 score with the documented thresholds.

#include <string>
#include <vector>

#include "core/json.h"
#include "core/status.h"
#include "eventstore/key_store.h"
#include "eventstore/kv_store.h"
#include "pipeline/verification/engines.h"

namespace svc::pipeline::persons {

// The verification policy's face-match defaults: match at or above kReauthMatch, no_match below
// kReauthNoMatch, inconclusive between.
inline constexpr double kReauthMatch = 0.80;
inline constexpr double kReauthNoMatch = 0.50;

struct FaceReference {
  std::vector<float> embedding;
  std::string model;
  std::string captured_at;  // RFC 3339: the selfie's capture, else the verification's
};

// The person's reference face; REAUTH_MEDIA_UNAVAILABLE when there is none usable (no approved
// verification with a face, or that session's data destroyed).
core::Result<FaceReference> ReferenceFace(const eventstore::KvStore& views, eventstore::KeyStore& keys,
                                          const std::string& tenant, const std::string& environment,
                                          const std::string& person);

// The answer (PersonReauthFace) to the engine's `score`: REAUTH_ENGINE_UNAVAILABLE when the engine
// cannot compare with the reference; a face it cannot read is `inconclusive`. `attack`: the
// engine's attack signals on the same selfie — deepfakeGenuineConfidence is 1 - its deepfake score
// (null when not measured); at or above kReauthAttack the selfie is a presentationAttack and the
// answer is never a match (`inconclusive`, PRESENTATION_ATTACK_SUSPECTED and the signals' codes).
inline constexpr double kReauthAttack = 0.50;
core::Result<core::Json> ReauthAnswer(const verification::BiometricScore& score, const FaceReference& ref,
                                      const verification::BiometricScore& attack);
// The same with no attack signals measured (deepfakeGenuineConfidence null).
core::Result<core::Json> ReauthAnswer(const verification::BiometricScore& score, const FaceReference& ref);

}  // namespace svc::pipeline::persons
