#include "pipeline/adapters/company_registry_http.h"

#include "core/json.h"
#include "core/log.h"
#include "pipeline/documents/checks.h"

namespace svc::pipeline::adapters {

namespace pk = pipeline::kyb;

core::Result<std::unique_ptr<HttpCompanyRegistry>> HttpCompanyRegistry::Create(const std::string& base_url,
                                                                               std::string token,
                                                                               std::chrono::milliseconds timeout,
                                                                               std::string ca_file) {
  auto r = std::unique_ptr<HttpCompanyRegistry>(new HttpCompanyRegistry());
  SVC_ASSIGN_OR_RETURN(r->client_, GatewayClient::Create("--kyb-registry-url", base_url, std::move(token), timeout,
                                                         std::move(ca_file)));
  return r;
}

pk::RegistryRecord HttpCompanyRegistry::Lookup(const pk::RegistryQuery& q) {
  pk::RegistryRecord out;
  if (q.country != "MX") {
    out.outcome = "not_run";
    return out;
  }
  if (q.rfc.empty() || !core::mx::CheckRfc(q.rfc, q.today).valid) {  // never sent
    out.outcome = "not_found";
    return out;
  }
  net::SendResult r = client_->Call("GET", "/companies/" + q.rfc, "");
  if (GatewayClient::Unavailable(r)) {
    out.outcome = "unavailable";
    out.error_code = GatewayClient::ErrorCode("REGISTRY", r);
    core::LogWarn("company registry unavailable", {{"error", out.error_code}});
    return out;
  }
  if (r.status == 404) {
    out.outcome = "not_found";
    return out;
  }
  core::Json j = core::ParseJsonOrDiscarded(r.body);
  static const std::map<std::string, std::string> kStatus = {{"ACTIVA", "active"},
                                                             {"SUSPENDIDA", "suspended"},
                                                             {"DISUELTA", "dissolved"},
                                                             {"CANCELADA", "dissolved"},
                                                             {"EN_LIQUIDACION", "dissolved"}};
  auto status = kStatus.find(core::StringOr(j, "estatus"));
  if (r.status != 200 || !r.error.empty() || !j.is_object() || status == kStatus.end() ||
      core::StringOr(j, "rfc") != q.rfc) {
    out.outcome = "unavailable";
    out.error_code = "REGISTRY_BAD_RESPONSE";
    return out;
  }
  out.outcome = "found";
  out.status = status->second;
  out.authority = core::StringOr(j, "autoridad").empty() ? "SE-SIGER" : core::StringOr(j, "autoridad");
  out.registry_id = core::StringOr(j, "folioMercantil");
  out.legal_name = core::StringOr(j, "razonSocial");
  out.legal_form = core::StringOr(j, "regimenSocietario");
  out.activity = core::StringOr(j, "actividad");
  out.industry_code = core::StringOr(j, "scian");
  const std::string date = core::StringOr(j, "fechaConstitucion");
  if (date.size() == 10 && date[4] == '-' && date[7] == '-') out.incorporation_date = date;
  return out;
}

}  // namespace svc::pipeline::adapters
