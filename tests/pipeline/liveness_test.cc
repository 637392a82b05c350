// Liveness on synthesised videos of a real photograph (sample3 of @vladmandic/face-api), encoded
// by the ffmpeg command line (H.264 in MP4, VP9 in WebM):
//  - a still photograph panned and zoomed (ffmpeg's zoompan), or rotated, must be rejected;
//  - the same face blinking (the upper lids warped down over the eyes) must be accepted;
//  - head turns (the face warped by a depth relief: the nose moves, the outline does not) are
//    seen as turn_left / turn_right, in order, for the active mode's challenges.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "pipeline/biometrics/face_model.h"
#include "pipeline/biometrics/liveness.h"
#include "pipeline/biometrics/video.h"
#include "tests/support/liveness_fixtures.h"
#include "tests/support/svc_process.h"
#include "tests/support/temp_dir.h"

namespace pipeline_liveness_test {

using namespace svc;
using svc::testing::ReadFile;
using namespace svc::pipeline::biometrics;
namespace fx = svc::testing::liveness;

namespace {

const FaceModels& Models() { return *fx::Models(); }

// A clip decoded once; each assessment below reuses its frames (decoding is most of the time).
std::vector<Image> Frames(const std::string& video) {
  auto sample = SampleVideo(video, kLivenessFrames, kLivenessMaxSide);
  REQUIRE_MESSAGE(sample.ok(), sample.status().ToString());
  return std::move(sample->frames);
}

LivenessResult Assess(const std::vector<Image>& frames, const std::vector<std::string>& challenge = {}) {
  auto r = AssessLiveness(Models(), frames, challenge);
  std::string actions;
  for (const auto& a : r.actions) actions += a + " ";
  MESSAGE("score " << r.score << ", frames " << r.frames_with_one_face << "/" << r.frames
                   << ", blink ratio " << r.blink_ratio << ", parallax " << r.parallax << ", yaw "
                   << r.yaw_min << ".." << r.yaw_max << ", actions " << actions);
  return r;
}

// SVC_LIVENESS_DUMP=dir writes the fixtures with their landmarks drawn (to look at them).
void Dump(const std::string& name, Image img, const std::vector<Face>& faces) {
  const char* dir = std::getenv("SVC_LIVENESS_DUMP");
  if (dir == nullptr) return;
  for (const auto& f : faces) {
    for (const auto& [x, y] : f.landmarks) {
      int xi = static_cast<int>(x), yi = static_cast<int>(y);
      if (xi < 0 || yi < 0 || xi >= img.width || yi >= img.height) continue;
      uint8_t* px = &img.rgb[(static_cast<size_t>(yi) * img.width + xi) * 3];
      px[0] = 0, px[1] = 255, px[2] = 0;
    }
  }
  std::ofstream(std::string(dir) + "/" + name + ".png", std::ios::binary) << *EncodePng(img);
}

}  // namespace

TEST_CASE("liveness: eye aspect ratio and the fixtures' warps move the landmarks as intended") {
  Image face = fx::Face();
  auto found = Models().Detect(face);
  REQUIRE(found.size() == 1);
  double open = (EyeAspectRatio(found[0], 36) + EyeAspectRatio(found[0], 42)) / 2;
  Dump("open", face, found);
  Image shut_img = fx::CloseEyes(face, found[0], 1.0);
  auto closed = Models().Detect(shut_img);
  Dump("closed", shut_img, closed);
  REQUIRE(closed.size() == 1);
  double shut = (EyeAspectRatio(closed[0], 36) + EyeAspectRatio(closed[0], 42)) / 2;
  MESSAGE("EAR open " << EyeAspectRatio(found[0], 36) << "/" << EyeAspectRatio(found[0], 42) << ", closed "
                      << EyeAspectRatio(closed[0], 36) << "/" << EyeAspectRatio(closed[0], 42));
  CHECK(shut < 0.6 * open);
  Image turned_img = fx::TurnHead(face, found[0], 0.3);
  auto turned = Models().Detect(turned_img);
  Dump("turned", turned_img, turned);
  REQUIRE(turned.size() == 1);
  CHECK(turned[0].landmarks[30].first > found[0].landmarks[30].first + 5);  // the nose moved
}

TEST_CASE("liveness: a still photograph panned and zoomed, or rotated, is rejected") {
  testing::TempDir dir;
  std::string still = dir.Sub("still.png");
  std::ofstream(still, std::ios::binary) << *EncodePng(fx::Face());

  auto panned_frames = Frames(fx::ZoomPan(dir, still, "replay.mp4"));
  auto panned = Assess(panned_frames);
  CHECK(panned.frames_with_one_face == panned.frames);
  CHECK_FALSE(panned.blink);
  CHECK(panned.actions.empty());
  CHECK(panned.score < 0.4);  // below the default decline floor

  auto rotated = Assess(Frames(fx::Rotated(dir, still, "rotated.webm")));
  CHECK_FALSE(rotated.blink);
  CHECK(rotated.actions.empty());
  CHECK(rotated.score < 0.4);

  // The replayed photograph cannot answer a challenge.
  auto challenged = Assess(panned_frames, {"blink", "turn_left"});
  CHECK_FALSE(challenged.challenge_passed);
  CHECK(challenged.score <= 0.35);
  CHECK(std::find(challenged.reasons.begin(), challenged.reasons.end(), "LIVENESS_CHALLENGE_FAILED") !=
        challenged.reasons.end());
}

// The same in VP9 (WebM) is in media.liveness; VP9 is decoded here by the rotated photograph.
TEST_CASE("liveness: a blinking face is accepted (H.264)") {
  testing::TempDir dir;
  auto mp4 = Assess(Frames(fx::Blinking(Models(), dir, "blink.mp4")));
  CHECK(mp4.frames_with_one_face == mp4.frames);
  CHECK(mp4.blink);
  CHECK(mp4.score >= 0.75);  // the default liveness threshold
  CHECK(mp4.actions == std::vector<std::string>{"blink"});
}

// One sequence of the three actions here; every one of the 12 sequences the server can draw is
// checked by media.liveness (tests/media/liveness_test.cc), outside the unit tier for its time.
TEST_CASE("liveness: active challenges are checked in order") {
  testing::TempDir dir;
  auto video = Frames(fx::Challenge(Models(), dir, {"blink", "turn_left", "turn_right"}, "active.mp4"));
  auto ok = Assess(video, {"blink", "turn_left", "turn_right"});
  CHECK(ok.actions == std::vector<std::string>{"blink", "turn_left", "turn_right"});
  CHECK(ok.challenge_passed);
  CHECK(ok.score >= 0.9);

  auto wrong_order = Assess(video, {"turn_right", "turn_left", "blink"});
  CHECK_FALSE(wrong_order.challenge_passed);
  CHECK(wrong_order.score <= 0.35);

  // Without a challenge the same video is simply live.
  auto passive = Assess(video);
  CHECK(passive.score >= 0.75);
  CHECK(passive.parallax >= 0.08);
}

TEST_CASE("liveness: no face, or not a video") {
  testing::TempDir dir;
  Image blank;
  blank.width = 320, blank.height = 240;
  blank.rgb.assign(320 * 240 * 3, 128);
  auto r = AssessLiveness(Models(), std::vector<Image>(10, blank));
  CHECK(r.score < 0.1);
  CHECK(r.reasons == std::vector<std::string>{"FACE_NOT_CONTINUOUS"});
  CHECK(AssessLiveness(Models(), {}).score < 0.1);
  CHECK_FALSE(SampleVideo("not a video at all", 10, 640).ok());
  CHECK_FALSE(SampleVideo(std::string("\x00\x00\x00\x18" "ftypisom\x00\x00\x02\x00isomiso2", 24), 10, 640).ok());
}

}  // namespace pipeline_liveness_test
