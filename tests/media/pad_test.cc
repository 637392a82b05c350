// The attack signals (pipeline/biometrics/pad.*) on a draw of the attack set
// (tests/support/attack_set.*): bona fide selfies and videos, and attempts of every species. The
// figures svc_bench_pad measures on 50 attempts a species are held here as floors on a smaller
// draw of another seed, so a change that weakens detection fails: at least half the print and
// screen replays whose face is found are caught, the bona fide captures pass, at least half the
// files played into a camera at another frame rate are caught by their repeated frames, and the
// dlib engine's deepfake score follows containers rewritten by a transcoder. Its own tier
// (`media`, not `unit`) for its time: each capture is drawn, encoded and read by the detector.
#include <doctest/doctest.h>

#include "pipeline/biometrics/dlib_engine.h"
#include "pipeline/biometrics/pad.h"
#include "pipeline/biometrics/video.h"
#include "pipeline/verification/injection.h"
#include "tests/support/attack_set.h"
#include "tests/support/liveness_fixtures.h"
#include "tests/support/temp_dir.h"

namespace media_pad_test {

using namespace svc;
using namespace svc::pipeline::biometrics;
namespace at = svc::testing::attacks;

namespace {

using svc::testing::liveness::Models;
using svc::testing::liveness::SourceFaces;

// The still signals of a selfie's largest face; nullopt when no face is found.
std::optional<PadResult> Still(const std::string& jpeg) {
  auto img = DecodeImage(jpeg);
  REQUIRE(img.ok());
  auto faces = Models()->Detect(*img);
  if (faces.empty()) return std::nullopt;
  const Face* f = &faces[0];
  for (const auto& x : faces) {
    if (x.right - x.left > f->right - f->left) f = &x;
  }
  return Combine(StillSignals(*img, *f));
}

std::string Describe(const PadResult& r) {
  std::string s = "score " + std::to_string(r.score);
  for (const auto& x : r.signals) s += ", " + x.name + " " + std::to_string(x.measure);
  return s;
}

}  // namespace

TEST_CASE("pad: bona fide selfies pass; print and screen replays are caught; face swaps measured") {
  testing::TempDir work;
  REQUIRE(SourceFaces().size() >= 20);
  const int n = 8;
  const uint32_t seed = 2026;  // not the calibration draw (svc_bench_pad --seed 1)
  for (const auto& s : at::Make(*Models(), SourceFaces(), "bona_fide", "selfie", n, seed, work)) {
    auto r = Still(s.bytes);
    if (!r) continue;  // a face the detector misses is no evidence either way
    CHECK_MESSAGE(r->score < 0.5, s.source << ": " << Describe(*r));
  }
  // Print and screen replays: the floors svc_bench_pad measured (BENCHMARKS.md#attack-detection),
  // a caught replay naming its pattern or its colour.
  for (const std::string species : {"print_replay", "screen_replay"}) {
    int acquired = 0, caught = 0;
    for (const auto& s : at::Make(*Models(), SourceFaces(), species, "selfie", n, seed, work)) {
      auto r = Still(s.bytes);
      if (!r) continue;  // not acquired: no face, so no face match either (review)
      ++acquired;
      MESSAGE(species << " " << s.source << ": " << Describe(*r));
      if (r->score < 0.5) continue;
      ++caught;
      // Caught by the replay's structure: its periodic pattern or its colour.
      auto named = [&](const char* code) { return std::find(r->reasons.begin(), r->reasons.end(), code) != r->reasons.end(); };
      CHECK((named("RECAPTURE_PATTERN") || named("SCREEN_COLOUR_MOIRE")));
    }
    REQUIRE_MESSAGE(acquired >= n / 2, species);
    CHECK_MESSAGE(caught * 2 >= acquired, species << ": " << caught << " of " << acquired);
  }
  // Face swaps: the floor svc_bench_pad measured (BENCHMARKS.md) — at least a quarter caught.
  int caught = 0, swaps = 0;
  for (const auto& s : at::Make(*Models(), SourceFaces(), "face_swap", "selfie", n, seed, work)) {
    auto r = Still(s.bytes);
    if (!r) continue;
    ++swaps;
    caught += r->score >= 0.5 ? 1 : 0;
  }
  REQUIRE(swaps > 0);
  CHECK_MESSAGE(caught * 4 >= swaps, caught << " of " << swaps);
}


TEST_CASE("pad: a video file played into a camera repeats frames on a beat; a live recording does not") {
  testing::TempDir work;
  auto live = at::Make(*Models(), SourceFaces(), "bona_fide", "liveness_video", 2, 2026, work);
  // One file at each rate (15, 20, 24, 25 fps) played into a 30 fps capture.
  auto injected = at::Make(*Models(), SourceFaces(), "virtual_camera", "liveness_video", 4, 2026, work);
  REQUIRE(live.size() == 2);
  REQUIRE(injected.size() == 4);
  for (const auto& s : live) {
    auto v = SampleVideo(s.bytes, 30, 640);
    REQUIRE(v.ok());
    CHECK(v->frame_pairs >= 80);
    // The encoder may skip a nearly still moment; never on a beat.
    CHECK_MESSAGE(FrameRepeatSignal(v->repeats, v->comparable).score < 0.5,
                  s.source << ": " << v->repeated_frames << " of " << v->frame_pairs << " repeated");
  }
  int caught = 0;
  for (const auto& s : injected) {
    auto v = SampleVideo(s.bytes, 30, 640);
    REQUIRE(v.ok());
    MESSAGE(s.source << ": " << v->repeated_frames << " of " << v->frame_pairs << " repeated, beat "
                     << FrameRepeatMeasure(v->repeats, v->comparable));
    caught += FrameRepeatSignal(v->repeats, v->comparable).score >= 0.5 ? 1 : 0;
  }
  // The floor svc_bench_pad measured (BENCHMARKS.md): at least half caught.
  CHECK(caught * 2 >= static_cast<int>(injected.size()));
}


TEST_CASE("pad: a recording through a transcoder says so in its container; the set's browser recordings do not") {
  testing::TempDir work;
  namespace pv = pipeline::verification;
  auto live = at::Make(*Models(), SourceFaces(), "bona_fide", "liveness_video", 2, 2026, work);
  auto reencoded = at::Make(*Models(), SourceFaces(), "reencoded_video", "liveness_video", 4, 2026, work);
  REQUIRE(live.size() == 2);
  REQUIRE(reencoded.size() == 4);  // H.264 in MP4 and VP8 in WebM in turn
  for (const auto& s : live) {
    auto c = pv::ReadContainerFacts(s.bytes);
    CHECK(c.muxing_app == "Chrome");
    CHECK(pv::EvaluateContainer(c, "camera").empty());
    CHECK(SampleVideo(s.bytes, 30, 640).ok());  // still a video FFmpeg decodes
  }
  DlibEngine engine(Models());
  pv::EngineContext ctx;
  for (const auto& s : reencoded) {
    auto c = pv::ReadContainerFacts(s.bytes);
    CHECK(c.format == (s.mime == "video/mp4" ? "mp4" : "webm"));
    auto signals = pv::EvaluateContainer(c, "camera");
    REQUIRE(signals.size() == 1);
    CHECK(signals[0].code == "CONTAINER_REENCODED");
    pv::Capture video{"med_v", "liveness_video", s.mime, s.bytes, {}};
    auto r = engine.AttackSignals(nullptr, &video, ctx);
    pv::JoinInjectionSignals(r, signals);
    REQUIRE(r.status == "ok");
    CHECK(*r.score >= 0.5);
  }
}


}  // namespace media_pad_test
