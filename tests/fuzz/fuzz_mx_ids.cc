// CURP and RFC as a person's or a company's body carries them, and the normalisations before.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/mx_ids.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace mx = svc::core::mx;
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  const mx::CivilDate today{2026, 12, 2};
  (void)mx::CheckCurp(in, today);
  (void)mx::CheckCurp(mx::NormaliseCurp(in), today);
  (void)mx::CheckRfc(in, today);
  (void)mx::CheckRfc(mx::NormaliseRfc(in), today);
  (void)mx::IdentifierLength(in);
  (void)mx::IsGenericRfc(mx::CompactIdentifier(in));
  if (in.size() >= 17) (void)mx::CurpCheckDigit(in.substr(0, 17));
  if (in.size() >= 4) {
    (void)mx::IsCurpInconvenientWord(in.substr(0, 4));
    (void)mx::IsRfcInconvenientWord(in.substr(0, 4));
  }
  return 0;
}
