// The reviewer's words for an applicant (pipeline/verification/requested_input.h): sealed under the
// session's key and bound to the session, opened only on the way out, gone with the session's key;
// records and webhook bodies without words pass byte for byte.
#include <doctest/doctest.h>

#include "pipeline/verification/requested_input.h"
#include "tests/support/key_store_fixture.h"

namespace pipeline_verification_requested_input_test {

using namespace svc;
namespace pv = svc::pipeline::verification;

namespace {
const std::string kWords = "Tómala de nuevo junto a una ventana, sin flash.";
const std::string kSessionA = "vrf_0123456789abcdef0123456789abcdef";
const std::string kSessionB = "vrf_fedcba9876543210fedcba9876543210";
}  // namespace

TEST_CASE("requested input: the words open for their own session only, and not once its key is gone") {
  testing::KeyStoreFixture f;
  auto& keys = *f.keys;
  const std::string key_name = eventstore::KeyStore::SessionKeyName("ten_a", "test", kSessionA);
  REQUIRE(keys.GetOrCreate(key_name).ok());
  REQUIRE(keys.GetOrCreate(eventstore::KeyStore::SessionKeyName("ten_a", "test", kSessionB)).ok());
  auto sealed = pv::SealApplicantMessage(keys, "ten_a", "test", kSessionA, kWords);
  REQUIRE(sealed.ok());
  CHECK(sealed->find("ventana") == std::string::npos);
  CHECK(pv::SealApplicantMessage(keys, "ten_a", "test", kSessionA, "").value() == "");
  CHECK(pv::OpenApplicantMessage(keys, "ten_a", "test", kSessionA, *sealed) == kWords);
  // Another session (its own key, or the words moved to it), another environment: not opened.
  CHECK(!pv::OpenApplicantMessage(keys, "ten_a", "test", kSessionB, *sealed).has_value());
  CHECK(!pv::OpenApplicantMessage(keys, "ten_a", "live", kSessionA, *sealed).has_value());
  CHECK(!pv::OpenApplicantMessage(keys, "ten_a", "test", kSessionA, "not base64 !").has_value());

  // As served: the record's requestedInput opened, the sealed text gone.
  core::Json record = {{"id", kSessionA},
                       {"status", "awaiting_input"},
                       {"requestedInput",
                        {{"reasonCodes", {"DOCUMENT_BACK_REQUIRED"}},
                         {"captures", {"document_back"}},
                         {"message", nullptr},
                         {"messageSealed", *sealed},
                         {"requestedAt", "2026-12-07T10:00:00Z"}}}};
  core::Json served = core::ParseJsonOrDiscarded(pv::ServedSessionRecord(keys, "ten_a", "test", record.dump()));
  CHECK(served["requestedInput"]["message"] == kWords);
  CHECK(!served["requestedInput"].contains("messageSealed"));
  CHECK(served["requestedInput"]["captures"] == core::Json::array({"document_back"}));
  // A webhook body: the same, by the session the data names.
  core::Json body = {{"id", "evt_1"},
                     {"type", "verification.more_info_requested"},
                     {"data", {{"sessionId", kSessionA}, {"requestedInput", record["requestedInput"]}}}};
  core::Json sent = core::ParseJsonOrDiscarded(pv::WebhookBodyAsSent(keys, "ten_a", "test", body.dump()));
  CHECK(sent["data"]["requestedInput"]["message"] == kWords);
  CHECK(!sent["data"]["requestedInput"].contains("messageSealed"));
  CHECK(sent["id"] == "evt_1");

  // Without words: byte for byte as kept (the record's own serialisation, not a re-dump).
  const std::string plain = R"({"id":"vrf_x","status":"approved",  "meta":{"b":1,"a":2}})";
  CHECK(pv::ServedSessionRecord(keys, "ten_a", "test", plain) == plain);
  CHECK(pv::WebhookBodyAsSent(keys, "ten_a", "test", plain) == plain);

  // The session's data erased: the words are gone, the rest is still served.
  REQUIRE(keys.Destroy(key_name).ok());
  CHECK(!pv::OpenApplicantMessage(keys, "ten_a", "test", kSessionA, *sealed).has_value());
  served = core::ParseJsonOrDiscarded(pv::ServedSessionRecord(keys, "ten_a", "test", record.dump()));
  CHECK(served["requestedInput"]["message"].is_null());
  CHECK(served["requestedInput"]["captures"] == core::Json::array({"document_back"}));
  CHECK(pv::SealApplicantMessage(keys, "ten_a", "test", kSessionA, kWords).status().api_code() == "CASE_CLOSED");
}

}  // namespace pipeline_verification_requested_input_test
