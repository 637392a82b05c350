// The verification session's transition table (docs/verification-sessions.md), row by row:
// given a history, a command either appends the listed event or fails with the listed code.
#include <doctest/doctest.h>

#include "commands/verification/session_decider.h"

namespace commands_session_decider_test {

using namespace svc;
using namespace svc::commands;
using namespace svc::commands::verification;

namespace {

constexpr int64_t kT0 = 1767225600LL * 1000000;  // 2026-01-01
constexpr int64_t kTtl = 86400LL * 1000000;

CommandContext At(int64_t micros) {
  CommandContext c;
  c.now = core::Timestamp{micros};
  c.actor = {"api_key", "key_1"};
  c.environment = "test";
  return c;
}

SessionState Given(const std::vector<SessionEvent>& history) {
  SessionState s;
  int64_t t = kT0;
  for (const auto& e : history) SessionDecider::EvolveDecoded(s, e, core::Timestamp{t++});
  return s;
}

SessionCreated Created(core::Json checks = nullptr) {
  SessionCreated c;
  c.public_id = "VS-X";
  c.channel = "api";
  c.checks = std::move(checks);
  c.expires_at_micros = kT0 + kTtl;
  return c;
}
ConsentRecorded Consent(bool accepted = true) {
  ConsentRecorded c;
  c.accepted = accepted;
  return c;
}
MediaCaptured Media(const std::string& kind, const std::string& id = "med_1") {
  MediaCaptured m;
  m.media_id = id;
  m.kind = kind;
  return m;
}
SessionSubmitted Submitted(const std::string& trk = "trk_1") {
  SessionSubmitted s;
  s.tracking_id = trk;
  s.submission = 1;
  return s;
}
VerdictReached Verdict(const std::string& outcome, const std::string& trk = "trk_1") {
  VerdictReached v;
  v.outcome = outcome;
  v.tracking_id = trk;
  v.type = outcome == "approved"   ? "verification.approved"
           : outcome == "declined" ? "verification.declined"
           : outcome == "review"   ? "verification.review_required"
                                   : "verification.more_info_requested";
  return v;
}

// The code a command fails with ("" = it succeeds) and the event types it appends.
std::pair<std::string, std::vector<std::string>> When(const SessionState& s, SessionCommand c,
                                                      int64_t now = kT0 + 1000) {
  auto d = SessionDecider::Decide(s, c, At(now));
  if (!d.ok()) return {std::string(d.status().api_code()), {}};
  std::vector<std::string> types;
  for (const auto& e : d->events) types.push_back(e.type);
  return {"", types};
}

using Types = std::vector<std::string>;

}  // namespace

TEST_CASE("session: capture needs consent, an open session and an enabled check") {
  CaptureMedia cap{Media("selfie")};
  CHECK(When(Given({}), cap).first == "SESSION_NOT_FOUND");
  CHECK(When(Given({Created()}), cap).first == "CONSENT_REQUIRED");
  CHECK(When(Given({Created(), Consent()}), cap) ==
        std::pair{std::string(), Types{"verification.media_captured"}});
  CHECK(When(Given({Created(), Consent(false)}), cap).first == "SESSION_COMPLETED");
  CHECK(When(Given({Created(), Consent()}), cap, kT0 + kTtl).first == "SESSION_EXPIRED");
  CHECK(When(Given({Created(), Consent(), SessionExpired{}}), cap).first == "SESSION_EXPIRED");
  CHECK(When(Given({Created(core::Json{{"faceMatch", false}}), Consent()}), cap).first ==
        "CAPTURE_NOT_ALLOWED");
  CHECK(When(Given({Created(), Consent()}), CaptureMedia{Media("fingerprint")}).first ==
        "UNKNOWN_MEDIA_KIND");
  // While the pipeline runs and in review: closed.
  auto submitted = Given({Created(), Consent(), Media("selfie"), Submitted()});
  CHECK(When(submitted, cap).first == "INVALID_STATE_TRANSITION");
  CHECK(When(Given({Created(), Consent(), Media("selfie"), Submitted(), Verdict("review")}), cap).first ==
        "INVALID_STATE_TRANSITION");
  // awaiting_input: open again.
  CHECK(When(Given({Created(), Consent(), Media("selfie"), Submitted(), Verdict("more_info")}), cap).first ==
        "");
  CHECK(When(Given({Created(), Consent(), Media("selfie"), Submitted(), Verdict("approved")}), cap).first ==
        "SESSION_COMPLETED");
  // A liveness video chosen from a file: only where the session's flow allows it.
  MediaCaptured from_file = Media("liveness_video");
  from_file.capture_source = "file";
  CHECK(When(Given({Created(), Consent()}), CaptureMedia{from_file}).first == "CAPTURE_NOT_ALLOWED");
  CHECK(When(Given({Created(core::Json{{"livenessFileAllowed", true}}), Consent()}), CaptureMedia{from_file}).first == "");
  MediaCaptured from_camera = Media("liveness_video");
  from_camera.capture_source = "camera";
  CHECK(When(Given({Created(), Consent()}), CaptureMedia{from_camera}).first == "");
  MediaCaptured photo_file = Media("selfie");
  photo_file.capture_source = "file";  // a photo may be chosen: the rule is liveness's
  CHECK(When(Given({Created(), Consent()}), CaptureMedia{photo_file}).first == "");
  // At most kMaxMediaPerSession captures.
  std::vector<SessionEvent> many = {Created(), Consent()};
  for (size_t i = 0; i < kMaxMediaPerSession; ++i) many.push_back(Media("selfie", "med_" + std::to_string(i)));
  CHECK(When(Given(many), cap).first == "CAPTURE_NOT_ALLOWED");
}

TEST_CASE("session: a live session of the embedded or link channel names its privacy notice") {
  auto live = [](int64_t micros) {
    CommandContext c = At(micros);
    c.environment = "live";
    return c;
  };
  for (const char* channel : {"embed", "link"}) {
    SessionCreated c = Created();
    c.channel = channel;
    auto refused = SessionDecider::Decide(Given({}), CreateSession{c, std::nullopt}, live(kT0));
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.status().api_code() == "PRIVACY_NOTICE_REQUIRED");
    CHECK(SessionDecider::Decide(Given({}), CreateSession{c, std::nullopt}, At(kT0)).ok());  // a test session
    c.privacy_notice_url = "https://shop.example/aviso-de-privacidad";
    CHECK(SessionDecider::Decide(Given({}), CreateSession{c, std::nullopt}, live(kT0)).ok());
  }
  CHECK(SessionDecider::Decide(Given({}), CreateSession{Created(), std::nullopt}, live(kT0)).ok());  // the API channel
}

TEST_CASE("session: submit, stage results and verdicts") {
  SubmitSession submit{"trk_2", ""};
  CHECK(When(Given({Created()}), submit).first == "CONSENT_REQUIRED");
  CHECK(When(Given({Created(), Consent()}), submit).first == "SESSION_NOT_SUBMITTABLE");
  // An e.firma check is input as a capture is: new since the last submission, it may be submitted.
  SubmitSession signed_submit{"trk_2", "efc_1"};
  CHECK(When(Given({Created(), Consent()}), signed_submit).first == "");
  {
    SessionSubmitted with_efirma;
    with_efirma.tracking_id = "trk_1";
    with_efirma.submission = 1;
    with_efirma.efirma_check = "efc_1";
    auto asked = Given({Created(), Consent(), with_efirma, Verdict("more_info")});
    CHECK(When(asked, signed_submit).first == "SESSION_NOT_SUBMITTABLE");  // the same check again
    CHECK(When(asked, SubmitSession{"trk_3", "efc_2"}).first == "");      // signed again
  }
  CHECK(When(Given({Created(), Consent(), Media("selfie")}), submit) ==
        std::pair{std::string(), Types{"verification.session_submitted"}});
  auto running = Given({Created(), Consent(), Media("selfie"), Submitted()});
  CHECK(running.status == "in_progress");
  CHECK(running.current_step == "processing");
  CHECK(When(running, submit).first == "SESSION_NOT_SUBMITTABLE");
  // A submitted session does not expire under the pipeline.
  CHECK(When(running, ExpireSession{}, kT0 + 2 * kTtl).second.empty());

  StageCompleted stage;
  stage.tracking_id = "trk_1";
  stage.stage = "document";
  CHECK(When(running, RecordStage{stage}).second == Types{"verification.stage_completed"});
  auto after_stage = Given({Created(), Consent(), Media("selfie"), Submitted(), stage});
  CHECK(When(after_stage, RecordStage{stage}).second.empty());  // recorded once per submission
  StageCompleted stale = stage;
  stale.tracking_id = "trk_0";
  stale.stage = "liveness";
  CHECK(When(after_stage, RecordStage{stale}).second.empty());  // an older submission's

  CHECK(When(after_stage, RecordVerdict{Verdict("approved")}).second == Types{"verification.approved"});
  CHECK(When(after_stage, RecordVerdict{Verdict("approved", "trk_0")}).second.empty());
  for (auto [outcome, status] : std::vector<std::pair<std::string, std::string>>{
           {"approved", "approved"}, {"declined", "declined"}, {"review", "review"},
           {"more_info", "awaiting_input"}}) {
    auto s = Given({Created(), Consent(), Media("selfie"), Submitted(), Verdict(outcome)});
    CHECK(s.status == status);
    CHECK_FALSE(s.processing);
    CHECK(When(s, RecordVerdict{Verdict("declined")}).second.empty());  // decided already
  }
  auto decided = Given({Created(), Consent(), Media("selfie"), Submitted(), Verdict("approved")});
  CHECK(When(decided, submit).first == "SESSION_COMPLETED");
  auto review = Given({Created(), Consent(), Media("selfie"), Submitted(), Verdict("review")});
  CHECK(When(review, submit).first == "SESSION_NOT_SUBMITTABLE");
  // awaiting_input: submit again only after a new capture.
  auto more = Given({Created(), Consent(), Media("selfie"), Submitted(), Verdict("more_info")});
  CHECK(When(more, submit).first == "SESSION_NOT_SUBMITTABLE");
  auto more2 = Given({Created(), Consent(), Media("selfie"), Submitted(), Verdict("more_info"),
                      Media("document_back", "med_2")});
  CHECK(When(more2, submit).second == Types{"verification.session_submitted"});
  // awaiting_input can expire again.
  CHECK(When(more, ExpireSession{}, kT0 + kTtl).second == Types{"verification.session_expired"});
}

TEST_CASE("session: state survives a snapshot round trip") {
  auto s = Given({Created(core::Json{{"liveness", false}}), Consent(), Media("selfie"), Submitted()});
  auto back = SessionDecider::FromJson(core::DumpJson(SessionDecider::ToJson(s)));
  REQUIRE(back.ok());
  CHECK(back->processing);
  CHECK(back->tracking_id == "trk_1");
  CHECK(back->disabled_checks == std::set<std::string>{"liveness"});
  CHECK(back->media_ids == std::vector<std::string>{"med_1"});
}

TEST_CASE("session: evolving with the decided (typed) event equals evolving with its recorded text") {
  // The writer evolves with the typed event the decider made; recovery evolves from the log's
  // text. Both must give the same state, for every event type.
  VerdictReached verdict = Verdict("declined");
  verdict.reason_codes = {"FACE_MISMATCH"};
  verdict.trust_score = 0.2;
  StageCompleted stage;
  stage.tracking_id = "trk_1";
  stage.stage = "liveness";
  stage.outcome = "failed";
  stage.summary = {{"score", 0.2}};
  LivenessChallengeIssued challenge;
  challenge.challenge_id = "lch_1";
  challenge.actions = {"blink", "turn_left", "turn_right"};
  challenge.expires_at_micros = kT0 + 120000000;
  ConsentRecorded consent = Consent();
  consent.policy_version = "2026-01";
  const std::vector<SessionEvent> history = {
      Created(core::Json{{"livenessMode", "active"}}), consent, challenge,
      Media("document_front"), Media("selfie", "med_2"), Submitted(), stage, verdict, SessionExpired{}};
  SessionState typed, text;
  int64_t t = kT0;
  for (const auto& e : history) {
    eventstore::EventEnvelope env;
    env.type = std::string(TypeOf(e));
    env.data = EncodeData(e);
    env.occurred_at = core::Timestamp{t++};
    commands::TypedAggregate<SessionDecider> agg;
    std::any a = typed, b = text;
    REQUIRE(agg.ApplyDecided(a, env, std::any(e)).ok());
    REQUIRE(agg.Apply(b, env).ok());
    typed = std::any_cast<SessionState>(a);
    text = std::any_cast<SessionState>(b);
    CHECK_MESSAGE(SessionDecider::ToJson(typed) == SessionDecider::ToJson(text), env.type);
  }
}

TEST_CASE("session snapshot: the state's field list writes and reads every member") {
  SessionState s;
  s.exists = true;
  s.status = "in_progress";
  s.current_step = "processing";
  s.created_micros = kT0;
  s.expires_micros = kT0 + kTtl;
  s.consent_recorded = s.consent_accepted = true;
  s.disabled_checks = {"liveness"};
  s.media_ids = {"med_1"};
  s.media_kinds = {"selfie"};
  s.submission = 1;
  s.tracking_id = "trk_1";
  s.processing = true;
  s.stages_done = {"document", "face_match"};
  s.active_liveness = true;
  s.challenges["lch_1"] = {{"blink", "turn_left"}, kT0 + 300, true};
  core::Json j = SessionDecider::ToJson(s);
  CHECK(j["stagesDone"] == core::Json::array({"document", "face_match"}));
  CHECK(j["challenges"]["lch_1"] == core::Json{{"actions", {"blink", "turn_left"}}, {"expires", kT0 + 300}, {"spent", true}});
  auto back = SessionDecider::FromJson(core::DumpJson(j));
  REQUIRE(back.ok());
  CHECK(core::DumpJson(SessionDecider::ToJson(*back)) == core::DumpJson(j));
  CHECK(back->challenges.at("lch_1").actions == std::vector<std::string>{"blink", "turn_left"});
  CHECK(back->stages_done.count("face_match") == 1);
  CHECK(SessionDecider::FromJson("[]").status().code() == core::StatusCode::kDataLoss);
}

}  // namespace commands_session_decider_test
