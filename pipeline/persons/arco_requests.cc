#include "pipeline/persons/arco_requests.h"

#include "commands/persons/person_decider.h"
#include "pipeline/persons/purposes.h"
#include "pipeline/persons/reveal_rules.h"
#include "projections/kyb/kyb_view.h"
#include "projections/persons/persons_view.h"
#include "projections/view_rows.h"

namespace svc::pipeline::persons {

namespace ps = commands::persons;
using PV = projections::PersonsView;
using KV = projections::KybView;

core::Result<commands::Command> OpenArcoCommand(const eventstore::KvStore& views, const PersonRef& who,
                                                const std::string& arco_id, ArcoOpening o,
                                                const ps::ArcoCalendar& calendar, commands::CommandContext ctx) {
  const std::string te = projections::TenantEnv(who.tenant, who.environment);
  if (o.subject_type == "person") {
    SVC_ASSIGN_OR_RETURN(auto person, projections::ReadRow(views, PV::Abs(PV::Record(te, who.person))));
    if (!person.has_value()) return core::NotFound("no such person", "PERSON_NOT_FOUND");
  } else {
    SVC_ASSIGN_OR_RETURN(auto company, projections::ReadRow(views, KV::Abs(KV::Company(te, o.company_id))));
    if (!company.has_value()) return core::NotFound("no such company", "COMPANY_NOT_FOUND");
    const bool member = o.subject_type == "company_member";
    bool found = false;
    for (const auto& m : company->value(member ? "members" : "uboNodes", core::Json::array())) {
      found |= core::StringOr(m, "id") == o.subject_id;
    }
    if (!found) {
      return member ? core::NotFound("no such member of this company", "COMPANY_MEMBER_NOT_FOUND")
                    : core::NotFound("no such ownership node of this company", "UBO_NODE_NOT_FOUND");
    }
    if (o.right != "cancellation") {
      return core::InvalidArgument("a company member's or owner's ARCO request is a cancellation (their erasure); the "
                                   "other rights are served for persons of the vault",
                                   "VALIDATION_ERROR");
    }
  }
  for (const auto& p : o.purposes) {
    if (!IsKnownPurpose(p)) return core::InvalidArgument("purpose " + p + " is not the catalogue's", "PURPOSE_UNKNOWN");
  }
  if (o.right == "opposition" && o.purposes.empty()) {
    return core::InvalidArgument("an opposition names the purposes objected to (purposes)", "VALIDATION_ERROR");
  }
  ps::OpenArcoRequest open;
  open.request.subject_type = o.subject_type;
  open.request.person_id = who.person;
  open.request.company_id = o.company_id;
  open.request.subject_id = o.subject_id;
  open.request.right = std::move(o.right);
  open.request.requester = o.requester.empty() ? "subject" : std::move(o.requester);
  open.request.identity_method = std::move(o.identity_method);
  open.request.identity_reference = std::move(o.identity_reference);
  open.request.reference = std::move(o.reference);
  open.request.purposes = std::move(o.purposes);
  open.request.submitted_micros = o.received_micros;
  open.calendar = calendar;
  auto cmd = commands::MakeCommand<ps::ArcoDecider>(who.tenant, arco_id, ps::ArcoCommand(std::move(open)), std::move(ctx));
  cmd.fresh_id = true;
  return cmd;
}

core::Result<commands::Command> OppositionCommand(const eventstore::KvStore& views, const PersonRef& who,
                                                  ps::OppositionRecorded opposition, commands::CommandContext ctx) {
  if (!IsKnownPurpose(opposition.purpose)) {
    return core::InvalidArgument("purpose must be one of the catalogue's (docs/persons.md#purposes)", "PURPOSE_UNKNOWN");
  }
  if (opposition.purpose == "arco_request") {
    return core::InvalidArgument("arco_request cannot be opposed: it serves the person's own rights", "VALIDATION_ERROR");
  }
  const std::string te = projections::TenantEnv(who.tenant, who.environment);
  SVC_ASSIGN_OR_RETURN(auto consents, projections::ScanRows(views, PV::Abs(PV::Consents(te, who.person))));
  ps::RecordOpposition r;
  for (const auto& c : consents) {
    if (core::StringOr(c, "purpose") == opposition.purpose && InForce(c, ctx.now)) r.revoke.push_back(core::StringOr(c, "id"));
  }
  r.opposition = std::move(opposition);
  return commands::MakeCommand<ps::PersonDecider>(who.tenant, who.person, ps::PersonCommand(std::move(r)), std::move(ctx));
}

}  // namespace svc::pipeline::persons
