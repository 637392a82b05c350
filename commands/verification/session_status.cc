#include "commands/verification/session_status.h"

namespace svc::commands::verification {

SessionPhase PhaseAfterVerdict(std::string_view outcome) {
  if (outcome == "approved") return {"approved", "", false, true, true};
  if (outcome == "declined") return {"declined", "", false, true, true};
  if (outcome == "review") return {"review", "review"};
  return {"awaiting_input", "document_capture"};  // more information requested
}

std::optional<SessionPhase> PhaseAfter(const SessionEvent& event) {
  return std::visit(
      [](const auto& e) -> std::optional<SessionPhase> {
        using T = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<T, SessionCreated>) {
          return SessionPhase{"pending", "consent"};
        } else if constexpr (std::is_same_v<T, ConsentRecorded>) {
          if (e.accepted) return SessionPhase{"in_progress", "document_capture", true};
          return SessionPhase{"abandoned", "", false, true};
        } else if constexpr (std::is_same_v<T, SessionExpired>) {
          return SessionPhase{"expired", "", false, true};
        } else if constexpr (std::is_same_v<T, SessionSubmitted>) {
          return SessionPhase{"in_progress", "processing"};
        } else if constexpr (std::is_same_v<T, VerdictReached>) {
          return PhaseAfterVerdict(e.outcome);
        } else {
          return std::nullopt;
        }
      },
      event);
}

std::vector<std::string> RequestedCaptures(const std::vector<std::string>& reason_codes) {
  static constexpr std::pair<std::string_view, std::string_view> kAsks[] = {
      {"DOCUMENT_FRONT_REQUIRED", "document_front"}, {"DOCUMENT_UNREADABLE", "document_front"},
      {"DOCUMENT_SIDE_MISSING", "document_front"},   {"DOCUMENT_BACK_REQUIRED", "document_back"},
      {"DOCUMENT_UNREADABLE", "document_back"},      {"DOCUMENT_SIDE_MISSING", "document_back"},
      {"SELFIE_REQUIRED", "selfie"},                 {"SELFIE_UNUSABLE", "selfie"},
      {"LIVENESS_VIDEO_REQUIRED", "liveness_video"}};
  std::vector<std::string> out;
  for (const auto& [code, kind] : kAsks) {
    if (!out.empty() && out.back() == kind) continue;  // asked already by another code
    for (const auto& c : reason_codes) {
      if (c == code) {
        out.emplace_back(kind);
        break;
      }
    }
  }
  return out;
}

const std::vector<std::string>& SessionStatuses() {
  static const std::vector<std::string> statuses = {"pending",  "in_progress", "review",  "awaiting_input",
                                                    "approved", "declined",    "expired", "abandoned"};
  return statuses;
}

bool IsOpenStatus(std::string_view s) {
  return s == "pending" || s == "in_progress" || s == "awaiting_input";
}

bool IsTerminalStatus(std::string_view s) {
  return s == "approved" || s == "declined" || s == "expired" || s == "abandoned";
}

core::Status CheckLive(const SessionFacts& s) {
  if (s.status == "expired" || (IsOpenStatus(s.status) && !s.processing && s.past_expiry)) {
    return core::Unauthenticated("the session has expired", "SESSION_EXPIRED");
  }
  if (IsTerminalStatus(s.status)) {
    return core::FailedPrecondition(
        "the session is already completed (" + std::string(s.status) + ")", "SESSION_COMPLETED");
  }
  return core::Status::Ok();
}

core::Status CheckCaptureOpen(const SessionFacts& s) {
  if (s.status == "pending") {
    return core::FailedPrecondition("record the subject's consent before capturing",
                                    "CONSENT_REQUIRED");
  }
  if (s.processing || s.status == "review") {
    return core::FailedPrecondition(
        "the session was submitted; captures are closed until more input is requested",
        "INVALID_STATE_TRANSITION");
  }
  return core::Status::Ok();
}

}  // namespace svc::commands::verification
