// Benchmark (not a test): what a trusted timestamp costs a verdict. N sandbox sessions, one at a
// time, each created, consented, given its four captures and submitted; the client polls the
// session until its verdict (submit -> verdict), then the certificate until its `timestamps` says
// granted (verdict -> timestamped certificate). Run twice: without a TSA, then with the local TSA
// (OpenSSL's own `openssl ts -reply` behind HTTP, tests/tsa/server.py), so that the verdict's own
// latency with and without timestamps can be compared (goal: the same), and the token's delay
// after the verdict measured (goal: p99 within 1 s). Polling is every millisecond.
//   svc_bench_timestamps SESSIONS
#include <algorithm>
#include <array>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>
#include <vector>

#include "api/http/http_client.h"
#include "core/json.h"
#include "tests/support/capture_bytes.h"
#include "tests/support/svc_process.h"
#include "tests/support/temp_dir.h"
#include "tests/support/tsa_process.h"

using namespace svc;

namespace {

using Clock = std::chrono::steady_clock;

double Ms(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double, std::milli>(b - a).count(); }

struct Latencies {
  std::vector<double> verdict;  // submit answered -> the session shows its verdict
  std::vector<double> stamped;  // the verdict seen -> the certificate shows a granted token
};

std::string Quantiles(std::vector<double> v) {
  if (v.empty()) return "none";
  std::sort(v.begin(), v.end());
  auto at = [&](double q) { return v[std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())))]; };
  char buf[160];
  std::snprintf(buf, sizeof buf, "p50 %.1f ms, p99 %.1f ms, max %.1f ms (n=%zu)", at(0.5), at(0.99), v.back(), v.size());
  return buf;
}

Latencies Run(const std::string& data_dir, int sessions, const std::vector<std::string>& tsa_flags) {
  std::vector<std::string> flags = {"--dev-keys-in-data-dir", "--face-engine", "model-free", "--rate-reads", "0",
                                    "--rate-writes", "0", "--rate-reveals", "0"};
  flags.insert(flags.end(), tsa_flags.begin(), tsa_flags.end());
  testing::SvcServer server(data_dir, flags);
  server.Start();
  std::string service_key;
  std::ifstream(data_dir + "/service.key") >> service_key;
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
  const std::vector<std::array<std::string, 3>> captures = {{"document_front", "image/jpeg", testing::Jpeg(640, 400)},
                                                            {"document_back", "image/jpeg", testing::Jpeg(640, 401)},
                                                            {"selfie", "image/jpeg", testing::Jpeg(360, 480)},
                                                            {"liveness_video", "video/mp4", testing::Mp4()}};
  const bool with_tsa = !tsa_flags.empty();
  Latencies out;
  for (int s = 0; s < sessions; ++s) {
    const std::string session =
        expect(call("POST", "/v1/verification-sessions",
                    core::Json({{"channel", "api"}, {"policy", {{"testOutcome", "approved"}}}}).dump(),
                    {{"Idempotency-Key", "bench-" + std::to_string(s)}}),
               201)["id"];
    const std::string base = "/v1/verification-sessions/" + session;
    expect(call("POST", base + "/consent", R"({"accepted":true})"), 200);
    for (const auto& [kind, mime, bytes] : captures) {
      std::string body = testing::Multipart(boundary, {{"kind", "", "", kind}, {"file", "capture.bin", mime, bytes}});
      expect(call("POST", base + "/media", body, {{"Content-Type", "multipart/form-data; boundary=" + boundary}}), 201);
    }
    expect(call("POST", base + "/submit", ""), 200);
    const auto submitted = Clock::now();
    for (;;) {
      if (expect(call("GET", base, ""), 200)["status"] == "approved") break;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));  // a bench may poll
    }
    const auto verdict = Clock::now();
    out.verdict.push_back(Ms(submitted, verdict));
    if (!with_tsa) continue;
    for (;;) {
      auto r = call("GET", base + "/certificate", "");
      if (r.status == 200) {
        core::Json t = core::ParseJsonOrDiscarded(r.body)["timestamps"];
        if (!t.empty() && t[0]["status"] == "granted") break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));  // a bench may poll
    }
    out.stamped.push_back(Ms(verdict, Clock::now()));
  }
  server.Stop();
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const int sessions = argc > 1 ? std::atoi(argv[1]) : 100;
  testing::TempDir dir;
  const Latencies plain = Run(dir.Sub("plain"), sessions, {});
  std::filesystem::create_directories(dir.Sub("tsa"));
  testing::TsaProcess tsa(dir.Sub("tsa"));
  const Latencies stamped = Run(dir.Sub("stamped"), sessions, tsa.ServerFlags());
  if (tsa.Granted() < sessions) throw std::runtime_error("the TSA granted fewer tokens than there were verdicts");
  std::cout << "timestamps: submit -> verdict without a TSA: " << Quantiles(plain.verdict) << "\n"
            << "timestamps: submit -> verdict with the local TSA: " << Quantiles(stamped.verdict) << "\n"
            << "timestamps: verdict -> certificate with a granted RFC 3161 token (local TSA, openssl ts -reply per "
               "token): "
            << Quantiles(stamped.stamped) << "\n";
  return 0;
}
