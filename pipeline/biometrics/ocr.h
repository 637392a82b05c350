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
#include "pipeline/documents/checks.h"

namespace svc::pipeline::biometrics {

// The text Tesseract reads, restricted to A-Z, 0-9 and '<' (documents and MRZ).
// Images larger than kOcrMaxSide on their longer side are scaled down to it first.
inline constexpr int kOcrMaxSide = 1000;
core::Result<std::string> OcrText(const Image& image);

struct MrzRead {
  std::vector<std::string> lines;  // as validated
  documents::MrzResult result;
};
// The first valid MRZ (TD1: three 30-character lines; TD3: two 44-character lines) in OCR text.
std::optional<MrzRead> FindMrz(const std::string& text, const documents::Date& today);
// The first CURP in OCR text with a valid check digit and a birth date not after `today`. The
// 17th character says the century (digit: 1900s, letter: 2000s) and the check digit cannot tell
// 'O' from '0' there, so both readings are tried and a future birth date rules one out.
std::optional<std::string> FindCurp(const std::string& text, const documents::Date& today);

}  // namespace svc::pipeline::biometrics
