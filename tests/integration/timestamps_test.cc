// Trusted timestamps (issue 35; NOM-151 evidence) against a real svc and OpenSSL's own TSA behind
// HTTP (tests/tsa/server.py): verification certificates, deletion certificates, published
// audit checkpoints, ARCO access bundles and bulk export dumps get a token over their hash; stock `openssl ts -verify` accepts it
// offline and refuses it for tampered content or a tampered token; a TSA that is down, or that
// answers for another digest or nonce, leaves the evidence `pending`, and it is filled once the
// TSA answers properly (on the fake clock's backoff), also across a kill -9.
#include <doctest/doctest.h>

#include <fstream>

#include "core/crypto.h"
#include "core/ids.h"
#include "tests/support/api_env.h"
#include "tests/support/http_helpers.h"
#include "tests/support/session_flow.h"
#include "tests/support/tsa_process.h"

namespace integration_timestamps_test {

using namespace svc;
using testing::Body;
using testing::Env;
using testing::Sharing;

namespace {

// The value of a counter in GET /metrics (-1 when absent).
double Metric(Env& env, const std::string& name) {
  const std::string text = env.Call("", "GET", "/metrics").body;
  const size_t at = text.find("\n" + name + " ");
  return at == std::string::npos ? -1 : std::stod(text.substr(at + name.size() + 2));
}

core::Json Certificate(Env& env, const std::string& session) {
  auto r = env.Call(env.test_key, "GET", "/v1/verification-sessions/" + session + "/certificate");
  REQUIRE_MESSAGE(r.status == 200, r.body);
  return Body(r);
}

void WaitTimestamps(Env& env) {
  auto r = env.Admin("POST", "/admin/timestamps/wait-idle", {{"tenantId", env.tenant}});
  REQUIRE_MESSAGE(r.status == 200, r.body);
}

void Advance(Env& env, int64_t seconds) {
  auto r = env.Admin("POST", "/admin/clock", {{"advanceSeconds", seconds}});
  REQUIRE_MESSAGE(r.status == 200, r.body);
}

// `openssl ts -verify` of a timestamp entry's token over `digest_hex`, as docs/audit.md shows.
testing::CommandResult OpensslVerify(const testing::TempDir& dir, const core::Json& entry, const std::string& digest_hex,
                                     const std::string& roots) {
  auto der = core::Base64Decode(entry["token"].get<std::string>());
  REQUIRE(der.ok());
  std::ofstream(dir.Sub("token.der"), std::ios::binary) << *der;
  return testing::RunProgram("openssl", {"ts", "-verify", "-digest", digest_hex, "-in", dir.Sub("token.der"),
                                         "-token_in", "-CAfile", roots});
}

std::string MakePerson(Env& env, const std::string& curp) {
  auto r = env.Call(env.test_key, "POST", "/v1/persons",
                    core::Json({{"pii", {{"curp", curp}, {"email", "a@example.mx"}}}}).dump());
  REQUIRE_MESSAGE(r.status == 201, r.body);
  return Body(r)["id"].get<std::string>();
}

}  // namespace

TEST_CASE("timestamps: certificates and checkpoints carry a TSA's token that openssl verifies offline; a TSA "
          "that is down or wrong leaves them pending until it answers") {
  testing::TempDir tsa_dir;
  testing::TsaProcess tsa(tsa_dir.path());
  Env env(false, {"--fake-clock", "--rate-reveals", "0", "--tsa-url", tsa.url(), "--tsa-roots", tsa.roots_file()},
          Sharing::kIsolated);

  // A verdict's certificate: one token over its contentHash, outside the signed content.
  const std::string a = testing::SandboxSession(env, env.test_key, "ts-a", "approved");
  WaitTimestamps(env);
  core::Json cert = Certificate(env, a);
  REQUIRE(cert["timestamps"].size() == 1);
  core::Json stamp = cert["timestamps"][0];
  CHECK(stamp["status"] == "granted");
  CHECK(stamp["hashAlgorithm"] == "sha256");
  CHECK(stamp["digest"] == cert["contentHash"]);
  CHECK(stamp["policy"] == "1.2.3.4.1");
  CHECK(stamp["tsaUrl"] == tsa.url());
  CHECK(stamp["tsaName"].get<std::string>().find("CN=Test TSA") != std::string::npos);
  CHECK(tsa.Granted() == 1);
  auto ok = OpensslVerify(env.dir, stamp, cert["contentHash"], tsa.roots_file());
  CHECK_MESSAGE(ok.exit_code == 0, ok.out << ok.err);
  CHECK(ok.out.find("Verification: OK") != std::string::npos);
  // The same bytes on every request; the signatures still check (the timestamps are not signed
  // content), by the service's verifier and the stand-alone one.
  CHECK(env.Call(env.test_key, "GET", "/v1/verification-sessions/" + a + "/certificate").body == cert.dump());
  const std::string file = env.dir.Sub("certificate.json");
  std::ofstream(file) << cert.dump();
  auto checked = testing::RunSvc({"certificate", "verify", file, "--data-dir", env.server->data_dir()});
  CHECK_MESSAGE(checked.exit_code == 0, checked.out << checked.err);

  // Tampered: another content (its hash is another digest) or a byte of the token.
  core::Json forged = cert;
  forged["outcome"] = "declined";
  forged.erase("timestamps");
  const std::string forged_hash = core::Sha256Hex(core::DumpJson(forged));  // any other digest
  CHECK(OpensslVerify(env.dir, stamp, forged_hash, tsa.roots_file()).exit_code != 0);
  core::Json bad_token = stamp;
  std::string der = *core::Base64Decode(stamp["token"].get<std::string>());
  der[der.size() / 2] = static_cast<char>(der[der.size() / 2] ^ 0x01);
  bad_token["token"] = core::Base64Encode(der);
  CHECK(OpensslVerify(env.dir, bad_token, cert["contentHash"], tsa.roots_file()).exit_code != 0);

  // A TSA that is down: the verdict is not held back; the certificate says pending.
  tsa.SetMode("down");
  const std::string b = testing::SandboxSession(env, env.test_key, "ts-b", "declined");
  WaitTimestamps(env);
  core::Json pending = Certificate(env, b);
  REQUIRE(pending["timestamps"].size() == 1);
  CHECK(pending["timestamps"][0]["status"] == "pending");
  CHECK(pending["timestamps"][0]["digest"] == pending["contentHash"]);
  CHECK_FALSE(pending["timestamps"][0].contains("token"));

  // One that answers for another digest, then with another nonce: refused, still pending.
  tsa.SetMode("wrong-imprint");
  Advance(env, 2);
  WaitTimestamps(env);
  CHECK(Certificate(env, b)["timestamps"][0]["status"] == "pending");
  tsa.SetMode("wrong-nonce");
  Advance(env, 4);
  WaitTimestamps(env);
  CHECK(Certificate(env, b)["timestamps"][0]["status"] == "pending");
  CHECK(Metric(env, "svc_timestamp_failures_total") == 3);  // down, wrong imprint, wrong nonce

  // Back: at the next attempt (the backoff is on the service's clock) the token is obtained.
  tsa.SetMode("ok");
  Advance(env, 8);
  WaitTimestamps(env);
  core::Json filled = Certificate(env, b);
  CHECK(filled["timestamps"][0]["status"] == "granted");
  CHECK(filled["contentHash"] == pending["contentHash"]);
  CHECK(OpensslVerify(env.dir, filled["timestamps"][0], filled["contentHash"], tsa.roots_file()).exit_code == 0);

  // A purge's deletion certificate.
  const std::string person = MakePerson(env, "PEPJ800101HDFRRN03");
  auto forget = env.Call(env.test_key, "POST", "/v1/persons/" + person + "/forget", R"({"mode":"purge"})");
  REQUIRE_MESSAGE(forget.status == 200, forget.body);
  REQUIRE(env.Admin("POST", "/admin/persons/purge").status == 200);
  WaitTimestamps(env);
  auto deletion = env.Call(env.test_key, "GET", "/v1/persons/" + person + "/deletion-certificate");
  REQUIRE_MESSAGE(deletion.status == 200, deletion.body);
  core::Json dc = Body(deletion);
  REQUIRE(dc["timestamps"].size() == 1);
  CHECK(dc["timestamps"][0]["status"] == "granted");
  CHECK(dc["timestamps"][0]["digest"] == dc["contentHash"]);
  CHECK(OpensslVerify(env.dir, dc["timestamps"][0], dc["contentHash"], tsa.roots_file()).exit_code == 0);

  // A published checkpoint of the access log: a token over the SHA-256 of its signed note.
  const std::string reader = MakePerson(env, "LOMA900215MJCPRR05");
  auto reveal = env.Call(env.test_key, "POST", "/v1/persons/" + reader + "/decrypt",
                         R"({"fields":["curp"],"purpose":"identity_verification","reason":"onboarding check"})");
  REQUIRE_MESSAGE(reveal.status == 200, reveal.body);
  REQUIRE(env.Admin("POST", "/admin/audit/publish-checkpoints").status == 200);
  WaitTimestamps(env);
  auto listed = env.Call(env.test_key, "GET", "/v1/audit-logs/verify/checkpoints");
  REQUIRE_MESSAGE(listed.status == 200, listed.body);
  core::Json checkpoint = Body(listed)["data"][0];
  REQUIRE(checkpoint["timestamps"].size() == 1);
  const std::string note_hash = core::Sha256Hex(checkpoint["checkpoint"].get<std::string>());
  CHECK(checkpoint["timestamps"][0]["status"] == "granted");
  CHECK(checkpoint["timestamps"][0]["digest"] == note_hash);
  CHECK(OpensslVerify(env.dir, checkpoint["timestamps"][0], note_hash, tsa.roots_file()).exit_code == 0);

  // Crash-safe: a token still wanted when the service is killed is obtained after the restart;
  // the ones recorded are still there.
  tsa.SetMode("down");
  const std::string c = testing::SandboxSession(env, env.test_key, "ts-c", "approved");
  WaitTimestamps(env);
  CHECK(Certificate(env, c)["timestamps"][0]["status"] == "pending");
  env.server->Kill();
  tsa.SetMode("ok");
  env.server->Start();
  WaitTimestamps(env);
  CHECK(Certificate(env, c)["timestamps"][0]["status"] == "granted");
  CHECK(Certificate(env, a) == cert);
}

TEST_CASE("timestamps: without a TSA, documents carry none; a configuration that cannot work stops the start") {
  Env env(false, {"--fake-clock"});
  const std::string a = testing::SandboxSession(env, env.test_key, "no-tsa", "approved");
  CHECK(Certificate(env, a)["timestamps"] == core::Json::array());

  auto no_roots = testing::RunSvc({"serve", "--data-dir", env.dir.Sub("other"), "--dev-keys-in-data-dir", "--face-engine",
                                   "model-free", "--listen", "127.0.0.1:0", "--tsa-url", "http://127.0.0.1:1/"});
  CHECK(no_roots.exit_code != 0);
  CHECK(no_roots.err.find("--tsa-roots") != std::string::npos);
}

TEST_CASE("timestamps: an ARCO access bundle and a bulk export's dump are timestamped; the bundle's receipt says "
          "which bytes were answered") {
  testing::TempDir tsa_dir;
  testing::TsaProcess tsa(tsa_dir.path());
  Env env(false, {"--fake-clock", "--rate-reveals", "0", "--tsa-url", tsa.url(), "--tsa-roots", tsa.roots_file()},
          Sharing::kIsolated);
  const std::string person = MakePerson(env, "PEPJ800101HDFRRN03");

  // The bundle: its id, and the digest of the exact bytes answered (RFC 9530's Content-Digest).
  auto exported = env.Call(env.test_key, "POST", "/v1/persons/" + person + "/export", R"({"reason":"ARCO access"})");
  REQUIRE_MESSAGE(exported.status == 200, exported.body);
  core::Json bundle = Body(exported);
  const std::string id = bundle["id"];
  CHECK(core::ValidateId(core::IdKind::kPersonExport, id).ok());
  CHECK(bundle["pii"]["curp"] == "PEPJ800101HDFRRN03");
  const std::string digest = core::Sha256Hex(exported.body);
  CHECK(testing::HeaderOf(exported, "Content-Digest") == "sha-256=:" + core::Base64Encode(core::Sha256(exported.body)) + ":");
  CHECK(testing::HeaderOf(exported, "Cache-Control") == "no-store");

  // Its receipt (scope persons:read; no value of the bundle): the digest, size and a token over it.
  WaitTimestamps(env);
  const std::string reader = env.NewKey(env.tenant, "test", {"persons:read"});
  auto receipt = env.Call(reader, "GET", "/v1/persons/" + person + "/exports/" + id);
  REQUIRE_MESSAGE(receipt.status == 200, receipt.body);
  core::Json rc = Body(receipt);
  CHECK(rc["object"] == "person.export_receipt");
  CHECK(rc["personId"] == person);
  CHECK(rc["sha256"] == digest);
  CHECK(rc["sizeBytes"] == exported.body.size());
  CHECK(rc["generatedAt"] == bundle["generatedAt"]);
  CHECK(receipt.body.find("PEPJ800101HDFRRN03") == std::string::npos);
  REQUIRE(rc["timestamps"].size() == 1);
  CHECK(rc["timestamps"][0]["status"] == "granted");
  CHECK(rc["timestamps"][0]["digest"] == digest);
  CHECK(OpensslVerify(env.dir, rc["timestamps"][0], digest, tsa.roots_file()).exit_code == 0);
  // A byte of the bundle changed is another digest: the token does not cover it.
  std::string altered = exported.body;
  altered[altered.find("PEPJ")] = 'X';
  CHECK(OpensslVerify(env.dir, rc["timestamps"][0], core::Sha256Hex(altered), tsa.roots_file()).exit_code != 0);
  // Another person's path, an unknown bundle, an id of another kind.
  const std::string other = MakePerson(env, "LOMA900215MJCPRR05");
  testing::CheckProblem(env.Call(reader, "GET", "/v1/persons/" + other + "/exports/" + id), 404, "EXPORT_NOT_FOUND");
  testing::CheckProblem(env.Call(reader, "GET", "/v1/persons/" + person + "/exports/pxb_00000000000000000000000000000000"),
                        404, "EXPORT_NOT_FOUND");
  testing::CheckProblem(env.Call(reader, "GET", "/v1/persons/" + person + "/exports/exb_00000000000000000000000000000000"),
                        400, "INVALID_ID");
  testing::CheckProblem(env.Call(reader, "GET", "/v1/persons/per_00000000000000000000000000000000/exports/" + id), 404,
                        "PERSON_NOT_FOUND");
  const std::string outsider = env.NewKey(env.tenant, "test", {"verification:read"});
  testing::CheckProblem(env.Call(outsider, "GET", "/v1/persons/" + person + "/exports/" + id), 403,
                        "INSUFFICIENT_SCOPE");

  // A TSA that is down does not hold the bundle back: its receipt says pending until it answers.
  tsa.SetMode("down");
  auto later = env.Call(env.test_key, "POST", "/v1/persons/" + person + "/export", "");
  REQUIRE_MESSAGE(later.status == 200, later.body);
  const std::string later_id = Body(later)["id"];
  WaitTimestamps(env);
  core::Json pending = Body(env.Call(reader, "GET", "/v1/persons/" + person + "/exports/" + later_id));
  CHECK(pending["timestamps"][0]["status"] == "pending");
  CHECK(pending["timestamps"][0]["digest"] == core::Sha256Hex(later.body));
  tsa.SetMode("ok");
  Advance(env, 2);
  WaitTimestamps(env);
  core::Json granted = Body(env.Call(reader, "GET", "/v1/persons/" + person + "/exports/" + later_id));
  CHECK(granted["timestamps"][0]["status"] == "granted");

  // A bulk export: a token over the sealed dump's SHA-256, the hash of the bytes GET …/dump serves.
  auto made = testing::RunSvc({"export-bulk", "keygen", "--secret-key-file", env.dir.Sub("export.secret")});
  REQUIRE_MESSAGE(made.exit_code == 0, made.err);
  auto set = env.Admin("POST", "/admin/tenants/" + env.tenant + "/export-key",
                       {{"publicKey", core::ParseJsonOrDiscarded(made.out)["publicKey"]}});
  REQUIRE_MESSAGE(set.status == 200, set.body);
  auto job = env.Call(env.test_key, "POST", "/v1/persons/export-bulk",
                      core::Json({{"purpose", "identity_verification"}, {"reason", "yearly archive"}}).dump());
  REQUIRE_MESSAGE(job.status == 202, job.body);
  const std::string job_id = Body(job)["id"];
  REQUIRE(env.Admin("POST", "/admin/persons/wait-idle").status == 200);
  WaitTimestamps(env);
  core::Json ready = Body(env.Call(env.test_key, "GET", "/v1/persons/export-bulk/" + job_id));
  REQUIRE_MESSAGE(ready["status"] == "ready", ready.dump());
  auto dump = env.Call(env.test_key, "GET", "/v1/persons/export-bulk/" + job_id + "/dump");
  REQUIRE(dump.status == 200);
  const std::string dump_hash = core::Sha256Hex(dump.body);
  CHECK(ready["dump"]["sha256"] == dump_hash);
  REQUIRE(ready["dump"]["timestamps"].size() == 1);
  CHECK(ready["dump"]["timestamps"][0]["status"] == "granted");
  CHECK(OpensslVerify(env.dir, ready["dump"]["timestamps"][0], dump_hash, tsa.roots_file()).exit_code == 0);
}

}  // namespace integration_timestamps_test
