#include "commands/claims/claim_writer.h"

#include <memory>

namespace svc::commands::claims {

void RunWithClaim(Writer& writer, const std::string& claim_id, TakeClaim take, Command then, CommandCallback done) {
  take.holder = then.aggregate_id;
  take.holder_type = then.aggregate_type;
  CommandContext ctx = then.context;
  ctx.idempotency_key.clear();
  ctx.request_fingerprint.clear();
  const std::string tenant = then.tenant_id;
  RequireClaims(then, {{claim_id, take.conflict_code, take.conflict_member}});
  auto held = std::make_shared<Command>(std::move(then));
  writer.Execute(MakeReadingCommand<ClaimDecider>(tenant, claim_id, ClaimCommand(take), ctx),
                 [&writer, claim_id, tenant, ctx, held, done = std::move(done)](core::Result<CommandOutcome> claim) mutable {
                   if (!claim.ok()) return done(claim.status());
                   auto answer = ReadTake(claim->result);
                   if (!answer.ok()) return done(answer.status());
                   if (!answer->taken) {  // a take without a conflict code
                     return done(core::AlreadyExists("another holder has this value", "CONFLICT"));
                   }
                   const bool taken_here = !answer->already_held;
                   const std::string holder = held->aggregate_id;
                   writer.Execute(std::move(*held), [&writer, claim_id, tenant, ctx, taken_here, holder,
                                                     done = std::move(done)](core::Result<CommandOutcome> out) {
                     if (!out.ok() && taken_here) {
                       writer.Execute(MakeReadingCommand<ClaimDecider>(tenant, claim_id, ClaimCommand(ReleaseClaim{holder}), ctx),
                                      [](core::Result<CommandOutcome>) {});
                     }
                     done(std::move(out));
                   });
                 });
}

}  // namespace svc::commands::claims
