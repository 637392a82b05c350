#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <string>

#include "core/error_catalogue.h"

namespace core_error_catalogue_test {

using namespace svc::core;

// The golden file is the published catalogue. The catalogue is append-only: a code in the golden
// file must stay, with the same status. A new code is added to both.
TEST_CASE("error catalogue: append-only against the golden file") {
  std::ifstream in(std::string(SVC_TEST_SOURCE_DIR) + "/core/error_catalogue.golden");
  REQUIRE(in.good());
  std::map<std::string, int> golden;
  std::string code;
  int status;
  while (in >> code >> status) golden[code] = status;
  CHECK(golden.size() >= 151);
  for (const auto& [c, s] : golden) {
    const ErrorCodeInfo* info = FindErrorCode(c);
    REQUIRE_MESSAGE(info != nullptr, "removed code: " << c);
    CHECK_MESSAGE(info->http_status == s, "changed status of " << c);
  }
  for (const auto& info : ErrorCatalogue()) {
    CHECK_MESSAGE(golden.count(std::string(info.code)) == 1,
                  "new code missing from the golden file: " << info.code);
    CHECK(!info.title.empty());
    CHECK(info.http_status >= 400);
  }
}

TEST_CASE("error catalogue: lookups") {
  CHECK(FindErrorCode("IDEMPOTENCY_KEY_REUSED")->http_status == 409);
  CHECK(FindErrorCode("SESSION_EXPIRED")->http_status == 401);
  CHECK(FindErrorCode("NOT_IMPLEMENTED")->reserved);
  CHECK(FindErrorCode("NO_SUCH_CODE") == nullptr);
}

}  // namespace core_error_catalogue_test
