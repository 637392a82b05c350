// Video decoding for liveness: frames sampled evenly from videos the ffmpeg command line encodes
// (H.264 in MP4, VP9 in WebM, VP8 in WebM); garbage is an error, never a crash.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "pipeline/biometrics/face_model.h"
#include "pipeline/biometrics/video.h"
#include "tests/support/svc_process.h"
#include "tests/support/temp_dir.h"

namespace pipeline_video_test {

using namespace svc;
using svc::testing::ReadFile;
using namespace svc::pipeline::biometrics;

namespace {
}  // namespace

TEST_CASE("video: frames sampled from H.264/MP4, VP9/WebM and VP8/WebM") {
  testing::TempDir dir;
  // 40 frames at 20 fps: a red square moving right on grey, 320x240.
  std::filesystem::create_directories(dir.Sub("frames"));
  for (int i = 0; i < 40; ++i) {
    Image f;
    f.width = 320;
    f.height = 240;
    f.rgb.assign(static_cast<size_t>(f.width) * f.height * 3, 128);
    for (int y = 100; y < 140; ++y) {
      for (int x = 10 + i * 5; x < 50 + i * 5; ++x) {
        uint8_t* p = &f.rgb[(static_cast<size_t>(y) * f.width + x) * 3];
        p[0] = 230;
        p[1] = 20;
        p[2] = 20;
      }
    }
    char name[32];
    std::snprintf(name, sizeof name, "/f%03d.png", i);
    std::ofstream(dir.Sub("frames") + name, std::ios::binary) << *EncodePng(f);
  }
  struct Case {
    std::string file, codec;
    std::vector<std::string> args;
  };
  for (const Case& c : std::vector<Case>{
           {"v.mp4", "h264", {"-c:v", "libx264", "-pix_fmt", "yuv420p"}},
           {"v.webm", "vp9", {"-c:v", "libvpx-vp9", "-b:v", "500k"}},
           {"v8.webm", "vp8", {"-c:v", "libvpx", "-b:v", "500k"}}}) {
    CAPTURE(c.file);
    std::vector<std::string> args = {"-y", "-loglevel", "error", "-framerate", "20", "-i",
                                     dir.Sub("frames") + "/f%03d.png"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    args.push_back(dir.Sub(c.file));
    auto r = testing::RunProgram("ffmpeg", args);
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    auto v = SampleVideo(ReadFile(dir.Sub(c.file)), 10, 160);
    REQUIRE_MESSAGE(v.ok(), v.status().ToString());
    CHECK(v->codec.find(c.codec) != std::string::npos);
    CHECK(v->width == 320);
    CHECK(v->height == 240);
    CHECK(v->duration_seconds == doctest::Approx(2.0).epsilon(0.1));
    REQUIRE(v->frames.size() == 10);
    CHECK(v->frames[0].width == 160);  // scaled to the longer side asked for
    CHECK(v->frames[0].height == 120);
    // Evenly spread: the red square moved right between the first and the last sample.
    auto red_x = [](const Image& f) {
      for (int x = 0; x < f.width; ++x) {
        const uint8_t* p = &f.rgb[(static_cast<size_t>(60) * f.width + x) * 3];
        if (p[0] > 180 && p[1] < 90) return x;
      }
      return -1;
    };
    CHECK(red_x(v->frames.front()) >= 0);
    CHECK(red_x(v->frames.back()) > red_x(v->frames.front()) + 40);
  }
  CHECK_FALSE(SampleVideo("not a video at all", 10, 640).ok());
  CHECK_FALSE(SampleVideo(std::string("\x00\x00\x00\x18" "ftypisom\x00\x00\x02\x00isomiso2", 24), 10, 640).ok());
  CHECK_FALSE(SampleVideo(std::string("\x1A\x45\xDF\xA3", 4) + std::string(100, '\x42'), 10, 640).ok());
}

TEST_CASE("video: a WebM from Chromium's MediaRecorder (the widget's liveness recording) is sampled") {
  // Recorded by headless Debian chromium (MediaRecorder, video/webm;codecs=vp8, 3 s) from a fake
  // camera fed by docs/samples/selfie.jpg: a streaming WebM, with no duration in its header.
  auto v = SampleVideo(ReadFile(std::string(SVC_TEST_SOURCE_DIR) + "/fixtures/chromium-mediarecorder-vp8.webm"), 10, 320);
  REQUIRE_MESSAGE(v.ok(), v.status().ToString());
  CHECK(v->codec.find("vp8") != std::string::npos);
  CHECK(v->width == 640);
  CHECK(v->height == 480);
  CHECK(v->frames.size() >= 5);
  CHECK(v->frames[0].width == 320);
}

}  // namespace pipeline_video_test
