#include "core/mx_calendar.h"

#include <cctype>
#include <string>

namespace svc::core::mx {

namespace {
constexpr int64_t kMicrosPerDay = 86'400'000'000;
constexpr int64_t kMexicoCityOffsetMicros = -6LL * 3600 * 1'000'000;  // UTC-6, all year since 2022

// The `nth` (1-based) Monday of a month.
CivilDate NthMonday(int year, int month, int nth) {
  CivilDate first{year, month, 1};
  const int to_monday = (8 - Weekday(first)) % 7;  // days from the 1st to the first Monday
  return AddDays(first, to_monday + 7 * (nth - 1));
}
}  // namespace

int64_t DaysFromCivil(CivilDate d) {
  // H. Hinnant's algorithm.
  const int64_t y = d.year - (d.month <= 2 ? 1 : 0);
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t mp = d.month > 2 ? d.month - 3 : d.month + 9;
  const int64_t doy = (153 * mp + 2) / 5 + d.day - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

CivilDate CivilFromDays(int64_t days) { return CivilDateOfMicros(days * kMicrosPerDay); }

CivilDate AddDays(CivilDate d, int64_t days) { return CivilFromDays(DaysFromCivil(d) + days); }

int Weekday(CivilDate d) {
  const int64_t z = DaysFromCivil(d);
  return static_cast<int>(z >= -4 ? (z + 4) % 7 : (z + 5) % 7 + 6);  // 1970-01-01 was a Thursday
}

bool IsOfficialRestDay(CivilDate d) {
  if (d.month == 1 && d.day == 1) return true;
  if (d.month == 5 && d.day == 1) return true;
  if (d.month == 9 && d.day == 16) return true;
  if (d.month == 12 && d.day == 25) return true;
  if (d.month == 10 && d.day == 1 && d.year >= 2024 && (d.year - 2024) % 6 == 0) return true;
  if (d == NthMonday(d.year, 2, 1)) return true;
  if (d == NthMonday(d.year, 3, 3)) return true;
  if (d == NthMonday(d.year, 11, 3)) return true;
  return false;
}

CivilDate MexicoCityDate(int64_t micros) { return CivilDateOfMicros(micros + kMexicoCityOffsetMicros); }

int64_t EndOfMexicoCityDay(CivilDate d) {
  // The last millisecond (what RFC 3339 times with milliseconds show, and read back the same).
  return (DaysFromCivil(d) + 1) * kMicrosPerDay - 1000 - kMexicoCityOffsetMicros;
}

Result<CivilDate> ParseCivilDate(std::string_view t) {
  auto digits = [&](size_t at, size_t n) {
    int v = 0;
    for (size_t i = at; i < at + n; ++i) {
      if (!std::isdigit(static_cast<unsigned char>(t[i]))) return -1;
      v = v * 10 + (t[i] - '0');
    }
    return v;
  };
  if (t.size() != 10 || t[4] != '-' || t[7] != '-') return InvalidArgument("not a date (YYYY-MM-DD): " + std::string(t));
  CivilDate d{digits(0, 4), digits(5, 2), digits(8, 2)};
  if (d.year < 0 || d.month < 0 || d.day < 0 || !IsValidCivilDate(d.year, d.month, d.day)) {
    return InvalidArgument("not a date (YYYY-MM-DD): " + std::string(t));
  }
  return d;
}

bool BusinessCalendar::IsBusinessDay(CivilDate d) const {
  const int w = Weekday(d);
  return w != 0 && w != 6 && !IsOfficialRestDay(d) && extra_.count(d) == 0;
}

CivilDate BusinessCalendar::AddBusinessDays(CivilDate d, int n) const {
  CivilDate at = d;
  for (int counted = 0; counted < n;) {
    at = AddDays(at, 1);
    if (IsBusinessDay(at)) ++counted;
  }
  return at;
}

int BusinessCalendar::BusinessDaysBetween(CivilDate from, CivilDate to) const {
  int n = 0;
  for (CivilDate at = AddDays(from, 1); at <= to; at = AddDays(at, 1)) n += IsBusinessDay(at) ? 1 : 0;
  return n;
}

}  // namespace svc::core::mx
