#include <doctest/doctest.h>

#include "core/clock.h"

namespace core_clock_test {

using namespace svc::core;

TEST_CASE("RFC 3339: formatting is UTC with milliseconds") {
  CHECK(FormatRfc3339(Timestamp{0}) == "1970-01-01T00:00:00.000Z");
  CHECK(FormatRfc3339(Timestamp::FromMillis(1614265330123)) == "2021-02-25T15:02:10.123Z");
  CHECK(FormatRfc3339Micros(Timestamp{1614265330123456}) == "2021-02-25T15:02:10.123456Z");
  CHECK(FormatRfc3339(Timestamp::FromSeconds(951782400)) == "2000-02-29T00:00:00.000Z");
  CHECK(FormatRfc3339(Timestamp{-1000}) == "1969-12-31T23:59:59.999Z");
  CHECK(FormatRfc3339Micros(Timestamp{253402300799999999}) == "9999-12-31T23:59:59.999999Z");
  CHECK(FormatRfc3339(Timestamp{253402300800000000}) == "10000-01-01T00:00:00.000Z");
  CHECK(FormatDate(Timestamp::FromSeconds(1767225600)) == "2026-01-01");
}

TEST_CASE("RFC 3339: parsing accepts offsets and fractions, rejects the rest") {
  CHECK(ParseRfc3339("2021-02-25T15:02:10Z")->micros == 1614265330000000);
  CHECK(ParseRfc3339("2021-02-25T15:02:10.5Z")->micros == 1614265330500000);
  CHECK(ParseRfc3339("2021-02-25T09:02:10-06:00")->micros == 1614265330000000);
  CHECK(ParseRfc3339("2021-02-25T15:02:10.123456789+00:00")->micros == 1614265330123456);
  auto t = Timestamp{1614265330123456};
  CHECK(*ParseRfc3339(FormatRfc3339Micros(t)) == t);
  for (const char* bad : {"2021-02-25", "2021-02-30T00:00:00Z", "2021-13-01T00:00:00Z",
                          "2021-02-25T24:00:00Z", "2021-02-25T15:02:10", "2021-02-25T15:02:10.Z",
                          "2021-02-25 15:02:10Z", "2021-02-25T15:02:10Zjunk", "hello"}) {
    CHECK_MESSAGE(!ParseRfc3339(bad).ok(), bad);
  }
}

TEST_CASE("FakeClock moves only when told") {
  FakeClock c(Timestamp::FromSeconds(100));
  CHECK(c.Now().seconds() == 100);
  c.AdvanceSeconds(5);
  CHECK(c.Now().seconds() == 105);
}

}  // namespace core_clock_test
