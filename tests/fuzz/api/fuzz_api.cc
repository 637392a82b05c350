// fuzz_api: the whole public API in process, one request per input, through the same router,
// middleware and routes `svc serve` assembles (every module, its services started as a node
// with the api, writer and projector roles): the body validators of every area (persons,
// companies, sessions, flows, webhook endpoints, screenings, ARCO requests, e.firma steps, bulk
// imports and exports, reviews), the Service-Version and Idempotency-Key headers, the content
// types, multipart uploads, query strings and cursors, on a real runtime over RocksDB.
//
// Input, a request as text (tests/fuzz/corpus/fuzz_api holds one per route, seeds.py):
//   POST /v1/persons?x=y           method and target on the first line
//   Idempotency-Key: k1            headers, one a line, up to an empty line
//                                  (Authorization defaults to the harness's secret key)
//   {"pii":{...}}                  the body: everything after the empty line
// In the target, the headers and the body, {person}, {company}, {session}, {endpoint}, {key},
// {tenant}, {application}, {reviewer} (a console user's sign-in secret) and {rtoken} (a token it
// signed in for) are replaced with objects made at start-up, so that routes on an existing
// object, and the console's, reach their validators.
//
// What must hold for every input (a trap otherwise, which libFuzzer reports as a crash):
// - an answer within 60 s (no hang, no lost respond);
// - never 500, never another 5xx than 503 (and that one only as a problem);
// - every 4xx and 5xx a problem+json document with a `code`; every JSON answer parses;
// - no projector halted and the writer healthy afterwards (bad input never stops the service).
//
// Left out: POST /v1/developer/webhooks/{id}/test, which sends to the endpoint's URL (the
// harness stays on loopback); the webhooks and timers roles (the one sends, the other acts on
// time). Built two ways (tests/CMakeLists.txt): with clang's libFuzzer on a build of the whole
// product (scripts/fuzz fuzz_api), and with the replay driver (replay_main.cc) in the sanitizer
// build, where ctest runs the corpus through it.
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "api/http/credential_guard.h"
#include "api/http/flags.h"
#include "api/http/http.h"
#include "api/http/module.h"
#include "api/http/public_api.h"
#include "api/http/roles.h"
#include "api/server/admin.h"
#include "api/server/cli.h"
#include "api/server/modules.h"
#include "core/clock.h"
#include "core/executor.h"
#include "core/ids.h"
#include "core/json.h"
#include "core/log.h"
#include "tests/support/temp_dir.h"

using namespace svc;
using namespace svc::api;

namespace {

[[noreturn]] void Die(const std::string& why) {
  std::fprintf(stderr, "fuzz_api: %s\n", why.c_str());
  std::fflush(stderr);
  __builtin_trap();
}

template <class T>
T Must(core::Result<T> r, const char* what) {
  if (!r.ok()) Die(std::string(what) + ": " + r.status().ToString());
  return std::move(r).value();
}

void ReplaceAll(std::string& s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
    s.replace(at, from.size(), to);
  }
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The answer to a request, with any streamed body read to its end (a progress stream is
// finished first: it would otherwise wait for events).
HttpResponse Call(Router& router, HttpRequest req) {
  auto answer = std::make_shared<std::promise<HttpResponse>>();
  auto got = answer->get_future();
  router.Dispatch(req, [answer](HttpResponse r) { answer->set_value(std::move(r)); });
  if (got.wait_for(std::chrono::seconds(60)) != std::future_status::ready) Die("no answer in 60 s: " + req.target);
  HttpResponse r = got.get();
  if (r.stream != nullptr) {
    if (r.content_type.rfind("text/event-stream", 0) == 0) r.stream->Finish();
    for (int pieces = 0;; ++pieces) {
      auto next = std::make_shared<std::promise<std::optional<std::string>>>();
      auto f = next->get_future();
      r.stream->Next([next](std::optional<std::string> piece) { next->set_value(std::move(piece)); });
      if (f.wait_for(std::chrono::seconds(60)) != std::future_status::ready) Die("stream stalled: " + req.target);
      auto piece = f.get();
      if (!piece.has_value()) break;
      r.body += *piece;
      if (pieces > 100000) Die("endless stream: " + req.target);
    }
  }
  return r;
}

struct Node {
  testing::TempDir dir;
  core::FakeClock clock;  // 2026-01-01T00:00:00Z
  core::SequentialIdSource ids{7};
  Flags flags;
  std::unique_ptr<Runtime> rt;
  std::unique_ptr<core::ThreadPool> work_pool;
  std::unique_ptr<CredentialGuard> guard;
  std::unique_ptr<Roles> roles;
  std::vector<std::string> jobs;
  std::string node_id = "fuzz";
  HttpServer::Options http;
  ApiContext api;
  std::vector<std::unique_ptr<AreaServices>> areas;
  std::unique_ptr<PublicApi> public_api;
  Router router;
  // What {name} stands for.
  std::vector<std::pair<std::string, std::string>> names;
  int made_ = 0;

  Node() {
    core::SetLogLevel(core::LogLevel::kError);
    cli::DeclareCommon(flags);
    for (const Module* m : AllModules()) {
      if (m->declare_flags != nullptr) m->declare_flags(flags);
    }
    const std::string data = dir.Sub("data");
    std::vector<std::string> args = {"svc", "serve", "--data-dir", data, "--dev-keys-in-data-dir",
                                     "--durability", "os", "--threads", "2", "--face-engine", "model-free",
                                     "--webhooks-allow-private-urls", "--rate-reveals", "0",
                                     "--reveal-budget-per-day", "1000000000"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    if (auto st = flags.Parse(static_cast<int>(argv.size()), argv.data(), 2); !st.ok()) Die(st.ToString());
    auto ro = Must(cli::RuntimeOptionsFrom(flags), "runtime options");
    ro.clock = &clock;
    ro.ids = &ids;
    rt = Must(Runtime::Open(ro), "runtime");
    rt->StartProjections();
    roles = std::make_unique<Roles>(Must(Roles::Parse({"api", "writer", "projector", "pipeline"}, "kafka", "single"), "roles"));
    work_pool = std::make_unique<core::ThreadPool>(2);
    // No limit here: the clock is fake and never refills a bucket, and a limit reached would
    // answer every later input 429 before its route.
    CredentialGuardLimits unlimited;
    unlimited.requests_per_second = 0;
    unlimited.source_failures_per_minute = 0;
    unlimited.target_failures_per_minute = 0;
    guard = std::make_unique<CredentialGuard>(unlimited, rt->clock(), rt->metrics(),
                                              core::DeriveSubkey(rt->seal_key(), "svc/credential-guard/v1"));
    api.credential_guard = guard.get();
    api.work_pool = work_pool.get();
    api.public_base_url = "http://127.0.0.1:9";
    api.limits.max_body_bytes = 1 << 20;
    api.limits.reads.per_second = 0;
    api.limits.writes.per_second = 0;
    ServeSetup setup{*rt, flags, api, http, &clock, *work_pool, 2, *roles, jobs, node_id};
    std::vector<ApiRoute> routes;
    std::vector<const Module*> started;
    for (const Module* m : AllModules()) {
      if (m->services == nullptr) continue;
      areas.push_back(m->services());
      started.push_back(m);
      if (auto st = areas.back()->Start(setup); !st.ok()) Die("start " + std::string(m->name) + ": " + st.ToString());
    }
    for (size_t i = 0; i < areas.size(); ++i) {
      for (auto& r : Must(AreaRoutes(*started[i], *areas[i], rt.get(), api), "routes")) routes.push_back(std::move(r));
    }
    SetProblemTypeBase(api.public_base_url + "/docs/errors");
    public_api = std::make_unique<PublicApi>(*rt, api, std::move(routes));
    public_api->Register(router, OpenApiDocument(public_api->routes(), api.public_base_url));
    for (const auto& area : areas) area->AddPages(router, *rt, api);

    eventstore::Actor actor{"system", "fuzz"};
    auto tenant = Must(AdminTenantCreate(*rt, "Fuzz", actor), "tenant");
    const std::string tenant_id = tenant["id"].get<std::string>();
    KeyCreateRequest k;
    k.tenant_id = tenant_id;
    k.name = "fuzz";
    auto key = Must(AdminKeyCreate(*rt, k, actor), "key");
    names = {{"{key}", key["secret"].get<std::string>()}, {"{tenant}", tenant_id}};
    names.push_back({"{application}", tenant["defaultApplicationId"].get<std::string>()});
    // A supervisor of the review console: its sign-in secret, and a token signed in with it, so
    // that the console's routes and the review routes with a reviewer's token are reached too.
    auto user = Must(AdminUserCreate(*rt, tenant_id, "supervisor", "fuzz", actor), "reviewer");
    names.push_back({"{reviewer}", user["secret"].get<std::string>()});
    {
      HttpRequest req = Request("POST", "/console/api/sign-in",
                                R"({"secret":")" + user["secret"].get<std::string>() + R"(","environment":"test"})");
      req.headers.erase("authorization");
      HttpResponse r = Call(router, req);
      core::Json j = core::ParseJsonOrDiscarded(r.body);
      if (r.status != 200 || !j.is_object() || !j.contains("token")) Die("reviewer sign-in: " + r.body);
      names.push_back({"{rtoken}", j["token"].get<std::string>()});
    }
    Made("{person}", "POST", "/v1/persons", R"({"pii":{"fullName":"JUAN PEREZ LOPEZ","curp":"VIQR710314HSLLNG06"}})");
    Made("{company}", "POST", "/v1/companies", R"({"legalName":"Servicios Distintos, S.A. de C.V.","rfc":"TLP-090211-7T1"})");
    Made("{session}", "POST", "/v1/verification-sessions", R"({"channel":"api"})");
    Made("{endpoint}", "POST", "/v1/developer/webhooks", R"({"url":"http://127.0.0.1:9/hook"})");
  }

  ~Node() {
    for (auto it = areas.rbegin(); it != areas.rend(); ++it) (*it)->Stop();
    work_pool.reset();
    if (rt) rt->Shutdown();
  }

  HttpRequest Request(std::string method, std::string target, std::string body) {
    HttpRequest req;
    req.method = std::move(method);
    req.target = std::move(target);
    auto q = req.target.find('?');
    req.path = req.target.substr(0, q);
    req.query = q == std::string::npos ? "" : req.target.substr(q + 1);
    req.body = std::move(body);
    req.remote = "127.0.0.1";
    req.request_id = ids.NewIdString(core::IdKind::kRequest);
    req.headers["authorization"] = "Bearer " + names[0].second;
    if (!req.body.empty()) req.headers["content-type"] = "application/json";
    return req;
  }

  std::string Named(const std::string& name) const {
    for (const auto& [n, v] : names) {
      if (n == name) return v;
    }
    return "";
  }

  // After an input that named the harness's person: when it was forgotten, merged or erased
  // (every later input would meet only that answer), a new one takes its name.
  void KeepPersonActive() {
    const std::string id = Named("{person}");
    HttpResponse r = Call(router, Request("GET", "/v1/persons/" + id, ""));
    core::Json j = core::ParseJsonOrDiscarded(r.body);
    if (r.status == 200 && j.is_object() && j.value("status", "") == "active" && !j.contains("mergingInto") &&
        !j.value("forgetRequested", false)) {
      return;
    }
    for (auto it = names.begin(); it != names.end(); ++it) {
      if (it->first == "{person}") {
        names.erase(it);
        break;
      }
    }
    Made("{person}", "POST", "/v1/persons", R"({"pii":{"fullName":"JUAN PEREZ LOPEZ"}})");
  }

  // Makes one object of the harness and names it.
  void Made(const std::string& name, const std::string& method, const std::string& path, const std::string& body) {
    HttpRequest req = Request(method, path, body);
    req.headers["idempotency-key"] = "fuzz-made-" + name + "-" + std::to_string(++made_);
    HttpResponse r = Call(router, req);
    core::Json j = core::ParseJsonOrDiscarded(r.body);
    if (r.status / 100 != 2 || !j.is_object() || !j.contains("id")) {
      Die("could not make " + name + ": " + std::to_string(r.status) + " " + r.body);
    }
    names.push_back({name, j["id"].get<std::string>()});
  }

  std::string Substitute(std::string s) const {
    for (const auto& [name, value] : names) ReplaceAll(s, name, value);
    return s;
  }
};

Node& TheNode() {
  static Node* node = new Node();  // lives until exit: libFuzzer never returns to main
  return *node;
}

void CheckAnswer(const HttpRequest& req, const HttpResponse& r) {
  const std::string what = req.method + " " + req.target + " -> " + std::to_string(r.status);
  if (r.status < 100 || r.status > 599) Die("no HTTP status: " + what);
  if (r.status >= 500 && r.status != 503) Die(what + ": " + r.body.substr(0, 2000));
  const bool json = r.content_type.rfind("application/json", 0) == 0;
  const bool problem = r.content_type.rfind("application/problem+json", 0) == 0;
  if (r.status >= 400) {
    if (!problem) Die(what + " is not a problem: " + r.content_type);
    core::Json j = core::ParseJsonOrDiscarded(r.body);
    if (!j.is_object() || !j.contains("code") || !j["code"].is_string()) Die(what + ": a problem without a code: " + r.body);
  } else if (json && !r.body.empty() && core::ParseJsonOrDiscarded(r.body).is_discarded()) {
    Die(what + ": a JSON answer that does not parse");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Node& node = TheNode();
  std::string text(reinterpret_cast<const char*>(data), size);
  // The request line, the headers, the body.
  size_t eol = text.find('\n');
  std::string line = text.substr(0, eol);
  size_t at = eol == std::string::npos ? text.size() : eol + 1;
  auto sp = line.find(' ');
  std::string method = sp == std::string::npos ? "GET" : line.substr(0, sp);
  std::string target = node.Substitute(sp == std::string::npos ? line : line.substr(sp + 1));
  if (target.empty() || target[0] != '/') return 0;  // the HTTP server never routes such a target
  if (target.find("/test") != std::string::npos && target.rfind("/v1/developer/webhooks/", 0) == 0) return 0;
  std::map<std::string, std::string> headers;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    std::string h = text.substr(at, end - at);
    at = end + 1;
    if (h.empty() || h == "\r") break;
    auto colon = h.find(':');
    if (colon == std::string::npos) continue;
    std::string value = h.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.erase(0, 1);
    headers[Lower(h.substr(0, colon))] = node.Substitute(value);
  }
  std::string body = at < text.size() ? node.Substitute(text.substr(at)) : "";
  HttpRequest req = node.Request(method, target, body);
  for (auto& [k, v] : headers) req.headers[k] = v;
  HttpResponse r = Call(node.router, req);
  CheckAnswer(req, r);
  if (std::getenv("FUZZ_API_TRACE") != nullptr) {  // what each input reached: the seeds' check
    core::Json j = r.status >= 400 ? core::ParseJsonOrDiscarded(r.body) : core::Json();
    std::fprintf(stderr, "%s %s -> %d %s\n", req.method.c_str(), req.path.c_str(), r.status,
                 j.is_object() ? j.value("code", "").c_str() : "");
  }
  if (text.find("{person}") != std::string::npos || text.find(node.Named("{person}")) != std::string::npos) {
    node.KeepPersonActive();
  }
  if (node.rt->projections().AnyFailed()) Die("a projection halted after " + req.method + " " + req.target);
  if (!node.rt->writer().Healthy()) Die("the writer halted after " + req.method + " " + req.target);
  return 0;
}
