// A hit's list entry names sealed for the log (pipeline/kyb/kyb_seal.h SealHitNames) on a real key
// store: a person's under their data key, a member's under its own, a company's or a screened
// name's under the KYB key; served opened, null once the key that sealed them is destroyed; a row
// of an older event (names in clear) served as it is; a sealed name moved to another hit opens
// nowhere.
#include <doctest/doctest.h>

#include "core/json.h"
#include "pipeline/kyb/kyb_seal.h"
#include "pipeline/persons/vault_keys.h"
#include "tests/support/key_store_fixture.h"

namespace pipeline_kyb_seal_test {

using namespace svc;
namespace pk = svc::pipeline::kyb;

namespace {

const std::string kT = "ten_00000000000000000000000000000001";
const std::string kPerson = "per_0123456789abcdef0123456789abcdef";
const std::string kCompany = "cmp_0123456789abcdef0123456789abcdef";
const std::string kMember = "cmm_0123456789abcdef0123456789abcdef";
const std::string kEntry = "VILLARREAL QUINTANA, Rogelio Armando";
const std::string kAlias = "EL INGENIERO";

// The row the KYB projector keeps for a hit whose event carried `sealed`.
core::Json Row(const std::string& hit, const std::string& type, const std::string& subject, const std::string& company,
               const pk::SealedHitNames& sealed) {
  return {{"id", hit},
          {"tenantId", kT},
          {"environment", "test"},
          {"subjectType", type},
          {"subjectId", subject},
          {"companyId", company.empty() ? core::Json(nullptr) : core::Json(company)},
          {"entry", {{"id", "9001"}, {"kind", "person"}, {"name", ""}, {"programs", core::Json::array()}}},
          {"matchedName", ""},
          {"entryNameSealed", sealed.entry_name},
          {"matchedNameSealed", sealed.matched_name},
          {"namesSealedWith", sealed.sealed_with}};
}

}  // namespace

TEST_CASE("kyb seal: a hit's entry names sealed under the subject's key, opened when served, gone with the key") {
  testing::KeyStoreFixture f;
  const auto keys = pk::KybKeys::From(std::string(32, 'k'), f.keys.get());
  REQUIRE(f.keys->GetOrCreate(pipeline::persons::PersonKeyName(kT, "test", kPerson)).ok());

  SUBCASE("a person's: under their data key, null once forgotten") {
    auto sealed = pk::SealHitNames(keys, kT, "test", "person", kPerson, "", "hit_1", kEntry, kAlias);
    REQUIRE(sealed.ok());
    CHECK(sealed->sealed_with == "person");
    CHECK(sealed->entry_name.find("VILLARREAL") == std::string::npos);
    const core::Json row = Row("hit_1", "person", kPerson, "", *sealed);
    core::Json served = pk::OpenHitNames(keys, row);
    CHECK(served["entry"]["name"] == kEntry);
    CHECK(served["matchedName"] == kAlias);
    CHECK_FALSE(served.contains("entryNameSealed"));
    CHECK_FALSE(served.contains("namesSealedWith"));
    // Moved to another hit, it does not open.
    core::Json moved = row;
    moved["id"] = "hit_2";
    CHECK(pk::OpenHitNames(keys, moved)["entry"]["name"].is_null());
    // The person forgotten: the names are gone with the key; the rest of the hit stays.
    REQUIRE(f.keys->Destroy(pipeline::persons::PersonKeyName(kT, "test", kPerson)).ok());
    served = pk::OpenHitNames(keys, row);
    CHECK(served["entry"]["name"].is_null());
    CHECK(served["matchedName"].is_null());
    CHECK(served["entry"]["id"] == "9001");
    // And no new hit is sealed for them.
    auto refused = pk::SealHitNames(keys, kT, "test", "person", kPerson, "", "hit_3", kEntry, kAlias);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.status().api_code() == "PERSON_FORGET_PENDING");
  }
  SUBCASE("a member's: under its own key when its name is, else the KYB key") {
    auto under_kyb = pk::SealHitNames(keys, kT, "test", "company_member", kMember, kCompany, "hit_m", kEntry, kAlias);
    REQUIRE(under_kyb.ok());
    CHECK(under_kyb->sealed_with == "kyb");
    REQUIRE(pk::SealSubjectName(*f.keys, kT, "test", kCompany, kMember, "Rogelio").ok());
    auto own = pk::SealHitNames(keys, kT, "test", "company_member", kMember, kCompany, "hit_m", kEntry, kAlias);
    REQUIRE(own.ok());
    CHECK(own->sealed_with == "record");
    const core::Json row = Row("hit_m", "company_member", kMember, kCompany, *own);
    CHECK(pk::OpenHitNames(keys, row)["entry"]["name"] == kEntry);
    REQUIRE(f.keys->Destroy(pk::SubjectKeyName(kT, "test", kCompany, kMember)).ok());
    CHECK(pk::OpenHitNames(keys, row)["matchedName"].is_null());
  }
  SUBCASE("a company's or a name's: under the KYB key; another environment's key does not open them") {
    auto sealed = pk::SealHitNames(keys, kT, "test", "company", kCompany, kCompany, "hit_c", kEntry, kAlias);
    REQUIRE(sealed.ok());
    CHECK(sealed->sealed_with == "kyb");
    core::Json row = Row("hit_c", "company", kCompany, kCompany, *sealed);
    CHECK(pk::OpenHitNames(keys, row)["entry"]["name"] == kEntry);
    row["environment"] = "live";
    CHECK(pk::OpenHitNames(keys, row)["entry"]["name"].is_null());
    const auto other = pk::KybKeys::From(std::string(32, 'o'), f.keys.get());
    row["environment"] = "test";
    CHECK(pk::OpenHitNames(other, row)["entry"]["name"].is_null());
  }
  SUBCASE("a row of an older event holds the names in clear: served as it is") {
    const core::Json row = {{"id", "hit_old"}, {"entry", {{"id", "9001"}, {"name", kEntry}}}, {"matchedName", kAlias}};
    CHECK(pk::OpenHitNames(keys, row) == row);
  }
}

}  // namespace pipeline_kyb_seal_test
