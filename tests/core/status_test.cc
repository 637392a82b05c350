#include <doctest/doctest.h>

#include "core/status.h"

namespace core_status_test {

using namespace svc::core;

namespace {
Result<int> Half(int x) {
  if (x % 2 != 0) return InvalidArgument("odd", "VALIDATION_ERROR");
  return x / 2;
}
Result<int> Quarter(int x) {
  SVC_ASSIGN_OR_RETURN(int h, Half(x));
  return Half(h);
}
Status Check(int x) {
  SVC_RETURN_IF_ERROR(Half(x).status());
  return Status::Ok();
}
}  // namespace

TEST_CASE("Status carries a canonical code and a catalogue code") {
  Status s = NotFound("no such tenant", "TENANT_NOT_FOUND");
  CHECK_FALSE(s.ok());
  CHECK(s.code() == StatusCode::kNotFound);
  CHECK(s.api_code() == "TENANT_NOT_FOUND");
  CHECK(s.ToString() == "NOT_FOUND [TENANT_NOT_FOUND]: no such tenant");
  CHECK(Status::Ok().ok());
  CHECK(Internal("x").api_code() == "INTERNAL_ERROR");
}

TEST_CASE("Result and the macros propagate the first error") {
  CHECK(*Quarter(8) == 2);
  auto r = Quarter(6);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().api_code() == "VALIDATION_ERROR");
  CHECK(Check(4).ok());
  CHECK_FALSE(Check(3).ok());
  Result<int> from_ok_status = Status::Ok();  // a bug: must not look like success
  CHECK_FALSE(from_ok_status.ok());
}

}  // namespace core_status_test
