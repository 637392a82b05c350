#pragma once
// Verification session events. Each lists its fields once (Fields(): camelCase names, how empty
// values are written), which drives both encoding and decoding (core/json_fields.h); the stored
// form is pinned by tests/commands/event_codecs.golden. Type names are stable and never renamed. No plaintext personal
// data: the consenting subject's IP address and user agent, the integrator's free-form `meta`
// and the link token are sealed (XChaCha20-Poly1305 under a server key, AAD = session id) before
// they enter an event.

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/json.h"
#include "core/json_fields.h"
#include "core/status.h"
#include "eventstore/envelope.h"

namespace svc::commands::verification {

inline constexpr std::string_view kSessionAggregate = "verification_session";


struct SessionCreated {
  static constexpr std::string_view kType = "verification.session_created";
  std::string public_id;
  std::string channel;
  std::string application_id;
  std::string flow_id;   // "" = null
  std::string flow;      // "" = null
  std::string person_id;  // "" = null
  std::optional<std::string> client_reference;  // none = null
  std::string country;
  std::string locale;
  std::string notifications_mode;
  std::string callback_url;  // "" = null
  std::string redirect_url;  // "" = null
  core::Json checks;         // object or null
  core::Json policy;         // object or null
  std::string meta_sealed;   // base64 of sealed JSON, "" = none
  std::string link_token_sealed;  // base64 of sealed token, "" = none
  int64_t expires_at_micros = 0;
  // A session of a published flow (docs/embedded.md#flows): the version it walks and the capture
  // kinds its steps have (a kind outside them is CAPTURE_NOT_ALLOWED). None: no flow.
  int64_t flow_version = 0;
  std::vector<std::string> flow_captures;
  // A link session: the keyed hash (HMAC-SHA256 under the key-lookup key) of its link token, by
  // which the hosted page finds it (docs/embedded.md#the-hosted-page). "" = none.
  std::string link_token_hash;
  // A session with a callbackUrl: the secret its callback deliveries are signed with (Standard
  // Webhooks v1), sealed (pipeline/webhooks/endpoint_secrets.h); shown once, in the 201. "" = none.
  std::string callback_secret_sealed;
  // A session of the embedded or link channel: the privacy notice (aviso de privacidad) the
  // applicant's pages link, the application's when the session was made: which notice was given,
  // for the record. "" = none (another channel, or a test session of an application without one).
  std::string privacy_notice_url;

  static constexpr auto Fields() {
    using T = SessionCreated;
    return std::tuple{core::Field("publicId", &T::public_id), core::Field("channel", &T::channel),
                      core::Field("applicationId", &T::application_id),
                      core::Field("flowId", &T::flow_id, core::Empty::kNull),
                      core::Field("flow", &T::flow, core::Empty::kNull),
                      core::Field("personId", &T::person_id, core::Empty::kNull),
                      core::Field("clientReference", &T::client_reference),
                      core::Field("country", &T::country), core::Field("locale", &T::locale),
                      core::Field("notificationsMode", &T::notifications_mode),
                      core::Field("callbackUrl", &T::callback_url, core::Empty::kNull),
                      core::Field("redirectUrl", &T::redirect_url, core::Empty::kNull),
                      core::Field("checks", &T::checks, core::Shape::kObjectOrNull),
                      core::Field("policy", &T::policy, core::Shape::kObjectOrNull),
                      core::Field("metaSealed", &T::meta_sealed, core::Empty::kNull),
                      core::Field("linkTokenSealed", &T::link_token_sealed, core::Empty::kNull),
                      core::Field("expiresAtMicros", &T::expires_at_micros),
                      core::Field("flowVersion", &T::flow_version, core::Empty::kOmit),
                      core::Field("flowCaptures", &T::flow_captures, core::Empty::kOmit),
                      core::Field("linkTokenHash", &T::link_token_hash, core::Empty::kOmit),
                      core::Field("callbackSecretSealed", &T::callback_secret_sealed, core::Empty::kOmit),
                      core::Field("privacyNoticeUrl", &T::privacy_notice_url, core::Empty::kOmit)};
  }
};

struct ConsentRecorded {
  static constexpr std::string_view kType = "verification.consent_recorded";
  bool accepted = false;
  int64_t consented_at_micros = 0;  // the subject's time, or the record time when not given
  std::string policy_version;
  std::string subject_sealed;  // base64 of sealed {"ip":…, "userAgent":…}, "" = none

  static constexpr auto Fields() {
    using T = ConsentRecorded;
    return std::tuple{core::Field("accepted", &T::accepted),
                      core::Field("consentedAtMicros", &T::consented_at_micros),
                      core::Field("policyVersion", &T::policy_version),
                      core::Field("subjectSealed", &T::subject_sealed, core::Empty::kNull)};
  }
};

struct SessionExpired {
  static constexpr std::string_view kType = "verification.session_expired";
  static constexpr auto Fields() { return std::tuple{}; }
};

// One capture stored (the bytes are sealed in the blob store before this is appended). The
// analysis is the non-personal part of CaptureAnalysis; extracted data stays sealed.
struct MediaCaptured {
  static constexpr std::string_view kType = "verification.media_captured";
  std::string media_id;
  std::string kind;  // document_front | document_back | selfie | liveness_video
  std::string mime;
  std::string sha256;  // hex of the plaintext
  int64_t size_bytes = 0;
  std::string blob;          // blob-store address of the sealed bytes
  std::string challenge_id;  // "" = none
  std::vector<std::string> challenge_actions;  // the challenge's actions (set by the decider)
  core::Json analysis;       // CaptureAnalysis without extractedData, or null
  std::string extracted_sealed;  // base64 of sealed extractedData JSON, "" = none
  // Where the capture client says the bytes came from: "camera" (recorded live), "file" (chosen
  // by the applicant, where the flow allows it), "" = not said (the API channel's backends).
  std::string capture_source;
  // How the capture client says it made the capture (device label, the track's settings and
  // capabilities, the constraints asked, frame timing: pipeline/verification/injection.h), sealed
  // like extractedData (base64, "" = none said), and the injection signals evaluated from it at
  // upload: {score, reasonCodes, signals} — codes and numbers only, never the facts themselves.
  std::string facts_sealed;
  core::Json injection;

  static constexpr auto Fields() {
    using T = MediaCaptured;
    return std::tuple{core::Field("mediaId", &T::media_id), core::Field("kind", &T::kind),
                      core::Field("mime", &T::mime), core::Field("sha256", &T::sha256),
                      core::Field("sizeBytes", &T::size_bytes), core::Field("blob", &T::blob),
                      core::Field("challengeId", &T::challenge_id, core::Empty::kNull),
                      core::Field("challengeActions", &T::challenge_actions, core::Empty::kOmit),
                      core::Field("analysis", &T::analysis, core::Shape::kObjectOrNull),
                      core::Field("extractedSealed", &T::extracted_sealed, core::Empty::kNull),
                      core::Field("captureSource", &T::capture_source, core::Empty::kOmit),
                      core::Field("factsSealed", &T::facts_sealed, core::Empty::kOmit),
                      core::Field("injection", &T::injection, core::Shape::kObjectOrNull, core::Empty::kOmit)};
  }
};

// Active liveness: a one-use challenge for the next liveness video (actions in order, drawn by
// the server; valid until expires_at_micros).
struct LivenessChallengeIssued {
  static constexpr std::string_view kType = "verification.liveness_challenge_issued";
  std::string challenge_id;
  std::vector<std::string> actions;  // blink | turn_left | turn_right
  int64_t expires_at_micros = 0;

  static constexpr auto Fields() {
    using T = LivenessChallengeIssued;
    return std::tuple{core::Field("challengeId", &T::challenge_id),
                      core::Field("actions", &T::actions),
                      core::Field("expiresAtMicros", &T::expires_at_micros)};
  }
};

// The subject submitted; the pipeline runs for `tracking_id`.
struct SessionSubmitted {
  static constexpr std::string_view kType = "verification.session_submitted";
  std::string tracking_id;
  int submission = 0;  // 1, 2, … (a session in awaiting_input can be submitted again)
  std::vector<std::string> media_ids;
  std::string efirma_check;  // the e.firma check it includes (challenge id; omitted when none)

  static constexpr auto Fields() {
    using T = SessionSubmitted;
    return std::tuple{core::Field("trackingId", &T::tracking_id),
                      core::Field("submission", &T::submission),
                      core::Field("mediaIds", &T::media_ids),
                      core::Field("efirmaCheck", &T::efirma_check, core::Empty::kOmit)};
  }
};

// One pipeline stage's result for a submission. `summary` carries no personal data (scores,
// reason codes, document type); `details_sealed` holds what does (extracted fields).
struct StageCompleted {
  static constexpr std::string_view kType = "verification.stage_completed";
  std::string tracking_id;
  std::string stage;    // document | liveness | face_match | gov_curp | gov_ine
  std::string outcome;  // passed | failed | review | unavailable | error | skipped
  core::Json summary;   // object
  std::string details_sealed;  // "" = none

  static constexpr auto Fields() {
    using T = StageCompleted;
    return std::tuple{core::Field("trackingId", &T::tracking_id), core::Field("stage", &T::stage),
                      core::Field("outcome", &T::outcome),
                      core::Field("summary", &T::summary, core::Shape::kObjectOrEmpty),
                      core::Field("detailsSealed", &T::details_sealed, core::Empty::kNull)};
  }
};

// The decision policy's verdict for a submission. `type` is one of the four verdict event types
// (the envelope's type, not a field); `report` is the VerificationReportDetail at that moment (no
// personal data).
struct VerdictReached {
  std::string type;  // verification.approved | .declined | .review_required | .more_info_requested
  std::string tracking_id;
  std::string outcome;  // approved | declined | review | more_info
  std::vector<std::string> reason_codes;
  core::Json trust_score;  // number 0..1 or null
  std::string case_id;     // review: the case the pipeline opens; "" = none
  core::Json decision;     // DecisionSummary
  core::Json report;       // VerificationReportDetail
  // more_info decided by a reviewer: their words for the applicant, sealed under the session's key
  // (pipeline/verification/requested_input.h); "" = none.
  std::string applicant_message_sealed;

  static constexpr auto Fields() {
    using T = VerdictReached;
    return std::tuple{core::Field("trackingId", &T::tracking_id),
                      core::Field("outcome", &T::outcome),
                      core::Field("reasonCodes", &T::reason_codes),
                      core::Field("trustScore", &T::trust_score, core::Shape::kNumberOrNull),
                      core::Field("caseId", &T::case_id, core::Empty::kNull),
                      core::Field("decision", &T::decision), core::Field("report", &T::report),
                      core::Field("applicantMessageSealed", &T::applicant_message_sealed, core::Empty::kOmit)};
  }
};

inline constexpr std::string_view kVerdictTypes[] = {
    "verification.approved", "verification.declined", "verification.review_required",
    "verification.more_info_requested"};

// The event type of a verdict with `outcome` ("" for none): a verdict's type follows from its
// outcome, so a verdict that travels as data (its Fields carry the outcome, not the type: the type
// is the envelope's) is recorded as the one that was decided.
constexpr std::string_view VerdictTypeFor(std::string_view outcome) {
  if (outcome == "approved") return kVerdictTypes[0];
  if (outcome == "declined") return kVerdictTypes[1];
  if (outcome == "review") return kVerdictTypes[2];
  if (outcome == "more_info") return kVerdictTypes[3];
  return {};
}

// The session's captures were deleted under the media retention policy (pipeline/retention/):
// recorded first, then the sealed blobs are removed. What was captured (kind, SHA-256, size)
// stays on record; the bytes do not.
struct MediaPurged {
  static constexpr std::string_view kType = "verification.media_purged";
  std::vector<std::string> media_ids;  // every capture of the session (none: nothing was held)
  std::string reason;                  // "retention", or "forget" (the person was purged)
  int64_t retention_days = 0;          // the policy in force: this long after completion

  static constexpr auto Fields() {
    using T = MediaPurged;
    return std::tuple{core::Field("mediaIds", &T::media_ids), core::Field("reason", &T::reason),
                      core::Field("retentionDays", &T::retention_days)};
  }
};

// The embedded channel (docs/embedded.md): the widget's session over this verification session,
// opened with it (one append). Its id is `ems_` + the session id's hex. The clientSecret travels
// only as a keyed hash, like an API key.
struct EmbeddedOpened {
  static constexpr std::string_view kType = "verification.embedded_opened";
  std::string embedded_id;
  std::vector<std::string> allowed_origins;  // normalised
  std::string client_secret_hash;            // hex HMAC-SHA256 under the key-lookup key
  std::string opened_by;                     // "backend" (secret key) | "browser" (publishable key)
  std::string key_id;                        // the key that opened it
  std::vector<std::string> steps;            // what the widget walks: the flow's step types, in order
  std::string liveness_mode;                 // passive | active
  // "allowed": the flow's liveness step lets the applicant choose a file; "" = the camera only
  // (a string, left out when empty, so an event without it keeps its stored form).
  std::string liveness_file;
  static constexpr auto Fields() {
    using T = EmbeddedOpened;
    return std::tuple{core::Field("embeddedId", &T::embedded_id),
                      core::Field("allowedOrigins", &T::allowed_origins),
                      core::Field("clientSecretHash", &T::client_secret_hash),
                      core::Field("openedBy", &T::opened_by), core::Field("keyId", &T::key_id),
                      core::Field("steps", &T::steps),
                      core::Field("livenessMode", &T::liveness_mode),
                      core::Field("livenessFile", &T::liveness_file, core::Empty::kOmit)};
  }
};

// The widget mounted: the clientSecret swapped for an applicant token, from a parent page of an
// allowed origin (again from the same page when its frame reloads).
struct EmbeddedMounted {
  static constexpr std::string_view kType = "verification.embedded_mounted";
  std::string parent_origin;
  std::string applicant_token_hash;  // hex HMAC-SHA256 under the key-lookup key
  static constexpr auto Fields() {
    using T = EmbeddedMounted;
    return std::tuple{core::Field("parentOrigin", &T::parent_origin),
                      core::Field("applicantTokenHash", &T::applicant_token_hash)};
  }
};

// The hosted page of a link session opened: its link token swapped for an applicant token. A link
// may be opened again (the person moves to their phone), a bounded number of times. Opened through
// a handoff (below), `handoff_hash` names it: it opens no more.
struct LinkOpened {
  static constexpr std::string_view kType = "verification.link_opened";
  std::string applicant_token_hash;  // hex HMAC-SHA256 under the key-lookup key
  std::string handoff_hash;          // the handoff link's token hash; "" = the session's own link
  static constexpr auto Fields() {
    return std::tuple{core::Field("applicantTokenHash", &LinkOpened::applicant_token_hash),
                      core::Field("handoffHash", &LinkOpened::handoff_hash, core::Empty::kOmit)};
  }
};

// A handoff (docs/embedded.md#handoff, issue 69): a link that continues the session on another
// device (a phone's camera), asked for by the applicant's page; single use, short-lived. Only its
// token's keyed hash is recorded.
struct HandoffIssued {
  static constexpr std::string_view kType = "verification.handoff_issued";
  std::string link_token_hash;
  int64_t expires_at_micros = 0;
  static constexpr auto Fields() {
    using T = HandoffIssued;
    return std::tuple{core::Field("linkTokenHash", &T::link_token_hash),
                      core::Field("expiresAtMicros", &T::expires_at_micros)};
  }
};

using SessionEvent = std::variant<SessionCreated, ConsentRecorded, SessionExpired, MediaCaptured,
                                  SessionSubmitted, StageCompleted, VerdictReached,
                                  LivenessChallengeIssued, MediaPurged, EmbeddedOpened, EmbeddedMounted,
                                  LinkOpened, HandoffIssued>;

std::string_view TypeOf(const SessionEvent& e);
int SchemaOf(const SessionEvent& e);
std::string EncodeData(const SessionEvent& e);
core::Result<SessionEvent> Decode(const eventstore::EventEnvelope& envelope);
// The same, decoded once per recorded event and shared (RecordedEvent::decoded): the sessions and
// verification projectors both read every session event. Valid while `recorded` lives.
core::Result<const SessionEvent*> DecodeShared(const eventstore::RecordedEvent& recorded);

}  // namespace svc::commands::verification
