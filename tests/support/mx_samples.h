#pragma once
// Valid Mexican identifiers made up for tests: distinct ones by index, so a test can contend for
// a few or spread over many.

#include <cstdio>
#include <string>
#include <string_view>

#include "core/mx_ids.h"

namespace svc::testing {

// The i-th of a run of valid CURPs: `letters` (4) and `sex` (H or M) fixed, the birth date moves
// from 19<base_year>-01-01 a day at a time (28 a month), the check digit follows.
inline std::string NumberedCurp(std::string_view letters, int base_year, char sex, int i) {
  char date[16];
  std::snprintf(date, sizeof date, "%02d%02d%02d", base_year + i / 336, 1 + (i / 28) % 12, 1 + i % 28);
  std::string first17 = std::string(letters) + date + sex + "DFRRN0";
  return first17 + core::mx::CurpCheckDigit(first17);
}

}  // namespace svc::testing
