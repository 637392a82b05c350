#include "pipeline/kyb/company_writes.h"

#include "commands/claims/claim_writer.h"
#include "commands/kyb/company_decider.h"

namespace svc::pipeline::kyb {

namespace cl = commands::claims;
namespace kc = commands::kyb;

void CreateCompany(commands::Writer& writer, const KybKeys& keys, const NewCompany& c, commands::CommandContext ctx,
                   std::function<void(core::Result<commands::CommandOutcome>)> done) {
  auto aad = [&c](const char* field) { return KybAad(c.tenant, c.environment, c.id, field); };
  kc::CompanyCreated e;
  e.legal_name_sealed = SealValue(keys, aad("legalName"), c.legal_name);
  if (!c.trade_name.empty()) e.trade_name_sealed = SealValue(keys, aad("tradeName"), c.trade_name);
  e.country = c.country;
  if (!c.rfc.empty()) {
    e.rfc_sealed = SealValue(keys, aad("rfc"), c.rfc);
    e.rfc_blind = RfcBlind(keys, c.tenant, c.environment, c.rfc);
  }
  e.rfc_kind = c.rfc_kind;
  e.subject_kind = c.subject_kind;
  const std::string blind = e.rfc_blind;
  auto cmd = commands::MakeCommand<kc::CompanyDecider>(c.tenant, c.id, kc::CompanyCommand(kc::CreateCompany{std::move(e)}),
                                                       std::move(ctx));
  if (blind.empty()) return writer.Execute(std::move(cmd), std::move(done));
  cl::TakeClaim take;
  take.conflict_code = "RFC_CONFLICT";
  take.conflict_member = "conflictingCompanyId";
  take.holds.kind = cl::HoldsRule::kCompanyExists;
  cl::RunWithClaim(writer, cl::ClaimId("rfc", c.environment, blind), std::move(take), std::move(cmd), std::move(done));
}

}  // namespace svc::pipeline::kyb
