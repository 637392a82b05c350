#include "pipeline/adapters/gov_registry_http.h"

#include "core/clock.h"
#include "core/json.h"
#include "core/log.h"
#include "pipeline/documents/checks.h"

namespace svc::pipeline::adapters {

namespace pv = pipeline::verification;

core::Result<std::unique_ptr<HttpGovRegistry>> HttpGovRegistry::Create(
    const std::string& base_url, std::string token, std::chrono::milliseconds timeout, std::string ca_file) {
  auto r = std::unique_ptr<HttpGovRegistry>(new HttpGovRegistry());
  SVC_ASSIGN_OR_RETURN(r->client_, GatewayClient::Create("--gov-registry-url", base_url, std::move(token), timeout,
                                                         std::move(ca_file)));
  return r;
}

HttpGovRegistry::~HttpGovRegistry() = default;

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
  net::SendResult r = client_->Call("GET", "/curp/" + curp, "");
  if (GatewayClient::Unavailable(r)) {
    out.status = "unavailable";
    out.error_code = GatewayClient::ErrorCode("GOV", r);
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
  net::SendResult r = client_->Call("POST", "/ine/validate", core::DumpJson(body));
  if (GatewayClient::Unavailable(r)) {
    out.status = "unavailable";
    out.error_code = GatewayClient::ErrorCode("GOV", r);
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
