// ARCO cancellation through a real svc: forget with mode block (out of reach at once, purged by
// itself when the grace ends on the fake clock) and mode purge; the legal hold that refuses it;
// the crypto-shredding checked on the stopped data directory with every key still in the key
// store; the deletion certificate, byte-identical and verified offline; and replay --verify.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "api/http/runtime.h"
#include "core/clock.h"
#include "core/crypto.h"
#include "core/json.h"
#include "eventstore/key_store.h"
#include "pipeline/persons/vault_keys.h"
#include "tests/support/api_env.h"
#include "tests/support/child_process.h"
#include "tests/support/session_flow.h"
#include "tests/support/stopped_data_dir.h"

namespace integration_persons_forget_test {

using namespace svc;
using svc::testing::Body;
using svc::testing::CheckProblem;
using svc::testing::Env;
using svc::testing::Sharing;

namespace {

const std::string kBase = "/v1/persons";
const std::string kCurp = "PEPJ800101HDFRRN03";
const std::string kEmail = "olvido@example.mx";

api::HttpResponse Post(Env& env, const std::string& key, const std::string& path, const core::Json& body) {
  return env.Call(key, "POST", path, body.dump());
}

std::string MakePerson(Env& env, const std::string& key) {
  auto r = Post(env, key, kBase,
                {{"pii", {{"curp", kCurp}, {"email", kEmail}, {"fullName", "Olvido Pérez"}}},
                 {"metadata", {{"crm", "c-77"}}}});
  REQUIRE_MESSAGE(r.status == 201, r.body);
  return Body(r)["id"].get<std::string>();
}

api::HttpResponse Decrypt(Env& env, const std::string& key, const std::string& id) {
  return Post(env, key, kBase + "/" + id + "/decrypt",
              {{"fields", {"email"}}, {"purpose", "identity_verification"}, {"reason", "forget test"}});
}

core::Json Advance(Env& env, int64_t seconds) {
  auto r = env.Admin("POST", "/admin/clock", {{"advanceSeconds", seconds}});
  REQUIRE_MESSAGE(r.status == 200, r.body);
  return core::ParseJsonOrDiscarded(r.body);
}

// What the stopped (or read-only opened) data directory holds of one person: every PII value
// sealed in the person's events, how many of them open with some key in the key store (each key
// tried with the value's own associated data), the key store's names, and the wrapped bytes of
// the person's key row.
struct VaultScan {
  int sealed_values = 0;
  int opened = 0;
  std::vector<std::string> key_names;
  std::string person_key_row;
};

VaultScan ScanVault(const std::string& data, const std::string& tenant, const std::string& person) {
  VaultScan scan;
  auto store = testing::OpenStoppedStore(data);
  auto master = api::LoadMasterKey(data, api::KeySources{"", "", true}, /*create=*/false);
  REQUIRE(master.ok());
  eventstore::KeyStore keys(store.get(), core::DeriveSubkey(*master, "svc/key-encryption/v1"));
  std::vector<std::string> all_keys;
  {
    const int cf = store->Cf("keystore");
    auto it = store->NewIterator(cf, "", "");
    for (it->Seek(""); it->Valid(); it->Next()) {
      std::string row(it->key());
      size_t slash = row.find('/');
      std::string name = slash == std::string::npos ? row : row.substr(slash + 1);
      if (name.find(person) != std::string::npos) scan.person_key_row = std::string(it->value());
      auto k = keys.Get(name);
      if (k.ok() && k->has_value()) {
        scan.key_names.push_back(name);
        all_keys.push_back(**k);
      }
    }
  }
  testing::ForEachLoggedEvent(store.get(), [&](const eventstore::EventEnvelope& e) {
    if (e.aggregate_id != person) return;
    core::Json d = core::ParseJsonOrDiscarded(e.data);
    core::Json pii = d.value("pii", d.value("set", core::Json::object()));
    if (!pii.is_object()) return;
    const int version = d.value("piiVersion", 1);
    for (auto it = pii.begin(); it != pii.end(); ++it) {
      const std::string sealed = core::StringOr(*it, "sealed");
      if (sealed.empty()) continue;
      ++scan.sealed_values;
      auto raw = core::Base64Decode(sealed);
      REQUIRE(raw.ok());
      for (const auto& k : all_keys) {
        if (core::AeadOpen(k, *raw, pipeline::persons::PiiAad(tenant, "test", person, it.key(), version)).ok()) {
          ++scan.opened;
          break;
        }
      }
    }
  });
  return scan;
}

// Whether any file under `dir` holds `needle`.
bool AnyFileHolds(const std::string& dir, const std::string& needle) {
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (bytes.find(needle) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("persons forget: a block is out of reach at once and purges itself when the grace ends") {
  Env env(false, {"--rate-reveals", "0", "--fake-clock", "--forget-grace-days", "1"}, Sharing::kIsolated);
  const std::string k = env.test_key;
  const std::string id = MakePerson(env, k);
  const std::string forget = kBase + "/" + id + "/forget";
  const std::string certificate = kBase + "/" + id + "/deletion-certificate";
  REQUIRE(Decrypt(env, k, id).status == 200);

  // Refusals first: the mode, the scope, the person.
  CheckProblem(Post(env, k, forget, {{"mode", "erase"}}), 422, "MODE_INVALID");
  CheckProblem(Post(env, k, forget, core::Json::object()), 422, "MODE_INVALID");
  CheckProblem(Post(env, k, forget, {{"mode", 1}}), 422, "MODE_INVALID");
  CheckProblem(Post(env, k, forget, {{"mode", "block"}, {"reason", 7}}), 422, "VALIDATION_ERROR");
  CheckProblem(Post(env, k, forget, {{"mode", "block"}, {"color", "red"}}), 422, "VALIDATION_ERROR");
  CheckProblem(env.Call(k, "POST", forget, "{not json"), 400, "BAD_REQUEST");
  CheckProblem(Post(env, k, kBase + "/per_00000000000000000000000000000000/forget", {{"mode", "block"}}), 404,
               "PERSON_NOT_FOUND");
  const std::string writer = env.NewKey(env.tenant, "test", {"persons:read", "persons:write"});
  CheckProblem(Post(env, writer, forget, {{"mode", "block"}}), 403, "INSUFFICIENT_SCOPE");
  CheckProblem(env.Call(k, "GET", certificate), 409, "DELETION_NOT_COMPLETE");

  const std::string now = Advance(env, 0)["now"];
  auto blocked = Post(env, k, forget, {{"mode", "block"}, {"reason", "ARCO request 2026-118"}});
  REQUIRE_MESSAGE(blocked.status == 200, blocked.body);
  core::Json b = Body(blocked);
  CHECK(b["object"] == "person.forget");
  CHECK(b["mode"] == "block");
  CHECK(b["personId"] == id);
  auto t = core::ParseRfc3339(now);
  REQUIRE(t.ok());
  CHECK(b["purgeDueAt"] == core::FormatRfc3339(core::Timestamp{t->millis() * 1000 + 86400LL * 1000000}));
  // A second block does not move the purge later.
  CHECK(Body(Post(env, k, forget, {{"mode", "block"}}))["purgeDueAt"] == b["purgeDueAt"]);

  // Out of reach: reveals and writes answer 410; the detail says so and opens nothing.
  CheckProblem(Decrypt(env, k, id), 410, "PERSON_FORGET_PENDING");
  CheckProblem(env.Call(k, "GET", kBase + "/" + id + "?expand=pii", "",
                        {{"Service-Reason", "forget test"}, {"Service-Purpose", "identity_verification"}}),
               410,
               "PERSON_FORGET_PENDING");
  CheckProblem(env.Call(k, "PATCH", kBase + "/" + id, R"({"pii":{"email":"new@example.mx"}})"), 410,
               "PERSON_FORGET_PENDING");
  CheckProblem(Post(env, k, kBase + "/" + id + "/consents",
                    {{"mechanism", "autenticacion"}, {"policyVersion", "1"}, {"purpose", "aml_compliance"}}),
               410, "PERSON_FORGET_PENDING");
  core::Json detail = Body(env.Call(k, "GET", kBase + "/" + id));
  CHECK(detail["forgetRequested"] == true);
  CHECK(detail["status"] == "active");
  CHECK(detail["metadata"] == core::Json::object());
  core::Json pending = Body(env.Call(k, "GET", kBase + "?forgetRequested=true"));
  REQUIRE(pending["data"].size() == 1);
  CHECK(pending["data"][0]["id"] == id);
  CheckProblem(env.Call(k, "GET", certificate), 409, "DELETION_NOT_COMPLETE");

  // Not yet: a day less a second.
  CHECK(Advance(env, 86399)["purge"]["purged"] == 0);
  CheckProblem(env.Call(k, "GET", certificate), 409, "DELETION_NOT_COMPLETE");
  // The grace ends: the purger purges and destroys the keys by itself.
  core::Json run = Advance(env, 2)["purge"];
  CHECK(run["purged"] == 1);
  CHECK(run["keysDestroyed"] == 1);
  CheckProblem(env.Call(k, "GET", kBase + "/" + id), 410, "PERSON_PURGED");
  CheckProblem(env.Call(k, "GET", kBase + "/" + id + "/fields"), 410, "PERSON_PURGED");
  CheckProblem(Decrypt(env, k, id), 410, "PERSON_PURGED");
  CheckProblem(Post(env, k, forget, {{"mode", "purge"}}), 410, "PERSON_PURGED");
  core::Json listed = Body(env.Call(k, "GET", kBase + "?forgetRequested=true"));
  REQUIRE(listed["data"].size() == 1);
  CHECK(listed["data"][0]["status"] == "redacted");
  CHECK(listed["data"][0]["emailProvided"] == false);
  // A new person with the same CURP is a stranger: the blind index forgot the old one.
  auto again = Post(env, k, kBase, {{"pii", {{"curp", kCurp}}}});
  REQUIRE_MESSAGE(again.status == 201, again.body);
  CHECK(Body(env.Call(k, "GET", kBase + "/" + Body(again)["id"].get<std::string>() + "/duplicates"))["data"].empty());

  auto cert = env.Call(k, "GET", certificate);
  REQUIRE_MESSAGE(cert.status == 200, cert.body);
  core::Json c = Body(cert);
  CHECK(c["object"] == "person.deletion_certificate");
  CHECK(c["personId"] == id);
  CHECK(c["tenantId"] == env.tenant);
  CHECK(c["environment"] == "test");
  CHECK(c["mode"] == "block");
  CHECK(c["purgedAt"].is_string());
  CHECK(c["contentHash"].get<std::string>().size() == 64);
  CHECK(c["signature"].is_string());
  CHECK(c["signatureEd25519"].is_string());
  CHECK(cert.body.find("ARCO request") == std::string::npos);
  CHECK(env.Call(k, "GET", certificate).body == cert.body);  // byte-identical
  // The live environment knows no such person.
  CheckProblem(env.Call(env.live_key, "GET", certificate), 404, "PERSON_NOT_FOUND");
}

TEST_CASE("persons forget: a purge shreds the person and their sessions; nothing in the data directory opens") {
  Env env(false, {"--rate-reveals", "0", "--fake-clock"}, Sharing::kIsolated);
  const std::string k = env.test_key;
  const std::string data = env.server->data_dir();
  const std::string id = MakePerson(env, k);
  const std::string session = testing::ApprovedSessionOf(env, k, id, "forget-1");
  REQUIRE(env.Admin("POST", "/admin/persons/wait-idle").status == 200);
  REQUIRE(Post(env, k, kBase + "/" + id + "/consents",
               {{"mechanism", "firma_electronica"}, {"policyVersion", "1"}, {"purpose", "identity_verification"},
                {"evidence", {{"signature", "MEUCIQ-forget"}}}})
              .status == 201);
  core::Json docs = Body(env.Call(k, "GET", kBase + "/" + id + "/documents"));
  REQUIRE(docs["data"].size() == 4);
  const std::string media_id = docs["data"][0]["id"];

  // A legal hold refuses the forget; released, the forget goes ahead.
  const std::string hold = kBase + "/" + id + "/legal-hold";
  REQUIRE(Post(env, k, hold, {{"legalBasis", "CNBV oficio 9/2026"}, {"reason", "inquiry"}}).status == 201);
  CheckProblem(Post(env, k, kBase + "/" + id + "/forget", {{"mode", "purge"}}), 409, "PERSON_LEGAL_HOLD");
  CHECK(Decrypt(env, k, id).status == 200);  // nothing changed
  REQUIRE(Post(env, k, hold + "/release", {{"reason", "closed"}}).status == 200);

  // Before: the person's values open with the key store's keys (the check below is not vacuous).
  VaultScan before = ScanVault(data, env.tenant, id);
  CHECK(before.sealed_values >= 3);
  CHECK(before.opened == before.sealed_values);
  REQUIRE_FALSE(before.person_key_row.empty());
  CHECK(AnyFileHolds(data + "/db", before.person_key_row));

  auto purge = Post(env, k, kBase + "/" + id + "/forget", {{"mode", "purge"}, {"reason", "ARCO"}});
  REQUIRE_MESSAGE(purge.status == 200, purge.body);
  CHECK(Body(purge)["mode"] == "purge");
  // The purge is the purger's (under the fake clock it runs when told): until then, no certificate.
  CheckProblem(env.Call(k, "GET", kBase + "/" + id + "/deletion-certificate"), 409, "DELETION_NOT_COMPLETE");
  CheckProblem(Decrypt(env, k, id), 410, "PERSON_FORGET_PENDING");
  auto ran = env.Admin("POST", "/admin/persons/purge");
  REQUIRE_MESSAGE(ran.status == 200, ran.body);
  CHECK(Body(ran)["purged"] == 1);
  CHECK(Body(ran)["keysDestroyed"] == 1);
  CHECK(Body(env.Admin("POST", "/admin/persons/purge"))["keysDestroyed"] == 0);  // once

  // The session's captures are purged on its evidence; their hashes stay.
  core::Json evidence = Body(env.Call(k, "GET", "/v1/verification-sessions/" + session + "/evidence"));
  for (const auto& m : evidence["media"]) {
    CHECK(m["purgedAt"].is_string());
    CHECK(m["sha256"].is_string());
  }
  CHECK(env.Call(k, "GET", "/v1/verification-sessions/" + session + "/media/" + media_id).status >= 400);
  const std::string cert = env.Call(k, "GET", kBase + "/" + id + "/deletion-certificate").body;
  core::Json c = core::ParseJsonOrDiscarded(cert);
  REQUIRE(c["object"] == "person.deletion_certificate");
  CHECK(c["verificationSessions"] == core::Json::array({session}));
  CHECK(c["keysDestroyed"] == 2);
  testing::TempDir work;
  const std::string file = work.Sub("deletion.json");
  std::ofstream(file) << cert;
  auto key = testing::RunSvc({"certificate", "public-key", "--tenant", env.tenant, "--env", "test", "--data-dir", data});
  REQUIRE_MESSAGE(key.exit_code == 0, key.err);
  const std::string public_key = core::ParseJsonOrDiscarded(key.out)["publicKey"];

  env.server->Stop();
  // After: every value sealed for the person is still in the log (the log is never rewritten) and
  // none opens with any key left; the person's and the session's keys are gone, and not one byte
  // of the person's wrapped key remains in any file of the data directory.
  VaultScan after = ScanVault(data, env.tenant, id);
  CHECK(after.sealed_values == before.sealed_values);
  CHECK(after.opened == 0);
  CHECK(after.person_key_row.empty());
  for (const auto& name : after.key_names) {
    CHECK(name.find(id) == std::string::npos);
    CHECK(name.find(session) == std::string::npos);
  }
  CHECK_FALSE(AnyFileHolds(data, before.person_key_row));
  CHECK_FALSE(AnyFileHolds(data, kEmail));
  CHECK_FALSE(AnyFileHolds(data, kCurp));
  // The certificate verifies offline with the public key alone, and with the data directory.
  auto offline = testing::RunSvc({"certificate", "verify", file, "--public-key", public_key});
  CHECK_MESSAGE(offline.exit_code == 0, offline.out << offline.err);
  CHECK(core::ParseJsonOrDiscarded(offline.out)["ed25519SignatureValid"] == true);
  auto full = testing::RunSvc({"certificate", "verify", file, "--data-dir", data});
  CHECK_MESSAGE(full.exit_code == 0, full.out << full.err);
  CHECK(core::ParseJsonOrDiscarded(full.out)["hmacSignatureValid"] == true);
  // The read models equal a rebuild from the log, purge and all.
  auto verify = testing::RunSvc({"replay", "--verify", "--data-dir", data});
  CHECK_MESSAGE(verify.exit_code == 0, verify.out << verify.err);
  // Restarted, the certificate is the same bytes.
  env.server->Start();
  CHECK(env.Call(k, "GET", kBase + "/" + id + "/deletion-certificate").body == cert);
}

TEST_CASE("persons forget: a block under a hold set later waits for the release, then purges") {
  Env env(false, {"--rate-reveals", "0", "--fake-clock", "--forget-grace-days", "1"}, Sharing::kIsolated);
  const std::string k = env.test_key;
  const std::string id = MakePerson(env, k);
  REQUIRE(Post(env, k, kBase + "/" + id + "/forget", {{"mode", "block"}}).status == 200);
  // A hold arrives during the grace (a court order): the purge is frozen while it lasts.
  const std::string hold = kBase + "/" + id + "/legal-hold";
  REQUIRE(Post(env, k, hold, {{"legalBasis", "juicio 12/2026"}, {"reason", "lawsuit"}}).status == 201);
  core::Json run = Advance(env, 2 * 86400)["purge"];
  CHECK(run["purged"] == 0);
  CHECK(run["held"] == 1);
  CheckProblem(env.Call(k, "GET", kBase + "/" + id + "/deletion-certificate"), 409, "DELETION_NOT_COMPLETE");
  CheckProblem(Decrypt(env, k, id), 410, "PERSON_FORGET_PENDING");  // still out of reach
  REQUIRE(Post(env, k, hold + "/release", {{"reason", "settled"}}).status == 200);
  run = Advance(env, 60)["purge"];
  CHECK(run["purged"] == 1);
  CHECK(run["keysDestroyed"] == 1);
  CHECK(env.Call(k, "GET", kBase + "/" + id + "/deletion-certificate").status == 200);
  // The history of holds outlives the purge.
  CHECK(Body(env.Call(k, "GET", kBase + "/" + id + "/legal-holds"))["data"].size() == 2);
}

}  // namespace integration_persons_forget_test
