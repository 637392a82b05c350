#include "pipeline/kyb/company_writes.h"

#include "commands/claims/claim_writer.h"
#include "commands/kyb/company_decider.h"
#include "projections/kyb/kyb_view.h"
#include "projections/persons/arco_queries.h"
#include "projections/view_rows.h"

namespace svc::pipeline::kyb {

namespace cl = commands::claims;
namespace kc = commands::kyb;
using KV = projections::KybView;

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

core::Result<commands::Command> ForgetSubjectCommand(const eventstore::KvStore& views, const SubjectErasure& e,
                                                     commands::CommandContext ctx) {
  const std::string te = projections::TenantEnv(e.tenant, e.environment);
  SVC_ASSIGN_OR_RETURN(auto row, projections::ReadRow(views, KV::Abs(KV::Company(te, e.company))));
  if (!row.has_value()) return core::NotFound("no such company", "COMPANY_NOT_FOUND");
  const bool member = e.subject_type == "member";
  const core::Json* found = nullptr;
  for (const auto& m : (*row)[member ? "members" : "uboNodes"]) {
    if (core::StringOr(m, "id") == e.subject_id) found = &m;
  }
  if (found == nullptr) {
    return member ? core::NotFound("no such member of this company", "COMPANY_MEMBER_NOT_FOUND")
                  : core::NotFound("no such ownership node of this company", "UBO_NODE_NOT_FOUND");
  }
  if (core::StringOr(*found, "sealedWith") != "record") {
    return core::FailedPrecondition("this name was sealed under the KYB key, before members and owners had keys of "
                                    "their own: it cannot be erased by destroying a key",
                                    "CONFLICT");
  }
  if (!e.arco_request_id.empty()) {
    SVC_RETURN_IF_ERROR(projections::CheckArcoFulfilment(views, te, e.arco_request_id, "member_erasure", e.subject_id));
  }
  kc::SubjectForgotten f{e.subject_type, e.subject_id, e.reason, e.arco_request_id};
  return commands::MakeCommand<kc::CompanyDecider>(e.tenant, e.company, kc::CompanyCommand(kc::ForgetSubject{f}),
                                                   std::move(ctx));
}

}  // namespace svc::pipeline::kyb
