// Benchmark (not a test): the latency of an ARCO purge. Each of N persons has S approved
// verification sessions with their four captures (sandbox engine); then, one person at a time,
// POST …/forget {"mode":"purge"} and poll GET …/deletion-certificate until it answers 200: the
// time covers the request, the purger's wake-up, the purge event, each session's media purge, the
// capture files' deletion, the keys' destruction (flush of every column family and compaction of
// the key store) and the certificate's issue.
// And the bulk import: IMPORTS persons in batches of 1,000 (POST /v1/persons/import, two batches in
// flight), each row validated, sealed under its own new data key, indexed and projected; persons/s.
// And the bulk export of every person so made (POST /v1/persons/export-bulk, polled until ready):
// each person checked against the reveal rules, audited, opened with their key and written to the
// sealed dump; persons/s, then the download and an offline open of the dump.
//   svc_bench_persons PERSONS SESSIONS_PER_PERSON IMPORTS
#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <iostream>
#include <thread>
#include <vector>

#include "api/http/http_client.h"
#include "core/crypto.h"
#include "core/json.h"
#include "pipeline/persons/export_dump.h"
#include "tests/support/capture_bytes.h"
#include "tests/support/svc_process.h"
#include "tests/support/temp_dir.h"

using namespace svc;

int main(int argc, char** argv) {
  const int persons = argc > 1 ? std::atoi(argv[1]) : 5;
  const int sessions = argc > 2 ? std::atoi(argv[2]) : 10;
  const int imports = argc > 3 ? std::atoi(argv[3]) : 10000;
  testing::TempDir dir;
  testing::SvcServer server(dir.Sub("data"), {"--dev-keys-in-data-dir", "--face-engine", "model-free", "--rate-reads",
                                              "0", "--rate-writes", "0", "--rate-reveals", "0"});
  server.Start();
  std::string service_key;
  std::ifstream(dir.Sub("data") + "/service.key") >> service_key;
  auto admin = [&](const std::string& path, const core::Json& body) {
    auto r = api::HttpCall(server.admin_target(), "POST", path, {{"Authorization", "Bearer " + service_key}},
                           core::DumpJson(body), std::chrono::milliseconds(120000));
    if (!r.ok()) throw std::runtime_error(r.status().ToString());
    return *r;
  };
  const std::string tenant = core::ParseJsonOrDiscarded(admin("/admin/tenants", {{"name", "Bench"}}).body)["id"];
  const std::string key = core::ParseJsonOrDiscarded(
      admin("/admin/tenants/" + tenant + "/keys", {{"environment", "test"}, {"scopes", {"*"}}}).body)["secret"];
  auto call = [&](const std::string& method, const std::string& path, const std::string& body,
                  std::map<std::string, std::string> headers = {}) {
    headers["Authorization"] = "Bearer " + key;
    if (headers.count("Content-Type") == 0) headers["Content-Type"] = "application/json";
    auto r = api::HttpCall(server.target(), method, path, headers, body);
    if (!r.ok()) throw std::runtime_error(r.status().ToString());
    return *r;
  };
  auto expect = [](const api::HttpResponse& r, int status) {
    if (r.status != status) throw std::runtime_error(std::to_string(r.status) + " " + r.body);
    return core::ParseJsonOrDiscarded(r.body);
  };
  const std::string boundary = "svc-bench-boundary-7MA4YWxkTrZu0gW";
  const std::vector<std::array<std::string, 3>> captures = {{"document_front", "image/jpeg", testing::Jpeg(1280, 800)},
                                                            {"document_back", "image/jpeg", testing::Jpeg(1280, 801)},
                                                            {"selfie", "image/jpeg", testing::Jpeg(720, 960)},
                                                            {"liveness_video", "video/mp4", testing::Mp4()}};
  std::vector<std::string> ids;
  auto s0 = std::chrono::steady_clock::now();
  for (int p = 0; p < persons; ++p) {
    const std::string id =
        expect(call("POST", "/v1/persons", R"({"pii":{"email":"bench)" + std::to_string(p) + R"(@example.mx"}})"), 201)["id"];
    for (int s = 0; s < sessions; ++s) {
      const std::string session =
          expect(call("POST", "/v1/verification-sessions",
                      core::Json({{"channel", "api"}, {"personId", id}, {"policy", {{"testOutcome", "approved"}}}}).dump(),
                      {{"Idempotency-Key", "bench-" + std::to_string(p) + "-" + std::to_string(s)}}),
                 201)["id"];
      const std::string base = "/v1/verification-sessions/" + session;
      expect(call("POST", base + "/consent", R"({"accepted":true})"), 200);
      for (const auto& [kind, mime, bytes] : captures) {
        std::string body = testing::Multipart(boundary, {{"kind", "", "", kind}, {"file", "capture.bin", mime, bytes}});
        expect(call("POST", base + "/media", body, {{"Content-Type", "multipart/form-data; boundary=" + boundary}}), 201);
      }
      expect(call("POST", base + "/submit", ""), 200);
    }
    ids.push_back(id);
  }
  admin("/admin/pipeline/wait-idle", core::Json::object());
  admin("/admin/persons/wait-idle", core::Json::object());
  auto s1 = std::chrono::steady_clock::now();
  auto secs = [](auto a, auto b) { return std::chrono::duration<double>(b - a).count(); };

  // The bulk import.
  {
    const int batch = 1000;
    std::atomic<int> next{0};
    std::atomic<int64_t> created{0};
    auto i0 = std::chrono::steady_clock::now();
    std::vector<std::thread> ts;
    for (int t = 0; t < 2; ++t) {
      ts.emplace_back([&] {
        for (int b = next++; b * batch < imports; b = next++) {
          core::Json rows = core::Json::array();
          for (int i = b * batch; i < std::min(imports, (b + 1) * batch); ++i) {
            rows.push_back({{"externalRef", "imp-" + std::to_string(i)},
                            {"pii", {{"email", "imp" + std::to_string(i) + "@example.mx"},
                                     {"fullName", "Persona Importada " + std::to_string(i)}}}});
          }
          auto r = call("POST", "/v1/persons/import", core::Json({{"persons", rows}}).dump());
          created += expect(r, 201)["created"].get<int64_t>();
        }
      });
    }
    for (auto& t : ts) t.join();
    double took = secs(i0, std::chrono::steady_clock::now());
    std::cout << "import: " << created.load() << " of " << imports << " persons created in " << took << " s = "
              << created.load() / took << " persons/s (batches of " << batch << ", 2 in flight)\n";
    if (created.load() != imports) throw std::runtime_error("not every imported person was created");
  }

  // The bulk export of every person (the imported ones and the ones with sessions).
  {
    const core::X25519KeyPair export_key = core::X25519Generate();
    admin("/admin/tenants/" + tenant + "/export-key", {{"publicKey", core::Base64UrlEncode(export_key.public_key)}});
    auto e0 = std::chrono::steady_clock::now();
    const std::string job = expect(call("POST", "/v1/persons/export-bulk",
                                        R"({"purpose":"identity_verification","reason":"bench"})"),
                                   202)["id"];
    core::Json state;
    for (;;) {
      state = expect(call("GET", "/v1/persons/export-bulk/" + job, ""), 200);
      if (state["status"] != "queued") break;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));  // a bench may poll
    }
    double took = secs(e0, std::chrono::steady_clock::now());
    if (state["status"] != "ready") throw std::runtime_error("export: " + state.dump());
    const int64_t exported = state["personCount"];
    auto d0 = std::chrono::steady_clock::now();
    auto dump = call("GET", "/v1/persons/export-bulk/" + job + "/dump", "");
    if (dump.status != 200) throw std::runtime_error("dump: " + dump.body);
    double download = secs(d0, std::chrono::steady_clock::now());
    auto o0 = std::chrono::steady_clock::now();
    auto opened = pipeline::persons::OpenDump(dump.body, export_key);
    double open = secs(o0, std::chrono::steady_clock::now());
    if (!opened.ok() || static_cast<int64_t>(opened->records.size()) != exported) {
      throw std::runtime_error("the dump does not open with every person");
    }
    std::cout << "export-bulk: " << exported << " persons (each audited) sealed in " << took << " s = "
              << exported / took << " persons/s; dump " << dump.body.size() / 1024 << " KiB, downloaded in "
              << download * 1000 << " ms, opened offline in " << open * 1000 << " ms\n";
    if (exported != imports + persons) throw std::runtime_error("not every person was exported");
  }

  std::vector<double> ms;
  for (const auto& id : ids) {
    auto t0 = std::chrono::steady_clock::now();
    expect(call("POST", "/v1/persons/" + id + "/forget", R"({"mode":"purge"})"), 200);
    for (;;) {
      auto r = call("GET", "/v1/persons/" + id + "/deletion-certificate", "");
      if (r.status == 200) break;
      if (r.status != 409) throw std::runtime_error(r.body);
      std::this_thread::sleep_for(std::chrono::milliseconds(1));  // a bench may poll
    }
    ms.push_back(secs(t0, std::chrono::steady_clock::now()) * 1000);
  }
  std::sort(ms.begin(), ms.end());
  std::cout << "persons: " << persons << " with " << sessions << " approved sessions of 4 captures each, made in "
            << secs(s0, s1) << " s\n"
            << "purge latency (forget mode purge -> deletion certificate, " << (sessions + 1)
            << " keys destroyed): median " << ms[ms.size() / 2] << " ms, min " << ms.front() << " ms, max " << ms.back()
            << " ms\n";
  server.Stop();
  return 0;
}
