#include "pipeline/review/resolution.h"

#include "core/crypto.h"
#include "core/log.h"
#include "projections/review/review_view.h"

namespace svc::pipeline::review {

namespace rv = commands::review;

std::string NoteAad(std::string_view case_id) { return "svc/case-note/v1|" + std::string(case_id); }

core::Result<std::string> SealCaseNote(eventstore::KeyStore& keys, std::string_view tenant,
                                       std::string_view environment, std::string_view case_id,
                                       std::string_view session_id, std::string_view note) {
  if (note.empty()) return std::string();
  if (session_id.empty()) {
    return core::FailedPrecondition("the case has no session to seal its notes under", "CASE_HAS_NO_SESSION");
  }
  SVC_ASSIGN_OR_RETURN(auto key, keys.Get(eventstore::KeyStore::SessionKeyName(tenant, environment, session_id)));
  if (!key.has_value()) {
    return core::FailedPrecondition("the session's data was erased: the case takes no notes", "CASE_CLOSED");
  }
  std::string sealed = core::Base64Encode(core::AeadSeal(*key, note, NoteAad(case_id)));
  core::SecureZero(*key);
  return sealed;
}

void ResolveCase(const ResolutionDeps& deps, std::string environment, std::string case_id, rv::ResolveCase cmd,
                 commands::CommandContext ctx, std::function<void(core::Result<commands::CommandOutcome>)> done) {
  const std::string tenant = cmd.tenant_id;
  deps.writer->Execute(
      commands::MakeReadingCommand<rv::CaseDecider>(tenant, case_id, rv::CaseCommand(std::move(cmd)), std::move(ctx)),
      [deps, tenant, environment, case_id, done](core::Result<commands::CommandOutcome> r) {
        const bool final = r.ok() && r->result.value("outcome", core::Json()).is_string();
        if (!final || deps.outcomes == nullptr || deps.work_pool == nullptr) return done(std::move(r));
        auto positions = r->positions;
        deps.projections->WhenApplied(
            std::move(positions), {projections::ReviewView::kName}, deps.wait_for_views,
            [deps, tenant, environment, case_id, done, out = std::move(*r)](bool) {
              deps.work_pool->Post([deps, tenant, environment, case_id, done, out] {
                auto st = deps.outcomes->Settle(tenant, environment, case_id);
                if (!st.ok()) {
                  core::LogWarn("review outcome not recorded yet; the outcome writer retries", {{"caseId", case_id}});
                }
                done(out);
              });
            });
      });
}

}  // namespace svc::pipeline::review
