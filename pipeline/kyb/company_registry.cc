#include "pipeline/kyb/company_registry.h"

#include <array>

#include "core/crypto.h"
#include "pipeline/documents/checks.h"
#include "pipeline/kyb/name_match.h"

namespace svc::pipeline::kyb {

std::string LegalFormOf(const std::string& legal_name) {
  std::string f = " " + FoldName(legal_name) + " ";
  // Folding joins the dots of abbreviations: "S.A. de C.V." -> "sa de cv".
  static const std::array<std::pair<const char*, const char*>, 8> kForms = {{
      {" sapi de cv ", "sociedad anónima promotora de inversión de capital variable"},
      {" sab de cv ", "sociedad anónima bursátil de capital variable"},
      {" sa de cv ", "sociedad anónima de capital variable"},
      {" s de rl de cv ", "sociedad de responsabilidad limitada de capital variable"},
      {" s de rl ", "sociedad de responsabilidad limitada"},
      {" sa ", "sociedad anónima"},
      {" sc ", "sociedad civil"},
      {" ac ", "asociación civil"},
  }};
  for (const auto& [needle, form] : kForms) {
    if (f.find(needle) != std::string::npos) return form;
  }
  return "";
}

RegistryRecord SandboxCompanyRegistry::Lookup(const RegistryQuery& q) {
  RegistryRecord r;
  if (q.country != "MX") {
    r.outcome = "not_run";
    return r;
  }
  auto check = core::mx::CheckRfc(q.rfc, q.today);
  if (q.rfc.empty() || !check.valid) {
    r.outcome = "not_found";
    return r;
  }
  const std::string prefix = q.rfc.substr(0, 3);
  if (prefix == "UNA") {
    r.outcome = "unavailable";
    r.error_code = "REGISTRY_SANDBOX_UNAVAILABLE";
    return r;
  }
  if (prefix == "NEX") {
    r.outcome = "not_found";
    return r;
  }
  r.outcome = "found";
  r.authority = check.persona_moral ? "SE-SIGER" : "SAT-RFC";
  r.registry_id = "FME-" + core::Sha256Hex("svc/sandbox-registry|" + q.rfc).substr(0, 10);
  r.status = prefix == "DIS" ? "dissolved" : prefix == "SUS" ? "suspended" : "active";
  r.legal_name = q.legal_name;
  r.legal_form = check.persona_moral ? LegalFormOf(q.legal_name) : "persona física con actividad empresarial";
  r.incorporation_date = check.date.Iso();
  // The activity a sandbox company declares: from a keyword of its name, else wholesale trade.
  static const std::array<std::array<const char*, 3>, 6> kActivities = {{
      {"casino", "Casinos y juegos con apuesta", "713210"},
      {"joyeria", "Comercio de joyería y metales preciosos", "465112"},
      {"inmobiliari", "Servicios inmobiliarios", "531311"},
      {"automotriz", "Comercio de automóviles", "468111"},
      {"cripto", "Servicios de activos virtuales", "523999"},
      {"blindaje", "Blindaje de vehículos", "336390"},
  }};
  const std::string folded = " " + FoldName(q.legal_name) + " ";
  r.activity = "Comercio al por mayor de otros productos";
  r.industry_code = "435419";
  for (const auto& a : kActivities) {
    if (folded.find(a[0]) != std::string::npos) {
      r.activity = a[1];
      r.industry_code = a[2];
      break;
    }
  }
  return r;
}

}  // namespace svc::pipeline::kyb
