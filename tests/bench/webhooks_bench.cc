// Benchmark (not a test): webhook deliveries per second to a local receiver that answers 200 at
// once (tests/receiver/receiver.mjs), each signed, with its attempt event appended durably; and
// the time for N queued deliveries to drain. Deliveries are paused (admin listener) while N
// verification sessions of a test key expire at once (fake clock): N verification.expired
// deliveries to one endpoint are queued; then deliveries resume and the drain is timed alone.
#include <atomic>
#include <chrono>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>
#include <vector>

#include "api/http/http_client.h"
#include "core/json.h"
#include "tests/support/receiver_process.h"
#include "tests/support/svc_process.h"
#include "tests/support/temp_dir.h"

using namespace svc;

int main(int argc, char** argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 10000;
  testing::TempDir dir;
  testing::ReceiverProcess receiver;
  testing::SvcServer server(dir.Sub("data"), {"--dev-keys-in-data-dir", "--webhooks-allow-private-urls", "--fake-clock",
                                              "--face-engine", "model-free", "--rate-reads", "0",
                                              "--rate-writes", "0", "--webhooks-rate-limit-rpm", "0"});
  server.Start();
  std::string service_key;
  std::ifstream(dir.Sub("data") + "/service.key") >> service_key;
  auto admin = [&](const std::string& path, const core::Json& body) {
    auto r = api::HttpCall(server.admin_target(), "POST", path, {{"Authorization", "Bearer " + service_key}},
                           core::DumpJson(body), std::chrono::milliseconds(120000));
    if (!r.ok()) throw std::runtime_error(r.status().ToString());
    return *r;
  };
  auto tenant = core::ParseJsonOrDiscarded(admin("/admin/tenants", {{"name", "Bench"}}).body)["id"].get<std::string>();
  auto key = core::ParseJsonOrDiscarded(
                 admin("/admin/tenants/" + tenant + "/keys", {{"environment", "test"}, {"scopes", {"*"}}}).body)["secret"]
                 .get<std::string>();
  auto call = [&](const std::string& method, const std::string& path, const std::string& body,
                  std::map<std::string, std::string> headers = {}) {
    headers["Authorization"] = "Bearer " + key;
    headers["Content-Type"] = "application/json";
    auto r = api::HttpCall(server.target(), method, path, headers, body);
    if (!r.ok()) throw std::runtime_error(r.status().ToString());
    return *r;
  };
  auto ep = call("POST", "/v1/developer/webhooks",
                 core::Json{{"url", "http://127.0.0.1:" + std::to_string(receiver.port()) + "/ok"},
                            {"events", {"verification.expired"}}}.dump());
  if (ep.status != 201) throw std::runtime_error(ep.body);
  auto wait_idle = [&] {
    while (admin("/admin/webhooks/wait-idle", core::Json::object()).status != 200) {
    }
  };
  wait_idle();

  auto get_queue = [&] {
    auto r = api::HttpCall(server.admin_target(), "GET", "/admin/webhooks/queue",
                           {{"Authorization", "Bearer " + service_key}}, "");
    if (!r.ok()) throw std::runtime_error(r.status().ToString());
    return core::ParseJsonOrDiscarded(r->body);
  };
  auto secs = [](auto a, auto b) { return std::chrono::duration<double>(b - a).count(); };
  // A counter from /metrics (summed over its labels).
  auto metric = [&](const std::string& name) {
    auto r = api::HttpCall(server.target(), "GET", "/metrics", {}, "");
    if (!r.ok()) throw std::runtime_error(r.status().ToString());
    double sum = 0;
    std::istringstream in(r->body);
    for (std::string line; std::getline(in, line);) {
      if (line.rfind(name, 0) != 0) continue;
      char next = line.size() > name.size() ? line[name.size()] : ' ';
      if (next != ' ' && next != '{') continue;
      sum += std::stod(line.substr(line.rfind(' ') + 1));
    }
    return sum;
  };

  // 1. Queue: deliveries paused, N sessions created, then expired at one move of the clock.
  admin("/admin/webhooks/pause", core::Json::object());
  auto c0 = std::chrono::steady_clock::now();
  std::atomic<int> next{0};
  std::vector<std::thread> ts;
  for (int t = 0; t < 8; ++t) {
    ts.emplace_back([&] {
      for (int i = next++; i < n; i = next++) {
        auto r = call("POST", "/v1/verification-sessions", R"({"channel":"api"})",
                      {{"Idempotency-Key", "bench-" + std::to_string(i)}});
        if (r.status != 201) throw std::runtime_error(r.body);
      }
    });
  }
  for (auto& t : ts) t.join();
  auto c1 = std::chrono::steady_clock::now();
  admin("/admin/clock", {{"advanceSeconds", 86401}});
  // The expiry events are appended; their deliveries are queued once projected (a bench may poll).
  while (get_queue().value("dueNow", 0) < n) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  auto q = std::chrono::steady_clock::now();
  std::cout << "queued; draining" << std::endl;  // a profiler can attach here

  // 2. Drain: resume and wait until every delivery is sent and its attempt recorded.
  double events0 = metric("svc_log_events_appended_total"), fsyncs0 = metric("svc_log_fsyncs_total");
  // Polled (not wait-idle, which also wakes the dispatcher): the drain must run on its own.
  admin("/admin/webhooks/resume", core::Json::object());
  for (;;) {
    auto qs = get_queue();
    if (qs.value("scheduled", 1) == 0 && qs.value("inFlight", 1) == 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // a poll scans the queue
  }
  auto d = std::chrono::steady_clock::now();
  double events = metric("svc_log_events_appended_total") - events0, fsyncs = metric("svc_log_fsyncs_total") - fsyncs0;
  size_t received = core::ParseJsonOrDiscarded(receiver.LogJson()).size();
  std::cout << "sessions created: " << n << " in " << secs(c0, c1) << " s\n"
            << n << " expiry events appended and " << n << " deliveries queued in " << secs(c1, q) << " s\n"
            << "drain of " << n << " queued deliveries (signed, sent, attempt events appended durably and projected): "
            << secs(q, d) << " s = " << n / secs(q, d) << " deliveries/s\n"
            << "during the drain: " << events << " events appended in " << fsyncs << " fsyncs ("
            << (fsyncs > 0 ? events / fsyncs : 0) << " per group commit)\n"
            << "receiver got " << received << " messages (incl. service.test)\n";
  server.Stop();
  return received >= static_cast<size_t>(n) + 1 ? 0 : 1;
}
