// Sealing a vault value binds it to its tenant, environment, person, field and revision
// (pipeline/persons/vault_keys.h).
#include <doctest/doctest.h>

#include "core/crypto.h"
#include "eventstore/key_store.h"
#include "eventstore/kv_store.h"
#include "pipeline/persons/vault_keys.h"
#include "tests/support/key_store_fixture.h"
#include "tests/support/temp_dir.h"

namespace pipeline_persons_vault_keys_test {

using namespace svc;
using namespace svc::pipeline::persons;

TEST_CASE("vault keys: a sealed value opens only under its own names and revision") {
  const std::string key = core::RandomBytes(32);
  const std::string t = "ten_1", e = "test", p = "per_1";
  std::string sealed = SealPii(key, t, e, p, "curp", 2, "HEGG560427MVZRRL04");
  CHECK(sealed.find("HEGG") == std::string::npos);
  CHECK(SealPii(key, t, e, p, "curp", 2, "HEGG560427MVZRRL04") != sealed);  // a fresh nonce each time
  auto opened = OpenPii(key, t, e, p, "curp", 2, sealed);
  REQUIRE(opened.ok());
  CHECK(*opened == "HEGG560427MVZRRL04");
  CHECK_FALSE(OpenPii(key, t, e, p, "rfc", 2, sealed).ok());           // another field
  CHECK_FALSE(OpenPii(key, t, e, p, "curp", 1, sealed).ok());          // another revision
  CHECK_FALSE(OpenPii(key, t, e, "per_2", "curp", 2, sealed).ok());    // another person
  CHECK_FALSE(OpenPii(key, t, "live", p, "curp", 2, sealed).ok());     // another environment
  CHECK_FALSE(OpenPii(key, "ten_2", e, p, "curp", 2, sealed).ok());    // another tenant
  CHECK_FALSE(OpenPii(core::RandomBytes(32), t, e, p, "curp", 2, sealed).ok());  // shredded key
  CHECK(OpenPii(key, t, e, p, "curp", 2, "not base64!").status().code() == core::StatusCode::kDataLoss);
  CHECK(PersonKeyName(t, e, p) == "person/ten_1/test/per_1");
}

TEST_CASE("vault keys: a bulk export's reason opens only for its own job, under the runtime's seal key") {
  const std::string seal = core::RandomBytes(32);
  const std::string t = "ten_1", e = "test", job = "pxb_1";
  const std::string sealed = SealExportReason(seal, t, e, job, "annual review for Quetzal");
  CHECK(sealed.find("Quetzal") == std::string::npos);
  CHECK(core::Base64Decode(sealed).value().find("Quetzal") == std::string::npos);
  CHECK(SealExportReason(seal, t, e, job, "annual review for Quetzal") != sealed);  // a fresh nonce each time
  auto opened = OpenExportReason(seal, t, e, job, sealed);
  REQUIRE(opened.ok());
  CHECK(*opened == "annual review for Quetzal");
  CHECK(OpenExportReason(seal, t, e, "pxb_2", sealed).status().code() == core::StatusCode::kDataLoss);  // another job
  CHECK_FALSE(OpenExportReason(seal, t, "live", job, sealed).ok());                // another environment
  CHECK_FALSE(OpenExportReason(seal, "ten_2", e, job, sealed).ok());               // another tenant
  CHECK_FALSE(OpenExportReason(core::RandomBytes(32), t, e, job, sealed).ok());    // another service key
  CHECK_FALSE(OpenExportReason(seal, t, e, job, "not base64!").ok());
}

TEST_CASE("vault keys: one random blind-index key per tenant and environment, kept in the key store") {
  testing::KeyStoreFixture ks;
  eventstore::KeyStore& keys = *ks.keys;
  auto a = IndexKey(keys, "ten_1", "test");
  REQUIRE(a.ok());
  CHECK(a->size() == 32);
  CHECK(*IndexKey(keys, "ten_1", "test") == *a);  // stable: the index stays valid
  CHECK(*IndexKey(keys, "ten_1", "live") != *a);
  CHECK(*IndexKey(keys, "ten_2", "test") != *a);
  CHECK(IndexKeyName("ten_1", "test") == "persons-index/ten_1/test");
}

}  // namespace pipeline_persons_vault_keys_test
