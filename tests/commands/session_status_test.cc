// The session status machine (commands/verification/session_status.h), row by row: the one
// table the decider, the sessions projector, the pipeline and the upload route share.
#include <doctest/doctest.h>

#include "commands/verification/session_status.h"

namespace commands_session_status_test {

using namespace svc;
using namespace svc::commands::verification;

namespace {

std::string Row(const std::optional<SessionPhase>& p) {
  if (!p) return "-";
  return std::string(p->status) + "/" + std::string(p->current_step) + (p->starts ? " starts" : "") +
         (p->completes ? " completes" : "") + (p->decides ? " decides" : "");
}

VerdictReached Verdict(std::string outcome) {
  VerdictReached v;
  v.outcome = std::move(outcome);
  return v;
}

ConsentRecorded Consent(bool accepted) {
  ConsentRecorded c;
  c.accepted = accepted;
  return c;
}

}  // namespace

TEST_CASE("session status: where each event leaves a session") {
  CHECK(Row(PhaseAfter(SessionCreated{})) == "pending/consent");
  CHECK(Row(PhaseAfter(Consent(true))) == "in_progress/document_capture starts");
  CHECK(Row(PhaseAfter(Consent(false))) == "abandoned/ completes");
  CHECK(Row(PhaseAfter(SessionExpired{})) == "expired/ completes");
  CHECK(Row(PhaseAfter(SessionSubmitted{})) == "in_progress/processing");
  CHECK(Row(PhaseAfter(Verdict("approved"))) == "approved/ completes decides");
  CHECK(Row(PhaseAfter(Verdict("declined"))) == "declined/ completes decides");
  CHECK(Row(PhaseAfter(Verdict("review"))) == "review/review");
  CHECK(Row(PhaseAfter(Verdict("more_info"))) == "awaiting_input/document_capture");
  CHECK(Row(PhaseAfter(MediaCaptured{})) == "-");
  CHECK(Row(PhaseAfter(LivenessChallengeIssued{})) == "-");
  CHECK(Row(PhaseAfter(StageCompleted{})) == "-");
}

TEST_CASE("session status: open and terminal statuses") {
  for (const char* s : {"pending", "in_progress", "awaiting_input"}) {
    CHECK(IsOpenStatus(s));
    CHECK_FALSE(IsTerminalStatus(s));
  }
  for (const char* s : {"approved", "declined", "expired", "abandoned"}) {
    CHECK_FALSE(IsOpenStatus(s));
    CHECK(IsTerminalStatus(s));
  }
  CHECK_FALSE(IsOpenStatus("review"));
  CHECK_FALSE(IsTerminalStatus("review"));
}

TEST_CASE("session status: the capture rules, with the codes a caller sees") {
  auto code = [](const core::Status& st) { return std::string(st.api_code()); };
  CHECK(code(CheckLive({"expired"})) == "SESSION_EXPIRED");
  CHECK(code(CheckLive({"in_progress", false, true})) == "SESSION_EXPIRED");
  CHECK(CheckLive({"in_progress", true, true}).ok());  // a running pipeline outlives expiresAt
  CHECK(code(CheckLive({"approved"})) == "SESSION_COMPLETED");
  CHECK(code(CheckLive({"abandoned"})) == "SESSION_COMPLETED");
  CHECK(CheckLive({"review", false, true}).ok());  // review is neither open nor completed
  CHECK(code(CheckCaptureOpen({"pending"})) == "CONSENT_REQUIRED");
  CHECK(code(CheckCaptureOpen({"in_progress", true})) == "INVALID_STATE_TRANSITION");
  CHECK(code(CheckCaptureOpen({"review"})) == "INVALID_STATE_TRANSITION");
  CHECK(CheckCaptureOpen({"in_progress"}).ok());
  CHECK(CheckCaptureOpen({"awaiting_input"}).ok());
}

TEST_CASE("session status: the captures a 'more information' verdict asks for again") {
  using svc::commands::verification::RequestedCaptures;
  CHECK(RequestedCaptures({"DOCUMENT_BACK_REQUIRED"}) == std::vector<std::string>{"document_back"});
  CHECK(RequestedCaptures({"LIVENESS_VIDEO_REQUIRED", "IMAGE_QUALITY_LOW", "DOCUMENT_FRONT_REQUIRED"}) ==
        std::vector<std::string>{"document_front", "liveness_video"});
  CHECK(RequestedCaptures({"FACE_MATCH_INCONCLUSIVE"}).empty());  // none named: every capture again
  // A reviewer's codes (commands/review/reason_codes.cc) name captures too.
  CHECK(RequestedCaptures({"SELFIE_UNUSABLE"}) == std::vector<std::string>{"selfie"});
  CHECK(RequestedCaptures({"DOCUMENT_UNREADABLE", "DOCUMENT_BACK_REQUIRED"}) ==
        std::vector<std::string>{"document_front", "document_back"});
  CHECK(RequestedCaptures({"REVIEW_MORE_INFO", "DOCUMENT_SIDE_MISSING", "SELFIE_REQUIRED", "SELFIE_UNUSABLE"}) ==
        std::vector<std::string>{"document_front", "document_back", "selfie"});
  CHECK(RequestedCaptures({"REVIEW_MORE_INFO"}).empty());
}

}  // namespace commands_session_status_test
