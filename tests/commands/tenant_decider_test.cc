// Given/when/then tests of the tenant decider: pure functions, no I/O.
#include <doctest/doctest.h>

#include "commands/tenancy/api_keys.h"
#include "commands/tenancy/scopes.h"
#include "commands/tenancy/tenant_decider.h"

namespace commands_tenant_decider_test {

using namespace svc;
using namespace svc::commands;
using namespace svc::commands::tenancy;

namespace {

const std::string kTenant = "ten_00000000000000000000000000000001";
const std::string kApp = "app_00000000000000000000000000000001";
const std::string kKey = "key_00000000000000000000000000000001";

CommandContext Ctx() {
  CommandContext c;
  c.now = core::Timestamp::FromSeconds(1767225600);
  c.actor = {"admin_cli", "local"};
  return c;
}

// Given: a history of events; Evolve folds them into a state.
TenantState Given(const std::vector<TenancyEvent>& history) {
  TenantState s;
  int64_t t = 1767225600;
  for (const auto& e : history) {
    TenantDecider::EvolveDecoded(s, e, core::Timestamp::FromSeconds(t++), kTenant);
  }
  return s;
}

std::vector<std::string> Types(const Decision& d) {
  std::vector<std::string> out;
  for (const auto& e : d.events) out.push_back(e.type);
  return out;
}

std::string Code(const core::Result<Decision>& r) { return std::string(r.status().api_code()); }

CreateApiKey Key(std::vector<std::string> scopes, std::string type = "secret") {
  CreateApiKey c;
  c.key_id = kKey;
  c.environment = "test";
  c.key_type = std::move(type);
  c.scopes = std::move(scopes);
  c.secret_hash = std::string(64, 'a');
  c.last4 = "abcd";
  return c;
}

const std::vector<TenancyEvent> kCreated = {TenantCreated{"Acme"},
                                            ApplicationCreated{kApp, "Default", true}};

}  // namespace

TEST_CASE("create tenant: a tenant and its default application, once") {
  auto d = TenantDecider::Decide(Given({}), CreateTenant{"Acme", kApp}, Ctx());
  REQUIRE(d.ok());
  CHECK(Types(*d) == std::vector<std::string>{"tenancy.tenant_created",
                                              "tenancy.application_created"});
  CHECK(d->result["defaultApplicationId"] == kApp);

  auto again = TenantDecider::Decide(Given(kCreated), CreateTenant{"Acme", kApp}, Ctx());
  CHECK(Code(again) == "CONFLICT");
  CHECK(Code(TenantDecider::Decide(Given({}), CreateTenant{"", kApp}, Ctx())) ==
        "VALIDATION_ERROR");
  CHECK(Code(TenantDecider::Decide(Given({}), CreateTenant{"bad\nname", kApp}, Ctx())) ==
        "VALIDATION_ERROR");
}

TEST_CASE("create key: scopes validated, sorted and de-duplicated; default application used") {
  auto d = TenantDecider::Decide(Given(kCreated),
                                 Key({"persons:read", "persons:*", "persons:read"}), Ctx());
  REQUIRE(d.ok());
  CHECK(Types(*d) == std::vector<std::string>{"tenancy.api_key_created"});
  CHECK(d->result["applicationId"] == kApp);
  CHECK(d->result["scopes"] == core::Json::array({"persons:*", "persons:read"}));
  CHECK(d->events[0].data.find("secretHash") != std::string::npos);

  CHECK(Code(TenantDecider::Decide(Given({}), Key({"*"}), Ctx())) == "TENANT_NOT_FOUND");
  CHECK(Code(TenantDecider::Decide(Given(kCreated), Key({"persons:sing"}), Ctx())) ==
        "UNKNOWN_SCOPE");
  CHECK(Code(TenantDecider::Decide(Given(kCreated), Key({}), Ctx())) == "VALIDATION_ERROR");
  CHECK(Code(TenantDecider::Decide(Given(kCreated), Key({"persons:read"}, "publishable"), Ctx())) ==
        "SCOPE_NOT_ALLOWED_FOR_KEY_TYPE");
  CHECK(TenantDecider::Decide(Given(kCreated), Key({"embedded:create_session"}, "publishable"),
                              Ctx())
            .ok());
  auto other_app = Key({"*"});
  other_app.application_id = "app_00000000000000000000000000000009";
  CHECK(Code(TenantDecider::Decide(Given(kCreated), other_app, Ctx())) == "APPLICATION_NOT_FOUND");
}

TEST_CASE("revoke key: once; a second revocation records nothing") {
  auto history = kCreated;
  ApiKeyCreated k;
  k.key_id = kKey;
  k.application_id = kApp;
  k.environment = "test";
  k.key_type = "secret";
  k.scopes = {"*"};
  history.push_back(k);

  auto d = TenantDecider::Decide(Given(history), RevokeApiKey{kKey, "leaked"}, Ctx());
  REQUIRE(d.ok());
  CHECK(Types(*d) == std::vector<std::string>{"tenancy.api_key_revoked"});

  history.push_back(ApiKeyRevoked{kKey, "leaked"});
  TenantState s = Given(history);
  CHECK(s.FindKey(kKey)->revoked_micros != 0);
  auto again = TenantDecider::Decide(s, RevokeApiKey{kKey, ""}, Ctx());
  REQUIRE(again.ok());
  CHECK(again->events.empty());
  CHECK(again->result["alreadyRevoked"] == true);
  CHECK(Code(TenantDecider::Decide(s, RevokeApiKey{"key_00000000000000000000000000000009", ""},
                                   Ctx())) == "API_KEY_NOT_FOUND");
}

TEST_CASE("tenant state serialises and comes back equal") {
  auto history = kCreated;
  history.push_back(ApplicationCreated{"app_00000000000000000000000000000002", "Mobile", false});
  TenantState s = Given(history);
  auto back = TenantDecider::FromJson(core::DumpJson(TenantDecider::ToJson(s)));
  REQUIRE(back.ok());
  CHECK(core::DumpJson(TenantDecider::ToJson(*back)) ==
        core::DumpJson(TenantDecider::ToJson(s)));
  CHECK(back->applications.size() == 2);
}

TEST_CASE("scopes: wildcards per resource and total") {
  CHECK(ScopesAllow({"persons:*"}, "persons:read_pii"));
  CHECK(ScopesAllow({"*"}, "webhook:write"));
  CHECK(ScopesAllow({"kyb:read"}, "kyb:read"));
  CHECK_FALSE(ScopesAllow({"kyb:read"}, "kyb:write"));
  CHECK_FALSE(ScopesAllow({"persons:*"}, "personsx:read"));
  CHECK(ValidateScope("webhook:*").ok());
  CHECK_FALSE(ValidateScope("nothing:*").ok());
}

TEST_CASE("API key material: shape, uniqueness, keyed hash") {
  auto a = GenerateApiKey("test", "secret");
  auto b = GenerateApiKey("live", "publishable");
  CHECK(a.plaintext.rfind("svc_test_sk_", 0) == 0);
  CHECK(b.plaintext.rfind("svc_live_pk_", 0) == 0);
  CHECK(a.plaintext.size() == 44);
  CHECK(a.plaintext.substr(40) == a.last4);
  CHECK(ParseApiKeyShape(a.plaintext)->key_type == "secret");
  CHECK(ParseApiKeyShape(b.plaintext)->environment == "live");
  CHECK(ParseApiKeyShape("svc_prod_sk_" + std::string(32, 'a')).status().api_code() ==
        "API_KEY_INVALID");
  CHECK_FALSE(ParseApiKeyShape(a.plaintext + "x").ok());
  CHECK(HashApiKey("k1", a.plaintext) != HashApiKey("k2", a.plaintext));
  CHECK(HashApiKey("k1", a.plaintext).size() == 64);
}

TEST_CASE("export key: a 32-byte X25519 public key, recorded when it changes") {
  const std::string pk = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8";
  CHECK(Code(TenantDecider::Decide(Given({}), SetExportKey{pk}, Ctx())) == "TENANT_NOT_FOUND");
  CHECK(Code(TenantDecider::Decide(Given(kCreated), SetExportKey{"c2hvcnQ"}, Ctx())) == "VALIDATION_ERROR");
  CHECK(Code(TenantDecider::Decide(Given(kCreated), SetExportKey{"not base64!"}, Ctx())) == "VALIDATION_ERROR");
  auto d = TenantDecider::Decide(Given(kCreated), SetExportKey{pk}, Ctx());
  REQUIRE(d.ok());
  CHECK(Types(*d) == std::vector<std::string>{"tenancy.export_key_set"});
  const std::string id = d->result["exportKeyId"];
  CHECK(id.size() == 3 + 16);
  CHECK(id.rfind("xk_", 0) == 0);
  auto history = kCreated;
  history.push_back(ExportKeySet{id, pk});
  TenantState s = Given(history);
  CHECK(s.export_key_id == id);
  CHECK(TenantDecider::Decide(s, SetExportKey{pk}, Ctx())->events.empty());  // the key in force
  // A new key replaces it.
  auto other = TenantDecider::Decide(s, SetExportKey{"HxwbGhkYFxYVFBMSERAPDg0MCwoJCAcGBQQDAgEAAAA"}, Ctx());
  REQUIRE(other.ok());
  CHECK(other->events.size() == 1);
  CHECK(other->result["exportKeyId"] != id);
}

TEST_CASE("users: reviewers and supervisors of the tenant, disabled once") {
  const std::string usr = "usr_00000000000000000000000000000001";
  CreateUser c{usr, "reviewer", "team north 3", std::string(64, 'b'), "wxyz"};
  CHECK(Code(TenantDecider::Decide(Given({}), c, Ctx())) == "TENANT_NOT_FOUND");
  CreateUser bad_role = c;
  bad_role.role = "admin";
  CHECK(Code(TenantDecider::Decide(Given(kCreated), bad_role, Ctx())) == "VALIDATION_ERROR");
  CreateUser no_label = c;
  no_label.label = "";
  CHECK(Code(TenantDecider::Decide(Given(kCreated), no_label, Ctx())) == "VALIDATION_ERROR");
  auto d = TenantDecider::Decide(Given(kCreated), c, Ctx());
  REQUIRE(d.ok());
  CHECK(Types(*d) == std::vector<std::string>{"tenancy.user_created"});
  auto history = kCreated;
  history.push_back(UserCreated{usr, "reviewer", "team north 3", std::string(64, 'b'), "wxyz"});
  TenantState s = Given(history);
  CHECK(s.IsReviewer(usr));
  CHECK_FALSE(s.IsReviewer("usr_00000000000000000000000000000002"));
  CHECK(Code(TenantDecider::Decide(s, c, Ctx())) == "CONFLICT");
  auto off = TenantDecider::Decide(s, DisableUser{usr}, Ctx());
  REQUIRE(off.ok());
  CHECK(Types(*off) == std::vector<std::string>{"tenancy.user_disabled"});
  history.push_back(UserDisabled{usr});
  s = Given(history);
  CHECK_FALSE(s.IsReviewer(usr));
  CHECK(TenantDecider::Decide(s, DisableUser{usr}, Ctx())->events.empty());
  CHECK(Code(TenantDecider::Decide(s, DisableUser{"usr_00000000000000000000000000000009"}, Ctx())) == "NOT_A_REVIEWER");
}

}  // namespace commands_tenant_decider_test
