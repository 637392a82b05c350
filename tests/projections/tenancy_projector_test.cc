// The tenancy read model, events in and rows out (tests/support/projector_spec.h): what
// authentication and the admin commands read.
#include <doctest/doctest.h>

#include "commands/tenancy/tenancy_events.h"
#include "projections/tenancy_projector.h"
#include "tests/support/projector_spec.h"

namespace projections_tenancy_projector_test {

using namespace svc;
namespace tn = svc::commands::tenancy;
using svc::projections::TenancyProjector;
using V = svc::projections::TenancyView;

namespace {

const std::string kApp = "app_00000000000000000000000000000001";
const std::string kKey = "key_00000000000000000000000000000001";

struct Spec : svc::testing::ProjectorSpec<TenancyProjector> {
  Spec() { environment = ""; }  // tenant-level facts
  core::Status Feed(const tn::TenancyEvent& e) {
    return ProjectorSpec::Feed(Event("tenant", tenant, std::string(tn::TypeOf(e)),
                                     core::ParseJsonOrDiscarded(tn::EncodeData(e))));
  }
};

tn::ApiKeyCreated Key() {
  tn::ApiKeyCreated k;
  k.key_id = kKey;
  k.application_id = kApp;
  k.environment = "test";
  k.key_type = "secret";
  k.scopes = {"sessions:*"};
  k.secret_hash = std::string(64, 'c');
  k.last4 = "wxyz";
  k.name = "ci";
  return k;
}

}  // namespace

TEST_CASE("tenancy projector: a tenant, its default application, and keys found by their hash") {
  Spec spec;
  REQUIRE(spec.Feed(tn::TenantCreated{"Acme"}).ok());
  CHECK(spec.Row(V::Tenant(spec.tenant))["defaultApplicationId"].is_null());
  REQUIRE(spec.Feed(tn::ApplicationCreated{kApp, "Default", true}).ok());
  CHECK(spec.Row(V::Tenant(spec.tenant))["defaultApplicationId"] == kApp);
  CHECK(spec.Row(V::Application(spec.tenant, kApp))["isDefault"] == true);
  REQUIRE(spec.Feed(Key()).ok());
  core::Json key = spec.Row(V::Key(spec.tenant, kKey));
  CHECK(key["scopes"] == core::Json::array({"sessions:*"}));
  CHECK(key["revokedAt"].is_null());
  CHECK_FALSE(key.contains("secretHash"));  // the served row never holds the hash
  core::Json ref = spec.Row(V::KeyBySecretHash(std::string(64, 'c')));
  CHECK(ref["tenantId"] == spec.tenant);
  CHECK(ref["keyId"] == kKey);
  CHECK(spec.Keys(V::Keys(spec.tenant)).size() == 1);
  spec.CheckRebuildIdentical();
}

TEST_CASE("tenancy projector: the first revocation's time stays; unknown keys and orphan apps are data loss") {
  Spec spec;
  REQUIRE(spec.Feed(tn::TenantCreated{"Acme"}).ok());
  REQUIRE(spec.Feed(Key()).ok());
  REQUIRE(spec.Feed(tn::ApiKeyRevoked{kKey, "leaked"}).ok());
  core::Json first = spec.Row(V::Key(spec.tenant, kKey))["revokedAt"];
  CHECK(first.is_string());
  REQUIRE(spec.Feed(tn::ApiKeyRevoked{kKey, "again"}).ok());
  CHECK(spec.Row(V::Key(spec.tenant, kKey))["revokedAt"] == first);
  CHECK(spec.Feed(tn::ApiKeyRevoked{"key_00000000000000000000000000000009", "x"}).code() ==
        core::StatusCode::kDataLoss);
  Spec orphan;
  CHECK(orphan.Feed(tn::ApplicationCreated{kApp, "Default", true}).code() == core::StatusCode::kDataLoss);
}

}  // namespace projections_tenancy_projector_test
