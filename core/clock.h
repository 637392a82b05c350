#pragma once
// Time: a Timestamp (microseconds since the Unix epoch, UTC), an injectable Clock, and RFC 3339
// formatting and parsing. Nothing in a decider or a projector reads the system clock; time
// comes in through a Clock so tests and replays are deterministic.

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/status.h"

namespace svc::core {

struct Timestamp {
  int64_t micros = 0;  // since 1970-01-01T00:00:00Z

  static Timestamp FromMillis(int64_t ms) { return Timestamp{ms * 1000}; }
  static Timestamp FromSeconds(int64_t s) { return Timestamp{s * 1000000}; }
  int64_t millis() const { return micros / 1000; }
  int64_t seconds() const { return micros / 1000000; }
  friend auto operator<=>(const Timestamp&, const Timestamp&) = default;
};

class Clock {
 public:
  virtual ~Clock() = default;
  virtual Timestamp Now() const = 0;
};

class SystemClock final : public Clock {
 public:
  Timestamp Now() const override;
  // TESTS ONLY (`svc serve --debug-clock-offset-seconds`): every SystemClock of the process reads
  // the machine's time plus this, as a node whose clock is wrong would (issue 67's history
  // checker). Steady clocks are not moved.
  static void SetOffsetForTests(int64_t micros);
};

// A clock that moves only when told to. Thread-safe.
class FakeClock final : public Clock {
 public:
  explicit FakeClock(Timestamp start = Timestamp::FromSeconds(1767225600))  // 2026-01-01
      : now_(start.micros) {}
  Timestamp Now() const override { return Timestamp{now_.load()}; }
  void Set(Timestamp t) { now_.store(t.micros); }
  void AdvanceMicros(int64_t us) { now_.fetch_add(us); }
  void AdvanceSeconds(int64_t s) { now_.fetch_add(s * 1000000); }

 private:
  std::atomic<int64_t> now_;
};

// "2026-11-22T14:13:05.123Z": UTC, millisecond precision, always the same width.
std::string FormatRfc3339(Timestamp t);
// "2026-11-22T14:13:05.123456Z": as above with microseconds, for event envelopes (exact).
std::string FormatRfc3339Micros(Timestamp t);
// Accepts RFC 3339 date-times with 'Z' or a numeric offset and 0-9 fraction digits.
Result<Timestamp> ParseRfc3339(std::string_view text);
// "2026-11-22"
std::string FormatDate(Timestamp t);

}  // namespace svc::core
