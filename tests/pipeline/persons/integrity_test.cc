// The integrity check's rules (pipeline/persons/integrity.h): the caller's key, and the
// comparison of MACs over the opened values.
#include <doctest/doctest.h>

#include "core/crypto.h"
#include "core/ids.h"
#include "pipeline/persons/integrity.h"

namespace pipeline_persons_integrity_test {

using namespace svc;
namespace pp = svc::pipeline::persons;

TEST_CASE("integrity: the signing key is 16 to 64 bytes of base64 or base64url") {
  const std::string key(32, '\x7f');
  CHECK(*pp::IntegritySigningKey(core::Base64Encode(key)) == key);
  CHECK(*pp::IntegritySigningKey(core::Base64UrlEncode(std::string(20, '\xff'))) == std::string(20, '\xff'));
  CHECK(pp::IntegritySigningKey(core::Base64Encode(std::string(15, 'k'))).status().api_code() ==
        "INTEGRITY_SIGNING_KEY_INVALID");
  CHECK(pp::IntegritySigningKey(core::Base64Encode(std::string(65, 'k'))).status().api_code() ==
        "INTEGRITY_SIGNING_KEY_INVALID");
  CHECK(pp::IntegritySigningKey("not base64 !").status().api_code() == "INTEGRITY_SIGNING_KEY_INVALID");
}

TEST_CASE("integrity: each field matches, mismatches or is absent") {
  const std::string key(32, 'k');
  auto mac = [&](const std::string& v) { return core::HexEncode(core::HmacSha256(key, v)); };
  core::Json values = {{"email", "ana@example.mx"}, {"phone", "+525512345678"}, {"curp", nullptr}};
  auto results = pp::CompareIntegrity(
      values, {{"email", mac("ana@example.mx")}, {"phone", mac("+525500000000")}, {"curp", mac("X")}, {"rfc", mac("Y")}},
      key);
  CHECK(results["email"] == "match");
  CHECK(results["phone"] == "mismatch");
  CHECK(results["curp"] == "absent");
  CHECK(results["rfc"] == "absent");
  CHECK(pp::CompareIntegrity(values, {{"email", mac("ana@example.mx")}}, std::string(32, 'x'))["email"] == "mismatch");
}

}  // namespace pipeline_persons_integrity_test
