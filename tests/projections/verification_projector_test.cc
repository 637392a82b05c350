// The verification read model, events in and rows out (tests/support/projector_spec.h): what
// the pipeline, the evidence, the upload route and the progress stream read.
#include <doctest/doctest.h>

#include "commands/verification/session_events.h"
#include "projections/verification_projector.h"
#include "tests/support/projector_spec.h"

namespace projections_verification_projector_test {

using namespace svc;
namespace vs = svc::commands::verification;
using svc::projections::VerificationProjector;
using V = svc::projections::VerificationView;

namespace {

const std::string kId = "vrf_00000000000000000000000000000001";

struct Spec : svc::testing::ProjectorSpec<VerificationProjector> {
  std::string te() const { return projections::TenantEnv(tenant, environment); }
  void Feed(const vs::SessionEvent& e) {
    auto st = ProjectorSpec::Feed(Event("verification_session", kId, std::string(vs::TypeOf(e)),
                                        core::ParseJsonOrDiscarded(vs::EncodeData(e))));
    REQUIRE_MESSAGE(st.ok(), st.ToString());
  }
  std::vector<core::Json> Stream() {
    std::vector<core::Json> out;
    for (const auto& k : Keys(V::Stream(te(), kId))) out.push_back(Row(k));
    return out;
  }
};

vs::SessionCreated Created(core::Json checks = nullptr) {
  vs::SessionCreated c;
  c.public_id = "VS-1";
  c.channel = "api";
  c.application_id = "app_00000000000000000000000000000001";
  c.checks = std::move(checks);
  c.expires_at_micros = 1767312000000000;
  return c;
}

}  // namespace

TEST_CASE("verification projector: settings only when chosen; captures in order; challenges spent") {
  Spec plain;
  plain.Feed(Created());
  CHECK_FALSE(plain.RawRow(V::Settings(plain.te(), kId)).has_value());  // absent = the defaults

  Spec spec;
  spec.Feed(Created({{"livenessMode", "active"}}));
  CHECK(spec.Row(V::Settings(spec.te(), kId))["checks"]["livenessMode"] == "active");
  vs::LivenessChallengeIssued ch;
  ch.challenge_id = "lch_1";
  ch.actions = {"blink", "turn_left"};
  ch.expires_at_micros = 1767225900000000;
  spec.Feed(ch);
  CHECK(spec.Row(V::Challenge(spec.te(), kId, "lch_1"))["actions"] == core::Json::array({"blink", "turn_left"}));
  vs::MediaCaptured m;
  m.media_id = "med_1";
  m.kind = "selfie";
  m.analysis = {{"status", "ok"}};
  m.extracted_sealed = "c2VhbGVk";
  spec.Feed(m);
  m.media_id = "med_2";
  m.kind = "liveness_video";
  m.challenge_id = "lch_1";
  m.challenge_actions = ch.actions;
  spec.Feed(m);
  auto media = spec.Keys(V::Media(spec.te(), kId));
  REQUIRE(media.size() == 2);
  CHECK(spec.Row(media[0])["mediaId"] == "med_1");
  CHECK(spec.Row(media[1])["challengeActions"] == core::Json::array({"blink", "turn_left"}));
  CHECK(spec.Row(V::ChallengeUsed(spec.te(), kId, "lch_1"))["mediaId"] == "med_2");
  spec.CheckRebuildIdentical();
}

TEST_CASE("verification projector: a submission is pending until its verdict; stages by submission") {
  Spec spec;
  spec.Feed(Created());
  vs::SessionSubmitted sub;
  sub.tracking_id = "trk_1";
  sub.submission = 1;
  sub.media_ids = {"med_1"};
  spec.Feed(sub);
  CHECK(spec.Row(V::Submission(spec.te(), kId))["trackingId"] == "trk_1");
  CHECK(spec.RawRow(V::Pending(spec.te(), kId)) == std::optional<std::string>("trk_1"));
  vs::StageCompleted st;
  st.tracking_id = "trk_1";
  st.stage = "face_match";
  st.outcome = "passed";
  st.summary = {{"score", 0.93}};
  st.details_sealed = "ZA==";
  spec.Feed(st);
  CHECK(spec.Row(V::Stage(spec.te(), kId, "trk_1", "face_match"))["summary"]["score"] == 0.93);
  vs::VerdictReached v;
  v.type = "verification.approved";
  v.tracking_id = "trk_1";
  v.outcome = "approved";
  v.trust_score = 0.9;
  v.report = {{"trustBreakdown", {{"face", 0.9}}}};
  spec.Feed(v);
  core::Json verdict = spec.Row(V::Verdict(spec.te(), kId));
  CHECK(verdict["outcome"] == "approved");
  CHECK(verdict["trustBreakdown"]["face"] == 0.9);
  CHECK(verdict["caseId"].is_null());
  CHECK_FALSE(spec.RawRow(V::Pending(spec.te(), kId)).has_value());
  spec.CheckRebuildIdentical();
}

TEST_CASE("verification projector: the progress stream holds no personal data, in log order") {
  Spec spec;
  spec.Feed(Created());
  vs::ConsentRecorded consent;
  consent.accepted = true;
  consent.subject_sealed = "c2VhbGVk";
  spec.Feed(consent);
  vs::MediaCaptured m;
  m.media_id = "med_1";
  m.kind = "document_front";
  m.analysis = {{"status", "ok"}};
  m.extracted_sealed = "c2VjcmV0";
  spec.Feed(m);
  spec.Feed(vs::SessionExpired{});
  auto stream = spec.Stream();
  REQUIRE(stream.size() == 4);
  CHECK(stream[0]["type"] == "verification.session_created");
  CHECK(stream[1]["consentGiven"] == true);
  CHECK(stream[2]["analysisStatus"] == "ok");
  CHECK(stream[3]["type"] == "verification.session_expired");
  for (const auto& e : stream) {
    REQUIRE(e.is_object());
    CHECK(e["sessionId"] == kId);
    std::string text = core::DumpJson(e);
    CHECK(text.find("c2VjcmV0") == std::string::npos);  // sealed data never reaches the stream
    CHECK(text.find("c2VhbGVk") == std::string::npos);
  }
}

}  // namespace projections_verification_projector_test
