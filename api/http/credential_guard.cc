#include "api/http/credential_guard.h"

#include <algorithm>

#include "core/crypto.h"
#include "core/ids.h"
#include "core/json.h"
#include "core/log.h"

namespace svc::api {

namespace {

constexpr size_t kMaxBuckets = 200000;  // past it, full buckets (worth nothing) are dropped

// The bucket's tokens now, without taking one (a new bucket is full).
double Peek(core::TokenBucket& b, int64_t now, double per_second, double burst) {
  if (!b.init) return burst;
  const double elapsed = static_cast<double>(std::max<int64_t>(0, now - b.last_micros)) / 1e6;
  return std::min(burst, b.tokens + elapsed * per_second);
}

int64_t Seconds(int64_t micros) { return std::max<int64_t>(1, (micros + 999'999) / 1'000'000); }

}  // namespace

CredentialGuard::CredentialGuard(CredentialGuardLimits limits, const core::Clock& clock,
                                 core::MetricsRegistry& metrics, std::string hash_key)
    : limits_(std::move(limits)), clock_(clock), metrics_(metrics), hash_key_(std::move(hash_key)) {}

std::string CredentialGuard::SourceOf(const HttpRequest& req) const {
  if (!limits_.client_ip_header.empty()) {
    std::string v = req.Header(limits_.client_ip_header);
    v = v.substr(0, v.find(','));
    v.erase(0, v.find_first_not_of(" \t"));
    v.erase(v.find_last_not_of(" \t") + 1);
    if (!v.empty() && v.size() <= 64) return v;
  }
  return req.remote;
}

int64_t CredentialGuard::Wait(std::string_view route, const std::string& source, const std::string& target) {
  const int64_t now = clock_.Now().micros;
  std::lock_guard lock(mu_);
  Prune(now);
  const std::string r(route);
  const double src_rate = limits_.source_failures_per_minute / 60.0, tgt_rate = limits_.target_failures_per_minute / 60.0;
  if (src_rate > 0) {
    auto& b = buckets_["fs|" + r + "|" + source];
    const double left = Peek(b, now, src_rate, limits_.source_failures_per_minute);
    if (left < 1.0) return Seconds(static_cast<int64_t>((1.0 - left) / src_rate * 1e6));
  }
  if (tgt_rate > 0 && !target.empty()) {
    auto& b = buckets_["ft|" + r + "|" + target];
    const double left = Peek(b, now, tgt_rate, limits_.target_failures_per_minute);
    if (left < 1.0) return Seconds(static_cast<int64_t>((1.0 - left) / tgt_rate * 1e6));
  }
  if (limits_.requests_per_second > 0) {
    const int64_t wait = buckets_["rq|" + r + "|" + source].Take(now, limits_.requests_per_second, limits_.requests_burst);
    if (wait > 0) return Seconds(wait);
  }
  return 0;
}

void CredentialGuard::Refused(std::string_view route, const std::string& source, const std::string& target) {
  metrics_.GetCounter("svc_credential_failures_total", "Refused credentials on routes without an API key",
                      "route=\"" + std::string(route) + "\"")
      .Add();
  const int64_t now = clock_.Now().micros;
  bool source_out = false, target_out = false;
  {
    std::lock_guard lock(mu_);
    const std::string r(route);
    if (limits_.source_failures_per_minute > 0) {
      auto& b = buckets_["fs|" + r + "|" + source];
      b.Take(now, limits_.source_failures_per_minute / 60.0, limits_.source_failures_per_minute);
      source_out = b.tokens < 1.0;
    }
    if (limits_.target_failures_per_minute > 0 && !target.empty()) {
      auto& b = buckets_["ft|" + r + "|" + target];
      b.Take(now, limits_.target_failures_per_minute / 60.0, limits_.target_failures_per_minute);
      target_out = b.tokens < 1.0;
    }
  }
  if (source_out) Throttled(route, "source", source);
  if (target_out) Throttled(route, "target", target);
}

void CredentialGuard::Throttled(std::string_view route, std::string_view by, const std::string& who) {
  const std::string hash = core::HexEncode(core::HmacSha256(hash_key_, who)).substr(0, 16);
  const int64_t now = clock_.Now().micros;
  {
    std::lock_guard lock(mu_);
    int64_t& last = warned_[std::string(route) + "|" + std::string(by) + "|" + hash];
    if (last != 0 && now - last < 60'000'000) return;
    last = now;
  }
  core::LogWarn("credential guessing throttled: repeated refused credentials",
                {{"route", route}, {"by", by}, {"whoHash", hash}});
}

void CredentialGuard::Prune(int64_t now) {
  // At most once a second: a flood of new sources must not make every request scan the map.
  if (buckets_.size() < kMaxBuckets || now - last_prune_micros_ < 1'000'000) return;
  last_prune_micros_ = now;
  for (auto it = buckets_.begin(); it != buckets_.end();) {
    // A bucket that has refilled says nothing a new one would not.
    const bool request = it->first.rfind("rq|", 0) == 0;
    const double per_minute = it->first.rfind("fs|", 0) == 0   ? limits_.source_failures_per_minute
                              : it->first.rfind("fk|", 0) == 0 ? limits_.key_failures_per_minute
                                                               : limits_.target_failures_per_minute;
    const double rate = request ? limits_.requests_per_second : per_minute / 60.0;
    const double burst = request ? limits_.requests_burst : per_minute;
    it = Peek(it->second, now, rate, burst) >= burst ? buckets_.erase(it) : std::next(it);
  }
  if (warned_.size() > kMaxBuckets) warned_.clear();
  if (accepted_.size() > kMaxBuckets) accepted_.clear();
}

std::optional<HttpResponse> CredentialGuard::Admit(std::string_view route, const HttpRequest& req,
                                                   const std::string& target) {
  const int64_t wait = Wait(route, SourceOf(req), target);
  if (wait == 0) return std::nullopt;
  return Refusal(route, req, wait, "too many attempts from here; retry later");
}

HttpResponse CredentialGuard::Refusal(std::string_view route, const HttpRequest& req, int64_t wait,
                                      const std::string& detail) {
  metrics_.GetCounter("svc_credential_throttled_total", "Requests refused 429 by the credential guard",
                      "route=\"" + std::string(route) + "\"")
      .Add();
  HttpResponse r = Problem(req, "RATE_LIMITED", detail);
  r.headers.emplace_back("Retry-After", std::to_string(wait));
  return r;
}

void CredentialGuard::Failed(std::string_view route, const HttpRequest& req, const std::string& target) {
  Refused(route, SourceOf(req), target);
}

void CredentialGuard::Run(std::string_view route, std::string_view refused_code, HttpRequest& req,
                          std::string target, Respond respond, const std::function<void(Respond)>& handler) {
  if (auto throttled = Admit(route, req, target)) return respond(std::move(*throttled));
  handler([this, route = std::string(route), code = std::string(refused_code), source = SourceOf(req),
           target = std::move(target), respond = std::move(respond)](HttpResponse r) {
    if ((r.status == 401 || r.status == 403) && core::StringOr(core::ParseJsonOrDiscarded(r.body), "code") == code) {
      Refused(route, source, target);
    }
    respond(std::move(r));
  });
}

namespace {
constexpr int64_t kAcceptedFor = 600'000'000;  // a credential accepted from a source vouches for 10 min
constexpr size_t kAcceptedPerSource = 16;
}  // namespace

std::optional<HttpResponse> CredentialGuard::AdmitBearer(std::string_view kind, const HttpRequest& req,
                                                         std::string_view credential) {
  const double per_minute = limits_.key_failures_per_minute;
  if (per_minute <= 0 || !bearer_refused_.load(std::memory_order_relaxed)) return std::nullopt;
  const std::string source = SourceOf(req);
  const int64_t now = clock_.Now().micros;
  int64_t wait = 0;
  {
    std::lock_guard lock(mu_);
    Prune(now);
    auto b = buckets_.find("fk|" + std::string(kind) + "|" + source);
    if (b == buckets_.end()) return std::nullopt;
    const double left = Peek(b->second, now, per_minute / 60.0, per_minute);
    if (left >= 1.0) return std::nullopt;
    auto a = accepted_.find(std::string(kind) + "|" + source);
    if (a != accepted_.end()) {
      const std::string hash = core::HexEncode(core::HmacSha256(hash_key_, credential)).substr(0, 32);
      auto it = a->second.find(hash);
      if (it != a->second.end() && now - it->second < kAcceptedFor) return std::nullopt;
    }
    wait = Seconds(static_cast<int64_t>((1.0 - left) / (per_minute / 60.0) * 1e6));
  }
  return Refusal(kind, req, wait, "too many refused credentials from here; retry later");
}

void CredentialGuard::Accepted(std::string_view kind, const HttpRequest& req, std::string_view credential) {
  if (limits_.key_failures_per_minute <= 0 || !bearer_refused_.load(std::memory_order_relaxed)) return;
  const std::string source = SourceOf(req);
  const int64_t now = clock_.Now().micros;
  std::lock_guard lock(mu_);
  // Only a source that has been refused needs vouching for.
  if (buckets_.find("fk|" + std::string(kind) + "|" + source) == buckets_.end()) return;
  auto& seen = accepted_[std::string(kind) + "|" + source];
  seen[core::HexEncode(core::HmacSha256(hash_key_, credential)).substr(0, 32)] = now;
  while (seen.size() > kAcceptedPerSource) {
    seen.erase(std::min_element(seen.begin(), seen.end(), [](const auto& x, const auto& y) { return x.second < y.second; }));
  }
}

void CredentialGuard::FailedBearer(std::string_view kind, const HttpRequest& req) {
  metrics_.GetCounter("svc_credential_failures_total", "Refused credentials on routes without an API key",
                      "route=\"" + std::string(kind) + "\"")
      .Add();
  const double per_minute = limits_.key_failures_per_minute;
  if (per_minute <= 0) return;
  bearer_refused_.store(true, std::memory_order_relaxed);
  const std::string source = SourceOf(req);
  const int64_t now = clock_.Now().micros;
  bool out = false;
  {
    std::lock_guard lock(mu_);
    auto& b = buckets_["fk|" + std::string(kind) + "|" + source];
    b.Take(now, per_minute / 60.0, per_minute);
    out = b.tokens < 1.0;
  }
  if (out) Throttled(kind, "source", source);
}

Handler Guarded(CredentialGuard* guard, std::string route, std::string refused_code, Handler handler) {
  if (guard == nullptr) return handler;
  return [guard, route = std::move(route), code = std::move(refused_code), handler = std::move(handler)](
             HttpRequest& req, Respond respond) {
    guard->Run(route, code, req, "", std::move(respond), [&req, &handler](Respond r) { handler(req, std::move(r)); });
  };
}

}  // namespace svc::api
