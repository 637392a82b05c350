#include "api/http/http.h"

#include <algorithm>

#include <atomic>

#include "core/error_catalogue.h"
#include "core/log.h"

namespace svc::api {

std::string HttpRequest::Header(std::string_view name) const {
  auto it = headers.find(std::string(name));
  return it == headers.end() ? std::string() : it->second;
}

Handler Sync(SyncHandler h) {
  return [h = std::move(h)](HttpRequest& req, Respond respond) { respond(h(req)); };
}

HttpResponse JsonResponse(int status, const core::Json& body) {
  HttpResponse r;
  r.status = status;
  r.body = core::DumpJson(body);
  return r;
}

namespace {
std::string& ProblemTypeBase() {
  static std::string base = "http://127.0.0.1:8080/docs/errors";
  return base;
}
}  // namespace

void SetProblemTypeBase(std::string base) { ProblemTypeBase() = std::move(base); }

std::string ErrorCatalogueMarkdown() {
  std::string out =
      "# Error catalogue\n\n"
      "Generated from `core/error_catalogue.cc` (`svc docs errors`). Every non-2xx answer is\n"
      "`application/problem+json` whose `code` is one of these and whose `type` links here.\n"
      "Program against `code`; `detail` is for people and may change. Codes are never renamed or\n"
      "removed. Reserved codes exist but no endpoint emits them today.\n\n"
      "| Code | HTTP status | Title | Note |\n|---|---|---|---|\n";
  for (const auto& e : core::ErrorCatalogue()) {
    std::string note(e.remedy);
    if (e.reserved) note = "reserved";
    out += "| <a id=\"" + std::string(e.code) + "\"></a>`" + std::string(e.code) + "` | " +
           std::to_string(e.http_status) + " | " + std::string(e.title) + " | " + note + " |\n";
  }
  return out;
}

HttpResponse Problem(const HttpRequest& req, std::string_view code, std::string detail,
                     core::Json extensions) {
  const core::ErrorCodeInfo* info = core::FindErrorCode(code);
  if (info == nullptr) info = core::FindErrorCode("INTERNAL_ERROR");
  core::Json j;
  j["type"] = ProblemTypeBase() + "#" + std::string(info->code);
  j["title"] = info->title;
  j["status"] = info->http_status;
  j["detail"] = std::move(detail);
  j["instance"] = req.path;
  j["code"] = info->code;
  j["requestId"] = req.request_id;
  for (auto& [k, v] : extensions.items()) j[k] = v;
  HttpResponse r;
  r.status = info->http_status;
  r.content_type = "application/problem+json";
  r.body = core::DumpJson(j);
  return r;
}

namespace {
std::vector<std::string_view> Split(std::string_view path) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '/') {
      ++i;
      continue;
    }
    size_t j = path.find('/', i);
    if (j == std::string_view::npos) j = path.size();
    out.push_back(path.substr(i, j - i));
    i = j;
  }
  return out;
}
}  // namespace

void Router::Add(std::string method, std::string path_template, Handler handler) {
  Route r;
  r.method = std::move(method);
  for (auto s : Split(path_template)) r.segments.emplace_back(s);
  r.handler = std::move(handler);
  routes_.push_back(std::move(r));
}

bool Router::Match(const Route& r, const std::vector<std::string_view>& parts,
                   std::map<std::string, std::string>* params) {
  if (r.segments.size() != parts.size()) return false;
  for (size_t i = 0; i < parts.size(); ++i) {
    const auto& seg = r.segments[i];
    if (seg.size() > 2 && seg.front() == '{' && seg.back() == '}') {
      if (parts[i].empty()) return false;
      if (params != nullptr) (*params)[seg.substr(1, seg.size() - 2)] = std::string(parts[i]);
    } else if (seg != parts[i]) {
      return false;
    }
  }
  return true;
}

void Router::SetGate(Gate gate, std::vector<std::string> open_paths) {
  gate_ = std::move(gate);
  open_paths_ = std::move(open_paths);
}

void Router::Dispatch(HttpRequest& req, Respond respond) const {
  if (gate_ && std::find(open_paths_.begin(), open_paths_.end(), req.path) == open_paths_.end()) {
    // The request outlives this call: the server keeps it until it is answered.
    gate_(req, [this, &req, respond] { DispatchRoute(req, respond); }, respond);
    return;
  }
  DispatchRoute(req, std::move(respond));
}

void Router::DispatchRoute(HttpRequest& req, Respond respond) const {
  auto parts = Split(req.path);
  std::vector<std::string> allowed;
  // Literal segments win over parameters: try exact-literal routes first.
  const Route* best = nullptr;
  int best_literals = -1;
  for (const auto& r : routes_) {
    if (!Match(r, parts, nullptr)) continue;
    if (r.method != req.method) {
      if (std::find(allowed.begin(), allowed.end(), r.method) == allowed.end()) {
        allowed.push_back(r.method);
      }
      continue;
    }
    int literals = 0;
    for (const auto& s : r.segments) literals += (s.empty() || s.front() != '{') ? 1 : 0;
    if (literals > best_literals) {
      best = &r;
      best_literals = literals;
    }
  }
  if (best != nullptr) {
    Match(*best, parts, &req.path_params);
    // A handler bug must never take the process down or leak details: answer 500 and log.
    auto once = std::make_shared<std::atomic<bool>>(false);
    Respond guarded = [once, respond](HttpResponse r) {
      if (!once->exchange(true)) respond(std::move(r));
    };
    try {
      best->handler(req, guarded);
    } catch (const std::exception& e) {
      core::LogError("handler threw", {{"path", req.path}, {"error", e.what()}});
      guarded(Problem(req, "INTERNAL_ERROR", "an internal error occurred"));
    }
    return;
  }
  if (!allowed.empty()) {
    std::sort(allowed.begin(), allowed.end());
    std::string allow;
    for (const auto& m : allowed) allow += (allow.empty() ? "" : ", ") + m;
    HttpResponse r = Problem(req, "METHOD_NOT_ALLOWED",
                             "this path does not accept " + req.method);
    r.headers.emplace_back("Allow", allow);
    respond(std::move(r));
    return;
  }
  respond(Problem(req, "RESOURCE_NOT_FOUND", "no such resource"));
}

}  // namespace svc::api
