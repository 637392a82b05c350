#include "commands/verification/session_decider.h"

#include "commands/event_codec.h"
#include "core/crypto.h"
#include <algorithm>

namespace svc::commands::verification {

namespace {
NewEvent Make(const SessionEvent& e) {
  return NewEvent{std::string(TypeOf(e)), SchemaOf(e), EncodeData(e), e};
}

// The verdict with the event type its outcome gives (session_events.h, VerdictTypeFor).
core::Result<VerdictReached> Typed(VerdictReached v) {
  const std::string_view type = VerdictTypeFor(v.outcome);
  if (type.empty()) return core::InvalidArgument("a verdict without a known outcome: " + v.outcome);
  v.type = std::string(type);
  return v;
}

SessionFacts Facts(const SessionState& s, const CommandContext& ctx) {
  return {s.status, s.processing, ctx.now.micros >= s.expires_micros};
}

// Exists, not expired, not completed (session_status.h).
core::Status GuardLive(const SessionState& s, const CommandContext& ctx) {
  if (!s.exists) return core::NotFound("no such session", "SESSION_NOT_FOUND");
  return CheckLive(Facts(s, ctx));
}

}  // namespace

bool CaptureAllowed(std::string_view kind, const std::set<std::string>& off) {
  auto on = [&](const char* check) { return off.count(check) == 0; };
  if (kind == "document_front") return on("document") || on("faceMatch") || on("governmentLookup");
  if (kind == "document_back") return on("document") || on("governmentLookup");
  if (kind == "selfie") return on("faceMatch");
  if (kind == "liveness_video") return on("liveness");
  return false;
}

core::Status CheckPrivacyNotice(std::string_view environment, const SessionCreated& created) {
  if (environment == "live" && (created.channel == "link" || created.channel == "embed") &&
      created.privacy_notice_url.empty()) {
    return core::InvalidArgument(
        "the application has no privacy notice (svc admin app settings --privacy-notice-url): "
        "live sessions of the embedded and link channels show it to the applicant",
        "PRIVACY_NOTICE_REQUIRED");
  }
  return core::Status::Ok();
}

core::Status CheckCaptureSource(std::string_view kind, std::string_view capture_source, bool liveness_file_allowed) {
  if (capture_source == "file" && kind == "liveness_video" && !liveness_file_allowed) {
    return core::FailedPrecondition("this session records liveness from the camera only: its flow does not allow a file",
                                    "CAPTURE_NOT_ALLOWED");
  }
  return core::Status::Ok();
}

std::string_view CheckForKind(std::string_view kind) {
  if (kind == "document_front" || kind == "document_back") return "document";
  if (kind == "selfie") return "faceMatch";
  if (kind == "liveness_video") return "liveness";
  return "";
}

core::Result<Decision> SessionDecider::Decide(const SessionState& s, const SessionCommand& command,
                                              const CommandContext& ctx) {
  return std::visit(
      [&](const auto& c) -> core::Result<Decision> {
        using T = std::decay_t<decltype(c)>;
        Decision d;
        if constexpr (std::is_same_v<T, CreateSession>) {
          if (s.exists) return core::AlreadyExists("the session already exists", "CONFLICT");
          SVC_RETURN_IF_ERROR(CheckPrivacyNotice(ctx.environment, c.created));
          d.events.push_back(Make(c.created));
          if (c.embedded) d.events.push_back(Make(*c.embedded));
        } else if constexpr (std::is_same_v<T, OpenLink>) {
          const bool own = s.exists && !s.link_token_hash.empty() && s.link_token_hash.size() == c.link_token_hash.size() &&
                           core::ConstantTimeEquals(s.link_token_hash, c.link_token_hash);
          const auto handoff = own ? s.handoffs.end() : s.handoffs.find(c.link_token_hash);
          if (!own && handoff == s.handoffs.end()) return core::Unauthenticated("the link is not valid", "SESSION_INVALID");
          if (s.status == "expired" || (!s.Terminal() && ctx.now.micros >= s.expires_micros)) {
            return core::Unauthenticated("the session has expired", "SESSION_EXPIRED");
          }
          if (!own) {
            // A handoff opens once, while it lasts.
            if (handoff->second.used) {
              return core::FailedPrecondition("this handoff link was already opened; ask for a new one",
                                              "SESSION_ALREADY_USED");
            }
            if (ctx.now.micros >= handoff->second.expires_micros) {
              return core::Unauthenticated("this handoff link has expired; ask for a new one", "SESSION_EXPIRED");
            }
            d.events.push_back(Make(LinkOpened{c.applicant_token_hash, c.link_token_hash}));
            return d;
          }
          if (s.link_opens >= kMaxLinkOpens) {
            return core::FailedPrecondition("this link was opened too many times; ask for a new one",
                                            "SESSION_ALREADY_USED");
          }
          d.events.push_back(Make(LinkOpened{c.applicant_token_hash, ""}));
        } else if constexpr (std::is_same_v<T, IssueHandoff>) {
          if (!s.exists) return core::NotFound("no such session", "SESSION_NOT_FOUND");
          if (s.status == "expired" || (!s.Terminal() && ctx.now.micros >= s.expires_micros)) {
            return core::Unauthenticated("the session has expired", "SESSION_EXPIRED");
          }
          if (s.Terminal()) return core::FailedPrecondition("the session is already completed", "SESSION_COMPLETED");
          if (s.embedded_id.empty() && s.link_token_hash.empty()) {
            return core::FailedPrecondition("only a session walked in the widget or the hosted page is handed over",
                                            "CAPTURE_NOT_ALLOWED");
          }
          if (s.handoffs.size() >= kMaxHandoffs) {
            return core::FailedPrecondition("this session was handed to another device too many times",
                                            "SESSION_ALREADY_USED");
          }
          d.events.push_back(Make(HandoffIssued{c.link_token_hash, ctx.now.micros + kHandoffSeconds * 1'000'000}));
          d.result = {{"expiresAtMicros", ctx.now.micros + kHandoffSeconds * 1'000'000}};
        } else if constexpr (std::is_same_v<T, MountEmbedded>) {
          auto invalid = [] {
            return core::Unauthenticated("the clientSecret is not valid", "SESSION_INVALID");
          };
          if (!s.exists || s.embedded_id.empty() || s.embedded_secret_hash.size() != c.client_secret_hash.size() ||
              !core::ConstantTimeEquals(s.embedded_secret_hash, c.client_secret_hash)) {
            return invalid();
          }
          if (s.status == "expired" || (!s.Terminal() && ctx.now.micros >= s.expires_micros)) {
            return core::Unauthenticated("the session has expired", "SESSION_EXPIRED");
          }
          if (s.embedded_mounted &&
              (s.embedded_parent.empty() || c.parent_origin != s.embedded_parent || s.embedded_mounts >= kMaxLinkOpens)) {
            return core::FailedPrecondition(
                "this clientSecret was already swapped for an applicant token by another page, or too many times; "
                "create a new embedded session",
                "SESSION_ALREADY_USED");
          }
          if (std::find(s.embedded_origins.begin(), s.embedded_origins.end(), c.parent_origin) ==
              s.embedded_origins.end()) {
            return core::PermissionDenied(
                c.parent_origin.empty() ? "send parentOrigin: the origin of the page that mounts the widget"
                                        : "the origin " + c.parent_origin + " is not among the session's allowedOrigins",
                "ORIGIN_NOT_ALLOWED");
          }
          d.events.push_back(Make(EmbeddedMounted{c.parent_origin, c.applicant_token_hash}));
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
          if (s.Open() && !s.processing && ctx.now.micros >= s.expires_micros) {
            d.events.push_back(Make(SessionExpired{}));
          }
        } else if constexpr (std::is_same_v<T, CaptureMedia>) {
          SVC_RETURN_IF_ERROR(GuardLive(s, ctx));
          SVC_RETURN_IF_ERROR(CheckCaptureOpen(Facts(s, ctx)));
          std::string_view check = CheckForKind(c.media.kind);
          if (check.empty()) return core::InvalidArgument("unknown media kind", "UNKNOWN_MEDIA_KIND");
          if (!s.flow_captures.empty() &&
              std::find(s.flow_captures.begin(), s.flow_captures.end(), c.media.kind) == s.flow_captures.end()) {
            return core::FailedPrecondition("the session's flow has no " + c.media.kind + " step",
                                            "CAPTURE_NOT_ALLOWED");
          }
          if (!CaptureAllowed(c.media.kind, s.disabled_checks)) {
            return core::FailedPrecondition(
                "the checks that use " + c.media.kind + " are off for this session",
                "CAPTURE_NOT_ALLOWED");
          }
          if (s.media_ids.size() >= kMaxMediaPerSession) {
            return core::FailedPrecondition("this session already holds the most captures (" +
                                                std::to_string(kMaxMediaPerSession) + ")",
                                            "CAPTURE_NOT_ALLOWED");
          }
          SVC_RETURN_IF_ERROR(CheckCaptureSource(c.media.kind, c.media.capture_source, s.liveness_file_allowed));
          MediaCaptured e = c.media;
          if (c.media.kind == "liveness_video" && s.active_liveness) {
            if (c.media.challenge_id.empty()) {
              return core::InvalidArgument(
                  "this session uses active liveness: send the challengeId of a challenge from "
                  "POST …/liveness-challenges with the video",
                  "CHALLENGE_ID_REQUIRED");
            }
            auto it = s.challenges.find(c.media.challenge_id);
            if (it == s.challenges.end() || it->second.spent ||
                ctx.now.micros >= it->second.expires_micros) {
              return core::PermissionDenied(
                  it == s.challenges.end() ? "no such liveness challenge for this session"
                  : it->second.spent       ? "this liveness challenge was already used"
                                           : "this liveness challenge has expired",
                  "CAPTURE_CREDENTIAL_INVALID");
            }
            e.challenge_actions = it->second.actions;
          } else if (!c.media.challenge_id.empty()) {
            return core::InvalidArgument("active liveness is not on for this session",
                                         "CHECK_NOT_ENABLED_FOR_FLOW")
                .WithExtension("check", kActiveLivenessCheck);
          }
          d.events.push_back(Make(e));
          d.result = {{"mediaId", c.media.media_id}};
        } else if constexpr (std::is_same_v<T, IssueLivenessChallenge>) {
          SVC_RETURN_IF_ERROR(GuardLive(s, ctx));
          if (!s.active_liveness || s.disabled_checks.count("liveness") > 0) {
            return core::InvalidArgument(
                "active liveness is not on for this session (create it with "
                "checks.livenessMode = \"active\")",
                "CHECK_NOT_ENABLED_FOR_FLOW")
                .WithExtension("check", kActiveLivenessCheck);
          }
          SVC_RETURN_IF_ERROR(CheckCaptureOpen(Facts(s, ctx)));
          if (s.challenges.size() >= kMaxChallengesPerSession) {
            return core::FailedPrecondition("this session already issued the most liveness challenges (" +
                                                std::to_string(kMaxChallengesPerSession) + ")",
                                            "CAPTURE_NOT_ALLOWED");
          }
          LivenessChallengeIssued e = c.challenge;
          e.expires_at_micros = std::min(ctx.now.micros + kChallengeTtlMicros, s.expires_micros);
          d.events.push_back(Make(e));
          d.result = {{"challengeId", e.challenge_id},
                      {"actions", e.actions},
                      {"expiresAtMicros", e.expires_at_micros}};
        } else if constexpr (std::is_same_v<T, SubmitSession>) {
          SVC_RETURN_IF_ERROR(GuardLive(s, ctx));
          if (s.status == "pending") {
            return core::FailedPrecondition("record the subject's consent before submitting",
                                            "CONSENT_REQUIRED");
          }
          if (s.processing || s.status == "review") {
            return core::FailedPrecondition("the session is already submitted",
                                            "SESSION_NOT_SUBMITTABLE");
          }
          const bool new_efirma = !c.efirma_check.empty() && c.efirma_check != s.efirma_check;
          if (s.media_since_submit == 0 && !new_efirma) {
            return core::FailedPrecondition(
                s.submission == 0 ? "capture at least one piece of media before submitting"
                                  : "capture what was requested before submitting again",
                "SESSION_NOT_SUBMITTABLE");
          }
          SessionSubmitted e;
          e.tracking_id = c.tracking_id;
          e.submission = s.submission + 1;
          e.media_ids = s.media_ids;
          e.efirma_check = c.efirma_check;
          d.events.push_back(Make(e));
          d.result = {{"trackingId", c.tracking_id}};
        } else if constexpr (std::is_same_v<T, RecordStage>) {
          if (!s.exists) return core::NotFound("no such session", "SESSION_NOT_FOUND");
          // A stage result is recorded once per submission; a repeat (a pipeline resumed after
          // a crash) or a result for an older submission is a no-op.
          if (s.processing && c.stage.tracking_id == s.tracking_id &&
              s.stages_done.count(c.stage.stage) == 0) {
            d.events.push_back(Make(c.stage));
          }
        } else if constexpr (std::is_same_v<T, RecordVerdict>) {
          if (!s.exists) return core::NotFound("no such session", "SESSION_NOT_FOUND");
          SVC_ASSIGN_OR_RETURN(VerdictReached v, Typed(c.verdict));
          if (s.processing && v.tracking_id == s.tracking_id) d.events.push_back(Make(v));
        } else if constexpr (std::is_same_v<T, ResolveReview>) {
          if (!s.exists) return core::NotFound("no such session", "SESSION_NOT_FOUND");
          if (s.case_id != c.verdict.case_id) {
            return core::FailedPrecondition("the session is not under this review case", "CASE_HAS_NO_SESSION");
          }
          SVC_ASSIGN_OR_RETURN(VerdictReached v, Typed(c.verdict));
          if (s.status == "review" && !s.processing) d.events.push_back(Make(v));
          d.result = {{"moved", s.status == "review" && !s.processing}};
        } else if constexpr (std::is_same_v<T, PurgeMedia>) {
          if (!s.exists) return core::NotFound("no such session", "SESSION_NOT_FOUND");
          const bool forget = c.reason == "forget";
          const bool due = forget || (s.Terminal() && c.retention_days >= 0 &&
                                      s.completed_micros + c.retention_days * 86'400'000'000 <= ctx.now.micros);
          if (due && !s.media_purged) {
            MediaPurged e;
            e.media_ids = s.media_ids;
            e.reason = forget ? "forget" : "retention";
            e.retention_days = c.retention_days;
            d.events.push_back(Make(e));
          }
          d.result = {{"purged", due && !s.media_purged}};
        }
        return d;
      },
      command);
}

void SessionDecider::EvolveDecoded(SessionState& s, const SessionEvent& event,
                                   core::Timestamp at) {
  s.updated_micros = at.micros;
  if (auto phase = PhaseAfter(event)) {
    s.status = phase->status;
    s.current_step = phase->current_step;
    if (phase->starts) s.started_micros = at.micros;
    if (phase->completes) s.completed_micros = at.micros;
    if (phase->decides) s.decided_micros = at.micros;
  }
  std::visit(
      [&](const auto& e) {
        using T = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<T, SessionCreated>) {
          s.exists = true;
          s.created_micros = at.micros;
          s.expires_micros = e.expires_at_micros;
          if (e.checks.is_object()) {
            for (auto it = e.checks.begin(); it != e.checks.end(); ++it) {
              if (it->is_boolean() && !it->template get<bool>()) s.disabled_checks.insert(it.key());
            }
            auto mode = e.checks.find("livenessMode");
            s.active_liveness = mode != e.checks.end() && *mode == "active";
            s.liveness_file_allowed = e.checks.value("livenessFileAllowed", false) == true;
          }
          s.flow_captures = e.flow_captures;
          s.link_token_hash = e.link_token_hash;
        } else if constexpr (std::is_same_v<T, LinkOpened>) {
          if (e.handoff_hash.empty()) {
            ++s.link_opens;
          } else {
            s.handoffs[e.handoff_hash].used = true;
          }
        } else if constexpr (std::is_same_v<T, HandoffIssued>) {
          s.handoffs[e.link_token_hash] = {e.expires_at_micros, false};
        } else if constexpr (std::is_same_v<T, EmbeddedOpened>) {
          s.embedded_id = e.embedded_id;
          s.embedded_origins = e.allowed_origins;
          s.embedded_secret_hash = e.client_secret_hash;
        } else if constexpr (std::is_same_v<T, EmbeddedMounted>) {
          if (!s.embedded_mounted) s.embedded_parent = e.parent_origin;
          s.embedded_mounted = true;
          ++s.embedded_mounts;
        } else if constexpr (std::is_same_v<T, ConsentRecorded>) {
          s.consent_recorded = true;
          s.consent_accepted = e.accepted;
          s.consent_recorded_micros = at.micros;
        } else if constexpr (std::is_same_v<T, MediaCaptured>) {
          s.media_ids.push_back(e.media_id);
          s.media_kinds.push_back(e.kind);
          ++s.media_since_submit;
          if (auto it = s.challenges.find(e.challenge_id); it != s.challenges.end()) it->second.spent = true;
        } else if constexpr (std::is_same_v<T, LivenessChallengeIssued>) {
          s.challenges[e.challenge_id] = {e.actions, e.expires_at_micros, false};
        } else if constexpr (std::is_same_v<T, SessionSubmitted>) {
          s.processing = true;
          s.tracking_id = e.tracking_id;
          s.submission = e.submission;
          s.stages_done.clear();
          s.media_since_submit = 0;
          if (!e.efirma_check.empty()) s.efirma_check = e.efirma_check;
        } else if constexpr (std::is_same_v<T, StageCompleted>) {
          s.stages_done.insert(e.stage);
        } else if constexpr (std::is_same_v<T, VerdictReached>) {
          s.processing = false;
          s.outcome = e.outcome;
          s.trust_score = e.trust_score;
          s.case_id = e.case_id;
        } else if constexpr (std::is_same_v<T, MediaPurged>) {
          s.media_purged = true;
        }
      },
      event);
}

core::Status SessionDecider::Evolve(SessionState& s, const eventstore::EventEnvelope& event) {
  SVC_ASSIGN_OR_RETURN(SessionEvent e, Decode(event));
  EvolveDecoded(s, e, event.occurred_at);
  return core::Status::Ok();
}

core::Json SessionDecider::ResultOf(const std::vector<eventstore::EventEnvelope>& events) {
  for (const auto& e : events) {
    const core::Json d = core::ParseJsonOrDiscarded(e.data);
    if (!d.is_object()) continue;
    if (e.type == MediaCaptured::kType) return {{"mediaId", d.value("mediaId", "")}};
    if (e.type == LivenessChallengeIssued::kType) {
      return {{"challengeId", d.value("challengeId", "")},
              {"actions", d.value("actions", core::Json::array())},
              {"expiresAtMicros", d.value("expiresAtMicros", int64_t{0})}};
    }
    if (e.type == SessionSubmitted::kType) return {{"trackingId", d.value("trackingId", "")}};
    if (e.type == HandoffIssued::kType) return {{"expiresAtMicros", d.value("expiresAtMicros", int64_t{0})}};
    if (e.type == MediaPurged::kType) return {{"purged", true}};
    // A verdict (VerdictReached, typed by its outcome): what a review's resolution moved.
    if (e.type == "verification.approved" || e.type == "verification.declined" ||
        e.type == "verification.review_required" || e.type == "verification.more_info_requested") {
      return {{"moved", true}};
    }
  }
  return nullptr;
}

}  // namespace svc::commands::verification
