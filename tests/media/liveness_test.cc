// Every challenge the server can draw (pipeline/biometrics/liveness.h: three actions, none twice
// in a row, 12 sequences) recognised on a synthesised video of it (tests/support/liveness_fixtures.h),
// and no other sequence, so the API tests pass whichever the draw gives. Its own tier (`media`,
// not `unit`) for its time: twelve clips drawn, encoded and read. The unit tier keeps one sequence
// of the three actions, and its wrong order (tests/pipeline/liveness_test.cc); the blinking face in
// VP9 moved here from it too (the unit tier decodes VP9 in the rotated photograph).
#include <doctest/doctest.h>

#include "pipeline/biometrics/liveness.h"
#include "pipeline/biometrics/video.h"
#include "tests/support/liveness_fixtures.h"
#include "tests/support/temp_dir.h"

namespace media_liveness_test {

using namespace svc;
using namespace svc::pipeline::biometrics;
namespace fx = svc::testing::liveness;

namespace {

LivenessResult Assess(const std::string& video, const std::vector<std::string>& challenge) {
  auto sample = SampleVideo(video, kLivenessFrames, kLivenessMaxSide);
  REQUIRE_MESSAGE(sample.ok(), sample.status().ToString());
  return AssessLiveness(*fx::Models(), sample->frames, challenge);
}

}  // namespace

TEST_CASE("liveness: every challenge the server can draw is recognised") {
  testing::TempDir dir;
  std::vector<std::vector<std::string>> all;
  for (const char* a : kLivenessActions) {
    for (const char* b : kLivenessActions) {
      for (const char* c : kLivenessActions) {
        if (std::string(a) != b && std::string(b) != c) all.push_back({a, b, c});
      }
    }
  }
  REQUIRE(all.size() == 12);
  for (size_t i = 0; i < all.size(); ++i) {
    CAPTURE(i);
    std::string video = fx::Challenge(*fx::Models(), dir, all[i], "c" + std::to_string(i) + ".mp4");
    auto r = Assess(video, all[i]);
    CHECK(r.actions == all[i]);
    CHECK(r.challenge_passed);
    CHECK(r.score >= 0.9);
  }
}

TEST_CASE("liveness: a blinking face in VP9 (WebM) is accepted") {
  testing::TempDir dir;
  auto sample = SampleVideo(fx::Blinking(*fx::Models(), dir, "blink.webm"), kLivenessFrames, kLivenessMaxSide);
  REQUIRE_MESSAGE(sample.ok(), sample.status().ToString());
  auto webm = AssessLiveness(*fx::Models(), sample->frames, {});
  CHECK(webm.frames_with_one_face == webm.frames);
  CHECK(webm.blink);
  CHECK(webm.score >= 0.75);
  CHECK(webm.actions == std::vector<std::string>{"blink"});
}

}  // namespace media_liveness_test
