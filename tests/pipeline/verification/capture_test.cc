// The capture use case (pipeline/verification/capture.h) without HTTP: the rules on the bytes,
// what a session admits, sealing into the blob store, and the answer read back.
#include <doctest/doctest.h>

#include "commands/verification/session_decider.h"
#include "core/crypto.h"
#include "pipeline/verification/capture.h"
#include "pipeline/verification/sealed_media.h"
#include "tests/support/capture_bytes.h"
#include "tests/support/runtime_fixture.h"

namespace pipeline_verification_capture_test {

using namespace svc;
namespace pv = svc::pipeline::verification;
namespace vs = svc::commands::verification;

namespace {

struct CaptureFixture : testing::RuntimeFixture {
  std::string tenant;
  CaptureFixture() {
    Open();
    tenant = NewTenant();
    rt->StartProjections();
  }
  // A session with consent given, its checks `checks`; its id.
  std::string Session(core::Json checks = nullptr, bool consent = true) {
    const std::string id = ids.NewIdString(core::IdKind::kVerification);
    vs::SessionCreated c;
    c.public_id = "VS-" + id.substr(4, 6);
    c.channel = "api";
    c.country = "MX";
    c.checks = std::move(checks);
    c.expires_at_micros = clock.Now().micros + 3600LL * 1000000;
    REQUIRE(Exec(id, vs::CreateSession{c, std::nullopt}).ok());
    if (consent) REQUIRE(Exec(id, vs::RecordConsent{true, 0, "v1", ""}).ok());
    REQUIRE(rt->CatchUpProjections().ok());
    return id;
  }
  core::Result<commands::CommandOutcome> Exec(const std::string& id, vs::SessionCommand cmd) {
    return rt->writer().ExecuteAndWait(commands::MakeCommand<vs::SessionDecider>(tenant, id, std::move(cmd), Ctx()));
  }
  pv::CaptureUpload Upload(const std::string& session, std::string kind, std::string mime, std::string_view bytes) {
    pv::CaptureUpload u;
    u.tenant = tenant;
    u.environment = "test";
    u.session_id = session;
    u.kind = std::move(kind);
    u.mime = std::move(mime);
    u.bytes = bytes;
    return u;
  }
  pv::CaptureDeps Deps() { return {&rt->key_store(), &rt->blobs(), &ids, &clock, nullptr, nullptr}; }
};

std::string CodeOf(const core::Status& st) { return std::string(st.api_code()); }

}  // namespace

TEST_CASE("capture: the rules on the bytes") {
  const std::string jpeg = testing::Jpeg(640, 480);
  pv::CaptureUpload u;
  u.kind = "selfie";
  u.mime = "image/jpeg";
  u.bytes = jpeg;
  CHECK(pv::CheckCaptureContent(u).ok());
  u.kind = "fingerprint";
  CHECK(CodeOf(pv::CheckCaptureContent(u)) == "UNKNOWN_MEDIA_KIND");
  u.kind = "selfie";
  u.mime = "video/mp4";
  CHECK(CodeOf(pv::CheckCaptureContent(u)) == "MEDIA_CONTENT_INVALID");  // a type the kind refuses
  u.mime = "image/png";
  CHECK(CodeOf(pv::CheckCaptureContent(u)) == "MEDIA_CONTENT_INVALID");  // bytes that are not PNG
  u.bytes = "";
  CHECK(CodeOf(pv::CheckCaptureContent(u)) == "MEDIA_CONTENT_INVALID");  // empty
  const std::string huge(pv::FindMediaKind("selfie")->max_bytes + 1, 'x');
  u.bytes = huge;
  CHECK(CodeOf(pv::CheckCaptureContent(u)) == "PAYLOAD_TOO_LARGE");
}

TEST_CASE("capture: what a session admits, read before anything is stored") {
  CaptureFixture f;
  const std::string jpeg = testing::Jpeg(640, 480), mp4 = testing::Mp4();
  const core::Timestamp now = f.clock.Now();

  auto missing = f.Upload(f.ids.NewIdString(core::IdKind::kVerification), "selfie", "image/jpeg", jpeg);
  CHECK(CodeOf(pv::AdmitCapture(f.rt->store(), now, missing).status()) == "SESSION_NOT_FOUND");

  const std::string open = f.Session();
  auto admitted = pv::AdmitCapture(f.rt->store(), now, f.Upload(open, "selfie", "image/jpeg", jpeg));
  REQUIRE(admitted.ok());
  CHECK(admitted->actions.empty());
  // Passive liveness: a challenge is refused, none is fine.
  auto video = f.Upload(open, "liveness_video", "video/mp4", mp4);
  CHECK(pv::AdmitCapture(f.rt->store(), now, video).ok());
  video.challenge_id = "lch_1";
  CHECK(CodeOf(pv::AdmitCapture(f.rt->store(), now, video).status()) == "CHECK_NOT_ENABLED_FOR_FLOW");

  CHECK(CodeOf(pv::AdmitCapture(f.rt->store(), now, f.Upload(f.Session(nullptr, false), "selfie", "image/jpeg", jpeg))
                   .status()) == "CONSENT_REQUIRED");
  const std::string no_face = f.Session(core::Json{{"faceMatch", false}, {"liveness", false}});
  CHECK(CodeOf(pv::AdmitCapture(f.rt->store(), now, f.Upload(no_face, "selfie", "image/jpeg", jpeg)).status()) ==
        "CAPTURE_NOT_ALLOWED");

  // Active liveness: a video needs a challenge issued to this session.
  const std::string active = f.Session(core::Json{{"livenessMode", "active"}});
  auto v = f.Upload(active, "liveness_video", "video/mp4", mp4);
  CHECK(CodeOf(pv::AdmitCapture(f.rt->store(), now, v).status()) == "CHALLENGE_ID_REQUIRED");
  v.challenge_id = "lch_unknown";
  CHECK(CodeOf(pv::AdmitCapture(f.rt->store(), now, v).status()) == "CAPTURE_CREDENTIAL_INVALID");

  // Past its expiry a session admits nothing.
  CHECK(CodeOf(pv::AdmitCapture(f.rt->store(), core::Timestamp{now.micros + 3601LL * 1000000},
                                f.Upload(open, "selfie", "image/jpeg", jpeg))
                   .status()) == "SESSION_EXPIRED");
}

TEST_CASE("capture: sealed under the session's key, appended, and read back") {
  CaptureFixture f;
  const std::string jpeg = testing::Jpeg(640, 480);
  const std::string session = f.Session();
  auto u = f.Upload(session, "selfie", "image/jpeg", jpeg);
  auto admitted = pv::AdmitCapture(f.rt->store(), f.clock.Now(), u);
  REQUIRE(admitted.ok());

  auto m = pv::SealCapture(f.Deps(), u, *admitted);
  REQUIRE(m.ok());
  CHECK(m->sha256 == core::Sha256Hex(jpeg));
  CHECK(m->size_bytes == static_cast<int64_t>(jpeg.size()));
  CHECK(m->analysis.is_null());  // not asked for
  auto sealed = f.rt->blobs().Get(m->blob);
  REQUIRE(sealed.ok());
  CHECK(sealed->find(jpeg) == std::string::npos);  // never in clear at rest
  auto dek = f.rt->key_store().Get(eventstore::KeyStore::SessionKeyName(f.tenant, "test", session));
  REQUIRE(dek.ok());
  REQUIRE(dek->has_value());
  CHECK((*sealed)[0] == pv::kSealedMediaVersion);  // sealed in chunks (format 2)
  auto opened = pv::OpenMediaWhole(f.rt->blobs(), m->blob, **dek, pv::MediaAd(f.tenant, "test", session, m->media_id));
  REQUIRE(opened.ok());
  CHECK(*opened == jpeg);

  // Not yet appended: the answer is "retry", never a guess.
  CHECK(pv::CaptureAnswer(f.rt->store(), f.rt->key_store(), f.tenant, "test", session, m->media_id).status().code() ==
        core::StatusCode::kUnavailable);
  REQUIRE(f.Exec(session, vs::CaptureMedia{*m}).ok());
  REQUIRE(f.rt->CatchUpProjections().ok());
  auto answer = pv::CaptureAnswer(f.rt->store(), f.rt->key_store(), f.tenant, "test", session, m->media_id);
  REQUIRE(answer.ok());
  CHECK((*answer)["mediaId"] == m->media_id);
  CHECK((*answer)["status"] == "stored");
  CHECK((*answer)["sha256"] == core::Sha256Hex(jpeg));

  // Asked to analyse without an engine: status=error, the capture still stored.
  u.analyze = true;
  auto analysed = pv::SealCapture(f.Deps(), u, *admitted);
  REQUIRE(analysed.ok());
  CHECK(analysed->analysis["status"] == "error");
  CHECK(analysed->analysis["errorCode"] == "ENGINE_NOT_CONFIGURED");
}

}  // namespace pipeline_verification_capture_test
