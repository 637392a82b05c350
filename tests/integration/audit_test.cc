// The access log through a real svc: each reveal of the vault is an entry of the tenant's
// hash-chained log, listed with its filters and verified; an entry edited in the stopped data
// directory breaks the chain at that entry; scopes, environments and tenants are kept apart.
#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "api/http/runtime.h"
#include "core/canonical_json.h"
#include "core/crypto.h"
#include "core/ids.h"
#include "core/merkle.h"
#include "core/signed_note.h"
#include "eventstore/kv_store.h"
#include "tests/support/api_env.h"
#include "tests/support/receiver_process.h"
#include "tests/support/svc_process.h"
#include "tests/support/temp_dir.h"

namespace integration_audit_test {

using namespace svc;
using svc::testing::Body;
using svc::testing::CheckProblem;
using svc::testing::Env;
using svc::testing::Sharing;

namespace {

const std::vector<std::string> kFlags = {"--rate-reveals", "0"};
const std::string kCurpA = "PEPJ800101HDFRRN03";
const std::string kCurpB = "LOMA900215MJCPRR05";

std::string MakePerson(Env& env, const std::string& key, const std::string& curp) {
  auto r = env.Call(key, "POST", "/v1/persons", core::Json({{"pii", {{"curp", curp}, {"email", "a@example.mx"}}}}).dump());
  REQUIRE_MESSAGE(r.status == 201, r.body);
  return Body(r)["id"].get<std::string>();
}

void Decrypt(Env& env, const std::string& key, const std::string& id, const std::string& purpose = "identity_verification") {
  auto r = env.Call(key, "POST", "/v1/persons/" + id + "/decrypt",
                    core::Json({{"fields", {"curp"}}, {"purpose", purpose}, {"reason", "onboarding check"}}).dump());
  REQUIRE_MESSAGE(r.status == 200, r.body);
}

core::Json List(Env& env, const std::string& key, const std::string& query = "") {
  auto r = env.Call(key, "GET", "/v1/audit-logs" + query);
  REQUIRE_MESSAGE(r.status == 200, r.body);
  return Body(r);
}

core::Json Verify(Env& env, const std::string& key) {
  auto r = env.Call(key, "GET", "/v1/audit-logs/verify");
  REQUIRE_MESSAGE(r.status == 200, r.body);
  return Body(r);
}

// An export (JSON lines: the header, then one entry per line) as one object, the header's
// members and "entries"; and back.
// The access log exported through the API with `officer`'s key (svc audit export) into `dir`: the
// file's path.
std::string ExportLog(Env& env, const std::string& officer, testing::TempDir& dir) {
  const std::string file = dir.Sub("export.json");
  const std::string url = "http://127.0.0.1:" + std::to_string(env.server->target().port);
  auto exported = testing::RunSvc({"audit", "export", "--url", url, "--key", officer, "--out", file});
  REQUIRE_MESSAGE(exported.exit_code == 0, exported.err);
  return file;
}

core::Json ReadExport(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  std::getline(in, line);
  core::Json doc = core::ParseJsonOrDiscarded(line);
  doc["entries"] = core::Json::array();
  while (std::getline(in, line)) {
    if (!line.empty()) doc["entries"].push_back(core::ParseJsonOrDiscarded(line));
  }
  return doc;
}
std::string WriteExport(core::Json doc) {
  core::Json entries = doc["entries"];
  doc.erase("entries");
  std::string out = doc.dump() + "\n";
  for (const auto& e : entries) out += e.dump() + "\n";
  return out;
}

// Stops the server, lets `edit` write to its data directory's views, starts it again: what
// someone with access to the disk could do.
void EditStopped(Env& env, const std::function<void(eventstore::KvStore&, int views, const std::string& te)>& edit) {
  std::string data = env.server->data_dir();
  env.server->Stop();
  {
    eventstore::KvStore::Options so;
    so.path = data + "/db";
    so.column_families = api::StoreColumnFamilies();
    auto store = eventstore::KvStore::Open(so);
    REQUIRE(store.ok());
    edit(**store, (*store)->Cf("views"), env.tenant + "/test");
  }
  env.server->Start();
}

}  // namespace

TEST_CASE("audit: every reveal is an entry of the chain, listed and verified") {
  BOTH_BACKENDS;
  Env env(kafka, kFlags);
  std::string a = MakePerson(env, env.test_key, kCurpA);
  std::string b = MakePerson(env, env.test_key, kCurpB);
  // Nothing revealed yet: an empty, valid chain (masked reads are not entries).
  REQUIRE(env.Call(env.test_key, "GET", "/v1/persons/" + a).status == 200);
  CHECK(List(env, env.test_key)["data"].empty());
  CHECK(Verify(env, env.test_key) == core::Json({{"object", "audit_chain_verification"}, {"valid", true}, {"count", 0}, {"brokenAt", nullptr}}));

  Decrypt(env, env.test_key, a);
  // Seen at once: the log is read after the reveal the caller was answered for.
  core::Json first = List(env, env.test_key)["data"][0];
  CHECK(first["id"] == 1);
  CHECK(first["object"] == "audit_log_entry");
  CHECK(first["personId"] == a);
  CHECK(first["actorType"] == "api_key");
  CHECK(first["actorId"].get<std::string>().rfind("key_", 0) == 0);
  CHECK(first["channel"] == "decrypt");
  CHECK(first["fields"] == core::Json::array({"curp"}));
  CHECK(first["purpose"] == "identity_verification");
  CHECK(first["reason"] == "onboarding check");
  CHECK(first["redaction"] == "plain");
  CHECK(first["requestId"].get<std::string>().rfind("req_", 0) == 0);
  CHECK(first["prevHash"] == std::string(64, '0'));
  // The hash is what an auditor recomputes: SHA-256(prevHash || RFC 8785 form of the rest), the
  // reason hashed sealed (under the person's key) with its commitment, and the reason served
  // opened with the commitment's key: HMAC-SHA-256(reasonKey, reason) is the commitment.
  REQUIRE(first["reasonSealed"].is_string());
  CHECK(first["reasonSealed"].get<std::string>().find("onboarding") == std::string::npos);
  const std::string commit_key = core::HexDecode(first["reasonKey"].get<std::string>()).value();
  CHECK(core::HexEncode(core::HmacSha256(commit_key, "onboarding check")) == first["reasonCommitment"]);
  core::Json rest = first;
  for (const char* served_only : {"prevHash", "hash", "reason", "reasonKey"}) rest.erase(served_only);
  auto canonical = core::CanonicalJson(rest);
  REQUIRE(canonical.ok());
  CHECK(first["hash"] == core::Sha256Hex(std::string(32, '\0') + *canonical));
  // PII-free: the revealed value is nowhere in the entry.
  CHECK(core::DumpJson(first).find(kCurpA) == std::string::npos);

  // Batch decrypt: one entry per person; export and a second purpose.
  auto batch = env.Call(env.test_key, "POST", "/v1/persons/batch-decrypt",
                        core::Json({{"personIds", {a, b}}, {"fields", {"email"}}, {"purpose", "identity_verification"},
                                    {"reason", "periodic review"}}).dump());
  REQUIRE_MESSAGE(batch.status == 200, batch.body);
  auto exported = env.Call(env.test_key, "POST", "/v1/persons/" + b + "/export", R"({"reason":"ARCO access request"})");
  REQUIRE_MESSAGE(exported.status == 200, exported.body);
  core::Json all = List(env, env.test_key);
  REQUIRE(all["data"].size() == 4);
  for (size_t i = 0; i < 4; ++i) {
    CHECK(all["data"][i]["id"] == i + 1);  // oldest first
    if (i > 0) CHECK(all["data"][i]["prevHash"] == all["data"][i - 1]["hash"]);
  }
  CHECK(all["data"][1]["channel"] == "batch_decrypt");
  CHECK(all["data"][2]["channel"] == "batch_decrypt");
  CHECK(all["data"][3]["channel"] == "export");
  CHECK(Verify(env, env.test_key) == core::Json({{"object", "audit_chain_verification"}, {"valid", true}, {"count", 4}, {"brokenAt", nullptr}}));

  // Filters: person, channel, actor, actor type, time; paging by cursor.
  CHECK(List(env, env.test_key, "?personId=" + b)["data"].size() == 2);
  CHECK(List(env, env.test_key, "?personId=" + b + "&channel=export")["data"].size() == 1);
  CHECK(List(env, env.test_key, "?channel=batch_decrypt")["data"].size() == 2);
  const std::string actor = first["actorId"];
  CHECK(List(env, env.test_key, "?actorId=" + actor)["data"].size() == 4);
  CHECK(List(env, env.test_key, "?actorId=key_00000000000000000000000000000000")["data"].empty());
  CHECK(List(env, env.test_key, "?personId=" + a + "&actorId=" + actor)["data"].size() == 2);
  CHECK(List(env, env.test_key, "?actorType=client_token")["data"].empty());
  CHECK(List(env, env.test_key, "?createdGte=2000-01-01T00:00:00Z&createdLte=2100-01-01T00:00:00Z")["data"].size() == 4);
  CHECK(List(env, env.test_key, "?createdGte=2100-01-01T00:00:00Z")["data"].empty());
  CHECK(List(env, env.test_key, "?format=json&limit=4")["data"].size() == 4);
  core::Json page1 = List(env, env.test_key, "?limit=3");
  CHECK(page1["hasMore"] == true);
  core::Json page2 = List(env, env.test_key, "?limit=3&startingAfter=" + page1["nextCursor"].get<std::string>());
  REQUIRE(page2["data"].size() == 1);
  CHECK(page2["data"][0]["id"] == 4);
}

TEST_CASE("audit: the errors of the list, and scopes") {
  Env env(false, kFlags);
  CheckProblem(env.Call(env.test_key, "GET", "/v1/audit-logs?personId=nope"), 400, "INVALID_ID");
  CheckProblem(env.Call(env.test_key, "GET", "/v1/audit-logs?createdGte=yesterday"), 422, "VALIDATION_ERROR");
  CheckProblem(env.Call(env.test_key, "GET", "/v1/audit-logs?format=xml"), 422, "VALIDATION_ERROR");
  CheckProblem(env.Call(env.test_key, "GET", "/v1/audit-logs?colour=blue"), 400, "BAD_REQUEST");
  CheckProblem(env.Call(env.test_key, "GET", "/v1/audit-logs?limit=0"), 422, "LIMIT_OUT_OF_RANGE");
  CheckProblem(env.Call(env.test_key, "GET", "/v1/audit-logs?startingAfter=garbage"), 400, "INVALID_CURSOR");
  CheckProblem(env.Call(env.test_key, "GET", "/v1/audit-logs?actorId=" + std::string(65, 'k')), 422, "VALIDATION_ERROR");
  CheckProblem(env.Call("", "GET", "/v1/audit-logs"), 401, "AUTHENTICATION_REQUIRED");
  // compliance:read, and nothing else, opens the log.
  std::string pii_reader = env.NewKey(env.tenant, "test", {"persons:read", "persons:read_pii"});
  CheckProblem(env.Call(pii_reader, "GET", "/v1/audit-logs"), 403, "INSUFFICIENT_SCOPE");
  CheckProblem(env.Call(pii_reader, "GET", "/v1/audit-logs/verify"), 403, "INSUFFICIENT_SCOPE");
  std::string officer = env.NewKey(env.tenant, "test", {"compliance:read"});
  CHECK(env.Call(officer, "GET", "/v1/audit-logs").status == 200);
  CHECK(env.Call(officer, "GET", "/v1/audit-logs/verify").status == 200);
}

TEST_CASE("audit: one chain per tenant and environment") {
  Env env(false, kFlags);
  std::string person = MakePerson(env, env.test_key, kCurpA);
  Decrypt(env, env.test_key, person);
  Decrypt(env, env.test_key, person);
  std::string live_person = MakePerson(env, env.live_key, kCurpA);
  Decrypt(env, env.live_key, live_person);
  std::string other_tenant = env.NewTenant("Other");
  std::string other_key = env.NewKey(other_tenant, "test", {"*"});
  std::string other_person = MakePerson(env, other_key, kCurpB);
  Decrypt(env, other_key, other_person);

  CHECK(List(env, env.test_key)["data"].size() == 2);
  core::Json live = List(env, env.live_key)["data"];
  REQUIRE(live.size() == 1);
  CHECK(live[0]["id"] == 1);  // its own chain: ids count per environment
  CHECK(live[0]["personId"] == live_person);
  core::Json other = List(env, other_key)["data"];
  REQUIRE(other.size() == 1);
  CHECK(other[0]["personId"] == other_person);
  // Another tenant's or environment's person filters to nothing, never to their entries.
  CHECK(List(env, other_key, "?personId=" + person)["data"].empty());
  CHECK(List(env, env.live_key, "?personId=" + person)["data"].empty());
  CHECK(Verify(env, env.live_key)["count"] == 1);
  CHECK(Verify(env, other_key)["count"] == 1);
  CHECK(Verify(env, env.test_key)["count"] == 2);
}

TEST_CASE("audit: an entry edited in the stopped data directory breaks the chain there") {
  Env env(false, kFlags, Sharing::kIsolated);
  std::string person = MakePerson(env, env.test_key, kCurpA);
  for (int i = 0; i < 3; ++i) Decrypt(env, env.test_key, person);
  REQUIRE(Verify(env, env.test_key)["valid"] == true);

  EditStopped(env, [](eventstore::KvStore& store, int views, const std::string& te) {
    const std::string key = "audit/e/" + te + "/00000000000000000002";
    auto row = store.Get(views, key);
    REQUIRE((row.ok() && row->has_value()));
    core::Json entry = core::ParseJsonOrDiscarded(**row);
    // A quiet rewrite of the second entry's reason (stored sealed: a reason shown beside it must
    // match the hashed commitment).
    entry["reason"] = "nothing to see here";
    eventstore::KvStore::Batch b;
    b.Put(views, key, core::DumpJson(entry));
    REQUIRE(store.Write(b, true).ok());
  });
  core::Json v = Verify(env, env.test_key);
  CHECK(v["valid"] == false);
  CHECK(v["count"] == 3);
  CHECK(v["brokenAt"] == 2);
}

namespace {

std::string Unhex(const core::Json& j) {
  auto r = core::HexDecode(j.get<std::string>());
  REQUIRE(r.ok());
  return *r;
}

std::vector<std::string> Hashes(const core::Json& list) {
  std::vector<std::string> out;
  for (const auto& h : list) out.push_back(Unhex(h));
  return out;
}

}  // namespace

TEST_CASE("audit: the log is a Merkle tree: its heads, inclusion and consistency proofs") {
  BOTH_BACKENDS;
  Env env(kafka, kFlags);
  std::string person = MakePerson(env, env.test_key, kCurpA);
  auto head0 = Body(env.Call(env.test_key, "GET", "/v1/audit-logs/verify/tree-head"));
  CHECK(head0["treeSize"] == 0);
  CHECK(head0["rootHash"] == core::HexEncode(core::merkle::EmptyRoot()));
  for (int i = 0; i < 5; ++i) Decrypt(env, env.test_key, person);
  core::Json entries = List(env, env.test_key)["data"];
  REQUIRE(entries.size() == 5);

  auto head = env.Call(env.test_key, "GET", "/v1/audit-logs/verify/tree-head");
  REQUIRE_MESSAGE(head.status == 200, head.body);
  CHECK(Body(head)["treeSize"] == 5);
  const std::string root5 = Unhex(Body(head)["rootHash"]);
  const std::string root3 = Unhex(Body(env.Call(env.test_key, "GET", "/v1/audit-logs/verify/tree-head?treeSize=3"))["rootHash"]);

  // Entry 4 is in the tree of 5: the leaf an auditor computes from the entry as listed (its hash,
  // which they recompute from its content).
  core::Json entry = entries[3];
  const std::string leaf = core::merkle::LeafHash(Unhex(entry["hash"]));
  auto inc = env.Call(env.test_key, "GET", "/v1/audit-logs/verify/inclusion?id=4");
  REQUIRE_MESSAGE(inc.status == 200, inc.body);
  core::Json p = Body(inc);
  CHECK(p["leafIndex"] == 3);
  CHECK(p["treeSize"] == 5);
  CHECK(Unhex(p["leafHash"]) == leaf);
  CHECK(Unhex(p["rootHash"]) == root5);
  std::vector<std::string> path = Hashes(p["hashes"]);
  CHECK(core::merkle::VerifyInclusion(leaf, 3, 5, path, root5));
  path[0][5] ^= 0x01;  // one byte changed
  CHECK_FALSE(core::merkle::VerifyInclusion(leaf, 3, 5, path, root5));
  core::Json in3 = Body(env.Call(env.test_key, "GET", "/v1/audit-logs/verify/inclusion?id=2&treeSize=3"));
  CHECK(Unhex(in3["rootHash"]) == root3);

  // The tree of 5 extends the tree of 3.
  auto con = env.Call(env.test_key, "GET", "/v1/audit-logs/verify/consistency?fromSize=3");
  REQUIRE_MESSAGE(con.status == 200, con.body);
  core::Json c = Body(con);
  CHECK(c["fromSize"] == 3);
  CHECK(c["toSize"] == 5);
  CHECK(Unhex(c["fromRootHash"]) == root3);
  std::vector<std::string> proof = Hashes(c["hashes"]);
  CHECK(core::merkle::VerifyConsistency(3, 5, root3, root5, proof));
  proof.back()[0] ^= 0x01;
  CHECK_FALSE(core::merkle::VerifyConsistency(3, 5, root3, root5, proof));

  // Errors: missing or malformed parameters, sizes beyond the log, unknown parameters, scope.
  CheckProblem(env.Call(env.test_key, "GET", "/v1/audit-logs/verify/inclusion"), 422, "VALIDATION_ERROR");
  CheckProblem(env.Call(env.test_key, "GET", "/v1/audit-logs/verify/inclusion?id=0"), 422, "VALIDATION_ERROR");
  CheckProblem(env.Call(env.test_key, "GET", "/v1/audit-logs/verify/inclusion?id=6"), 422, "VALIDATION_ERROR");
  CheckProblem(env.Call(env.test_key, "GET", "/v1/audit-logs/verify/inclusion?id=4&treeSize=3"), 422, "VALIDATION_ERROR");
  CheckProblem(env.Call(env.test_key, "GET", "/v1/audit-logs/verify/inclusion?id=x"), 422, "VALIDATION_ERROR");
  CheckProblem(env.Call(env.test_key, "GET", "/v1/audit-logs/verify/tree-head?treeSize=6"), 422, "VALIDATION_ERROR");
  // Issue 31: the empty tree's head is a size like any other.
  auto empty = env.Call(env.test_key, "GET", "/v1/audit-logs/verify/tree-head?treeSize=0");
  REQUIRE_MESSAGE(empty.status == 200, empty.body);
  CHECK(Body(empty)["treeSize"] == 0);
  CHECK(Body(empty)["rootHash"] == core::HexEncode(core::merkle::EmptyRoot()));
  CheckProblem(env.Call(env.test_key, "GET", "/v1/audit-logs/verify/tree-head?treeSize=-1"), 422, "VALIDATION_ERROR");
  CheckProblem(env.Call(env.test_key, "GET", "/v1/audit-logs/verify/tree-head?size=2"), 400, "BAD_REQUEST");
  CheckProblem(env.Call(env.test_key, "GET", "/v1/audit-logs/verify/consistency"), 422, "VALIDATION_ERROR");
  CheckProblem(env.Call(env.test_key, "GET", "/v1/audit-logs/verify/consistency?fromSize=4&toSize=3"), 422, "VALIDATION_ERROR");
  CheckProblem(env.Call(env.test_key, "GET", "/v1/audit-logs/verify/consistency?fromSize=1&toSize=99"), 422, "VALIDATION_ERROR");
  std::string pii_reader = env.NewKey(env.tenant, "test", {"persons:read"});
  CheckProblem(env.Call(pii_reader, "GET", "/v1/audit-logs/verify/tree-head"), 403, "INSUFFICIENT_SCOPE");
  // Another environment's tree is its own (empty here).
  CHECK(Body(env.Call(env.live_key, "GET", "/v1/audit-logs/verify/tree-head"))["treeSize"] == 0);
}

TEST_CASE("audit: signed checkpoints; a truncated tail is caught by an older checkpoint") {
  Env env(false, kFlags, Sharing::kIsolated);
  std::string person = MakePerson(env, env.test_key, kCurpA);
  for (int i = 0; i < 5; ++i) Decrypt(env, env.test_key, person);

  auto key = env.Call(env.test_key, "GET", "/v1/audit-logs/verify/checkpoint-key");
  REQUIRE_MESSAGE(key.status == 200, key.body);
  const std::string vkey = Body(key)["verifierKey"];
  const std::string origin = "svc/audit/" + env.tenant + "/test";
  CHECK(Body(key)["origin"] == origin);
  CHECK(vkey.rfind(origin + "+", 0) == 0);

  auto cp = env.Call(env.test_key, "GET", "/v1/audit-logs/verify/checkpoint");
  REQUIRE_MESSAGE(cp.status == 200, cp.body);
  CHECK(cp.content_type.rfind("text/plain", 0) == 0);
  const std::string kept = cp.body;  // what an auditor keeps
  auto text = core::note::Open(kept, vkey);
  REQUIRE_MESSAGE(text.ok(), text.status().ToString());
  auto parsed = core::note::ParseCheckpoint(*text);
  REQUIRE(parsed.ok());
  CHECK(parsed->origin == origin);
  CHECK(parsed->size == 5);
  CHECK(core::HexEncode(parsed->root_hash) ==
        Body(env.Call(env.test_key, "GET", "/v1/audit-logs/verify/tree-head"))["rootHash"]);
  CHECK(env.Call(env.test_key, "GET", "/v1/audit-logs/verify/checkpoint").body == kept);  // deterministic
  // Another environment's key does not open it; the live checkpoint is of its own (empty) tree.
  const std::string live_vkey = Body(env.Call(env.live_key, "GET", "/v1/audit-logs/verify/checkpoint-key"))["verifierKey"];
  CHECK_FALSE(core::note::Open(kept, live_vkey).ok());
  auto live = core::note::Open(env.Call(env.live_key, "GET", "/v1/audit-logs/verify/checkpoint").body, live_vkey);
  REQUIRE(live.ok());
  CHECK(core::note::ParseCheckpoint(*live)->size == 0);
  CheckProblem(env.Call(env.test_key, "GET", "/v1/audit-logs/verify/checkpoint?size=3"), 400, "BAD_REQUEST");

  // Someone with the data directory cuts the last entry off the log's read model, chain head
  // and tree included.
  EditStopped(env, [](eventstore::KvStore& store, int views, const std::string& te) {
    auto fourth = store.Get(views, "audit/e/" + te + "/00000000000000000004");
    REQUIRE((fourth.ok() && fourth->has_value()));
    eventstore::KvStore::Batch b;
    b.Delete(views, "audit/e/" + te + "/00000000000000000005");
    b.Delete(views, "audit/t/" + te + "/00/00000000000000000004");
    b.Put(views, "audit/head/" + te, "4|" + core::StringOr(core::ParseJsonOrDiscarded(**fourth), "hash"));
    REQUIRE(store.Write(b, true).ok());
  });
  // The chain alone does not see it (the spec's limit) ...
  CHECK(Verify(env, env.test_key) == core::Json({{"object", "audit_chain_verification"}, {"valid", true}, {"count", 4}, {"brokenAt", nullptr}}));
  // ... the kept checkpoint does: the log no longer extends it, and it is our own signature.
  CHECK(core::note::Open(kept, vkey).ok());
  auto now_text = core::note::Open(env.Call(env.test_key, "GET", "/v1/audit-logs/verify/checkpoint").body, vkey);
  REQUIRE(now_text.ok());
  auto now = core::note::ParseCheckpoint(*now_text);
  REQUIRE(now.ok());
  CHECK(now->size < parsed->size);
  CheckProblem(env.Call(env.test_key, "GET", "/v1/audit-logs/verify/consistency?fromSize=5"), 422, "VALIDATION_ERROR");
}

TEST_CASE("audit: svc audit export, and svc audit verify and the Python verifier agree on it") {
  Env env(false, kFlags);
  std::string person = MakePerson(env, env.test_key, kCurpA);
  for (int i = 0; i < 4; ++i) Decrypt(env, env.test_key, person);
  std::string officer = env.NewKey(env.tenant, "test", {"compliance:read"});
  const std::string vkey = Body(env.Call(officer, "GET", "/v1/audit-logs/verify/checkpoint-key"))["verifierKey"];
  testing::TempDir dir;
  const std::string file = dir.Sub("export.json");
  const std::string url = "http://127.0.0.1:" + std::to_string(env.server->target().port);
  auto exported = testing::RunSvc({"audit", "export", "--url", url, "--key", officer, "--out", file});
  REQUIRE_MESSAGE(exported.exit_code == 0, exported.err);
  const std::string script = std::string(SVC_TEST_SOURCE_DIR) + "/../docs/verify_audit_export.py";
  auto both = [&](const std::vector<std::string>& extra) {
    std::vector<std::string> svc_args = {"audit", "verify", file};
    std::vector<std::string> py_args = {script, file};
    for (const auto& a : extra) {
      svc_args.push_back(a);
      py_args.push_back(a);
    }
    auto ours = testing::RunSvc(svc_args);
    auto theirs = testing::RunProgram("python3", py_args);
    core::Json a = core::ParseJsonOrDiscarded(ours.out);
    core::Json b = core::ParseJsonOrDiscarded(theirs.out);
    CHECK_MESSAGE(a == b, ours.out << " vs " << theirs.out << theirs.err);
    CHECK(ours.exit_code == theirs.exit_code);
    return a;
  };
  core::Json ok = both({"--verifier-key", vkey});
  CHECK(ok["valid"] == true);
  CHECK(ok["count"] == 4);
  CHECK(ok["checkpointSize"] == 4);
  CHECK(ok["treeRootHash"] == Body(env.Call(officer, "GET", "/v1/audit-logs/verify/tree-head"))["rootHash"]);
  CHECK(both({})["verifierKeyFrom"] == "export");

  std::string original;
  {
    std::ifstream in(file);
    original.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  // One changed character in the third entry's reason: it no longer matches its commitment (the
  // hashed reasonCommitment), so the chain breaks there (the tree, over the hashes as recorded,
  // still matches the checkpoint).
  core::Json doc = ReadExport(original);
  doc["entries"][2]["reason"] = "onboarding chech";
  { std::ofstream(file) << WriteExport(doc); }
  core::Json edited = both({"--verifier-key", vkey});
  CHECK(edited["valid"] == false);
  CHECK(edited["brokenAt"] == 3);
  // The reason is committed to (reasonCommitment, hashed): re-making the hash cannot hide its edit.
  // Another member edited and its hash re-made to match: the chain breaks at the next entry, whose
  // prevHash no longer follows, and the tree no longer matches the signed checkpoint.
  doc = ReadExport(original);
  doc["entries"][2]["purpose"] = "marketing";
  doc["entries"][2].erase("hash");
  doc["entries"][2].erase("prevHash");
  {
    core::Json hashed = doc["entries"][2];
    hashed.erase("reason");
    hashed.erase("reasonKey");
    auto canonical = core::CanonicalJson(hashed);
    REQUIRE(canonical.ok());
    const std::string prev = core::HexDecode(doc["entries"][1]["hash"].get<std::string>()).value();
    doc["entries"][2]["prevHash"] = doc["entries"][1]["hash"];
    doc["entries"][2]["hash"] = core::Sha256Hex(prev + *canonical);
  }
  { std::ofstream(file) << WriteExport(doc); }
  core::Json rehashed = both({"--verifier-key", vkey});
  CHECK(rehashed["brokenAt"] == 4);
  CHECK(rehashed["checkpointMatchesEntries"] == false);
  // The last entry dropped (a truncated export): the chain is whole, the signed checkpoint says 4.
  doc = ReadExport(original);
  doc["entries"].erase(3);
  { std::ofstream(file) << WriteExport(doc); }
  core::Json cut = both({"--verifier-key", vkey});
  CHECK(cut["brokenAt"].is_null());
  CHECK(cut["checkpointMatchesEntries"] == false);
  CHECK(cut["valid"] == false);
  // Another key (the live environment's) does not open the checkpoint.
  { std::ofstream(file) << original; }
  const std::string live_vkey = Body(env.Call(env.live_key, "GET", "/v1/audit-logs/verify/checkpoint-key"))["verifierKey"];
  core::Json foreign = both({"--verifier-key", live_vkey});
  CHECK(foreign["checkpointSignatureValid"] == false);
  CHECK(foreign["valid"] == false);
  // Not an export; no such file; a key without compliance:read cannot export.
  { std::ofstream(file) << "{}"; }
  CHECK(testing::RunSvc({"audit", "verify", file}).exit_code == 2);
  CHECK(testing::RunProgram("python3", {script, file}).exit_code == 2);
  CHECK(testing::RunSvc({"audit", "verify", dir.Sub("missing.json")}).exit_code != 0);
  std::string reader = env.NewKey(env.tenant, "test", {"persons:read"});
  CHECK(testing::RunSvc({"audit", "export", "--url", url, "--key", reader, "--out", file}).exit_code != 0);
}

TEST_CASE("audit: a reveal's reason is kept sealed under the person's key: served opened, null once forgotten, the chain whole") {
  Env env(false, {"--rate-reveals", "0", "--fake-clock"}, Sharing::kIsolated);
  const std::string person = MakePerson(env, env.test_key, kCurpA);
  Decrypt(env, env.test_key, person);
  core::Json entry = List(env, env.test_key)["data"][0];
  CHECK(entry["reason"] == "onboarding check");
  CHECK(entry["reasonKey"].is_string());
  const std::string sealed = entry["reasonSealed"];
  const std::string hash = entry["hash"];

  auto forget = env.Call(env.test_key, "POST", "/v1/persons/" + person + "/forget", R"({"mode":"purge"})");
  REQUIRE_MESSAGE(forget.status == 200, forget.body);
  REQUIRE(Body(env.Admin("POST", "/admin/persons/purge"))["keysDestroyed"] == 1);
  // The person's key is gone: the reason with it; the entry, its sealed form and hash stay.
  entry = List(env, env.test_key)["data"][0];
  CHECK(entry["reason"].is_null());
  CHECK(entry["reasonKey"].is_null());
  CHECK(entry["reasonSealed"] == sealed);
  CHECK(entry["hash"] == hash);
  CHECK(Verify(env, env.test_key)["valid"] == true);
  testing::TempDir dir;
  const std::string file = ExportLog(env, env.NewKey(env.tenant, "test", {"compliance:read"}), dir);
  auto ours = testing::RunSvc({"audit", "verify", file});
  CHECK_MESSAGE(ours.exit_code == 0, ours.out);
  auto theirs = testing::RunProgram("python3", {std::string(SVC_TEST_SOURCE_DIR) + "/../docs/verify_audit_export.py", file});
  CHECK_MESSAGE(theirs.exit_code == 0, theirs.out << theirs.err);
  CHECK(core::ParseJsonOrDiscarded(ours.out)["valid"] == true);
}

TEST_CASE("audit: format=csv streams every entry the filters keep, safe for spreadsheets") {
  Env env(false, kFlags);
  std::string person = MakePerson(env, env.test_key, kCurpA);
  for (const char* reason : {"plain reason", "=HYPERLINK(\"http://x\")", "comma, and \"quotes\"\nnew line"}) {
    auto r = env.Call(env.test_key, "POST", "/v1/persons/" + person + "/decrypt",
                      core::Json({{"fields", {"curp", "email"}}, {"purpose", "identity_verification"}, {"reason", reason}}).dump());
    REQUIRE_MESSAGE(r.status == 200, r.body);
  }
  auto csv = env.Call(env.test_key, "GET", "/v1/audit-logs?format=csv");
  REQUIRE_MESSAGE(csv.status == 200, csv.body);
  CHECK(csv.content_type.rfind("text/csv", 0) == 0);
  // Read back with Python's csv module (a reader nobody here wrote).
  testing::TempDir dir;
  const std::string file = dir.Sub("log.csv");
  { std::ofstream(file, std::ios::binary) << csv.body; }
  auto py = testing::RunProgram(
      "python3", {"-c",
                  "import csv,json,sys\n"
                  "rows=list(csv.DictReader(open(sys.argv[1],newline='',encoding='utf-8')))\n"
                  "print(json.dumps(rows))",
                  file});
  REQUIRE_MESSAGE(py.exit_code == 0, py.err);
  core::Json rows = core::ParseJsonOrDiscarded(py.out);
  REQUIRE(rows.size() == 3);
  core::Json listed = List(env, env.test_key)["data"];
  for (size_t i = 0; i < 3; ++i) {
    CHECK(rows[i]["id"] == std::to_string(i + 1));
    CHECK(rows[i]["hash"] == listed[i]["hash"]);
    CHECK(rows[i]["fields"] == "curp;email");
    CHECK(rows[i]["personId"] == person);
  }
  CHECK(rows[0]["reason"] == "plain reason");
  CHECK(rows[1]["reason"] == "'=HYPERLINK(\"http://x\")");  // never a formula
  CHECK(rows[2]["reason"] == "comma, and \"quotes\"\nnew line");
  // Filters apply; paging does not.
  auto none = env.Call(env.test_key, "GET", "/v1/audit-logs?format=csv&channel=export");
  REQUIRE(none.status == 200);
  CHECK(std::count(none.body.begin(), none.body.end(), '\n') == 1);  // the header only
  CheckProblem(env.Call(env.test_key, "GET", "/v1/audit-logs?format=csv&limit=2"), 400, "BAD_REQUEST");
  CheckProblem(env.Call(env.test_key, "GET", "/v1/audit-logs?format=csv&personId=bad"), 400, "INVALID_ID");
}


TEST_CASE("audit: checkpoints are published in the log as it grows, listed, sent as webhooks, exported") {
  testing::ReceiverProcess receiver;
  std::vector<std::string> flags = kFlags;
  flags.push_back("--webhooks-allow-private-urls");
  Env env(false, flags);
  const std::string hooks = "http://127.0.0.1:" + std::to_string(receiver.port());
  auto made = env.Call(env.test_key, "POST", "/v1/developer/webhooks",
                       core::Json{{"url", hooks + "/witness"}, {"events", {"audit.*"}}}.dump(),
                       {{"Idempotency-Key", "witness-1"}});
  REQUIRE_MESSAGE(made.status == 201, made.body);
  receiver.AddSecret(Body(made)["secret"]);
  auto publish = [&] {
    auto r = env.Admin("POST", "/admin/audit/publish-checkpoints");
    REQUIRE_MESSAGE(r.status == 200, r.body);
  };
  auto listed = [&](const std::string& key) {
    auto r = env.Call(key, "GET", "/v1/audit-logs/verify/checkpoints");
    REQUIRE_MESSAGE(r.status == 200, r.body);
    return Body(r)["data"];
  };
  const std::string vkey = Body(env.Call(env.test_key, "GET", "/v1/audit-logs/verify/checkpoint-key"))["verifierKey"];
  const std::string origin = "svc/audit/" + env.tenant + "/test";

  publish();
  CHECK(listed(env.test_key).empty());  // nothing revealed: nothing to sign
  std::string person = MakePerson(env, env.test_key, kCurpA);
  for (int i = 0; i < 3; ++i) Decrypt(env, env.test_key, person);
  publish();
  publish();  // the log did not grow: nothing new
  core::Json first = listed(env.test_key);
  REQUIRE(first.size() == 1);
  CHECK(first[0]["object"] == "audit_checkpoint");
  CHECK(first[0]["treeSize"] == 3);
  CHECK(first[0]["rootHash"] == Body(env.Call(env.test_key, "GET", "/v1/audit-logs/verify/tree-head?treeSize=3"))["rootHash"]);
  CHECK(first[0]["eventId"].get<std::string>().rfind("evt_", 0) == 0);
  auto opened = core::note::Open(first[0]["checkpoint"].get<std::string>(), vkey);
  REQUIRE_MESSAGE(opened.ok(), opened.status().ToString());
  CHECK(core::note::ParseCheckpoint(*opened)->size == 3);
  CHECK(core::note::ParseCheckpoint(*opened)->origin == origin);
  for (int i = 0; i < 2; ++i) Decrypt(env, env.test_key, person);
  publish();
  core::Json both_published = listed(env.test_key);
  REQUIRE(both_published.size() == 2);
  CHECK(both_published[1]["treeSize"] == 5);  // oldest first
  CHECK(listed(env.live_key).empty());        // the live log is another log
  auto page = env.Call(env.test_key, "GET", "/v1/audit-logs/verify/checkpoints?limit=1");
  REQUIRE(page.status == 200);
  CHECK(Body(page)["data"].size() == 1);
  CHECK(Body(page)["hasMore"] == true);
  CheckProblem(env.Call(env.test_key, "GET", "/v1/audit-logs/verify/checkpoints?treeSize=3"), 400, "BAD_REQUEST");
  CheckProblem(env.Call(env.test_key, "GET", "/v1/audit-logs/verify/checkpoints?startingAfter=forged"), 400, "INVALID_CURSOR");
  CheckProblem(env.Call(env.NewKey(env.tenant, "test", {"persons:read"}), "GET", "/v1/audit-logs/verify/checkpoints"),
               403, "INSUFFICIENT_SCOPE");

  // Every checkpoint reached the integrator's endpoint, signed as Standard Webhooks.
  REQUIRE(receiver.WaitFor("/witness", 3));  // service.test on registration, then the two checkpoints
  REQUIRE(env.Admin("POST", "/admin/webhooks/wait-idle").status == 200);
  int received = 0;
  for (const auto& m : core::ParseJsonOrDiscarded(receiver.LogJson())) {
    if (m["type"] != "audit.checkpoint_published") continue;
    ++received;
    CHECK(m["verifiedBy"] == core::Json::array({0}));
  }
  CHECK(received == 2);

  // The export carries them, and both verifiers check each against the entries.
  testing::TempDir dir;
  const std::string file = ExportLog(env, env.NewKey(env.tenant, "test", {"compliance:read"}), dir);
  const std::string script = std::string(SVC_TEST_SOURCE_DIR) + "/../docs/verify_audit_export.py";
  auto both = [&] {
    auto ours = testing::RunSvc({"audit", "verify", file, "--verifier-key", vkey});
    auto theirs = testing::RunProgram("python3", {script, file, "--verifier-key", vkey});
    core::Json a = core::ParseJsonOrDiscarded(ours.out);
    CHECK_MESSAGE(a == core::ParseJsonOrDiscarded(theirs.out), ours.out << " vs " << theirs.out << theirs.err);
    CHECK(ours.exit_code == theirs.exit_code);
    return a;
  };
  core::Json ok = both();
  CHECK(ok["valid"] == true);
  CHECK(ok["publishedCheckpoints"] == 2);
  CHECK(ok["firstBadPublishedCheckpoint"].is_null());
  std::string original;
  {
    std::ifstream in(file);
    original.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  // The tail cut from an export, its own checkpoint re-made to match (as a forger with the key
  // might): the checkpoint published at 5 still says otherwise.
  core::Json doc = ReadExport(original);
  REQUIRE(doc["checkpoints"].size() == 2);
  doc["entries"].erase(4);
  doc["entries"].erase(3);
  doc["checkpoint"] = first[0]["checkpoint"];  // the genuine note of size 3
  { std::ofstream(file) << WriteExport(doc); }
  core::Json cut = both();
  CHECK(cut["brokenAt"].is_null());
  CHECK(cut["checkpointMatchesEntries"] == true);
  CHECK(cut["firstBadPublishedCheckpoint"] == 5);
  CHECK(cut["valid"] == false);
  // A published checkpoint whose recorded root was changed by one character.
  doc = ReadExport(original);
  std::string root = doc["checkpoints"][0]["rootHash"];
  root[0] = root[0] == '0' ? '1' : '0';
  doc["checkpoints"][0]["rootHash"] = root;
  { std::ofstream(file) << WriteExport(doc); }
  core::Json bad = both();
  CHECK(bad["firstBadPublishedCheckpoint"] == 3);
  CHECK(bad["valid"] == false);
  // Not a list of checkpoints, or one that is not an object: still an answer, never a crash.
  doc = ReadExport(original);
  doc["checkpoints"] = core::Json::array({7});
  { std::ofstream(file) << WriteExport(doc); }
  CHECK(both()["firstBadPublishedCheckpoint"] == 0);
  doc["checkpoints"] = "none";
  doc["entries"][1] = "not an entry";
  { std::ofstream(file) << WriteExport(doc); }
  core::Json odd = both();
  CHECK(odd["brokenAt"] == 2);
  CHECK(odd["publishedCheckpoints"] == 0);
  // A line that is not JSON, and blank lines (ignored): both verifiers agree where it breaks.
  { std::ofstream(file) << WriteExport(ReadExport(original)) << "\n  \nnot json at all\n"; }
  core::Json garbage = both();
  CHECK(garbage["count"] == 6);
  CHECK(garbage["brokenAt"] == 6);
}

TEST_CASE("audit: svc audit verify --data-dir checks every chain where it is kept") {
  Env env(false, kFlags, Sharing::kIsolated);
  std::string person = MakePerson(env, env.test_key, kCurpA);
  for (int i = 0; i < 4; ++i) Decrypt(env, env.test_key, person);
  Decrypt(env, env.live_key, MakePerson(env, env.live_key, kCurpB));
  REQUIRE(env.Admin("POST", "/admin/audit/publish-checkpoints").status == 200);
  const std::string tree_root = Body(env.Call(env.test_key, "GET", "/v1/audit-logs/verify/tree-head"))["rootHash"];
  const std::string data = env.server->data_dir();
  // On a stopped node (a running one may not have flushed its latest rows): read only.
  env.server->Stop();
  auto verify = [&](const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"audit", "verify", "--data-dir", data};
    args.insert(args.end(), extra.begin(), extra.end());
    auto r = testing::RunSvc(args);
    core::Json j = core::ParseJsonOrDiscarded(r.out);
    REQUIRE_MESSAGE(j.is_object(), r.out << r.err);
    j["exitCode"] = r.exit_code;
    return j;
  };
  core::Json all = verify({});
  CHECK(all["valid"] == true);
  CHECK(all["exitCode"] == 0);
  REQUIRE(all["chains"].size() == 2);
  core::Json test_only = verify({"--tenant", env.tenant, "--env", "test"});
  REQUIRE(test_only["chains"].size() == 1);
  core::Json chain = test_only["chains"][0];
  CHECK(chain["count"] == 4);
  CHECK(chain["headSize"] == 4);
  CHECK(chain["publishedCheckpoints"] == 1);
  CHECK(chain["storedTreeMatches"] == true);
  CHECK(chain["verifierKeyFrom"] == "derived");
  CHECK(chain["treeRootHash"] == tree_root);
  env.server->Start();

  // A stored subtree replaced (what the routes' heads and proofs are read from): the chain is
  // whole, the stored tree is not.
  EditStopped(env, [](eventstore::KvStore& store, int views, const std::string& te) {
    eventstore::KvStore::Batch b;
    b.Put(views, "audit/t/" + te + "/02/00000000000000000000", std::string(32, '\x07'));
    REQUIRE(store.Write(b, true).ok());
  });
  env.server->Stop();
  core::Json node = verify({"--tenant", env.tenant, "--env", "test"});
  CHECK(node["valid"] == false);
  CHECK(node["exitCode"] == 1);
  CHECK(node["chains"][0]["brokenAt"].is_null());
  CHECK(node["chains"][0]["storedTreeMatches"] == false);
  CHECK(node["chains"][0]["firstBadPublishedCheckpoint"].is_null());
  // Entry 2 edited: the chain breaks there.
  env.server->Start();
  EditStopped(env, [](eventstore::KvStore& store, int views, const std::string& te) {
    auto second = store.Get(views, "audit/e/" + te + "/00000000000000000002");
    REQUIRE((second.ok() && second->has_value()));
    core::Json e = core::ParseJsonOrDiscarded(**second);
    e["purpose"] = "marketing";
    eventstore::KvStore::Batch b;
    b.Put(views, "audit/e/" + te + "/00000000000000000002", core::DumpJson(e));
    REQUIRE(store.Write(b, true).ok());
  });
  env.server->Stop();
  core::Json edited = verify({"--tenant", env.tenant, "--env", "test"});
  CHECK(edited["valid"] == false);
  CHECK(edited["chains"][0]["brokenAt"] == 2);
  // (the published checkpoint commits to the recorded hashes, which the edit did not touch)
  CHECK(edited["chains"][0]["firstBadPublishedCheckpoint"].is_null());
  CHECK(verify({"--tenant", env.tenant, "--env", "live"})["valid"] == true);
  CHECK(testing::RunSvc({"audit", "verify", "--data-dir", data + "/nope"}).exit_code != 0);
  CHECK(testing::RunSvc({"audit", "verify"}).exit_code == 2);
}

// Issue 31: a server restarted more often than the checkpoint interval never published one.
TEST_CASE("audit: a restarted server publishes a checkpoint at start when the log grew") {
  Env env(false, kFlags, Sharing::kIsolated);
  std::string person = MakePerson(env, env.test_key, kCurpA);
  for (int i = 0; i < 3; ++i) Decrypt(env, env.test_key, person);
  CHECK(Body(env.Call(env.test_key, "GET", "/v1/audit-logs/verify/checkpoints"))["data"].empty());
  env.server->Stop();
  env.server->Start();  // the interval is an hour (the tests' default): only the start publishes
  core::Json listed;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  do {  // a condition, bounded: the publisher runs beside the listener
    REQUIRE(std::chrono::steady_clock::now() < deadline);
    listed = Body(env.Call(env.test_key, "GET", "/v1/audit-logs/verify/checkpoints"))["data"];
  } while (listed.empty());
  REQUIRE(listed.size() == 1);
  CHECK(listed[0]["treeSize"] == 3);
  // And again without growth: nothing new.
  env.server->Stop();
  env.server->Start();
  REQUIRE(env.Admin("POST", "/admin/audit/publish-checkpoints").status == 200);  // waits for a run in progress
  CHECK(Body(env.Call(env.test_key, "GET", "/v1/audit-logs/verify/checkpoints"))["data"].size() == 1);
}

}  // namespace integration_audit_test
