// The compliance area through a real svc: the limits in force follow the flags that enforce
// them, the datacenters and subprocessors come from the operator's compliance file, a file the
// server cannot report truthfully stops it from starting, and only compliance:read reads them.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <tuple>

#include "tests/support/api_env.h"
#include "tests/support/receiver_process.h"
#include "tests/support/session_flow.h"
#include "tests/support/svc_process.h"
#include "tests/support/temp_dir.h"

namespace integration_compliance_test {

using namespace svc;
using svc::testing::Body;
using svc::testing::CheckProblem;
using svc::testing::Env;
using svc::testing::HeaderOf;
using svc::testing::Sharing;

namespace {

const char* kComplianceFile = R"({
  "datacenters": [
    {"id": "mx-qro-1", "provider": "KIO Networks", "region": "Querétaro", "country": "MX", "role": "primary",
     "certifications": ["ISO 27001"]},
    {"id": "mx-mty-1", "provider": "KIO Networks", "region": "Monterrey", "country": "MX", "role": "backup"}
  ],
  "subprocessors": [
    {"name": "Example SMS", "purpose": "one-time codes", "country": "MX", "dataCategories": ["phone"]}
  ]
})";

core::Json Get(Env& env, const std::string& key, const std::string& path) {
  auto r = env.Call(key, "GET", path);
  REQUIRE_MESSAGE(r.status == 200, r.body);
  return Body(r);
}

// A session the sandbox approves, with its four captures (blobs in the data directory).
std::string ApprovedSession(Env& env, const std::string& key, const std::string& idem) {
  auto created = env.Create(key, idem, R"({"channel":"api","policy":{"testOutcome":"approved"}})");
  REQUIRE_MESSAGE(created.status == 201, created.body);
  std::string id = Body(created)["id"];
  REQUIRE(env.Call(key, "POST", "/v1/verification-sessions/" + id + "/consent", R"({"accepted":true})").status == 200);
  for (auto [kind, mime, bytes] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"document_front", "image/jpeg", testing::Jpeg(1280, 800)},
           {"document_back", "image/jpeg", testing::Jpeg(1280, 801)},
           {"selfie", "image/jpeg", testing::Jpeg(720, 960)},
           {"liveness_video", "video/mp4", testing::Mp4()}}) {
    auto r = testing::Upload(env, key, id, kind, mime, bytes);
    REQUIRE_MESSAGE(r.status == 201, r.body);
  }
  REQUIRE(env.Call(key, "POST", "/v1/verification-sessions/" + id + "/submit").status == 200);
  REQUIRE(env.Admin("POST", "/admin/pipeline/wait-idle").status == 200);
  return id;
}

// The blobs under <data>/media.
// The blobs the server holds: files of <data-dir>/media, or objects of its bucket.
size_t MediaFiles(const std::string& data_dir, const testing::S3Process* s3 = nullptr) {
  if (s3 != nullptr) return s3->SdkList("media/").size();
  size_t n = 0;
  const std::filesystem::path media = std::filesystem::path(data_dir) / "media";
  if (!std::filesystem::exists(media)) return 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(media)) n += e.is_regular_file();
  return n;
}

const core::Json* Policy(const core::Json& report, const std::string& resource) {
  for (const auto& p : report["retentionPolicies"]) {
    if (p["resource"] == resource) return &p;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("compliance: the limits in force, the datacenters and subprocessors of the file") {
  testing::TempDir dir;
  const std::string file = dir.Sub("compliance.json");
  { std::ofstream(file) << kComplianceFile; }
  Env env(false, {"--rate-reads", "700", "--rate-writes", "300", "--rate-reveals", "3", "--reveal-budget-per-day", "123",
                  "--compliance-file", file},
          Sharing::kIsolated);
  std::string officer = env.NewKey(env.tenant, "test", {"compliance:read"});

  core::Json limits = Get(env, officer, "/v1/compliance/limits");
  CHECK(limits["object"] == "compliance.limits");
  REQUIRE(limits["families"].size() == 3);
  CHECK(limits["families"][0]["family"] == "reads");
  CHECK(limits["families"][0]["ratePerSecond"] == 700);
  CHECK(limits["families"][0]["burst"] == 1400);
  CHECK(limits["families"][1]["family"] == "writes");
  CHECK(limits["families"][1]["ratePerSecond"] == 300);
  CHECK(limits["families"][2]["family"] == "pii_reveals");
  CHECK(limits["families"][2]["ratePerSecond"] == 3);
  CHECK(limits["families"][2]["enforced"] == true);
  CHECK(limits["revealBudget"]["personsPerDay"] == 123);
  CHECK(limits["decryptSlo"]["p99Milliseconds"] == 20);
  CHECK(limits["maskedDegradationPolicy"].get<std::string>().find("never decrypt") != std::string::npos);

  core::Json dcs = Get(env, officer, "/v1/compliance/datacenters");
  CHECK(dcs["object"] == "list");
  REQUIRE(dcs["data"].size() == 2);
  CHECK(dcs["data"][0]["id"] == "mx-qro-1");
  CHECK(dcs["data"][0]["region"] == "Querétaro");
  CHECK(dcs["data"][0]["certifications"] == core::Json::array({"ISO 27001"}));
  core::Json subs = Get(env, officer, "/v1/compliance/subprocessors");
  REQUIRE(subs["data"].size() == 1);
  CHECK(subs["data"][0]["name"] == "Example SMS");

  // Scopes: nothing else reads them.
  std::string reader = env.NewKey(env.tenant, "test", {"persons:read", "verification:read"});
  for (const char* path : {"/v1/compliance/limits", "/v1/compliance/datacenters", "/v1/compliance/subprocessors"}) {
    CheckProblem(env.Call(reader, "GET", path), 403, "INSUFFICIENT_SCOPE");
    CheckProblem(env.Call("", "GET", path), 401, "AUTHENTICATION_REQUIRED");
  }
}

TEST_CASE("compliance: without a file the lists are empty; the defaults are reported") {
  Env env(false);
  CHECK(Get(env, env.test_key, "/v1/compliance/datacenters")["data"].empty());
  CHECK(Get(env, env.test_key, "/v1/compliance/subprocessors")["data"].empty());
  core::Json limits = Get(env, env.test_key, "/v1/compliance/limits");
  CHECK(limits["revealBudget"]["personsPerDay"] == 10000);
  CHECK(limits["pageLimitMax"] == 100);
}

TEST_CASE("compliance: a compliance file the server cannot report truthfully stops it from starting") {
  testing::TempDir dir;
  const std::string file = dir.Sub("compliance.json");
  for (const char* bad : {R"([])", R"({"datacenters": {}})", R"({"datacenters": [{"id": "x"}]})",
                          R"({"subprocessors": [{"name": "n", "purpose": "p", "country": "Mexico"}]})",
                          R"({"datacentres": []})", "not json"}) {
    CAPTURE(bad);
    { std::ofstream(file, std::ios::trunc) << bad; }
    auto refused = testing::RunSvc({"serve", "--data-dir", dir.Sub("data"), "--listen", "127.0.0.1:0",
                                    "--dev-keys-in-data-dir", "--face-engine", "model-free", "--compliance-file", file});
    CHECK(refused.exit_code != 0);
    CHECK(refused.err.find("--compliance-file") != std::string::npos);
  }
  auto missing = testing::RunSvc({"serve", "--data-dir", dir.Sub("data"), "--listen", "127.0.0.1:0",
                                  "--dev-keys-in-data-dir", "--face-engine", "model-free", "--compliance-file", dir.Sub("nope.json")});
  CHECK(missing.exit_code != 0);
  CHECK(missing.err.find("--compliance-file") != std::string::npos);
}

TEST_CASE("compliance: breach notifications are events, replayed on their key, sent as webhooks") {
  testing::ReceiverProcess receiver;
  Env env(false, {"--webhooks-allow-private-urls"});
  const std::string hooks = "http://127.0.0.1:" + std::to_string(receiver.port());
  auto made = env.Call(env.test_key, "POST", "/v1/developer/webhooks",
                       core::Json{{"url", hooks + "/breach"}, {"events", {"compliance.*"}}}.dump(),
                       {{"Idempotency-Key", "hook-1"}});
  REQUIRE_MESSAGE(made.status == 201, made.body);
  receiver.AddSecret(Body(made)["secret"]);
  std::string writer = env.NewKey(env.tenant, "test", {"compliance:write"});
  const std::string path = "/v1/compliance/breach-notifications";
  const std::string body = core::Json{{"severity", "high"},
                                      {"scope", "a backup of the sessions table was readable for two hours"},
                                      {"detectedAt", "2026-11-20T10:00:00Z"},
                                      {"subprocessorsAffected", {"Example SMS"}}}.dump();

  auto first = env.Call(writer, "POST", path, body, {{"Idempotency-Key", "breach-1"}});
  REQUIRE_MESSAGE(first.status == 201, first.body);
  core::Json b = Body(first);
  CHECK(b["object"] == "compliance.breach_notification");
  CHECK(b["breachId"].get<std::string>().rfind("brc_", 0) == 0);
  CHECK(b["severity"] == "high");
  CHECK(b["detectedAt"] == "2026-11-20T10:00:00.000Z");
  // The same key answers the same notification, and sends nothing twice.
  auto again = env.Call(writer, "POST", path, body, {{"Idempotency-Key", "breach-1"}});
  REQUIRE(again.status == 201);
  CHECK(Body(again) == b);
  CHECK(HeaderOf(again, "Idempotent-Replayed") == "true");
  CheckProblem(env.Call(writer, "POST", path, R"({"severity":"low","scope":"other"})", {{"Idempotency-Key", "breach-1"}}),
               409, "IDEMPOTENCY_KEY_REUSED");
  CheckProblem(env.Call(writer, "POST", path, body), 400, "IDEMPOTENCY_KEY_REQUIRED");
  // Without detectedAt: now.
  auto now = env.Call(writer, "POST", path, R"({"severity":"low","scope":"a laptop was lost"})", {{"Idempotency-Key", "breach-2"}});
  REQUIRE_MESSAGE(now.status == 201, now.body);
  CHECK(Body(now)["detectedAt"].is_string());

  // The webhook, verified by the reference Standard Webhooks package.
  REQUIRE(receiver.WaitFor("/breach", 3));  // service.test on registration, then the two breaches
  REQUIRE(env.Admin("POST", "/admin/webhooks/wait-idle").status == 200);
  core::Json log = core::ParseJsonOrDiscarded(receiver.LogJson());
  int breaches = 0;
  for (const auto& m : log) {
    if (m["type"] != "compliance.breach_notified") continue;
    ++breaches;
    CHECK(m["verifiedBy"] == core::Json::array({0}));
  }
  CHECK(breaches == 2);
  auto deliveries = Body(env.Call(env.test_key, "GET", "/v1/developer/webhooks/" + Body(made)["id"].get<std::string>() + "/deliveries"));
  int listed = 0;
  for (const auto& d : deliveries["data"]) listed += d["eventType"] == "compliance.breach_notified";
  CHECK(listed == 2);

  // Validation, scope.
  auto post = [&](const std::string& text, const std::string& idem) {
    return env.Call(writer, "POST", path, text, {{"Idempotency-Key", idem}});
  };
  CheckProblem(post(R"({"scope":"x"})", "v1"), 422, "VALIDATION_ERROR");
  CheckProblem(post(R"({"severity":"apocalyptic","scope":"x"})", "v2"), 422, "VALIDATION_ERROR");
  CheckProblem(post(R"({"severity":"low","scope":""})", "v3"), 422, "VALIDATION_ERROR");
  CheckProblem(post(R"({"severity":"low","scope":"x","detectedAt":"yesterday"})", "v4"), 422, "VALIDATION_ERROR");
  CheckProblem(post(R"({"severity":"low","scope":"x","subprocessorsAffected":[1]})", "v5"), 422, "VALIDATION_ERROR");
  CheckProblem(post(R"({"severity":"low","scope":"x","colour":"red"})", "v6"), 422, "VALIDATION_ERROR");
  CheckProblem(post("not json", "v7"), 400, "BAD_REQUEST");
  std::string reader = env.NewKey(env.tenant, "test", {"compliance:read"});
  CheckProblem(env.Call(reader, "POST", path, body, {{"Idempotency-Key", "r-1"}}), 403, "INSUFFICIENT_SCOPE");
}


TEST_CASE("compliance: reports are computed from the read models, for the key's environment") {
  testing::TempDir dir;
  const std::string file = dir.Sub("compliance.json");
  { std::ofstream(file) << kComplianceFile; }
  Env env(false, {"--compliance-file", file, "--rate-reveals", "0", "--retention-media-days", "90"}, Sharing::kIsolated);
  std::string officer = env.NewKey(env.tenant, "test", {"compliance:read"});
  // Two sessions left pending, one approved; one reveal in the vault.
  for (const char* idem : {"rep-1", "rep-2"}) REQUIRE(env.Create(env.test_key, idem, R"({"channel":"api"})").status == 201);
  ApprovedSession(env, env.test_key, "rep-3");
  auto person = env.Call(env.test_key, "POST", "/v1/persons", R"({"pii":{"email":"a@example.mx"}})");
  REQUIRE_MESSAGE(person.status == 201, person.body);
  auto revealed = env.Call(env.test_key, "POST", "/v1/persons/" + Body(person)["id"].get<std::string>() + "/decrypt",
                           R"({"fields":["email"],"purpose":"identity_verification","reason":"report check"})");
  REQUIRE_MESSAGE(revealed.status == 200, revealed.body);

  REQUIRE(env.Admin("POST", "/admin/retention/sweep").status == 200);  // a run the report can name
  core::Json nom = Get(env, officer, "/v1/compliance/reports?type=nom024");
  CHECK(nom["object"] == "compliance.report");
  CHECK(nom["type"] == "nom024");
  CHECK(nom["framework"]["name"] == "NOM-024");
  CHECK(nom["environment"] == "test");
  CHECK(nom["generatedAt"].is_string());
  CHECK(nom["auditChain"] == core::Json({{"valid", true}, {"count", 1}}));
  REQUIRE(nom["datacenters"].size() == 2);
  CHECK(nom["datacenters"][1]["id"] == "mx-mty-1");
  CHECK(nom["subprocessors"][0]["name"] == "Example SMS");
  const core::Json& v = nom["verificationVolume"];
  CHECK(v["total"] == 3);
  CHECK(v["byStatus"]["pending"] == 2);
  CHECK(v["byStatus"]["approved"] == 1);
  CHECK(v["decided"] == 1);
  CHECK(v["approvalRate"] == 1.0);
  CHECK(v["last30Days"]["created"] == 3);
  CHECK(v["last30Days"]["approved"] == 1);
  CHECK(v["last30Days"]["in_progress"] == 1);  // consent moved it there before the verdict
  const core::Json* media = Policy(nom, "verification_media");
  REQUIRE(media != nullptr);
  CHECK((*media)["retentionDays"] == 90);  // the flag the sweeper enforces
  CHECK((*media)["lastRunAt"].is_string());
  REQUIRE(Policy(nom, "idempotency_records") != nullptr);
  CHECK((*Policy(nom, "idempotency_records"))["retentionHours"] == 24);
  CHECK((*Policy(nom, "audit_log"))["retentionDays"].is_null());
  REQUIRE(Policy(nom, "webhook_deliveries") != nullptr);
  CHECK(Get(env, officer, "/v1/compliance/limits")["retention"]["mediaDays"] == 90);

  core::Json cnbv = Get(env, officer, "/v1/compliance/reports?type=cnbv");
  CHECK(cnbv["type"] == "cnbv");
  CHECK(cnbv["framework"]["name"] == "CNBV");
  CHECK(cnbv["verificationVolume"] == v);
  // The live environment is another set of books.
  core::Json live = Get(env, env.live_key, "/v1/compliance/reports?type=cnbv");
  CHECK(live["verificationVolume"]["total"] == 0);
  CHECK(live["auditChain"]["count"] == 0);
  // Another tenant sees its own.
  std::string other = env.NewKey(env.NewTenant("Other"), "test", {"compliance:read"});
  CHECK(Get(env, other, "/v1/compliance/reports?type=nom024")["verificationVolume"]["total"] == 0);

  CheckProblem(env.Call(officer, "GET", "/v1/compliance/reports"), 422, "REPORT_TYPE_INVALID");
  CheckProblem(env.Call(officer, "GET", "/v1/compliance/reports?type=sox"), 422, "REPORT_TYPE_INVALID");
  CheckProblem(env.Call(officer, "GET", "/v1/compliance/reports?type=NOM024"), 422, "REPORT_TYPE_INVALID");
  CheckProblem(env.Call(officer, "GET", "/v1/compliance/reports?type=cnbv&period=2026"), 400, "BAD_REQUEST");
  CheckProblem(env.Call(env.NewKey(env.tenant, "test", {"persons:read"}), "GET", "/v1/compliance/reports?type=cnbv"),
               403, "INSUFFICIENT_SCOPE");
  CheckProblem(env.Call("", "GET", "/v1/compliance/reports?type=cnbv"), 401, "AUTHENTICATION_REQUIRED");
}

TEST_CASE("compliance: the sweeper enforces retention, records it in the log, and the report says so") {
  testing::ReceiverProcess receiver;
  Env env(false, {"--fake-clock", "--webhooks-allow-private-urls", "--retention-media-days", "2",
                  "--retention-webhook-delivery-days", "3"},
          Sharing::kIsolated);
  const std::string data = env.server->data_dir();
  auto hook = env.Call(env.test_key, "POST", "/v1/developer/webhooks",
                       core::Json{{"url", "http://127.0.0.1:" + std::to_string(receiver.port()) + "/r"}}.dump(),
                       {{"Idempotency-Key", "hook-r"}});
  REQUIRE_MESSAGE(hook.status == 201, hook.body);
  receiver.AddSecret(Body(hook)["secret"]);
  const std::string endpoint = Body(hook)["id"];
  std::string id = ApprovedSession(env, env.test_key, "keep-1");
  std::string open = Body(env.Create(env.test_key, "open-1", R"({"channel":"api"})"))["id"];
  REQUIRE(receiver.WaitFor("/r", 2));  // service.test and verification.approved
  REQUIRE(env.Admin("POST", "/admin/webhooks/wait-idle").status == 200);
  const std::string deliveries = "/v1/developer/webhooks/" + endpoint + "/deliveries";
  core::Json first_deliveries = Get(env, env.test_key, deliveries)["data"];
  REQUIRE(first_deliveries.size() == 2);
  REQUIRE(MediaFiles(data, env.instance->s3.get()) == 4);
  auto evidence = [&] { return Get(env, env.test_key, "/v1/verification-sessions/" + id + "/evidence"); };
  const core::Json kept = evidence();
  for (const auto& m : kept["media"]) CHECK(m["purgedAt"].is_null());
  auto advance = [&](int64_t seconds) {
    auto r = env.Admin("POST", "/admin/clock", {{"advanceSeconds", seconds}});
    REQUIRE_MESSAGE(r.status == 200, r.body);
    return core::ParseJsonOrDiscarded(r.body)["retention"];
  };

  // A day on: nothing is due (the captures are kept 2 days after completion).
  core::Json day1 = advance(86401);
  CHECK(day1["sessionsPurged"] == 0);
  CHECK(MediaFiles(data, env.instance->s3.get()) == 4);
  // Past 24 h the idempotency records are gone: the same key makes a new session.
  CHECK(day1["idempotencyRecordsRemoved"].get<int64_t>() >= 3);  // hook-r, keep-1, open-1
  auto again = env.Create(env.test_key, "open-1", R"({"channel":"api"})");
  REQUIRE(again.status == 201);
  CHECK(Body(again)["id"] != open);

  // Two days after completion: the captures go, their record stays.
  core::Json day2 = advance(86400 + 60);
  CHECK(day2["sessionsPurged"] == 1);
  CHECK(day2["mediaFilesRemoved"] == 4);
  CHECK(MediaFiles(data, env.instance->s3.get()) == 0);
  core::Json purged = evidence();
  REQUIRE(purged["media"].size() == 4);
  for (const auto& m : purged["media"]) {
    CHECK(m["purgedAt"].is_string());
    CHECK(m["sha256"].get<std::string>().size() == 64);
  }
  CHECK(Get(env, env.test_key, "/v1/verification-sessions/" + id)["status"] == "approved");
  CHECK(env.Call(env.test_key, "GET", "/v1/verification-sessions/" + id + "/certificate").status == 200);
  CHECK(advance(60)["sessionsPurged"] == 0);  // once

  // Three days after creation the finished deliveries go (recorded as compliance.rows_swept);
  // the later ones (the expired sessions' webhooks) stay.
  core::Json day3 = advance(86400);
  CHECK(day3["webhookDeliverySweeps"] == 1);
  const core::Json left = Get(env, env.test_key, deliveries);
  for (const auto& d : left["data"]) {
    for (const auto& gone : first_deliveries) CHECK(d["id"] != gone["id"]);
  }
  CheckProblem(env.Call(env.test_key, "GET", "/v1/developer/webhooks/deliveries/" +
                                                  first_deliveries[0]["id"].get<std::string>() + "/attempts"),
               404, "WEBHOOK_DELIVERY_NOT_FOUND");
  CheckProblem(env.Call(env.test_key, "POST", "/v1/developer/webhooks/deliveries/" +
                                                   first_deliveries[0]["id"].get<std::string>() + "/retry"),
               404, "WEBHOOK_DELIVERY_NOT_FOUND");
  CHECK(advance(60)["webhookDeliverySweeps"] == 0);  // nothing older left to sweep

  // The report describes what was done.
  core::Json report = Get(env, env.test_key, "/v1/compliance/reports?type=cnbv");
  CHECK((*Policy(report, "verification_media"))["retentionDays"] == 2);
  CHECK((*Policy(report, "webhook_deliveries"))["retentionDays"] == 3);
  CHECK((*Policy(report, "verification_media"))["lastRunAt"].is_string());

  // The deletions are events: a rebuild from the log removes exactly the same rows.
  env.server->Stop();
  auto verify = testing::RunSvc({"replay", "--verify", "--data-dir", data});
  CHECK_MESSAGE(verify.exit_code == 0, verify.out << verify.err);
  CHECK(core::ParseJsonOrDiscarded(verify.out)["identical"] == true);
  env.server->Start();
}

}  // namespace integration_compliance_test
