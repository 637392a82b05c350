// svc_samples OUTDIR: writes the demo person's captures (sample_captures.h) as the files shipped
// in docs/samples/: front.jpg, back.jpg, selfie.jpg (JPEG, quality 90, ImageMagick) and
// video.mp4. `scripts/demo` uploads them; re-running this reproduces them.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>

#include "core/crypto.h"
#include "pipeline/biometrics/face_model.h"
#include "tests/support/fixture_asserts.h"
#include "tests/support/sample_captures.h"
#include "tests/support/svc_process.h"

using namespace svc;

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: svc_samples FACE_MODEL OUTDIR\n");
    return 2;
  }
  if (!core::InitCrypto().ok()) return 1;
  doctest::Context context;
  testing::ReportFixtureAsserts(context);
  auto models = pipeline::biometrics::FaceModels::Load(
      argv[1], "/usr/share/dlib/shape_predictor_68_face_landmarks.dat");
  if (!models.ok()) {
    std::fprintf(stderr, "svc_samples: %s\n", models.status().ToString().c_str());
    return 1;
  }
  testing::TempDir work;
  std::string error;
  auto s = testing::MakeSampleCaptures(**models, work, &error);
  if (!error.empty()) {
    std::fprintf(stderr, "svc_samples: %s\n", error.c_str());
    return 1;
  }
  std::string out = argv[2];
  for (auto [name, png] : {std::pair{"front", &s.front_png}, std::pair{"back", &s.back_png},
                           std::pair{"selfie", &s.selfie_png}}) {
    std::ofstream(work.Sub(std::string(name) + ".png"), std::ios::binary) << *png;
    auto r = testing::RunProgram("convert", {work.Sub(std::string(name) + ".png"), "-quality", "90",
                                             "-strip", out + "/" + name + ".jpg"});
    if (r.exit_code != 0) {
      std::fprintf(stderr, "svc_samples: convert: %s\n", r.err.c_str());
      return 1;
    }
  }
  std::ofstream(out + "/video.mp4", std::ios::binary) << s.video_mp4;
  std::printf("wrote %s/{front.jpg,back.jpg,selfie.jpg,video.mp4}\n", out.c_str());
  return 0;
}
