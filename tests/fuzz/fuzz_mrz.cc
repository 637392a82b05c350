// The document reader's text paths: MRZ lines as OCR gives them (TD1 or TD3, any characters),
// their check digits, the names they carry, and the CURP letters the names must give.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "pipeline/documents/checks.h"
#include "pipeline/documents/names.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace d = svc::pipeline::documents;
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> lines;
  size_t at = 0;
  while (at <= in.size() && lines.size() < 4) {
    const size_t nl = in.find('\n', at);
    lines.emplace_back(in.substr(at, nl == std::string_view::npos ? std::string_view::npos : nl - at));
    if (nl == std::string_view::npos) break;
    at = nl + 1;
  }
  auto mrz = d::CheckMrz(lines, d::Date{2026, 12, 2});
  auto names = d::MrzNames(mrz);
  (void)d::CurpNameLetters(names.surname1, names.surname2, names.given_names);
  (void)d::CurpInnerConsonants(names.surname1, names.surname2, names.given_names);
  (void)d::ReconcileNames(names, names, lines.empty() ? std::string() : lines[0]);
  for (const auto& l : lines) (void)d::MrzCheckDigit(l);
  return 0;
}
