// The state topics' records (projections/state_records.h): a read-model row cut to the members
// its shape lists. Nothing else passes: not the integrator's free text, not a secret, not a masked
// value; a person asked to be forgotten or redacted is a tombstone.
#include <doctest/doctest.h>

#include "core/json.h"
#include "projections/state_records.h"

namespace projections_state_records_test {

using namespace svc;
using svc::projections::FindStateTopic;

TEST_CASE("state records: a session's row cut to its state; secrets and the integrator's words left out") {
  const auto* info = FindStateTopic("verification_session");
  REQUIRE(info != nullptr);
  CHECK(info->area == "verification");
  CHECK(info->type == "verification_session.state");
  const core::Json row = core::Json::parse(R"({"id":"vrf_1","publicId":"VS-1","tenantId":"ten_1","applicationId":"app_1",
    "flowId":null,"personId":"per_0123456789abcdef0123456789abcdef","channel":"api","status":"approved","currentStep":null,
    "clientReference":"customer 4411 Juan","country":"MX","locale":"es-MX","trustScore":87,"createdAt":"t0","updatedAt":"t1",
    "startedAt":"t0","completedAt":"t1","decidedAt":"t1","expiresAt":null,"linkToken":"lt_secret","hostedUrl":"https://x/lt_secret",
    "callbackSecret":"cbs_secret","deepLink":null,"requiresApp":false,"metadata":{"name":"Juan"}})");
  auto record = info->record(row.dump());
  REQUIRE(record.has_value());
  const std::string text = record->dump();
  for (const char* gone : {"customer 4411", "lt_secret", "cbs_secret", "Juan", "VS-1", "ten_1"}) {
    CHECK_MESSAGE(text.find(gone) == std::string::npos, gone);
  }
  CHECK((*record)["status"] == "approved");
  CHECK((*record)["trustScore"] == 87);
  CHECK((*record)["personId"] == "per_0123456789abcdef0123456789abcdef");  // the publisher makes it a pseudonym
  CHECK((*record)["expiresAt"].is_null());
  CHECK(info->schema["required"].size() == record->size());  // every member written, every one required
}

TEST_CASE("state records: a person's state names their fields, never their values; a forget is a tombstone") {
  const auto* info = FindStateTopic("person");
  REQUIRE(info != nullptr);
  core::Json row = core::Json::parse(R"({"id":"per_1","object":"person","status":"active","piiVersion":2,
    "applicationId":"app_1","externalRefs":[{"applicationId":"app_1","externalRef":"cliente-77"}],"forgetRequested":false,
    "emailProvided":true,"curpProvided":true,"phoneProvided":false,"pii":{"email":"a***@example.mx"},
    "metadata":{"note":"VIP"},"verificationSummary":{"status":"verified","lastSessionId":"vrf_1","lastVerifiedAt":"t1",
    "sessionCount":1,"verifiedFields":["curp"]},"createdAt":"t0","updatedAt":"t1"})");
  auto record = info->record(row.dump());
  REQUIRE(record.has_value());
  const std::string text = record->dump();
  for (const char* gone : {"cliente-77", "example.mx", "VIP", "***"}) CHECK_MESSAGE(text.find(gone) == std::string::npos, gone);
  CHECK((*record)["piiFields"] == core::Json::array({"curp", "email"}));
  CHECK((*record)["verificationSummary"]["verifiedFields"] == core::Json::array({"curp"}));
  row["forgetRequested"] = true;
  CHECK_FALSE(info->record(row.dump()).has_value());
  row["forgetRequested"] = false;
  row["status"] = "redacted";
  CHECK_FALSE(info->record(row.dump()).has_value());
}

TEST_CASE("state records: a review case without its notes or reason, a company without its names") {
  const auto* cases = FindStateTopic("review_case");
  REQUIRE(cases != nullptr);
  auto c = cases->record((core::Json::parse(R"({"object":"review_case","caseId":"cas_1","caseNumber":3,"status":"open",
    "priority":"high","reason":"the face looked like Juan's brother","reasonCodes":["FACE_MISMATCH"],"noteSealed":"x",
    "assigneeUserId":"usr_1","escalationLevel":0,"awaitingSecondApproval":false,"createdAt":"t0","updatedAt":"t0"})")).dump());
  REQUIRE(c.has_value());
  CHECK(c->dump().find("brother") == std::string::npos);
  CHECK(c->dump().find("usr_1") == std::string::npos);
  CHECK((*c)["reasonCodes"] == core::Json::array({"FACE_MISMATCH"}));
  const auto* companies = FindStateTopic("company");
  REQUIRE(companies != nullptr);
  auto k = companies->record((core::Json::parse(R"({"object":"company","id":"cmp_1","legalNameSealed":"s1","rfcSealed":"s2",
    "country":"MX","subjectKind":"company","claimStatus":"unclaimed","status":"verified","riskLevel":"low","riskScore":12,
    "members":[{"nameSealed":"s3"}],"createdAt":"t0","updatedAt":"t1"})")).dump());
  REQUIRE(k.has_value());
  CHECK(k->dump().find("Sealed") == std::string::npos);
  CHECK(k->dump().find("members") == std::string::npos);
  CHECK((*k)["riskScore"] == 12);
  CHECK(FindStateTopic("tenant") == nullptr);
  CHECK_FALSE(companies->record("not json").has_value());
}

}  // namespace projections_state_records_test
