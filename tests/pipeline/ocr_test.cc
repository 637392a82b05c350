// Document reading: Tesseract on INE-like cards composed with ImageMagick in the OCR-B typeface
// (Debian's fonts-ocr-b): the MRZ is found, repaired and validated by its check digits; the CURP
// by its check digit.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "pipeline/biometrics/ocr.h"
#include "pipeline/documents/names.h"
#include "pipeline/verification/builtin_engines.h"
#include "tests/support/sample_captures.h"
#include "tests/support/svc_process.h"
#include "tests/support/temp_dir.h"

namespace pipeline_ocr_test {

using namespace svc;
using svc::testing::ReadFile;
using namespace svc::pipeline::biometrics;

namespace {
constexpr const char* kOcrB = "/usr/share/fonts/opentype/ocr-b/OCRB.otf";
}  // namespace

TEST_CASE("OCR: the MRZ on an INE back and the CURP on its front") {
  testing::TempDir dir;
  const auto& s = pipeline::verification::Specimen();
  auto back = testing::RunProgram(
      "convert", {"-size", "1000x630", "xc:#dcdcd4", "-font", kOcrB, "-pointsize", "40", "-fill", "#202020",
                  "-annotate", "+60+460", s.mrz[0], "-annotate", "+60+520", s.mrz[1], "-annotate",
                  "+60+580", s.mrz[2], "-pointsize", "26", "-annotate", "+60+80", "INSTITUTO NACIONAL ELECTORAL",
                  dir.Sub("back.png")});
  REQUIRE_MESSAGE(back.exit_code == 0, back.err);
  auto img = DecodeImage(ReadFile(dir.Sub("back.png")));
  REQUIRE(img.ok());
  auto text = OcrText(*img);
  REQUIRE_MESSAGE(text.ok(), text.status().ToString());
  MESSAGE("OCR of the back:\n" << *text);
  auto mrz = FindMrz(*text, {2026, 11, 22});
  REQUIRE(mrz.has_value());
  CHECK_MESSAGE(mrz->lines == s.mrz, mrz->lines[0] << "|" << mrz->lines[1] << "|" << mrz->lines[2]);  // repaired ('<' read as 'K', fillers miscounted) and validated
  CHECK(mrz->result.format == "TD1");
  CHECK(mrz->result.document_number == s.cic);

  auto front = testing::RunProgram(
      "convert", {"-size", "1000x630", "xc:#e4e0d8", "-font", kOcrB, "-pointsize", "30", "-fill", "#202020",
                  "-annotate", "+420+160", "NOMBRE", "-annotate", "+420+200", "GARCIA HERNANDEZ",
                  "-annotate", "+420+240", "MARIA JOSEFINA", "-annotate", "+420+330", "CURP " + s.curp,
                  dir.Sub("front.png")});
  REQUIRE_MESSAGE(front.exit_code == 0, front.err);
  auto fimg = DecodeImage(ReadFile(dir.Sub("front.png")));
  REQUIRE(fimg.ok());
  auto ftext = OcrText(*fimg);
  REQUIRE(ftext.ok());
  CHECK_MESSAGE(FindCurp(*ftext, {2026, 11, 22}) == s.curp, *ftext);
  // One character too many read inside the CURP: left out again, the check digit deciding.
  CHECK(FindCurp("CURPGAHJ900315MDFERRSOS", {2026, 11, 22}) == s.curp);
  // The same letters read with 'O' for the 0: the 2090 reading is in the future, so 1990 wins.
  CHECK(FindCurp("CURP GAHJ900315MDFRRSO5", {2026, 11, 22}) == s.curp);
  CHECK_FALSE(FindMrz(*ftext, {2026, 11, 22}).has_value());

  // Parsing alone: noise lines, a wrong check digit, the K confusion.
  CHECK_FALSE(FindCurp("NOTHING HERE\nGAHJ900315MDFRRS09", {2026, 11, 22}).has_value());  // bad check digit
  std::string noisy = "INSTITUTO\n" + s.mrz[0].substr(0, 15) + "K<<<<<<<<K<<K<K<K\n" + s.mrz[1] + "\n" + s.mrz[2] + "\n";
  auto repaired = FindMrz(noisy, {2026, 11, 22});
  REQUIRE(repaired.has_value());
  CHECK(repaired->lines == s.mrz);
  std::string broken = s.mrz[0] + "\n" + s.mrz[1].substr(0, 6) + "9" + s.mrz[1].substr(7) + "\n" + s.mrz[2];
  CHECK_FALSE(FindMrz(broken, {2026, 11, 22}).has_value());  // a check digit fails: not accepted
}

TEST_CASE("OCR: the names printed on an INE's front beside its portrait, reconciled with the MRZ and the CURP") {
  testing::TempDir dir;
  const auto& s = pipeline::verification::Specimen();
  Image person = testing::DemoPhoto("sample3.jpg");
  REQUIRE(person.width > 0);
  auto card = EncodePng(testing::Card(Scale(testing::AroundFace(person, 567, 376, 215, 0.5), 0.7)));
  REQUIRE(card.ok());
  std::ofstream(dir.Sub("card.png"), std::ios::binary) << *card;
  auto front = testing::RunProgram(
      "convert", {dir.Sub("card.png"), "-fill", "#c8c8c8", "-draw", "rectangle 410,130 995,440", "-font", kOcrB,
                  "-fill", "#202020", "-pointsize", "22", "-annotate", "+420+170", "NOMBRE", "-pointsize", "30",
                  "-annotate", "+420+212", s.surname1, "-annotate", "+420+252", s.surname2, "-annotate", "+420+292",
                  s.given_names, "-pointsize", "22", "-annotate", "+420+340", "DOMICILIO", dir.Sub("front.png")});
  REQUIRE_MESSAGE(front.exit_code == 0, front.err);
  auto img = DecodeImage(ReadFile(dir.Sub("front.png")));
  REQUIRE(img.ok());
  auto page = OcrRead(*img);
  REQUIRE(page.ok());
  CHECK_FALSE(page->words.empty());
  auto names = FindPrintedNames(*img, *page);
  REQUIRE_MESSAGE(names.has_value(), page->text);
  CHECK(names->surname1 == s.surname1);
  CHECK(names->surname2 == s.surname2);
  MESSAGE("given names as read: " << names->given_names);
  auto mrz = pipeline::documents::CheckMrz(s.mrz, {2026, 11, 22});
  REQUIRE(mrz.valid);
  auto chosen = pipeline::documents::ReconcileNames(names, pipeline::documents::MrzNames(mrz), s.curp);
  CHECK(chosen.source == "front");
  CHECK(chosen.names.given_names == s.given_names);  // in full, where the MRZ stops at "JOSEFI"
  CHECK(chosen.curp_agrees);
  // No label, no names: a page without NOMBRE.
  OcrPage none;
  none.text = "CURP " + s.curp;
  CHECK_FALSE(FindPrintedNames(*img, none).has_value());
}

}  // namespace pipeline_ocr_test
