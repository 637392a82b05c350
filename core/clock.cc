#include "core/clock.h"

#include <chrono>
#include <cstdio>

namespace svc::core {

namespace {
std::atomic<int64_t> g_offset_for_tests{0};
}  // namespace

Timestamp SystemClock::Now() const {
  auto now = std::chrono::system_clock::now().time_since_epoch();
  return Timestamp{std::chrono::duration_cast<std::chrono::microseconds>(now).count() +
                   g_offset_for_tests.load(std::memory_order_relaxed)};
}

void SystemClock::SetOffsetForTests(int64_t micros) { g_offset_for_tests.store(micros); }

namespace {

// Howard Hinnant's days_from_civil / civil_from_days (public domain algorithms).
int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

void CivilFromDays(int64_t z, int64_t& y, unsigned& m, unsigned& d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  y = static_cast<int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp < 10 ? mp + 3 : mp - 9;
  y += (m <= 2);
}

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

bool Digits(std::string_view s, size_t pos, size_t n, int& out) {
  if (pos + n > s.size()) return false;
  int v = 0;
  for (size_t i = 0; i < n; ++i) {
    char c = s[pos + i];
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  out = v;
  return true;
}

unsigned DaysInMonth(int64_t y, unsigned m) {
  static constexpr unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return m == 2 && leap ? 29 : kDays[m - 1];
}

}  // namespace

namespace {
// Writes `v` as exactly `width` decimal digits (zero-padded) at `out`.
char* Digits(char* out, int64_t v, int width) {
  for (int i = width - 1; i >= 0; --i) {
    out[i] = static_cast<char>('0' + v % 10);
    v /= 10;
  }
  return out + width;
}

std::string Format(Timestamp t, bool micros) {
  int64_t us = t.micros;
  int64_t days = FloorDiv(us, 86400000000LL);
  int64_t rem = us - days * 86400000000LL;  // microseconds into the day
  int64_t y;
  unsigned m, d;
  CivilFromDays(days, y, m, d);
  int64_t secs = rem / 1000000;
  if (y < 0 || y > 9999) {  // outside RFC 3339's four-digit years: printf's forms
    char buf[64];  // the longest form printf can write here (58)
    std::snprintf(buf, sizeof buf, "%04lld-%02u-%02uT%02lld:%02lld:%02lld.%06lldZ",
                  static_cast<long long>(y), m, d, static_cast<long long>(secs / 3600),
                  static_cast<long long>(secs / 60 % 60), static_cast<long long>(secs % 60),
                  static_cast<long long>(rem % 1000000));
    std::string s = buf;
    if (!micros) s.erase(s.size() - 4, 3);
    return s;
  }
  // Written by hand: this runs for every event a projector applies, and snprintf was a visible
  // part of that.
  char buf[32];
  char* p = Digits(buf, y, 4);
  *p++ = '-';
  p = Digits(p, m, 2);
  *p++ = '-';
  p = Digits(p, d, 2);
  *p++ = 'T';
  p = Digits(p, secs / 3600, 2);
  *p++ = ':';
  p = Digits(p, secs / 60 % 60, 2);
  *p++ = ':';
  p = Digits(p, secs % 60, 2);
  *p++ = '.';
  p = micros ? Digits(p, rem % 1000000, 6) : Digits(p, rem % 1000000 / 1000, 3);
  *p++ = 'Z';
  return std::string(buf, static_cast<size_t>(p - buf));
}
}  // namespace

std::string FormatRfc3339(Timestamp t) { return Format(t, false); }
std::string FormatRfc3339Micros(Timestamp t) { return Format(t, true); }

std::string FormatDate(Timestamp t) {
  int64_t days = FloorDiv(t.micros, 86400000000LL);
  int64_t y;
  unsigned m, d;
  CivilFromDays(days, y, m, d);
  char buf[32];  // a year beyond four digits is not cut (at most 29)
  std::snprintf(buf, sizeof buf, "%04lld-%02u-%02u", static_cast<long long>(y), m, d);
  return buf;
}

Result<Timestamp> ParseRfc3339(std::string_view s) {
  auto bad = [] { return InvalidArgument("not an RFC 3339 date-time", "VALIDATION_ERROR"); };
  int Y, M, D, h, mi, sec;
  if (!Digits(s, 0, 4, Y) || s.size() < 20 || s[4] != '-' || !Digits(s, 5, 2, M) || s[7] != '-' ||
      !Digits(s, 8, 2, D) || (s[10] != 'T' && s[10] != 't') || !Digits(s, 11, 2, h) ||
      s[13] != ':' || !Digits(s, 14, 2, mi) || s[16] != ':' || !Digits(s, 17, 2, sec)) {
    return bad();
  }
  if (M < 1 || M > 12 || D < 1 || static_cast<unsigned>(D) > DaysInMonth(Y, M) || h > 23 ||
      mi > 59 || sec > 60) {
    return bad();
  }
  size_t pos = 19;
  int64_t frac_us = 0;
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    size_t start = pos;
    int64_t scale = 100000;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
      if (pos - start >= 9) return bad();
      frac_us += (s[pos] - '0') * scale;  // digits past the sixth have scale 0: truncated
      scale /= 10;
      ++pos;
    }
    if (pos == start) return bad();
  }
  int64_t offset_s = 0;
  if (pos < s.size() && (s[pos] == 'Z' || s[pos] == 'z')) {
    ++pos;
  } else if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
    int oh, om;
    if (!Digits(s, pos + 1, 2, oh) || pos + 3 >= s.size() || s[pos + 3] != ':' ||
        !Digits(s, pos + 4, 2, om) || oh > 23 || om > 59) {
      return bad();
    }
    offset_s = (oh * 3600 + om * 60) * (s[pos] == '+' ? 1 : -1);
    pos += 6;
  } else {
    return bad();
  }
  if (pos != s.size()) return bad();
  if (sec == 60) sec = 59;  // leap second: clamp, as most systems do
  int64_t days = DaysFromCivil(Y, static_cast<unsigned>(M), static_cast<unsigned>(D));
  int64_t secs = days * 86400 + h * 3600 + mi * 60 + sec - offset_s;
  return Timestamp{secs * 1000000 + frac_us};
}

}  // namespace svc::core
