// Bulk export through a real svc (docs/persons.md#bulk-export): the tenant's export key made with
// `svc export-bulk keygen` and set by the operator; a job of every active person, held back
// (EXPORT_DUMP_NOT_READY), then written; the dump downloaded, its hash checked, opened with `svc
// export-bulk open` and in-process (and refused when altered, cut or opened with another key);
// every person audited; the reveal rules per person for another application's key; the dump's
// expiry on the fake clock (EXPORT_DUMP_EXPIRED, the object gone); a job that survives a crash; a
// dump kept as a file by an older version moved into the blob store at start.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "core/crypto.h"
#include "core/ids.h"
#include "core/json.h"
#include "pipeline/persons/export_dump.h"
#include "tests/support/api_env.h"
#include "tests/support/svc_process.h"

namespace integration_persons_export_test {

using namespace svc;
using svc::testing::Body;
using svc::testing::CheckProblem;
using svc::testing::Env;
using svc::testing::Sharing;

namespace {

const std::string kBase = "/v1/persons";
const std::string kExport = "/v1/persons/export-bulk";

api::HttpResponse Post(Env& env, const std::string& key, const std::string& path, const core::Json& body,
                       std::map<std::string, std::string> headers = {}) {
  return env.Call(key, "POST", path, body.dump(), headers);
}

std::string MakePerson(Env& env, const std::string& key, const core::Json& pii) {
  auto r = Post(env, key, kBase, {{"pii", pii}});
  REQUIRE_MESSAGE(r.status == 201, r.body);
  return Body(r)["id"].get<std::string>();
}

void WaitIdle(Env& env) {
  auto r = env.Admin("POST", "/admin/persons/wait-idle");
  REQUIRE_MESSAGE(r.status == 200, r.body);
}

struct ExportKey {
  std::string secret_file;
  std::string public_key;
  std::string key_id;
};

// An export key pair made by `svc export-bulk keygen`, set as the tenant's export key.
ExportKey SetExportKey(Env& env, const std::string& dir) {
  ExportKey k;
  k.secret_file = dir + "/export.secret";
  auto made = testing::RunSvc({"export-bulk", "keygen", "--secret-key-file", k.secret_file});
  REQUIRE_MESSAGE(made.exit_code == 0, made.err);
  core::Json out = core::ParseJsonOrDiscarded(made.out);
  k.public_key = out["publicKey"];
  auto set = env.Admin("POST", "/admin/tenants/" + env.tenant + "/export-key", {{"publicKey", k.public_key}});
  REQUIRE_MESSAGE(set.status == 200, set.body);
  k.key_id = Body(set)["exportKeyId"];
  CHECK(k.key_id == out["keyId"]);
  return k;
}

core::X25519KeyPair LoadKeyPair(const std::string& file) {
  std::ifstream in(file);
  std::string text;
  in >> text;
  auto raw = core::Base64UrlDecode(text);
  REQUIRE(raw.ok());
  auto pair = core::X25519FromSecret(*raw);
  REQUIRE(pair.ok());
  return *pair;
}

std::string TempDir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / (name + "-" + core::HexEncode(core::RandomBytes(6)));
  std::filesystem::create_directories(dir);
  return dir.string();
}

}  // namespace

TEST_CASE("persons export-bulk: a sealed dump of every active person, audited, until it expires") {
  Env env(false, {"--rate-reveals", "0", "--fake-clock", "--export-dump-ttl-hours", "1"}, Sharing::kIsolated);
  const std::string k = env.test_key;
  const std::string reader = env.NewKey(env.tenant, "test", {"persons:read"});
  const std::string dir = TempDir("svc-export");
  const core::Json ask = {{"purpose", "identity_verification"}, {"reason", "annual portability request 2026-41"}};

  // No export key yet: nothing to seal a dump to.
  CheckProblem(Post(env, reader, kExport, ask), 409, "EXPORT_KEY_NOT_CONFIGURED");
  auto bad_key = env.Admin("POST", "/admin/tenants/" + env.tenant + "/export-key", {{"publicKey", "c2hvcnQ"}});
  CHECK(bad_key.status == 422);
  const ExportKey key = SetExportKey(env, dir);

  const std::string p1 = MakePerson(env, k, {{"curp", "PEPJ800101HDFRRN03"}, {"email", "uno@example.mx"},
                                              {"fullName", "Juana Pérez Pérez"}});
  const std::string p2 = MakePerson(env, k, {{"email", "dos@example.mx"}});
  const std::string p3 = MakePerson(env, k, {{"email", "tres@example.mx"}});
  REQUIRE(Post(env, k, kBase + "/" + p3 + "/forget", {{"mode", "block"}}).status == 200);

  // Refusals.
  CheckProblem(Post(env, reader, kExport, {{"reason", "x"}}), 422, "VALIDATION_ERROR");
  CheckProblem(Post(env, reader, kExport, {{"purpose", "identity_verification"}}), 422, "PII_ACCESS_REASON_REQUIRED");
  CheckProblem(Post(env, reader, kExport, {{"purpose", "marketing_blast"}, {"reason", "x"}}), 400, "PURPOSE_UNKNOWN");
  core::Json with_fields = ask;
  with_fields["fields"] = {"email", "shoeSize"};
  CheckProblem(Post(env, reader, kExport, with_fields), 422, "UNKNOWN_PII_FIELD");
  core::Json bad_ids = ask;
  bad_ids["personIds"] = {"per_1"};
  CheckProblem(Post(env, reader, kExport, bad_ids), 400, "INVALID_ID");
  core::Json many = ask;
  many["personIds"] = core::Json::array();
  for (int i = 0; i < 1001; ++i) many["personIds"].push_back(p1);
  CheckProblem(Post(env, reader, kExport, many), 413, "BATCH_TOO_LARGE");
  core::Json extra = ask;
  extra["format"] = "csv";
  CheckProblem(Post(env, reader, kExport, extra), 422, "VALIDATION_ERROR");
  CheckProblem(env.Call(reader, "POST", kExport, "{not json"), 400, "BAD_REQUEST");
  const std::string outsider = env.NewKey(env.tenant, "test", {"verification:read"});
  CheckProblem(Post(env, outsider, kExport, ask), 403, "INSUFFICIENT_SCOPE");
  CheckProblem(env.Call(reader, "GET", kExport + "/exb_00000000000000000000000000000000"), 404, "EXPORT_JOB_NOT_FOUND");
  CheckProblem(env.Call(reader, "GET", kExport + "/exb_00000000000000000000000000000000/dump"), 404,
               "EXPORT_JOB_NOT_FOUND");
  CheckProblem(env.Call(reader, "GET", kExport + "/imp_00000000000000000000000000000000"), 400, "INVALID_ID");

  // Held back: the job is queued and its dump not ready.
  REQUIRE(env.Admin("POST", "/admin/persons/exports/pause").status == 200);
  auto made = Post(env, reader, kExport, ask, {{"Idempotency-Key", "export-all-1"}});
  REQUIRE_MESSAGE(made.status == 202, made.body);
  core::Json job = Body(made);
  const std::string id = job["id"];
  CHECK(id.rfind("exb_", 0) == 0);
  CHECK(job["object"] == "person.export_bulk");
  CHECK(job["status"] == "queued");
  CHECK(job["selection"] == "all");
  CHECK(job["recipientKeyId"] == key.key_id);
  CHECK(job["dump"].is_null());
  CHECK(Body(Post(env, reader, kExport, ask, {{"Idempotency-Key", "export-all-1"}}))["id"] == id);  // the same job
  auto early = env.Call(reader, "GET", kExport + "/" + id + "/dump");
  CheckProblem(early, 409, "EXPORT_DUMP_NOT_READY");
  bool retry_after = false;
  for (const auto& [name, value] : early.headers) retry_after |= name == "retry-after" || name == "Retry-After";
  CHECK(retry_after);

  // Written: p1 and p2 (p3 asked to be forgotten: out of reach, not exported).
  REQUIRE(env.Admin("POST", "/admin/persons/exports/resume").status == 200);
  WaitIdle(env);
  job = Body(env.Call(reader, "GET", kExport + "/" + id));
  REQUIRE(job["status"] == "ready");
  CHECK(job["personCount"] == 2);
  CHECK(job["auditedCount"] == 2);
  CHECK(job["skippedCount"] == 0);
  CHECK(job["completedAt"].is_string());
  CHECK(job["expiresAt"].is_string());
  CHECK(job["dump"]["format"] == "svc-export-bulk-1");
  auto dump = env.Call(reader, "GET", kExport + "/" + id + "/dump");
  REQUIRE_MESSAGE(dump.status == 200, dump.body);
  CHECK(dump.body.size() == job["dump"]["sizeBytes"].get<size_t>());
  CHECK(core::Sha256Hex(dump.body) == job["dump"]["sha256"]);
  CHECK(dump.body.find("uno@example.mx") == std::string::npos);  // sealed: no value in the clear
  CHECK(dump.body.find("PEPJ800101HDFRRN03") == std::string::npos);
  const std::string file = dir + "/dump.svcx";
  {
    std::ofstream out(file, std::ios::binary);
    out << dump.body;
  }

  // Opened by the holder of the export secret key, with the CLI ...
  auto opened = testing::RunSvc({"export-bulk", "open", file, "--secret-key-file", key.secret_file});
  REQUIRE_MESSAGE(opened.exit_code == 0, opened.err);
  std::map<std::string, core::Json> lines;
  std::istringstream text(opened.out);
  for (std::string line; std::getline(text, line);) {
    core::Json j = core::ParseJsonOrDiscarded(line);
    lines[core::StringOr(j, "personId")] = j;
  }
  REQUIRE(lines.size() == 2);
  CHECK(lines[p1]["pii"]["email"] == "uno@example.mx");
  CHECK(lines[p1]["pii"]["curp"] == "PEPJ800101HDFRRN03");
  CHECK(lines[p1]["pii"]["fullName"] == "Juana Pérez Pérez");
  CHECK(lines[p2]["pii"] == core::Json({{"email", "dos@example.mx"}}));
  CHECK(lines.count(p3) == 0);
  // ... and in-process; altered, cut or under another key it does not open.
  const core::X25519KeyPair pair = LoadKeyPair(key.secret_file);
  auto contents = pipeline::persons::OpenDump(dump.body, pair);
  REQUIRE_MESSAGE(contents.ok(), contents.status().ToString());
  CHECK(contents->header["jobId"] == id);
  CHECK(contents->header["recipientKeyId"] == key.key_id);
  CHECK(contents->records.size() == 2);
  std::string altered = dump.body;
  altered[altered.size() - 5] ^= 0x01;
  CHECK_FALSE(pipeline::persons::OpenDump(altered, pair).ok());
  CHECK_FALSE(pipeline::persons::OpenDump(dump.body.substr(0, dump.body.size() - 30), pair).ok());
  std::string header_changed = dump.body;
  header_changed[header_changed.find("test")] = 'b';  // the environment in the header: bound to every chunk
  CHECK_FALSE(pipeline::persons::OpenDump(header_changed, pair).ok());
  CHECK_FALSE(pipeline::persons::OpenDump(dump.body, core::X25519Generate()).ok());
  const std::string other_secret = dir + "/other.secret";
  REQUIRE(testing::RunSvc({"export-bulk", "keygen", "--secret-key-file", other_secret}).exit_code == 0);
  CHECK(testing::RunSvc({"export-bulk", "open", file, "--secret-key-file", other_secret}).exit_code != 0);

  // Every exported person is in the access log, sealed, with the job's reason.
  for (const auto& p : {p1, p2}) {
    core::Json log = Body(env.Call(k, "GET", "/v1/audit-logs?personId=" + p));
    bool found = false;
    for (const auto& e : log["data"]) {
      if (e["channel"] != "export_bulk") continue;
      found = true;
      CHECK(e["redaction"] == "sealed");
      CHECK(e["reason"] == "annual portability request 2026-41");
      CHECK(e["purpose"] == "identity_verification");
    }
    CHECK(found);
  }
  const core::Json p3_log = Body(env.Call(k, "GET", "/v1/audit-logs?personId=" + p3));
  for (const auto& e : p3_log["data"]) CHECK(e["channel"] != "export_bulk");

  // The live environment knows no such job.
  CheckProblem(env.Call(env.live_key, "GET", kExport + "/" + id), 404, "EXPORT_JOB_NOT_FOUND");

  // Expiry on the fake clock: the dump is deleted, the job says so.
  const std::string sha = job["dump"]["sha256"];
  const std::string stored = env.server->data_dir() + "/media/" + sha.substr(0, 2) + "/" + sha;  // the blob store
  CHECK(std::filesystem::exists(stored));
  REQUIRE(env.Admin("POST", "/admin/clock", {{"advanceSeconds", 3599}}).status == 200);
  CHECK(env.Call(reader, "GET", kExport + "/" + id + "/dump").status == 200);
  REQUIRE(env.Admin("POST", "/admin/clock", {{"advanceSeconds", 2}}).status == 200);
  CheckProblem(env.Call(reader, "GET", kExport + "/" + id + "/dump"), 409, "EXPORT_DUMP_EXPIRED");
  job = Body(env.Call(reader, "GET", kExport + "/" + id));
  CHECK(job["status"] == "expired");
  CHECK(job["expiredAt"].is_string());
  CHECK_FALSE(std::filesystem::exists(stored));
  std::filesystem::remove_all(dir);
}

TEST_CASE("persons export-bulk: another application's key exports what its grants allow; the rest is skipped") {
  Env env(false, {"--rate-reveals", "0"}, Sharing::kIsolated);
  const std::string owner = env.test_key;
  const std::string dir = TempDir("svc-export-grants");
  const ExportKey key = SetExportKey(env, dir);
  const std::string p1 = MakePerson(env, owner, {{"email", "uno@example.mx"}, {"fullName", "Uno Ejemplo"}});
  const std::string p2 = MakePerson(env, owner, {{"email", "dos@example.mx"}});
  const std::string p3 = MakePerson(env, owner, {{"email", "tres@example.mx"}});
  REQUIRE(Post(env, owner, kBase + "/" + p3 + "/forget", {{"mode", "block"}}).status == 200);
  const std::string partner_app = env.NewApplication(env.tenant, "Partner");
  const std::string partner = env.NewKey(env.tenant, "test", {"persons:read"}, partner_app);
  auto grant = Post(env, owner, kBase + "/" + p1 + "/grants",
                    {{"applicationId", partner_app}, {"allowedFields", {"email"}},
                     {"allowedPurposes", {"identity_verification"}}});
  REQUIRE_MESSAGE(grant.status == 201, grant.body);

  const std::string unknown = "per_00000000000000000000000000000000";
  auto run = [&](const std::string& purpose, core::Json fields) {
    core::Json body = {{"purpose", purpose}, {"reason", "partner reconciliation"}, {"personIds", {p1, p2, p3, unknown}}};
    if (!fields.is_null()) body["fields"] = fields;
    auto made = Post(env, partner, kExport, body);
    REQUIRE_MESSAGE(made.status == 202, made.body);
    CHECK(Body(made)["selection"] == "list");
    CHECK(Body(made)["requestedPersonCount"] == 4);
    WaitIdle(env);
    return Body(env.Call(partner, "GET", kExport + "/" + Body(made)["id"].get<std::string>()));
  };
  auto codes = [](const core::Json& job) {
    std::map<std::string, std::string> out;
    for (const auto& s : job["skipped"]) out[s["personId"]] = s["code"];
    return out;
  };

  // No fields named: p1 with the granted field only; the others skipped, each with its code.
  core::Json job = run("identity_verification", nullptr);
  REQUIRE(job["status"] == "ready");
  CHECK(job["personCount"] == 1);
  CHECK(job["auditedCount"] == 1);
  CHECK(job["skippedCount"] == 3);
  auto skipped = codes(job);
  CHECK(skipped[p2] == "FIELD_NOT_GRANTED");
  CHECK(skipped[p3] == "PERSON_FORGET_PENDING");
  CHECK(skipped[unknown] == "PERSON_NOT_FOUND");
  auto dump = env.Call(partner, "GET", kExport + "/" + job["id"].get<std::string>() + "/dump");
  REQUIRE(dump.status == 200);
  auto contents = pipeline::persons::OpenDump(dump.body, LoadKeyPair(key.secret_file));
  REQUIRE(contents.ok());
  REQUIRE(contents->records.size() == 1);
  CHECK(contents->records[0]["personId"] == p1);
  CHECK(contents->records[0]["pii"] == core::Json({{"email", "uno@example.mx"}}));
  CHECK(contents->records[0]["fields"] == core::Json::array({"email"}));

  // A field outside the grant, or a purpose outside it: p1 is skipped too.
  CHECK(codes(run("identity_verification", {"fullName"}))[p1] == "FIELD_NOT_GRANTED");
  CHECK(codes(run("aml_compliance", nullptr))[p1] == "GRANT_PURPOSE_NOT_ALLOWED");
  std::filesystem::remove_all(dir);
}

TEST_CASE("persons export-bulk: a job queued when the server crashes is written after the restart") {
  Env env(false, {"--rate-reveals", "0"}, Sharing::kIsolated);
  const std::string dir = TempDir("svc-export-crash");
  SetExportKey(env, dir);
  const std::string p1 = MakePerson(env, env.test_key, {{"email", "uno@example.mx"}});
  REQUIRE(env.Admin("POST", "/admin/persons/exports/pause").status == 200);
  auto made = Post(env, env.test_key, kExport, {{"purpose", "identity_verification"}, {"reason", "backup"}});
  REQUIRE(made.status == 202);
  const std::string id = Body(made)["id"];
  const std::string data = env.server->data_dir();
  env.server->Kill();
  env.server = std::make_unique<testing::SvcServer>(data, std::vector<std::string>{"--rate-reveals", "0"});
  env.server->Start();
  WaitIdle(env);
  core::Json job = Body(env.Call(env.test_key, "GET", kExport + "/" + id));
  CHECK(job["status"] == "ready");
  CHECK(job["personCount"] == 1);
  const std::string sha = job["dump"]["sha256"];
  const std::string object = data + "/media/" + sha.substr(0, 2) + "/" + sha;
  REQUIRE(std::filesystem::exists(object));
  std::ifstream in(object, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), {});

  // A data directory from before dumps went into the blob store: the dump a file under exports/
  // (and an unfinished .tmp beside it). The next start moves it into the store before serving.
  env.server->Stop();
  const std::string legacy_dir = data + "/exports/" + env.tenant + "/test";
  std::filesystem::create_directories(legacy_dir);
  std::filesystem::rename(object, legacy_dir + "/" + id + ".svcx");
  std::ofstream(legacy_dir + "/exb_00000000000000000000000000000001.svcx.tmp") << "unfinished";
  env.server->Start();
  auto dump = env.Call(env.test_key, "GET", kExport + "/" + id + "/dump");
  REQUIRE_MESSAGE(dump.status == 200, dump.body);
  CHECK(dump.body == bytes);
  CHECK(std::filesystem::exists(object));
  CHECK(std::filesystem::is_empty(legacy_dir));
  std::filesystem::remove_all(dir);
}

}  // namespace integration_persons_export_test
