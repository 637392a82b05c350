#pragma once
// Mexico's business-day calendar, for the deadlines the law counts in days (the ARCO rights of
// the LFPDPPP: docs/persons.md#arco-requests). A business day is Monday to Friday, not an
// official rest day of the Ley Federal del Trabajo, art. 74:
//
//   1 January; the first Monday of February (5 February); the third Monday of March (21 March);
//   1 May; 16 September; the third Monday of November (20 November); 1 October every six years,
//   when the federal executive changes hands (2024, 2030, …); 25 December
//   (fraction IX, election days, falls on a Sunday)
//
// and not one of the operator's extra days (a holiday decree, a controller's own closing days).
// Days are civil dates of Mexico City, which keeps UTC-6 all year since 2022 (no daylight saving).

#include <cstdint>
#include <set>
#include <string_view>

#include "core/mx_ids.h"
#include "core/status.h"

namespace svc::core::mx {

// Days since 1970-01-01 of a civil date, and back.
int64_t DaysFromCivil(CivilDate d);
CivilDate CivilFromDays(int64_t days);
CivilDate AddDays(CivilDate d, int64_t days);
int Weekday(CivilDate d);  // 0 = Sunday … 6 = Saturday

// The official rest days of LFT art. 74 (fraction IX excepted).
bool IsOfficialRestDay(CivilDate d);

// The civil date in Mexico City of a moment (microseconds since the Unix epoch), and the last
// millisecond of a Mexico City day as such a moment (23:59:59.999, which an RFC 3339 time with
// milliseconds writes exactly).
CivilDate MexicoCityDate(int64_t micros);
int64_t EndOfMexicoCityDay(CivilDate d);

// "YYYY-MM-DD" (a valid date), else InvalidArgument.
Result<CivilDate> ParseCivilDate(std::string_view text);

class BusinessCalendar {
 public:
  BusinessCalendar() = default;
  explicit BusinessCalendar(std::set<CivilDate> extra_days_off) : extra_(std::move(extra_days_off)) {}
  bool IsBusinessDay(CivilDate d) const;
  // The `n`-th business day after `d` (n >= 1; `d` itself never counts, business day or not):
  // a term of n days counted from the day after a request is received.
  CivilDate AddBusinessDays(CivilDate d, int n) const;
  // Business days after `from` up to and including `to` (0 when `to` <= `from`).
  int BusinessDaysBetween(CivilDate from, CivilDate to) const;
  const std::set<CivilDate>& extra_days_off() const { return extra_; }

 private:
  std::set<CivilDate> extra_;
};

}  // namespace svc::core::mx
