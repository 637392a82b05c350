// Benchmark (not a test): the names the vault receives from an INE, read by the dlib engine's
// document stage from composed cards — a portrait from the face-api demo photographs, the names
// under NOMBRE, the CURP on the front (OCR-B), a TD1 MRZ on the back, every check digit valid —
// for people drawn from common Mexican names (long given names included, whose MRZ field stops at
// 30 characters), clean and degraded (blur of both sides, a specular glare on the front's names,
// perspective of both sides). Prints, per degradation, how often the names chosen (the front's
// where the MRZ and the CURP agree, else the MRZ's) equal the names printed, how often the front's
// were used, how often the MRZ was read, and how often the MRZ's names alone were complete (what
// the vault received before the front was read). "wrong": names given that are not the printed
// ones (the outcome that must not happen); "none": no names given.
//
//   svc_bench_names [face-api dir] [cards per degradation] [seed]
//   SVC_NAMES_VERBOSE=DIR prints every card whose names were not the printed ones, and writes the
//   backs whose MRZ was not read to DIR (to look at them).
#define DOCTEST_CONFIG_IMPLEMENT  // the fixtures' REQUIREs, outside a test run
#include <doctest/doctest.h>

#include <fstream>
#include <iomanip>
#include <iostream>
#include <random>

#include "core/mx_ids.h"
#include "pipeline/biometrics/dlib_engine.h"
#include "pipeline/documents/names.h"
#include "tests/support/fixture_asserts.h"
#include "tests/support/sample_captures.h"
#include "tests/support/svc_process.h"
#include "tests/support/temp_dir.h"

using namespace svc;
using namespace svc::pipeline::biometrics;
namespace docs = svc::pipeline::documents;
namespace v = svc::pipeline::verification;

namespace {

constexpr const char* kOcrB = "/usr/share/fonts/opentype/ocr-b/OCRB.otf";
const char* kSurnames[] = {"HERNANDEZ", "GARCIA",  "MARTINEZ", "LOPEZ",   "GONZALEZ", "RODRIGUEZ", "PEREZ",
                           "SANCHEZ",   "RAMIREZ", "CRUZ",     "FLORES",  "GOMEZ",    "MORALES",   "VAZQUEZ",
                           "JIMENEZ",   "REYES",   "DIAZ",     "TORRES",  "GUTIERREZ", "RUIZ",     "MENDOZA",
                           "AGUILAR",   "ORTIZ",   "CASTILLO", "ROMERO",  "ALVAREZ",  "CHAVEZ",    "RIVERA"};
const char* kGiven[] = {"MARIA JOSEFINA", "MARIA DEL CARMEN", "JOSE GUADALUPE", "MARIA FERNANDA", "JUAN CARLOS",
                        "ANA SOFIA",      "LUIS ALBERTO",     "FRANCISCO JAVIER", "GUADALUPE",    "ALEJANDRA",
                        "RICARDO",        "VERONICA",         "MIGUEL ANGEL",    "ROSA ISELA",    "JESUS",
                        "PATRICIA",       "JORGE",            "LETICIA",         "MARIA DE LOURDES", "EDUARDO"};

std::string Digits2(int v) {
  std::ostringstream s;
  s << std::setw(2) << std::setfill('0') << v;
  return s.str();
}

struct Person {
  docs::NameParts names;
  std::string curp;
  std::vector<std::string> mrz;
};

Person Draw(std::mt19937& rng) {
  auto pick = [&](const auto& list) { return list[std::uniform_int_distribution<size_t>(0, std::size(list) - 1)(rng)]; };
  Person p;
  p.names.surname1 = pick(kSurnames);
  do {
    p.names.surname2 = pick(kSurnames);
  } while (p.names.surname2 == p.names.surname1);
  p.names.given_names = pick(kGiven);
  int yy = std::uniform_int_distribution<int>(55, 99)(rng), mm = std::uniform_int_distribution<int>(1, 12)(rng),
      dd = std::uniform_int_distribution<int>(1, 28)(rng);
  bool woman = rng() % 2 == 0;
  std::string birth = Digits2(yy) + Digits2(mm) + Digits2(dd);
  std::string first17 = docs::CurpNameLetters(p.names.surname1, p.names.surname2, p.names.given_names) + birth +
                        (woman ? "M" : "H") + "DF" +
                        docs::CurpInnerConsonants(p.names.surname1, p.names.surname2, p.names.given_names) + "0";
  p.curp = first17 + core::mx::CurpCheckDigit(first17);
  std::string cic = std::to_string(100000000 + rng() % 800000000);
  std::string l1 = "IDMEX" + cic + "0<<<<<<<<<<<<<<<";
  l1[14] = static_cast<char>('0' + docs::MrzCheckDigit(l1.substr(5, 9)));
  std::string l2 = birth + "0" + (woman ? "F" : "M") + "3112314MEX<<<<<<<<<<<";
  l2[6] = static_cast<char>('0' + docs::MrzCheckDigit(l2.substr(0, 6)));
  l2[14] = static_cast<char>('0' + docs::MrzCheckDigit(l2.substr(8, 6)));
  l2 += static_cast<char>('0' + docs::MrzCheckDigit(l1.substr(5, 25) + l2.substr(0, 7) + l2.substr(8, 7) +
                                                    l2.substr(18, 11)));
  std::string l3 = p.names.surname1 + "<" + p.names.surname2 + "<<" + p.names.given_names;
  std::replace(l3.begin(), l3.end(), ' ', '<');
  l3.resize(30, '<');  // the field stops at 30 characters
  p.mrz = {l1, l2, l3};
  return p;
}

// ImageMagick arguments that degrade a side.
std::vector<std::string> Degrade(const std::string& how, std::mt19937& rng) {
  if (how == "blur") return {"-blur", "0x" + std::to_string(1.2 + 0.1 * (rng() % 6))};
  if (how == "perspective") {
    int a = 10 + static_cast<int>(rng() % 25), b = 10 + static_cast<int>(rng() % 25);
    return {"-distort", "Perspective",
            "0,0 " + std::to_string(a) + "," + std::to_string(b / 2) + " 1000,0 " + std::to_string(1000 - b) + ",0 0,630 0," +
                std::to_string(630 - a / 2) + " 1000,630 " + std::to_string(1000 - a / 3) + ",630"};
  }
  if (how == "glare") {
    int x = 450 + static_cast<int>(rng() % 400), y = 150 + static_cast<int>(rng() % 200);
    // A specular reflection on the laminate: white at its core, fading out.
    return {"(", "-size", "1000x630", "xc:none", "-fill", "rgba(255,255,255,0.97)", "-draw",
            "ellipse " + std::to_string(x) + "," + std::to_string(y) + " 110,55 0,360", "-blur", "0x10", ")",
            "-composite"};
  }
  return {};
}

}  // namespace

int main(int argc, char** argv) {
  std::string face_api = argc > 1 ? argv[1] : "models/node_modules/@vladmandic/face-api";
  int n = argc > 2 ? std::atoi(argv[2]) : 25;
  uint32_t seed = argc > 3 ? static_cast<uint32_t>(std::atoi(argv[3])) : 1;
  doctest::Context context;
  testing::ReportFixtureAsserts(context);
  testing::TempDir work;
  auto imported = ImportFaceApiModel(face_api, work.Sub("face.dat"));
  auto models = imported.ok() ? FaceModels::Load(work.Sub("face.dat"), kShapePredictorPath)
                              : core::Result<std::unique_ptr<FaceModels>>(imported.status());
  if (!models.ok()) {
    std::cerr << models.status().ToString() << "\n";
    return 1;
  }
  std::shared_ptr<const FaceModels> shared(std::move(models).value());
  Image photo = testing::DemoPhoto("sample3.jpg");
  auto card = EncodePng(testing::Card(Scale(testing::AroundFace(photo, 567, 376, 215, 0.5), 0.7)));
  if (photo.width == 0 || !card.ok()) {
    std::cerr << "cannot read the face-api demo photograph\n";
    return 1;
  }
  std::ofstream(work.Sub("card.png"), std::ios::binary) << *card;
  std::mt19937 rng(seed);
  v::EngineContext ctx;
  ctx.today = {2026, 12, 1};
  std::cout << "names: " << n << " INE cards per degradation, seed " << seed << "\n";
  std::cout << std::left << std::setw(13) << "degradation" << std::setw(8) << "cards" << std::setw(16)
            << "names right" << std::setw(14) << "wrong" << std::setw(14) << "none" << std::setw(14) << "from front"
            << std::setw(14) << "MRZ read" << "MRZ's names complete\n";
  for (std::string how : {"none", "blur", "glare", "perspective"}) {
    int right = 0, wrong = 0, none = 0, front = 0, mrz_read = 0, mrz_right = 0, cards = 0;
    for (int i = 0; i < n; ++i) {
      Person p = Draw(rng);
      auto degrade = Degrade(how, rng);
      std::vector<std::string> fargs = {work.Sub("card.png"), "-fill", "#c8c8c8", "-draw", "rectangle 410,130 995,440",
                                        "-font", kOcrB, "-fill", "#202020", "-pointsize", "22", "-annotate",
                                        "+420+170", "NOMBRE", "-pointsize", "30", "-annotate", "+420+212",
                                        p.names.surname1, "-annotate", "+420+252", p.names.surname2, "-annotate",
                                        "+420+292", p.names.given_names, "-pointsize", "22", "-annotate", "+420+340",
                                        "DOMICILIO", "-pointsize", "30", "-annotate", "+420+530", "CURP " + p.curp};
      fargs.insert(fargs.end(), degrade.begin(), degrade.end());
      fargs.push_back(work.Sub("front.png"));
      std::vector<std::string> bargs = {"-size",     "1000x630", "xc:#dcdcd4", "-font",  kOcrB,       "-pointsize",
                                        "40",        "-fill",    "#202020",    "-annotate", "+60+460", p.mrz[0],
                                        "-annotate", "+60+520",  p.mrz[1],     "-annotate", "+60+580", p.mrz[2]};
      if (how != "glare") bargs.insert(bargs.end(), degrade.begin(), degrade.end());
      bargs.push_back(work.Sub("back.png"));
      if (testing::RunProgram("convert", fargs).exit_code != 0 || testing::RunProgram("convert", bargs).exit_code != 0) {
        std::cerr << "ImageMagick failed\n";
        return 1;
      }
      DlibEngine engine(shared);
      v::Capture f{"med_f", "document_front", "image/png", testing::ReadFile(work.Sub("front.png")), {}};
      v::Capture b{"med_b", "document_back", "image/png", testing::ReadFile(work.Sub("back.png")), {}};
      auto reading = engine.ReadDocument(f, &b, ctx);
      ++cards;
      const auto& x = reading.extracted;
      docs::NameParts got{core::StringOr(x, "surname1"), core::StringOr(x, "surname2"), core::StringOr(x, "givenNames")};
      bool ok = got.surname1 == p.names.surname1 && got.surname2 == p.names.surname2 &&
                got.given_names == p.names.given_names;
      right += ok ? 1 : 0;
      none += got.surname1.empty() && got.given_names.empty() ? 1 : 0;
      wrong += !ok && !(got.surname1.empty() && got.given_names.empty()) ? 1 : 0;
      front += core::StringOr(x, "namesSource") == "front" ? 1 : 0;
      // What the MRZ alone gives (the engine's names before issue 37): its name field, cut at 30.
      std::string given = p.mrz[2].substr(p.mrz[2].find("<<") + 2);
      while (!given.empty() && given.back() == '<') given.pop_back();
      std::replace(given.begin(), given.end(), '<', ' ');
      mrz_read += x.contains("mrz") ? 1 : 0;
      mrz_right += x.contains("mrz") && given == p.names.given_names ? 1 : 0;
      if (!ok && std::getenv("SVC_NAMES_VERBOSE") != nullptr) {
        std::cerr << how << ": printed " << p.names.surname1 << "|" << p.names.surname2 << "|" << p.names.given_names
                  << " read " << got.surname1 << "|" << got.surname2 << "|" << got.given_names << " ("
                  << core::StringOr(x, "namesSource") << (x.contains("mrz") ? ", MRZ read" : ", no MRZ read") << ")\n";
        if (!x.contains("mrz")) {
          std::ofstream(std::string(std::getenv("SVC_NAMES_VERBOSE")) + "/" + how + std::to_string(i) + "-back.png", std::ios::binary)
              << b.bytes;
        }
      }
    }
    auto pct = [&](int k) {
      std::ostringstream s;
      s << k << " (" << std::fixed << std::setprecision(0) << 100.0 * k / std::max(1, cards) << " %)";
      return s.str();
    };
    std::cout << std::left << std::setw(13) << how << std::setw(8) << cards << std::setw(16) << pct(right)
              << std::setw(14) << pct(wrong) << std::setw(14) << pct(none) << std::setw(14) << pct(front)
              << std::setw(14) << pct(mrz_read) << pct(mrz_right) << "\n";
  }
  return 0;
}
