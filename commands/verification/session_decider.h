#pragma once
// The verification session aggregate (aggregate id = vrf_…): create, consent, capture, submit,
// the pipeline's stage results and verdict, and expiry. The transition table is in
// docs/verification-sessions.md; Decide enforces exactly that table.

#include <map>
#include <set>
#include <string>
#include <vector>
#include <variant>

#include "commands/command.h"
#include "commands/decider.h"
#include "commands/verification/session_events.h"
#include "commands/verification/session_status.h"

namespace svc::commands::verification {

struct SessionState {
  bool exists = false;
  std::string status;  // spec enum
  std::string current_step;
  int64_t created_micros = 0;
  int64_t updated_micros = 0;
  int64_t started_micros = 0;
  int64_t completed_micros = 0;
  int64_t expires_micros = 0;
  bool consent_recorded = false;
  bool consent_accepted = false;
  int64_t consent_recorded_micros = 0;
  int64_t decided_micros = 0;
  std::set<std::string> disabled_checks;  // checks switched off at create ("liveness", …)
  std::vector<std::string> media_ids;
  std::vector<std::string> media_kinds;   // parallel to media_ids
  int media_since_submit = 0;
  int submission = 0;          // submissions so far
  std::string tracking_id;     // of the latest submission
  bool processing = false;     // the pipeline runs for tracking_id
  std::set<std::string> stages_done;  // of tracking_id
  std::string outcome;         // latest verdict's outcome, "" = none
  core::Json trust_score;      // latest verdict's trust score (a number 0..1, or null)
  std::string case_id;
  bool active_liveness = false;  // checks.livenessMode = "active"
  bool liveness_file_allowed = false;  // checks.livenessFileAllowed (the flow's liveness step allows a file)
  struct Challenge {
    std::vector<std::string> actions;
    int64_t expires_micros = 0;
    bool spent = false;
    static constexpr auto Fields() {
      return std::tuple{core::Field("actions", &Challenge::actions),
                        core::Field("expires", &Challenge::expires_micros),
                        core::Field("spent", &Challenge::spent)};
    }
  };
  std::map<std::string, Challenge> challenges;  // by challenge id
  bool media_purged = false;  // the captures were deleted under the retention policy
  std::vector<std::string> flow_captures;  // empty: no flow (every kind its checks use)
  std::string embedded_id;                 // "" = not an embedded session
  std::vector<std::string> embedded_origins;
  std::string embedded_secret_hash;
  bool embedded_mounted = false;
  std::string embedded_parent;  // the origin that mounted it first ("" before, or in snapshots of before)
  int embedded_mounts = 0;
  std::string link_token_hash;
  int link_opens = 0;
  // Handoff links (HandoffIssued), by their token hash: when each expires, and whether it opened.
  struct Handoff {
    int64_t expires_micros = 0;
    bool used = false;
    static constexpr auto Fields() {
      return std::tuple{core::Field("expires", &Handoff::expires_micros), core::Field("used", &Handoff::used)};
    }
  };
  std::map<std::string, Handoff> handoffs;
  std::string efirma_check;  // the e.firma check (challenge id) the latest submission had

  // The snapshot's members (SessionDecider::ToJson / FromJson).
  static constexpr auto Fields() {
    using T = SessionState;
    return std::tuple{
        core::Field("exists", &T::exists),
        core::Field("status", &T::status),
        core::Field("currentStep", &T::current_step),
        core::Field("created", &T::created_micros),
        core::Field("updated", &T::updated_micros),
        core::Field("started", &T::started_micros),
        core::Field("completed", &T::completed_micros),
        core::Field("expires", &T::expires_micros),
        core::Field("consentRecorded", &T::consent_recorded),
        core::Field("consentAccepted", &T::consent_accepted),
        core::Field("consentRecordedAt", &T::consent_recorded_micros),
        core::Field("decided", &T::decided_micros),
        core::Field("disabledChecks", &T::disabled_checks),
        core::Field("mediaIds", &T::media_ids),
        core::Field("mediaKinds", &T::media_kinds),
        core::Field("mediaSinceSubmit", &T::media_since_submit),
        core::Field("submission", &T::submission),
        core::Field("trackingId", &T::tracking_id),
        core::Field("processing", &T::processing),
        core::Field("stagesDone", &T::stages_done),
        core::Field("outcome", &T::outcome),
        core::Field("trustScore", &T::trust_score, core::Shape::kNumberOrNull),
        core::Field("caseId", &T::case_id),
        core::Field("activeLiveness", &T::active_liveness),
        core::Field("livenessFileAllowed", &T::liveness_file_allowed),
        core::Field("challenges", &T::challenges),
        core::Field("mediaPurged", &T::media_purged),
        core::Field("flowCaptures", &T::flow_captures, core::Empty::kOmit),
        core::Field("embeddedId", &T::embedded_id, core::Empty::kOmit),
        core::Field("embeddedOrigins", &T::embedded_origins, core::Empty::kOmit),
        core::Field("embeddedSecretHash", &T::embedded_secret_hash, core::Empty::kOmit),
        core::Field("embeddedMounted", &T::embedded_mounted, core::Empty::kOmit),
        core::Field("embeddedParent", &T::embedded_parent, core::Empty::kOmit),
        core::Field("embeddedMounts", &T::embedded_mounts, core::Empty::kOmit),
        core::Field("linkTokenHash", &T::link_token_hash, core::Empty::kOmit),
        core::Field("linkOpens", &T::link_opens, core::Empty::kOmit),
        core::Field("handoffs", &T::handoffs, core::Empty::kOmit),
        core::Field("efirmaCheck", &T::efirma_check, core::Empty::kOmit)};
  }

  bool Terminal() const { return IsTerminalStatus(status); }
  // Capture and submit are possible (given consent and no running pipeline).
  bool Open() const { return IsOpenStatus(status); }
};

// Most captures a session keeps (a retake is a new capture).
inline constexpr size_t kMaxMediaPerSession = 20;
// Active liveness: most challenges a session issues, and how long one stays valid.
inline constexpr size_t kMaxChallengesPerSession = 10;
inline constexpr int64_t kChallengeTtlMicros = 120'000'000;  // 2 minutes
// The `check` extension of CHECK_NOT_ENABLED_FOR_FLOW for active liveness.
inline constexpr const char* kActiveLivenessCheck = "active_liveness";

struct CreateSession {
  SessionCreated created;  // validated by the API layer; the decider checks state only
  std::optional<EmbeddedOpened> embedded;  // an embedded session opened with it
  static constexpr std::string_view kCommand = "CreateSession";
  static constexpr auto Fields() {
    using T = CreateSession;
    return std::tuple{core::Field("created", &T::created),
                      core::Field("embedded", &T::embedded)};
  }
};
// The widget's init (docs/embedded.md#credentials): the clientSecret (as its keyed hash) swapped for
// an applicant token, from a parent page of an allowed origin; again only from the origin that
// mounted it first (the frame reloaded), at most kMaxLinkOpens times. An answered session mounts
// too: the page shows its outcome (its token can no longer capture or submit).
// The hosted page's open (docs/embedded.md#the-hosted-page): the link token (as its keyed hash)
// swapped for an applicant token; again on a new open, at most kMaxLinkOpens times. An answered
// session opens too: the page shows its outcome.
struct OpenLink {
  std::string link_token_hash;
  std::string applicant_token_hash;
  static constexpr std::string_view kCommand = "OpenLink";
  static constexpr auto Fields() {
    using T = OpenLink;
    return std::tuple{core::Field("linkTokenHash", &T::link_token_hash),
                      core::Field("applicantTokenHash", &T::applicant_token_hash)};
  }
};
inline constexpr int kMaxLinkOpens = 10;
// The applicant's page asks for a link to continue on another device (docs/embedded.md#handoff):
// its token (as its keyed hash) opens the session once, within kHandoffSeconds; at most
// kMaxHandoffs a session.
struct IssueHandoff {
  std::string link_token_hash;
  static constexpr std::string_view kCommand = "IssueHandoff";
  static constexpr auto Fields() { return std::tuple{core::Field("linkTokenHash", &IssueHandoff::link_token_hash)}; }
};
inline constexpr int64_t kHandoffSeconds = 600;
inline constexpr size_t kMaxHandoffs = 5;
struct MountEmbedded {
  std::string client_secret_hash;
  std::string parent_origin;  // normalised; "" = not given (ORIGIN_NOT_ALLOWED)
  std::string applicant_token_hash;
  static constexpr std::string_view kCommand = "MountEmbedded";
  static constexpr auto Fields() {
    using T = MountEmbedded;
    return std::tuple{core::Field("clientSecretHash", &T::client_secret_hash),
                      core::Field("parentOrigin", &T::parent_origin),
                      core::Field("applicantTokenHash", &T::applicant_token_hash)};
  }
};
struct RecordConsent {
  bool accepted = false;
  int64_t consented_at_micros = 0;  // 0 = now
  std::string policy_version;
  std::string subject_sealed;
  static constexpr std::string_view kCommand = "RecordConsent";
  static constexpr auto Fields() {
    using T = RecordConsent;
    return std::tuple{core::Field("accepted", &T::accepted),
                      core::Field("consentedAtMicros", &T::consented_at_micros),
                      core::Field("policyVersion", &T::policy_version),
                      core::Field("subjectSealed", &T::subject_sealed)};
  }
};
struct ExpireSession {
  static constexpr std::string_view kCommand = "ExpireSession";
  static constexpr auto Fields() { return std::tuple{}; }
};
struct CaptureMedia {
  MediaCaptured media;
  static constexpr std::string_view kCommand = "CaptureMedia";
  static constexpr auto Fields() {
    using T = CaptureMedia;
    return std::tuple{core::Field("media", &T::media)};
  }
};
// `challenge.challenge_id` and `challenge.actions` are drawn by the caller; the decider sets the
// expiry from the clock.
struct IssueLivenessChallenge {
  LivenessChallengeIssued challenge;
  static constexpr std::string_view kCommand = "IssueLivenessChallenge";
  static constexpr auto Fields() {
    using T = IssueLivenessChallenge;
    return std::tuple{core::Field("challenge", &T::challenge)};
  }
};
struct SubmitSession {
  std::string tracking_id;  // minted by the caller
  // The challenge id of the session's latest e.firma check ("" = none): one not in the last
  // submission is new input, as a capture is (a session asked for its e.firma can be submitted
  // again once it is signed).
  std::string efirma_check;
  static constexpr std::string_view kCommand = "SubmitSession";
  static constexpr auto Fields() {
    using T = SubmitSession;
    return std::tuple{core::Field("trackingId", &T::tracking_id),
                      core::Field("efirmaCheck", &T::efirma_check, core::Empty::kOmit)};
  }
};
struct RecordStage {
  StageCompleted stage;
  static constexpr std::string_view kCommand = "RecordStage";
  static constexpr auto Fields() {
    using T = RecordStage;
    return std::tuple{core::Field("stage", &T::stage)};
  }
};
struct RecordVerdict {
  VerdictReached verdict;
  static constexpr std::string_view kCommand = "RecordVerdict";
  static constexpr auto Fields() {
    using T = RecordVerdict;
    return std::tuple{core::Field("verdict", &T::verdict)};
  }
};
// A reviewer's resolution of the session's review case (docs/review.md): the verdict the case
// reached, recorded like the pipeline's (so its webhook follows). Only a session in `review` for
// that case moves; again, once moved, it records nothing (a retried resolution).
struct ResolveReview {
  VerdictReached verdict;
  static constexpr std::string_view kCommand = "ResolveReview";
  static constexpr auto Fields() {
    using T = ResolveReview;
    return std::tuple{core::Field("verdict", &T::verdict)};
  }
};

// The retention sweeper: a completed session's captures, `retention_days` after completion.
// A session not completed, not yet due, or already purged is left as it is (no events).
// The purger (a forgotten person's sessions): reason "forget", due at once, completed or not.
struct PurgeMedia {
  int64_t retention_days = 0;
  std::string reason = "retention";
  static constexpr std::string_view kCommand = "PurgeMedia";
  static constexpr auto Fields() {
    using T = PurgeMedia;
    return std::tuple{core::Field("retentionDays", &T::retention_days),
                      core::Field("reason", &T::reason)};
  }
};

using SessionCommand = std::variant<CreateSession, RecordConsent, ExpireSession, CaptureMedia,
                                    SubmitSession, RecordStage, RecordVerdict,
                                    IssueLivenessChallenge, PurgeMedia, ResolveReview, MountEmbedded,
                                    OpenLink, IssueHandoff>;

// The check a capture kind serves ("" = unknown kind).
std::string_view CheckForKind(std::string_view kind);
// Whether a kind is captured given the checks switched off: the document front serves the
// document check, face match (the portrait) and the government lookups (the CURP); the back
// serves the document check and the lookups; the selfie face match; the video liveness.
bool CaptureAllowed(std::string_view kind, const std::set<std::string>& disabled_checks);

// The LFPDPPP's notice before collecting (art. 15-17): a live session of the embedded or link
// channel carries the privacy notice its pages link (SessionCreated.privacy_notice_url, the
// application's), else PRIVACY_NOTICE_REQUIRED. Test sessions and the API channel need none.
core::Status CheckPrivacyNotice(std::string_view environment, const SessionCreated& created);

// A liveness video chosen from a file (capture_source "file") only where the session's checks
// say livenessFileAllowed (its flow's passive liveness step allows a file): CAPTURE_NOT_ALLOWED.
// The decider's rule, also checked from the read model before an upload's bytes are stored.
core::Status CheckCaptureSource(std::string_view kind, std::string_view capture_source, bool liveness_file_allowed);

struct SessionDecider : FieldSnapshots<SessionDecider, SessionState> {
  using CommandType = SessionCommand;
  using Event = SessionEvent;
  static constexpr std::string_view kName = kSessionAggregate;

  static core::Result<Decision> Decide(const SessionState& state, const SessionCommand& command,
                                       const CommandContext& ctx);
  static core::Status Evolve(SessionState& state, const eventstore::EventEnvelope& event);
  static void EvolveDecoded(SessionState& state, const SessionEvent& event,
                            core::Timestamp occurred_at);
  // The answer told again from the events a command appended (AggregateType::ResultOf).
  static core::Json ResultOf(const std::vector<eventstore::EventEnvelope>& events);
};

}  // namespace svc::commands::verification
