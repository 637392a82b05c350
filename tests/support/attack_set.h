#pragma once
// The attack set (issue 37): attack presentations of each species and bona fide captures, made
// from the real photographs the packages ship — the face-api package's demo photographs and the
// face photographs of dlib's examples (libdlib-dev) — with the transforms a camera, a printer, a
// screen or a face-swap tool would apply. Deterministic for a seed: svc_bench_pad reports on one
// draw and the thresholds were calibrated on another.
//
// Bona fide (synthesised: no filmed person is shipped):
//   selfie        a crop around a real face, as a phone frames it: scale, a small roll, exposure,
//                 a camera's noise (luma per pixel, chroma weaker and in blotches:
//                 liveness::AddCameraNoise), saved at quality 70-95 as JPEG 4:2:0 (half the
//                 draws), JPEG 4:4:4 or PNG (a quarter each) — every still species is saved so
//   video         a face held before the camera, drifting, blinking once; each frame with its
//                 own sensor noise; 30 frames a second, VP9 in WebM as a browser records. One
//                 person only: sample3's face, the one the blink synthesis is verified on
//                 (framing, roll, exposure, noise and the blink's moment vary)
// Species:
//   print_replay  the selfie printed (CMYK AM halftone, 4 screens at their angles, paper white
//                 and ink black) and photographed: roll, a halftone cell 1.5-4 camera pixels
//                 (100-200 lpi at arm's length), lens blur, uneven light, noise, JPEG
//   screen_replay the selfie shown on an RGB-stripe display and photographed: a display pixel is
//                 0.5-1.8 camera pixels, roll, each camera pixel integrating the sub-pixels it sees
//                 (3x3 to 9x9 samples), lens blur, noise, JPEG
//   face_swap     another person's face (jaw line to brows) aligned on the selfie's landmarks,
//                 rendered at a generator's resolution (a face 80-160 pixels wide, scaled back
//                 up), colour-matched and blended with a feathered mask; JPEG 75-95
//   photo_replay  the selfie as a still moved before the camera (pan, zoom, roll; a video)
//   virtual_camera a bona fide video file played into a 30 fps capture at its own rate (15, 20, 24
//                 or 25 fps): frames repeated as a virtual camera repeats them
//   reencoded_video a bona fide recording through a stock transcoder (FFmpeg: H.264 in MP4 or VP8
//                 in WebM, CRF 20-32 or 300-1500 kb/s, scaled 0.6-1.0) sent as a camera capture
// Every video but the re-encoded ones has its WebM container say "Chrome" wrote it, as the
// widget's MediaRecorder recordings do (measured in the chromium widget test): they stand for
// captures recorded in the browser. The capture facts (the camera's label, frame timing) are the
// client's word and not in the set: tests/pipeline/verification/injection_test.cc and the
// chromium widget test cover them.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "pipeline/biometrics/face_model.h"
#include "tests/support/temp_dir.h"

namespace svc::testing::attacks {

struct Sample {
  std::string species;  // bona_fide | print_replay | screen_replay | face_swap | photo_replay | virtual_camera |
                        // reencoded_video
  std::string kind;     // selfie | liveness_video
  std::string mime;     // image/jpeg | image/png | video/webm | video/mp4
  std::string format;   // jpeg420 | jpeg444 | png | webm | mp4
  std::string bytes;
  std::string source;   // which photograph and face it came from
  // The parameters it was drawn with, for calibration: noise (the camera's σ), q (JPEG quality),
  // cell (a print's halftone cell, camera px), pitch (a display pixel, camera px), face and
  // generated (a swap's face width and its generator's, px). Empty for the videos.
  std::map<std::string, double> drawn;
};

// The real faces the set is made from: every face the detector finds, 90 pixels wide or more,
// with its photograph.
struct SourceFace {
  pipeline::biometrics::Image photo;
  pipeline::biometrics::Face face;
  std::string name;
  std::string format;  // how the photograph was saved: jpeg420 | jpeg422 | jpeg444 (its frame header)
};
std::vector<SourceFace> SourceFaces(const pipeline::biometrics::FaceModels& models);

inline constexpr const char* kStillSpecies[] = {"print_replay", "screen_replay", "face_swap"};
inline constexpr const char* kVideoSpecies[] = {"photo_replay", "virtual_camera", "reencoded_video"};

// `count` samples of `species` ("bona_fide" with kind selfie or liveness_video), drawn with `seed`.
std::vector<Sample> Make(const pipeline::biometrics::FaceModels& models, const std::vector<SourceFace>& faces,
                         const std::string& species, const std::string& kind, int count, uint32_t seed,
                         const TempDir& work);

}  // namespace svc::testing::attacks
