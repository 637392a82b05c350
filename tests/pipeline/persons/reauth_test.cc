// Re-authentication by face (pipeline/persons/reauth.h): the decision from the engine's score with
// the documented thresholds, and no reference without an approved verification's face.
#include <doctest/doctest.h>

#include "pipeline/persons/reauth.h"
#include "projections/projector.h"
#include "tests/support/key_store_fixture.h"
#include "tests/support/views_fixture.h"

namespace pipeline_persons_reauth_test {

using namespace svc;
namespace pp = svc::pipeline::persons;
namespace pv = svc::pipeline::verification;

namespace {

pv::BiometricScore Score(std::optional<double> s, std::string status = "ok", std::string code = "") {
  pv::BiometricScore b;
  b.status = std::move(status);
  b.score = s;
  b.error_code = std::move(code);
  return b;
}

}  // namespace

TEST_CASE("reauth: the decision from the score, with the documented thresholds") {
  pp::FaceReference ref{{0.1f, 0.2f}, "dlib_resnet_v1", "2026-11-01T10:00:00Z"};
  auto at = [&](double s) { return *pp::ReauthAnswer(Score(s), ref); };
  CHECK(at(0.80)["decision"] == "match");
  CHECK(at(0.80)["match"] == true);
  CHECK(at(0.80)["reasonCodes"] == core::Json::array());
  CHECK(at(0.79)["decision"] == "inconclusive");
  CHECK(at(0.79)["reasonCodes"] == core::Json::array({"FACE_MATCH_INCONCLUSIVE"}));
  CHECK(at(0.50)["decision"] == "inconclusive");
  CHECK(at(0.49)["decision"] == "no_match");
  CHECK(at(0.49)["match"] == false);
  CHECK(at(0.49)["reasonCodes"] == core::Json::array({"FACE_MISMATCH"}));
  // The members in the order the schema lists them.
  std::vector<std::string> keys;
  const core::Json high = at(0.9);
  for (auto it = high.begin(); it != high.end(); ++it) keys.push_back(it.key());
  CHECK(keys == std::vector<std::string>{"object", "referenceCapturedAt", "threshold", "livenessPassed",
                                         "deepfakeGenuineConfidence", "presentationAttack", "score", "decision",
                                         "match", "reasonCodes"});
  CHECK(high["deepfakeGenuineConfidence"].is_null());  // no attack signals measured
  CHECK(at(0.9)["referenceCapturedAt"] == "2026-11-01T10:00:00Z");

  auto unreadable = pp::ReauthAnswer(Score(std::nullopt, "error", "NO_FACE"), ref);
  REQUIRE(unreadable.ok());
  CHECK((*unreadable)["decision"] == "inconclusive");
  CHECK((*unreadable)["score"].is_null());
  CHECK((*unreadable)["reasonCodes"] == core::Json::array({"NO_FACE"}));
  CHECK(pp::ReauthAnswer(Score(std::nullopt, "unavailable", "NO_FACE_MODEL"), ref).status().api_code() ==
        "REAUTH_ENGINE_UNAVAILABLE");
}

TEST_CASE("reauth: the attack signals — genuine confidence, and a suspected attack is never a match") {
  pp::FaceReference ref{{0.1f, 0.2f}, "dlib_resnet_v1", "2026-11-01T10:00:00Z"};
  pipeline::verification::BiometricScore clean = Score(0.03);
  auto answer = *pp::ReauthAnswer(Score(0.95), ref, clean);
  CHECK(answer["decision"] == "match");
  CHECK(answer["deepfakeGenuineConfidence"] == doctest::Approx(0.97));
  CHECK(answer["presentationAttack"] == false);
  pipeline::verification::BiometricScore attack = Score(0.91);
  attack.reasons = {"RECAPTURE_PATTERN"};
  auto replay = *pp::ReauthAnswer(Score(0.95), ref, attack);
  CHECK(replay["decision"] == "inconclusive");
  CHECK(replay["match"] == false);
  CHECK(replay["presentationAttack"] == true);
  CHECK(replay["deepfakeGenuineConfidence"] == doctest::Approx(0.09));
  CHECK(replay["reasonCodes"] == core::Json::array({"PRESENTATION_ATTACK_SUSPECTED", "RECAPTURE_PATTERN"}));
  // Another person's face stays a no_match, with the attack named too.
  auto other = *pp::ReauthAnswer(Score(0.2), ref, attack);
  CHECK(other["decision"] == "no_match");
  CHECK(other["reasonCodes"] == core::Json::array({"PRESENTATION_ATTACK_SUSPECTED", "RECAPTURE_PATTERN", "FACE_MISMATCH"}));
}

TEST_CASE("reauth: no reference face without an approved verification's face") {
  testing::KeyStoreFixture ks;
  testing::ViewsFixture views;
  CHECK(pp::ReferenceFace(views.store(), *ks.keys, "ten_1", "test", "per_1").status().api_code() ==
        "REAUTH_MEDIA_UNAVAILABLE");
}

}  // namespace pipeline_persons_reauth_test
