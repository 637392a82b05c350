#include "api/gov_registry_http.h"

#include "core/json.h"
#include "core/log.h"
#include "pipeline/documents/checks.h"

namespace svc::api {

namespace pv = pipeline::verification;

core::Result<std::unique_ptr<HttpGovRegistry>> HttpGovRegistry::Create(
    const std::string& base_url, std::string token, std::chrono::milliseconds timeout) {
  constexpr std::string_view kHttp = "http://";
  if (base_url.rfind("https://", 0) == 0) {
    return core::InvalidArgument("--gov-registry-url: https is not supported yet (the TLS client "
                                 "arrives with webhooks); use an http:// gateway on a private link");
  }
  if (base_url.rfind(kHttp, 0) != 0) {
    return core::InvalidArgument("--gov-registry-url must start with http://");
  }
  std::string rest = base_url.substr(kHttp.size());
  std::string hostport = rest.substr(0, rest.find('/'));
  std::string prefix = rest.find('/') == std::string::npos ? "" : rest.substr(rest.find('/'));
  while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
  auto colon = hostport.rfind(':');
  auto r = std::unique_ptr<HttpGovRegistry>(new HttpGovRegistry());
  r->target_.host = colon == std::string::npos ? hostport : hostport.substr(0, colon);
  try {
    r->target_.port = colon == std::string::npos
                          ? 80
                          : static_cast<uint16_t>(std::stoul(hostport.substr(colon + 1)));
  } catch (...) {
    return core::InvalidArgument("--gov-registry-url has a bad port");
  }
  if (r->target_.host.empty()) return core::InvalidArgument("--gov-registry-url has no host");
  r->prefix_ = prefix;
  r->token_ = std::move(token);
  r->timeout_ = timeout;
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
  std::map<std::string, std::string> headers = {{"accept", "application/json"}};
  if (!token_.empty()) headers["authorization"] = "Bearer " + token_;
  auto r = HttpCall(target_, "GET", prefix_ + "/curp/" + curp, headers, "", timeout_);
  if (!r.ok() || r->status >= 500 || r->status == 401 || r->status == 403 || r->status == 429) {
    out.status = "unavailable";
    out.error_code = !r.ok() ? "GOV_TRANSPORT_ERROR" : "GOV_HTTP_" + std::to_string(r->status);
    core::LogWarn("registry lookup unavailable", {{"registry", "renapo"}, {"error", out.error_code}});
    return out;
  }
  if (r->status == 404) {
    out.status = "not_found";
    return out;
  }
  core::Json j = core::ParseJsonOrDiscarded(r->body);
  if (r->status != 200 || !j.is_object()) {
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
  std::map<std::string, std::string> headers = {{"accept", "application/json"},
                                                {"content-type", "application/json"}};
  if (!token_.empty()) headers["authorization"] = "Bearer " + token_;
  core::Json body = {{"cic", q.cic}, {"identificadorCiudadano", q.identificador_ciudadano}};
  auto r = HttpCall(target_, "POST", prefix_ + "/ine/validate", headers, core::DumpJson(body),
                    timeout_);
  if (!r.ok() || r->status >= 500 || r->status == 401 || r->status == 403 || r->status == 429) {
    out.status = "unavailable";
    out.error_code = !r.ok() ? "GOV_TRANSPORT_ERROR" : "GOV_HTTP_" + std::to_string(r->status);
    return out;
  }
  if (r->status == 404) {
    out.status = "not_found";
    out.detail_code = "NOT_IN_LIST";
    return out;
  }
  core::Json j = core::ParseJsonOrDiscarded(r->body);
  if (r->status != 200 || !j.is_object() || !j.contains("valid") || !j["valid"].is_boolean()) {
    out.status = "unavailable";
    out.error_code = "GOV_BAD_RESPONSE";
    return out;
  }
  out.status = j["valid"].get<bool>() ? "valid" : "not_valid";
  out.detail_code = core::StringOr(j, "reason");
  return out;
}

}  // namespace svc::api
