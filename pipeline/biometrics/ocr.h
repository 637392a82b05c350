#pragma once
// Reading documents: OCR with Tesseract (Debian's libtesseract, English LSTM model; chosen over
// writing our own OCR because it is maintained, packaged, and reads OCR-B — the MRZ typeface —
// well once the alphabet is restricted) and the parsing that turns its text into checked data:
// the machine-readable zone (validated with every check digit, which also repairs Tesseract's
// one systematic MRZ error, '<' read as 'K') and the CURP (validated with its check digit).

#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "pipeline/biometrics/face_model.h"
#include "pipeline/documents/names.h"

namespace svc::pipeline::biometrics {

// The text Tesseract reads, restricted to A-Z, 0-9 and '<' (documents and MRZ).
// Images larger than kOcrMaxSide on their longer side are scaled down to it first.
inline constexpr int kOcrMaxSide = 1000;
core::Result<std::string> OcrText(const Image& image);

// The same reading with each word's box (in the page Tesseract read: scaled to kOcrMaxSide).
struct OcrWord {
  std::string text;
  int left = 0, top = 0, right = 0, bottom = 0;
  int line = 0;  // words of one text line share it, in reading order
  float confidence = 0;  // Tesseract's, 0-100
};
struct OcrPage {
  std::string text;
  std::vector<OcrWord> words;
  double scale = 1;  // the read page's pixels per pixel of the image given
};
// kMachine: A-Z, 0-9 and '<' (MRZ, CURP); kWords: A-Z, 0-9 and the space (names).
enum class OcrCharset { kMachine, kWords };
core::Result<OcrPage> OcrRead(const Image& image, OcrCharset charset = OcrCharset::kMachine);

struct MrzRead {
  std::vector<std::string> lines;  // as validated
  documents::MrzResult result;
};
// The first valid MRZ (TD1: three 30-character lines; TD3: two 44-character lines) in OCR text.
std::optional<MrzRead> FindMrz(const std::string& text, const documents::Date& today);
// The first CURP in OCR text with a valid check digit and a birth date not after `today`. The
// 17th character says the century (digit: 1900s, letter: 2000s) and the check digit cannot tell
// 'O' from '0' there, so both readings are tried and a future birth date rules one out. When no 18
// characters read make one, 19 with one character left out are tried (an inserted character is
// Tesseract's other error), the structure and the check digit deciding.
std::optional<std::string> FindCurp(const std::string& text, const documents::Date& today);

// The names printed on an INE's front: the text lines under the NOMBRE label — first surname,
// second surname, given names — up to the next label (DOMICILIO, CLAVE DE ELECTOR, CURP…). The
// label is found in `page` (the side's reading); the names are read again from `image` cut to the
// label's column and the lines below it, so the portrait beside them adds nothing to the words.
// Digits read in a name are taken for the letters they resemble (0 O, 1 I, 5 S, 8 B). Nullopt
// without the label or a name under it, or when Tesseract is unsure of a word of the names
// (confidence under kNameWordConfidence: glare or blur over them; a cut word would still pass the
// CURP's letters).
inline constexpr float kNameWordConfidence = 80;
std::optional<documents::NameParts> FindPrintedNames(const Image& image, const OcrPage& page);

}  // namespace svc::pipeline::biometrics
