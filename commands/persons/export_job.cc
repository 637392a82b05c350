#include "commands/persons/export_job.h"

#include "commands/event_codec.h"
#include "commands/tenancy/tenant_decider.h"

namespace svc::commands::persons {

core::Result<ExportEvent> DecodeExport(const eventstore::EventEnvelope& envelope) {
  return DecodeEvent<ExportEvent>(envelope, "person export");
}

namespace {

core::Status MustBeQueued(const ExportState& s) {
  if (s.status.empty()) return core::NotFound("no such export job", "EXPORT_JOB_NOT_FOUND");
  if (s.status != "queued") {
    return core::FailedPrecondition("the export job is " + s.status, "INVALID_STATE_TRANSITION");
  }
  return core::Status::Ok();
}

}  // namespace

core::Result<Decision> ExportDecider::Decide(const ExportState& s, const ExportCommand& command,
                                             const StateReader& read, const CommandContext& ctx) {
  const auto* request = std::get_if<RequestExport>(&command);
  if (request == nullptr) return Decide(s, command, ctx);
  SVC_ASSIGN_OR_RETURN(AggregateView tenant, read(tenancy::TenantDecider::kName, request->tenant_id));
  const auto& t = StateOf<tenancy::TenantDecider>(tenant);
  if (t.export_key_id.empty()) {
    return core::FailedPrecondition(
        "the tenant has no export key: an operator sets one with `svc admin tenant export-key` "
        "(docs/persons.md#bulk-export)",
        "EXPORT_KEY_NOT_CONFIGURED");
  }
  RequestExport filled = *request;
  filled.request.recipient_key_id = t.export_key_id;
  filled.request.recipient_public_key = t.export_public_key;
  return Decide(s, ExportCommand(std::move(filled)), ctx);
}

core::Result<Decision> ExportDecider::Decide(const ExportState& s, const ExportCommand& command,
                                             const CommandContext&) {
  Decision d;
  return std::visit(
      [&](const auto& c) -> core::Result<Decision> {
        using T = std::decay_t<decltype(c)>;
        if constexpr (std::is_same_v<T, RequestExport>) {
          if (!s.status.empty()) return core::AlreadyExists("the export job exists", "CONFLICT");
          d.events.push_back(NewEventOf(ExportEvent(c.request)));
        } else if constexpr (std::is_same_v<T, RecordExportAccesses>) {
          SVC_RETURN_IF_ERROR(MustBeQueued(s));
          for (const auto& a : c.accesses) d.events.push_back(NewEventOf(ExportEvent(a)));
        } else if constexpr (std::is_same_v<T, CompleteExport>) {
          if (s.status == "ready") return d;  // idempotent: the first completion stands
          SVC_RETURN_IF_ERROR(MustBeQueued(s));
          d.events.push_back(NewEventOf(ExportEvent(c.done)));
        } else if constexpr (std::is_same_v<T, FailExport>) {
          if (s.status == "failed") return d;
          SVC_RETURN_IF_ERROR(MustBeQueued(s));
          d.events.push_back(NewEventOf(ExportEvent(c.failed)));
        } else {
          if (s.status == "expired") return d;
          if (s.status != "ready") {
            return core::FailedPrecondition("only a ready dump expires", "INVALID_STATE_TRANSITION");
          }
          d.events.push_back(NewEventOf(ExportEvent(ExportExpired{})));
        }
        return d;
      },
      command);
}

core::Status ExportDecider::Evolve(ExportState& s, const eventstore::EventEnvelope& e) {
  SVC_ASSIGN_OR_RETURN(ExportEvent event, DecodeExport(e));
  std::visit(
      [&](const auto& ev) {
        using T = std::decay_t<decltype(ev)>;
        if constexpr (std::is_same_v<T, ExportRequested>) s.status = "queued";
        if constexpr (std::is_same_v<T, PiiAccessed>) ++s.audited;
        if constexpr (std::is_same_v<T, ExportCompleted>) s.status = "ready";
        if constexpr (std::is_same_v<T, ExportFailed>) s.status = "failed";
        if constexpr (std::is_same_v<T, ExportExpired>) s.status = "expired";
      },
      event);
  return core::Status::Ok();
}

}  // namespace svc::commands::persons
