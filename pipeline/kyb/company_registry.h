#pragma once
// The company registry behind an interface (docs/kyb.md#registry): the verifier asks it for the
// record of a company by RFC. Two implementations:
//
// - SandboxCompanyRegistry: deterministic test companies, no network (the sandbox of the README's
//   "Real or sandbox"). Any valid moral RFC is found and active, with a registry id derived from
//   the RFC, the incorporation date the RFC carries, and the legal name the caller gave; RFCs
//   whose first three letters are DIS (dissolved), SUS (suspended), NEX (not in the registry) or
//   UNA (the registry does not answer) give those outcomes, and an activity keyword in the legal
//   name (CASINO, JOYERIA, INMOBILIARIA, …) becomes the registry's activity.
// - HttpCompanyRegistry (pipeline/adapters/company_registry_http.h): a registry gateway over HTTPS.
//
// Only Mexican companies (country MX) have a registry here; others are `not_run`.

#include <string>

#include "core/mx_ids.h"

namespace svc::pipeline::kyb {

struct RegistryQuery {
  std::string country;  // ISO 3166-1 alpha-2
  std::string rfc;      // normalised, "" none
  std::string legal_name;
  core::mx::CivilDate today;  // the clock's date: the RFC is checked against it
};

struct RegistryRecord {
  std::string outcome;  // found | not_found | unavailable | not_run
  std::string authority;  // e.g. SE-SIGER (Registro Público de Comercio)
  std::string registry_id;  // folio mercantil electrónico
  std::string status;       // active | suspended | dissolved
  std::string legal_name;   // as the registry has it (compared, not kept)
  std::string legal_form;
  std::string activity;
  std::string industry_code;  // SCIAN
  std::string incorporation_date;  // YYYY-MM-DD
  std::string error_code;          // unavailable: why
};

class CompanyRegistry {
 public:
  virtual ~CompanyRegistry() = default;
  virtual std::string Name() const = 0;  // sandbox | gateway
  virtual RegistryRecord Lookup(const RegistryQuery& q) = 0;
};

class SandboxCompanyRegistry final : public CompanyRegistry {
 public:
  std::string Name() const override { return "sandbox"; }
  RegistryRecord Lookup(const RegistryQuery& q) override;
};

// The legal form a Mexican legal name states (S.A. de C.V., S. de R.L., S.A.P.I., S.C., A.C., …),
// in words; "" when it states none.
std::string LegalFormOf(const std::string& legal_name);

}  // namespace svc::pipeline::kyb
