#include "commands/verification/session_decider.h"

namespace svc::commands::verification {

namespace {
NewEvent Make(const SessionEvent& e) {
  return NewEvent{std::string(TypeOf(e)), SchemaOf(e), EncodeData(e)};
}
}  // namespace

core::Result<Decision> SessionDecider::Decide(const SessionState& s, const SessionCommand& command,
                                              const CommandContext& ctx) {
  return std::visit(
      [&](const auto& c) -> core::Result<Decision> {
        using T = std::decay_t<decltype(c)>;
        Decision d;
        if constexpr (std::is_same_v<T, CreateSession>) {
          if (s.exists) return core::AlreadyExists("the session already exists", "CONFLICT");
          d.events.push_back(Make(c.created));
        } else if constexpr (std::is_same_v<T, RecordConsent>) {
          if (!s.exists) return core::NotFound("no such session", "SESSION_NOT_FOUND");
          if (s.status == "expired" || (!s.Terminal() && ctx.now.micros >= s.expires_micros)) {
            return core::Unauthenticated("the session has expired", "SESSION_EXPIRED");
          }
          if (s.Terminal()) {
            return core::FailedPrecondition("the session is already completed",
                                            "SESSION_COMPLETED");
          }
          if (s.consent_recorded) {
            if (s.consent_accepted == c.accepted) return d;  // the same answer again: no-op
            return core::FailedPrecondition("consent was already answered differently",
                                            "INVALID_STATE_TRANSITION");
          }
          if (s.status != "pending") {
            return core::FailedPrecondition("consent can only be recorded on a pending session",
                                            "INVALID_STATE_TRANSITION");
          }
          ConsentRecorded e;
          e.accepted = c.accepted;
          e.consented_at_micros = c.consented_at_micros != 0 ? c.consented_at_micros : ctx.now.micros;
          e.policy_version = c.policy_version;
          e.subject_sealed = c.subject_sealed;
          d.events.push_back(Make(e));
        } else if constexpr (std::is_same_v<T, ExpireSession>) {
          if (!s.exists) return core::NotFound("no such session", "SESSION_NOT_FOUND");
          // Only open sessions whose time has come; anything else is a no-op (timers may fire
          // late or twice).
          bool open = s.status == "pending" || s.status == "in_progress" ||
                      s.status == "awaiting_input";
          if (open && ctx.now.micros >= s.expires_micros) d.events.push_back(Make(SessionExpired{}));
        }
        return d;
      },
      command);
}

void SessionDecider::EvolveDecoded(SessionState& s, const SessionEvent& event,
                                   core::Timestamp at) {
  s.updated_micros = at.micros;
  std::visit(
      [&](const auto& e) {
        using T = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<T, SessionCreated>) {
          s.exists = true;
          s.status = "pending";
          s.current_step = "consent";
          s.created_micros = at.micros;
          s.expires_micros = e.expires_at_micros;
        } else if constexpr (std::is_same_v<T, ConsentRecorded>) {
          s.consent_recorded = true;
          s.consent_accepted = e.accepted;
          s.consent_recorded_micros = at.micros;
          if (e.accepted) {
            s.status = "in_progress";
            s.current_step = "document_capture";
            s.started_micros = at.micros;
          } else {
            s.status = "abandoned";
            s.current_step.clear();
            s.completed_micros = at.micros;
          }
        } else if constexpr (std::is_same_v<T, SessionExpired>) {
          s.status = "expired";
          s.current_step.clear();
          s.completed_micros = at.micros;
        }
      },
      event);
}

core::Status SessionDecider::Evolve(SessionState& s, const eventstore::EventEnvelope& event) {
  SVC_ASSIGN_OR_RETURN(SessionEvent e, Decode(event));
  EvolveDecoded(s, e, event.occurred_at);
  return core::Status::Ok();
}

core::Json SessionDecider::ToJson(const SessionState& s) {
  return {{"exists", s.exists},
          {"status", s.status},
          {"currentStep", s.current_step},
          {"created", s.created_micros},
          {"updated", s.updated_micros},
          {"started", s.started_micros},
          {"completed", s.completed_micros},
          {"expires", s.expires_micros},
          {"consentRecorded", s.consent_recorded},
          {"consentAccepted", s.consent_accepted},
          {"consentRecordedAt", s.consent_recorded_micros}};
}

core::Result<SessionState> SessionDecider::FromJson(std::string_view text) {
  core::Json j = core::ParseJsonOrDiscarded(text);
  if (!j.is_object()) return core::DataLoss("session state is not a JSON object");
  SessionState s;
  s.exists = j.value("exists", false);
  s.status = j.value("status", "");
  s.current_step = j.value("currentStep", "");
  s.created_micros = j.value("created", int64_t{0});
  s.updated_micros = j.value("updated", int64_t{0});
  s.started_micros = j.value("started", int64_t{0});
  s.completed_micros = j.value("completed", int64_t{0});
  s.expires_micros = j.value("expires", int64_t{0});
  s.consent_recorded = j.value("consentRecorded", false);
  s.consent_accepted = j.value("consentAccepted", false);
  s.consent_recorded_micros = j.value("consentRecordedAt", int64_t{0});
  return s;
}

}  // namespace svc::commands::verification
