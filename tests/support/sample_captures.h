#pragma once
// The demo person's captures, made from a real photograph (the leftmost face of sample3 in the
// npm package @vladmandic/face-api, which scripts/setup installs) and the sandbox specimen's
// document data (pipeline/verification/builtin_engines.h): an INE-like card front (portrait,
// the names under NOMBRE, "INSTITUTO NACIONAL ELECTORAL", the CURP in OCR-B), its back (the TD1 MRZ), a selfie, and a
// liveness video of the person blinking. The dlib engine with the sandbox registries approves
// them with every check on. Used by the biometrics tests and by `svc_samples`, which writes the
// files shipped in docs/samples/.

#include <string>

#include "pipeline/biometrics/face_model.h"
#include "tests/support/temp_dir.h"

namespace svc::testing {

pipeline::biometrics::Image DemoPhoto(const std::string& name);  // from the face-api demo folder
// A region of `photo` around a face box, `margin` face widths on each side.
pipeline::biometrics::Image AroundFace(const pipeline::biometrics::Image& photo, int left, int top,
                                       int size, double margin);
// An ID-card-like image: grey card, the portrait on the left, some dark "text" bars.
pipeline::biometrics::Image Card(const pipeline::biometrics::Image& portrait);

struct SampleCaptures {
  std::string front_png, back_png, selfie_png, video_mp4;
};
// Composes the four captures in `work` (ImageMagick and ffmpeg command lines); empty strings on
// failure, with the reason in `error`.
SampleCaptures MakeSampleCaptures(const pipeline::biometrics::FaceModels& models,
                                  const TempDir& work, std::string* error);

}  // namespace svc::testing
