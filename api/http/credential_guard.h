#pragma once
// The guard of the routes whose credential is not an API key, and so escapes the per-key rate
// limits: the review console's sign-in (a usk_ secret), the embedded init (a clientSecret), the
// hosted page's init (a link token), media links (a signed link) and client tokens (ctok_).
// Their secrets are long and random, so guessing one is hopeless; the guard makes trying cost
// time and tells the operator (docs/operations.md#credential-guard):
//
// - per source address and route: requests (default 20/s, burst 40), then 429 RATE_LIMITED;
// - per source address and route: refused credentials (default 20 a minute, burst 20), then every
//   request of that source to the route is 429 until the bucket refills;
// - per target (the session, link or token a request names, when it names one) and route: refused
//   credentials (default 10 a minute, burst 10), then 429 for that target;
// - every refusal is counted in svc_credential_failures_total{route}, every 429 in
//   svc_credential_throttled_total{route}, and a source or target that runs out logs one warning
//   a minute (its keyed hash and whether it was a source or a target: no address or secret is
//   logged).
//
// The bearer credentials of the API itself (API keys, applicant tokens, reviewer tokens) are
// guarded too (issue 68), by refusals only — a source's traffic with good credentials is never
// rate-limited here (the per-key limits do that):
//
// - per source address and kind of credential: refused credentials (default 60 a minute, burst
//   60), then that source's requests with that kind of credential are 429 RATE_LIMITED until the
//   bucket refills — except those that carry a credential that was accepted from the same source
//   in the last 10 minutes (its keyed hash is remembered), so an integrator's working servers
//   behind one address are not shut out by a broken one beside them.
//
// The source is the peer address, or the first address of --client-ip-header when the service
// runs behind a proxy that sets it. Thread-safe.

#include <atomic>
#include <functional>
#include <map>
#include <optional>
#include <mutex>
#include <string>
#include <string_view>

#include "api/http/http.h"
#include "core/clock.h"
#include "core/metrics.h"
#include "core/token_bucket.h"

namespace svc::api {

struct CredentialGuardLimits {
  double requests_per_second = 20;  // per source and route; 0: no limit
  double requests_burst = 40;
  double source_failures_per_minute = 20;  // per source and route; 0: no limit
  double target_failures_per_minute = 10;  // per target and route; 0: no limit
  std::string client_ip_header;            // e.g. x-forwarded-for (lower case); "" = the peer
  double key_failures_per_minute = 60;     // API keys, applicant and reviewer tokens, per source; 0: no limit
};

class CredentialGuard {
 public:
  CredentialGuard(CredentialGuardLimits limits, const core::Clock& clock, core::MetricsRegistry& metrics,
                  std::string hash_key);

  // Runs `handler` for a request to `route` (a short name: reviewer_sign_in, embedded_init, …)
  // naming `target` ("" none) unless the source or target is throttled (then 429 RATE_LIMITED
  // with Retry-After). An answer with the problem code `refused_code` (the route's "credential
  // not valid") counts as a refused credential.
  void Run(std::string_view route, std::string_view refused_code, HttpRequest& req, std::string target,
           Respond respond, const std::function<void(Respond)>& handler);

  // The same in two steps, for a caller that checks the credential itself (client tokens in the
  // middleware): Admit before (nullopt: go on; else the 429 to answer), Failed after a refusal.
  std::optional<HttpResponse> Admit(std::string_view route, const HttpRequest& req, const std::string& target);
  void Failed(std::string_view route, const HttpRequest& req, const std::string& target);

  // A bearer credential of the API (`kind`: api_key, applicant_token, reviewer_token), before it is
  // checked: nullopt, or the 429 to answer (the source's refusals ran out and `credential` was not
  // accepted from it lately). Then Accepted or Failed with the outcome.
  std::optional<HttpResponse> AdmitBearer(std::string_view kind, const HttpRequest& req, std::string_view credential);
  void Accepted(std::string_view kind, const HttpRequest& req, std::string_view credential);
  void FailedBearer(std::string_view kind, const HttpRequest& req);

  // The source address of a request as the guard counts it.
  std::string SourceOf(const HttpRequest& req) const;
  const CredentialGuardLimits& limits() const { return limits_; }

 private:
  // Seconds to wait (0: admitted; a request token is taken).
  int64_t Wait(std::string_view route, const std::string& source, const std::string& target);
  void Refused(std::string_view route, const std::string& source, const std::string& target);
  void Throttled(std::string_view route, std::string_view by, const std::string& who);
  // The 429 answered for `route` (counted in svc_credential_throttled_total).
  HttpResponse Refusal(std::string_view route, const HttpRequest& req, int64_t wait, const std::string& detail);
  void Prune(int64_t now);

  CredentialGuardLimits limits_;
  const core::Clock& clock_;
  core::MetricsRegistry& metrics_;
  std::string hash_key_;
  std::mutex mu_;
  std::map<std::string, core::TokenBucket, std::less<>> buckets_;  // "<kind>|<route>|<who>"
  std::map<std::string, int64_t, std::less<>> warned_;            // last warning, micros
  std::atomic<bool> bearer_refused_{false};  // until a bearer credential is refused, nothing to look up
  // "<kind>|<source>" -> keyed hashes of credentials accepted from it, with when (micros).
  std::map<std::string, std::map<std::string, int64_t>, std::less<>> accepted_;
  int64_t last_prune_micros_ = 0;
};

// A router handler behind `guard` (no target): `handler` as it is when `guard` is null.
Handler Guarded(CredentialGuard* guard, std::string route, std::string refused_code, Handler handler);

}  // namespace svc::api
