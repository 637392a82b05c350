#include "tests/support/sample_captures.h"

#include <fstream>

#include "pipeline/verification/builtin_engines.h"
#include "tests/support/liveness_fixtures.h"
#include "tests/support/svc_process.h"

namespace svc::testing {

namespace bio = pipeline::biometrics;

bio::Image DemoPhoto(const std::string& name) {
  auto img = bio::DecodeImage(ReadFile(std::string(SVC_FACE_API_DIR) + "/demo/" + name));
  return img.ok() ? *img : bio::Image{};
}

bio::Image AroundFace(const bio::Image& photo, int left, int top, int size, double margin) {
  int m = static_cast<int>(size * margin);
  return bio::Crop(photo, left - m, top - m, size + 2 * m, size + 2 * m + m / 2);
}

bio::Image Card(const bio::Image& portrait) {
  bio::Image card;
  card.width = 1000;
  card.height = 630;
  card.rgb.assign(static_cast<size_t>(card.width) * card.height * 3, 200);
  bio::Image p = bio::Scale(portrait, 360.0 / portrait.height);
  for (int r = 0; r < p.height && 120 + r < card.height; ++r) {
    for (int c = 0; c < p.width && 60 + c < card.width; ++c) {
      for (int k = 0; k < 3; ++k) {
        card.rgb[(static_cast<size_t>(120 + r) * card.width + 60 + c) * 3 + k] =
            p.rgb[(static_cast<size_t>(r) * p.width + c) * 3 + k];
      }
    }
  }
  for (int bar = 0; bar < 6; ++bar) {
    for (int r = 150 + bar * 50; r < 170 + bar * 50; ++r) {
      for (int c = 420; c < 900 - bar * 40; ++c) {
        for (int k = 0; k < 3; ++k) card.rgb[(static_cast<size_t>(r) * card.width + c) * 3 + k] = 40;
      }
    }
  }
  return card;
}

SampleCaptures MakeSampleCaptures(const bio::FaceModels& models, const TempDir& work,
                                  std::string* error) {
  const auto& s = pipeline::verification::Specimen();  // the sandbox registries know this person
  bio::Image person = DemoPhoto("sample3.jpg");
  if (person.width == 0) {
    *error = "cannot read the face-api demo photograph (run scripts/setup)";
    return {};
  }
  bio::Image portrait = bio::Scale(bio::Rotate(AroundFace(person, 567, 376, 215, 0.5), 3), 0.7);
  auto card = bio::EncodePng(Card(portrait));
  if (!card.ok()) {
    *error = card.status().ToString();
    return {};
  }
  std::ofstream(work.Sub("card.png"), std::ios::binary) << *card;
  const char* ocrb = "/usr/share/fonts/opentype/ocr-b/OCRB.otf";
  // The front: the names under NOMBRE (first surname, second surname, given names) over the
  // card's text bars, the institute's name and the CURP.
  auto front = RunProgram(
      "convert", {work.Sub("card.png"), "-fill", "#c8c8c8", "-draw", "rectangle 410,130 995,440", "-font", ocrb,
                  "-fill", "#202020", "-pointsize", "22", "-annotate", "+420+170", "NOMBRE", "-pointsize", "30",
                  "-annotate", "+420+212", s.surname1, "-annotate", "+420+252", s.surname2, "-annotate", "+420+292",
                  s.given_names, "-pointsize", "22", "-annotate", "+420+340", "DOMICILIO", "-pointsize", "26",
                  "-annotate", "+420+470", "INSTITUTO NACIONAL ELECTORAL", "-pointsize", "30",
                  "-annotate", "+420+530", "CURP " + s.curp, work.Sub("front.png")});
  auto back = RunProgram(
      "convert", {"-size", "1000x630", "xc:#dcdcd4", "-font", ocrb, "-pointsize", "40", "-fill",
                  "#202020", "-annotate", "+60+460", s.mrz[0], "-annotate", "+60+520", s.mrz[1],
                  "-annotate", "+60+580", s.mrz[2], work.Sub("back.png")});
  if (front.exit_code != 0 || back.exit_code != 0) {
    *error = "ImageMagick: " + front.err + back.err;
    return {};
  }
  auto selfie = bio::EncodePng(AroundFace(person, 567, 376, 215, 1.0));
  if (!selfie.ok()) {
    *error = selfie.status().ToString();
    return {};
  }
  SampleCaptures out;
  out.front_png = ReadFile(work.Sub("front.png"));
  out.back_png = ReadFile(work.Sub("back.png"));
  out.selfie_png = *selfie;
  out.video_mp4 = liveness::Blinking(models, work, "live.mp4");
  return out;
}

}  // namespace svc::testing
