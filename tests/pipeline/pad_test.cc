// The attack signals (pipeline/biometrics/pad.*): their combination, the frame-repeat beat, the
// measures of an image too small to read, and the dlib engine's score and reasons on one bona fide
// selfie and one print replay. The floors on a draw of the attack set are held by media.pad
// (tests/media/pad_test.cc), outside the unit tier for their time.
#include <doctest/doctest.h>

#include "pipeline/biometrics/dlib_engine.h"
#include "pipeline/biometrics/pad.h"
#include "pipeline/verification/injection.h"
#include "tests/support/attack_set.h"
#include "tests/support/liveness_fixtures.h"
#include "tests/support/temp_dir.h"

namespace pipeline_pad_test {

using namespace svc;
using namespace svc::pipeline::biometrics;
namespace at = svc::testing::attacks;

namespace {

using svc::testing::liveness::Models;
using svc::testing::liveness::SourceFaces;

}  // namespace

TEST_CASE("pad: the signals' combination is a noisy-OR, each signal naming its reason at 0.5") {
  auto r = Combine({{"a", "A_CODE", 1.0, 0.5}, {"b", "B_CODE", 1.0, 0.2}, {"c", "C_CODE", 1.0, 0.0}});
  CHECK(r.score == doctest::Approx(1 - 0.5 * 0.8));
  CHECK(r.reasons == std::vector<std::string>{"A_CODE"});
  CHECK(Combine({}).score == 0.0);
  // A file at 25 fps into a 30 fps capture: every sixth frame repeated, on the beat.
  std::vector<bool> beat(89, false), scattered(89, false);
  for (size_t i = 5; i < beat.size(); i += 6) beat[i] = true;
  CHECK(FrameRepeatMeasure(beat) == 1.0);
  CHECK(FrameRepeatSignal(beat).reason_code == "VIDEO_FRAME_REPEATS");
  CHECK(FrameRepeatSignal(beat).score > 0.9);
  // An encoder skipping where a live picture rests (the pattern a live VP9 video of the attack set
  // had): a few pairs, off any beat.
  for (size_t i : {1u, 8u, 13u, 17u, 24u, 28u}) scattered[i] = true;
  CHECK(FrameRepeatSignal(scattered).score < 0.5);
  CHECK(FrameRepeatSignal(std::vector<bool>(89, false)).score == 0.0);
  CHECK(FrameRepeatSignal({}).score == 0.0);  // one frame: nothing to compare
  // The same beat where every pair has a B-frame (an encoder's own GOP): nothing to tell.
  CHECK(FrameRepeatSignal(beat, std::vector<bool>(89, false)).score == 0.0);
  // Measures of an image too small to read are 0 (no evidence), never a crash.
  Image tiny;
  tiny.width = tiny.height = 20;
  tiny.rgb.assign(20 * 20 * 3, 128);
  Face f;
  f.right = f.bottom = 10;
  CHECK(RecapturePatternMeasure(tiny, f) == 0.0);
  CHECK(FaceNoiseMeasure(tiny, f) == 0.0);
}


TEST_CASE("pad: the dlib engine's deepfake score, reasons and measurements") {
  testing::TempDir work;
  DlibEngine engine(Models());
  pipeline::verification::EngineContext ctx;
  auto bona = at::Make(*Models(), SourceFaces(), "bona_fide", "selfie", 1, 7, work);
  auto print = at::Make(*Models(), SourceFaces(), "print_replay", "selfie", 1, 7, work);
  REQUIRE(bona.size() == 1);
  REQUIRE(print.size() == 1);
  pipeline::verification::Capture selfie{"med_1", "selfie", "image/jpeg", bona[0].bytes, {}};
  auto clean = engine.AttackSignals(&selfie, nullptr, ctx);
  REQUIRE(clean.status == "ok");
  CHECK(*clean.score < 0.5);
  CHECK(clean.reasons.empty());
  CHECK(clean.model_name == kPadModelName);
  for (const char* s : {"recapture_pattern", "screen_colour", "face_noise", "forehead_noise", "face_detail"}) {
    CHECK_MESSAGE(clean.details["signals"].contains(s), s);
  }
  pipeline::verification::Capture replay{"med_2", "selfie", "image/jpeg", print[0].bytes, {}};
  auto caught = engine.AttackSignals(&replay, nullptr, ctx);
  REQUIRE(caught.status == "ok");
  CHECK(*caught.score >= 0.5);
  CHECK(std::find(caught.reasons.begin(), caught.reasons.end(), "RECAPTURE_PATTERN") != caught.reasons.end());
  // Nothing with a face to read: an error, never a pass.
  pipeline::verification::Capture blank{"med_3", "selfie", "image/png", *EncodePng(Image{64, 64, std::vector<uint8_t>(64 * 64 * 3, 90)}), {}};
  auto none = engine.AttackSignals(&blank, nullptr, ctx);
  CHECK(none.status == "error");
  CHECK(none.error_code == "NO_FACE_FOR_ATTACK_SIGNALS");
}


}  // namespace pipeline_pad_test
