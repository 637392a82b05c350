#include "pipeline/adapters/gov_registry_http.h"

#include "pipeline/net/url_guard.h"
#include "core/clock.h"
#include "core/json.h"
#include "core/log.h"
#include "pipeline/documents/checks.h"

namespace svc::pipeline::adapters {

namespace pv = pipeline::verification;
using net::ParseHttpUrl;

core::Result<std::unique_ptr<HttpGovRegistry>> HttpGovRegistry::Create(
    const std::string& base_url, std::string token, std::chrono::milliseconds timeout, std::string ca_file) {
  auto parsed = ParseHttpUrl(base_url);
  if (!parsed.ok()) {
    return core::InvalidArgument("--gov-registry-url must be an http(s) URL: " + parsed.status().message());
  }
  if (parsed->target.find('?') != std::string::npos) {
    return core::InvalidArgument("--gov-registry-url must not have a query");
  }
  auto r = std::unique_ptr<HttpGovRegistry>(new HttpGovRegistry());
  std::string prefix = parsed->target;
  while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
  std::string host = parsed->host.find(':') != std::string::npos ? "[" + parsed->host + "]" : parsed->host;
  r->base_ = parsed->scheme + "://" + host + ":" + std::to_string(parsed->port) + prefix;
  r->token_ = std::move(token);
  // The gateway is the operator's own configuration, often on a private link: no public-address
  // rule; certificates are verified for https (the system store, plus ca_file).
  r->send_.allow_private = true;
  r->send_.connect_timeout = timeout;
  r->send_.total_timeout = timeout;
  r->send_.ca_file = std::move(ca_file);
  r->send_.user_agent = "svc-registry/1";
  return r;
}

HttpGovRegistry::~HttpGovRegistry() = default;

SendResult HttpGovRegistry::Call(const std::string& method, const std::string& path, const std::string& body) {
  // A kept connection per concurrent caller (pipeline workers), reused across lookups.
  std::unique_ptr<OutboundClient> client;
  {
    std::lock_guard lock(mu_);
    if (!idle_.empty()) {
      client = std::move(idle_.back());
      idle_.pop_back();
    }
  }
  if (!client) client = std::make_unique<OutboundClient>(send_);
  std::vector<std::pair<std::string, std::string>> headers = {{"accept", "application/json"}};
  if (!body.empty()) headers.emplace_back("content-type", "application/json");
  if (!token_.empty()) headers.emplace_back("authorization", "Bearer " + token_);
  SendResult r = client->Send(method, base_ + path, headers, body, core::SystemClock().Now().micros / 1'000'000);
  std::lock_guard lock(mu_);
  if (idle_.size() < 8) idle_.push_back(std::move(client));
  return r;
}

namespace {
bool Valid(const std::string& curp) {
  if (curp.size() != 18) return false;
  for (char c : curp) {
    if (!std::isupper(static_cast<unsigned char>(c)) && !std::isdigit(static_cast<unsigned char>(c))) {
      return false;
    }
  }
  return true;
}
}  // namespace

pv::CurpLookup HttpGovRegistry::LookupCurp(const std::string& curp) {
  pv::CurpLookup out;
  out.source = "renapo";
  if (!Valid(curp)) {
    out.status = "not_found";
    return out;
  }
  SendResult r = Call("GET", "/curp/" + curp, "");
  if (r.status == 0 || r.status >= 500 || r.status == 401 || r.status == 403 || r.status == 429) {
    out.status = "unavailable";
    out.error_code = r.status == 0 ? "GOV_TRANSPORT_ERROR" : "GOV_HTTP_" + std::to_string(r.status);
    core::LogWarn("registry lookup unavailable", {{"registry", "renapo"}, {"error", out.error_code}});
    return out;
  }
  if (r.status == 404) {
    out.status = "not_found";
    return out;
  }
  core::Json j = core::ParseJsonOrDiscarded(r.body);
  if (r.status != 200 || !r.error.empty() || !j.is_object()) {
    out.status = "unavailable";
    out.error_code = "GOV_BAD_RESPONSE";
    return out;
  }
  out.status = "found";
  out.registry_status = core::StringOr(j, "statusCurp");
  std::string fecha = core::StringOr(j, "fechaNacimiento");  // DD/MM/YYYY
  if (fecha.size() == 10 && fecha[2] == '/' && fecha[5] == '/') {
    out.birth_date = fecha.substr(6, 4) + "-" + fecha.substr(3, 2) + "-" + fecha.substr(0, 2);
  }
  out.sex = core::StringOr(j, "sexo");
  out.name_letters = pipeline::documents::CurpNameLetters(core::StringOr(j, "primerApellido"),
                                                          core::StringOr(j, "segundoApellido"),
                                                          core::StringOr(j, "nombres"));
  return out;
}

pv::IneLookup HttpGovRegistry::LookupIne(const pv::IneQuery& q) {
  pv::IneLookup out;
  core::Json body = {{"cic", q.cic}, {"identificadorCiudadano", q.identificador_ciudadano}};
  SendResult r = Call("POST", "/ine/validate", core::DumpJson(body));
  if (r.status == 0 || r.status >= 500 || r.status == 401 || r.status == 403 || r.status == 429) {
    out.status = "unavailable";
    out.error_code = r.status == 0 ? "GOV_TRANSPORT_ERROR" : "GOV_HTTP_" + std::to_string(r.status);
    core::LogWarn("registry lookup unavailable", {{"registry", "ine"}, {"error", out.error_code}});
    return out;
  }
  if (r.status == 404) {
    out.status = "not_found";
    out.detail_code = "NOT_IN_LIST";
    return out;
  }
  core::Json j = core::ParseJsonOrDiscarded(r.body);
  if (r.status != 200 || !r.error.empty() || !j.is_object() || !j.contains("valid") || !j["valid"].is_boolean()) {
    out.status = "unavailable";
    out.error_code = "GOV_BAD_RESPONSE";
    return out;
  }
  out.status = j["valid"].get<bool>() ? "valid" : "not_valid";
  out.detail_code = core::StringOr(j, "reason");
  return out;
}

}  // namespace svc::pipeline::adapters
