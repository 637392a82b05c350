// The five-call flow with real photographs and the dlib engine, no test input forcing anything:
// a selfie of the person on the document is approved, another person's selfie is declined.
// Photographs: the demo images of the npm package @vladmandic/face-api (scripts/setup installs
// it). The "document" is composed here: a grey card carrying the person's photo.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "api/http/runtime.h"
#include "core/crypto.h"
#include "eventstore/key_store.h"
#include "eventstore/kv_store.h"
#include "pipeline/biometrics/face_model.h"
#include "pipeline/verification/builtin_engines.h"
#include "pipeline/biometrics/liveness.h"
#include "pipeline/biometrics/pad.h"
#include "tests/support/api_env.h"
#include "tests/support/liveness_fixtures.h"
#include "tests/support/sample_captures.h"

namespace integration_biometrics_test {

using namespace svc;
using svc::testing::ReadFile;
using namespace svc::pipeline::biometrics;
using svc::testing::Body;
using svc::testing::Env;
using svc::testing::Sharing;
using svc::testing::CheckProblem;
namespace liveness = svc::testing::liveness;

namespace {

Image Photo(const std::string& name) {
  Image img = testing::DemoPhoto(name);
  REQUIRE(img.width > 0);
  return img;
}
using testing::AroundFace;
using testing::Card;

std::string Multipart(const std::string& boundary, const std::string& kind, const std::string& mime,
                      const std::string& bytes) {
  return "--" + boundary + "\r\nContent-Disposition: form-data; name=\"kind\"\r\n\r\n" + kind +
         "\r\n--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"c\"\r\n" +
         "Content-Type: " + mime + "\r\n\r\n" + bytes + "\r\n--" + boundary + "--\r\n";
}

api::HttpResponse Upload(Env& env, const std::string& id, const std::string& kind,
                         const std::string& png, bool analyze = false,
                         const std::string& mime = "image/png") {
  std::string b = "bnd-7f3a";
  return env.Call(env.test_key, "POST",
                  "/v1/verification-sessions/" + id + "/media" + (analyze ? "?analyze=true" : ""),
                  Multipart(b, kind, mime, png),
                  {{"Content-Type", "multipart/form-data; boundary=" + b}});
}

// A two-second H.264 video of a still image (the ffmpeg command line encodes it).
std::string StillVideo(const testing::TempDir& dir, const std::string& png) {
  std::ofstream(dir.Sub("still.png"), std::ios::binary) << png;
  auto r = testing::RunProgram("ffmpeg", {"-y", "-loglevel", "error", "-loop", "1", "-framerate", "15",
                                          "-i", dir.Sub("still.png"), "-t", "2", "-vf",
                                          "scale=trunc(iw/2)*2:trunc(ih/2)*2", "-c:v", "libx264",
                                          "-pix_fmt", "yuv420p", dir.Sub("still.mp4")});
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  return ReadFile(dir.Sub("still.mp4"));
}

core::Json Flow(Env& env, const std::string& idem, const std::string& document_png,
                const std::string& selfie_png) {
  auto created = env.Create(env.test_key, idem,
                            R"({"channel":"api","checks":{"document":false,"liveness":false,"governmentLookup":false}})");
  REQUIRE(created.status == 201);
  std::string id = Body(created)["id"];
  REQUIRE(env.Call(env.test_key, "POST", "/v1/verification-sessions/" + id + "/consent",
                   R"({"accepted":true})").status == 200);
  auto doc = Upload(env, id, "document_front", document_png, true);
  REQUIRE_MESSAGE(doc.status == 201, doc.body);
  CHECK(Body(doc)["analysis"]["status"] == "ok");
  CHECK(Body(doc)["analysis"]["confidence"].is_number());  // a face was found on the card
  auto selfie = Upload(env, id, "selfie", selfie_png, true);
  REQUIRE_MESSAGE(selfie.status == 201, selfie.body);
  core::Json a = Body(selfie)["analysis"];
  CHECK(a["status"] == "ok");
  CHECK(a["qualityIssues"].is_array());
  REQUIRE(env.Call(env.test_key, "POST", "/v1/verification-sessions/" + id + "/submit").status == 200);
  REQUIRE(env.Admin("POST", "/admin/pipeline/wait-idle").status == 200);
  return Body(env.Call(env.test_key, "GET", "/v1/verification-sessions/" + id + "/evidence"));
}

// `svc models import` into `dir`; the model file's path.
std::string ImportModel(const testing::TempDir& dir) {
  auto imported = testing::RunSvc({"models", "import", "--face-api", SVC_FACE_API_DIR, "--data-dir", dir.path()});
  REQUIRE_MESSAGE(imported.exit_code == 0, imported.out << imported.err);
  return dir.Sub("models/face_recognition_resnet_v1.dat");
}

}  // namespace

TEST_CASE("biometrics: real photographs, dlib engine: same person approved, another declined") {
  testing::TempDir models;
  auto imported = testing::RunSvc({"models", "import", "--face-api", SVC_FACE_API_DIR, "--data-dir",
                                   models.path()});
  REQUIRE_MESSAGE(imported.exit_code == 0, imported.out << imported.err);
  std::string model = models.Sub("models/face_recognition_resnet_v1.dat");

  // Without a model, the dlib engine refuses to start and names the setup step.
  testing::TempDir empty;
  auto refused = testing::RunSvc({"serve", "--data-dir", empty.Sub("data"), "--listen",
                                  "127.0.0.1:0", "--face-engine", "dlib"});
  CHECK(refused.exit_code != 0);
  CHECK(refused.err.find("svc models import") != std::string::npos);

  Env env(false, {"--face-engine", "dlib", "--face-model", model}, Sharing::kIsolated);  // stops it
  Image person = Photo("sample2.jpg");  // one face at about (1448, 214), 180 px
  Image selfie = AroundFace(person, 1448, 214, 180, 1.0);
  Image portrait = Scale(Rotate(AroundFace(person, 1448, 214, 180, 0.5), 3), 0.8);
  auto card = EncodePng(Card(portrait));
  auto selfie_png = EncodePng(selfie);
  REQUIRE(card.ok());
  REQUIRE(selfie_png.ok());

  core::Json same = Flow(env, "bio-same", *card, *selfie_png);
  MESSAGE("same person: face match " << same["scores"]["faceMatch"]);
  CHECK(same["verificationStatus"] == "approved");
  CHECK(same["decision"]["outcome"] == "approved");
  CHECK(same["scores"]["faceMatch"].get<double>() >= 0.8);
  REQUIRE(same["biometric"].size() == 2);
  CHECK(same["biometric"][0]["checkType"] == "face_match");
  CHECK(same["biometric"][1]["checkType"] == "deepfake");  // the attack signals on the selfie
  CHECK(same["biometric"][1]["passed"] == true);
  MESSAGE("deepfake score: " << same["scores"]["deepfake"]);
  CHECK(same["scores"]["deepfake"].get<double>() < 0.5);
  CHECK(same["biometric"][0]["modelName"] == FaceModels::kRecognitionModelName);
  MESSAGE("image quality: " << same["scores"]["imageQuality"]);
  CHECK(same["scores"]["imageQuality"].get<double>() >= 0.5);  // measured, above the threshold

  Image other = Photo("sample1.jpg");  // leftmost face at about (376, 376), 215 px
  auto other_png = EncodePng(AroundFace(other, 376, 376, 215, 1.0));
  REQUIRE(other_png.ok());
  core::Json different = Flow(env, "bio-other", *card, *other_png);
  MESSAGE("different person: face match " << different["scores"]["faceMatch"]);
  CHECK(different["verificationStatus"] == "declined");
  CHECK(different["decision"]["reasonCodes"] == core::Json::array({"FACE_MISMATCH"}));
  CHECK(different["scores"]["faceMatch"].get<double>() < 0.5);

  // No selfie: the face match uses the liveness video's best frame. The video is a still
  // picture: no blink, no depth, so liveness declines it (LIVENESS_FAILED) though the face matches.
  testing::TempDir videos;
  std::string video = StillVideo(videos, *selfie_png);
  auto created = env.Create(env.test_key, "bio-video",
                            R"({"channel":"api","checks":{"document":false,"governmentLookup":false}})");
  REQUIRE(created.status == 201);
  std::string vid = Body(created)["id"];
  REQUIRE(env.Call(env.test_key, "POST", "/v1/verification-sessions/" + vid + "/consent",
                   R"({"accepted":true})").status == 200);
  REQUIRE(Upload(env, vid, "document_front", *card).status == 201);
  auto vr = Upload(env, vid, "liveness_video", video, true, "video/mp4");
  REQUIRE_MESSAGE(vr.status == 201, vr.body);
  CHECK(Body(vr)["analysis"]["status"] == "ok");
  CHECK(Body(vr)["analysis"]["confidence"] == 1.0);  // one face in every sampled frame
  CHECK(Body(vr)["analysis"]["livenessScore"].get<double>() < 0.4);
  CHECK(Body(vr)["analysis"]["qualityIssues"] == core::Json::array({"no_blink"}));
  auto broken = Upload(env, vid, "liveness_video", std::string("\x1A\x45\xDF\xA3", 4) + std::string(64, 'x'),
                       true, "video/webm");
  REQUIRE(broken.status == 201);  // stored; its analysis failed, never a 500
  CHECK(Body(broken)["analysis"]["errorCode"] == "VIDEO_UNREADABLE");
  REQUIRE(Upload(env, vid, "liveness_video", video, false, "video/mp4").status == 201);  // retake
  REQUIRE(env.Call(env.test_key, "POST", "/v1/verification-sessions/" + vid + "/submit").status == 200);
  REQUIRE(env.Admin("POST", "/admin/pipeline/wait-idle").status == 200);
  core::Json by_video = Body(env.Call(env.test_key, "GET", "/v1/verification-sessions/" + vid + "/evidence"));
  MESSAGE("video frame face match " << by_video["scores"]["faceMatch"]);
  CHECK(by_video["scores"]["faceMatch"].get<double>() >= 0.8);
  CHECK(by_video["verificationStatus"] == "declined");
  CHECK(by_video["scores"]["liveness"].get<double>() < 0.4);
  // The unreadable video was retaken: only the latest capture of a kind counts.
  CHECK(by_video["decision"]["reasonCodes"] ==
        core::Json::array({"LIVENESS_FAILED", "NO_BLINK", "NO_DEPTH_MOTION"}));
  // A caught presentation attack never reads as medium risk: the failed liveness check caps the
  // trust score at its own score, and the certificate grades the risk high.
  double liveness = by_video["scores"]["liveness"].get<double>();
  CHECK(by_video["trustScore"].get<double>() <= liveness + 0.005);
  core::Json cert = Body(env.Call(env.test_key, "GET", "/v1/verification-sessions/" + vid + "/certificate"));
  CHECK(cert["riskGrade"] == "high");
  CHECK(cert["trustScore"].get<double>() <= liveness + 0.005);
  CHECK(Body(env.Call(env.test_key, "GET", "/v1/verification-sessions/" + vid))["trustScore"].get<int>() <=
        static_cast<int>(liveness * 100 + 0.5));
  core::Json report = Body(env.Call(env.test_key, "GET", "/v1/verification-sessions/" + vid + "/report"));
  CHECK(report["trustBreakdown"]["cappedBy"] == "failed_biometric_check");

  // The selfie's embedding is kept for re-authentication, sealed under the session's data key:
  // read the stored stage row from the stopped data directory and open it with the key store.
  std::string sid = same["sessionId"];
  std::string data = env.server->data_dir();
  env.server->Stop();
  eventstore::KvStore::Options so;
  so.path = data + "/db";
  so.column_families = api::StoreColumnFamilies();
  so.read_only = true;
  auto store = eventstore::KvStore::Open(so);
  REQUIRE(store.ok());
  int views = (*store)->Cf("views");
  std::string base = env.tenant + "/test/" + sid;
  auto sub = (*store)->Get(views, "verification/sub/" + base);
  REQUIRE((sub.ok() && sub->has_value()));
  std::string trk = core::StringOr(core::ParseJsonOrDiscarded(**sub), "trackingId");
  auto row = (*store)->Get(views, "verification/stage/" + base + "/" + trk + "/face_match");
  REQUIRE((row.ok() && row->has_value()));
  std::string sealed = core::StringOr(core::ParseJsonOrDiscarded(**row), "detailsSealed");
  REQUIRE(!sealed.empty());
  auto master = api::LoadMasterKey(data, api::KeySources{"", "", true}, /*create=*/false);
  REQUIRE(master.ok());
  eventstore::KeyStore keys(store->get(), core::DeriveSubkey(*master, "svc/key-encryption/v1"));
  auto dek = keys.Get(eventstore::KeyStore::SessionKeyName(env.tenant, "test", sid));
  REQUIRE((dek.ok() && dek->has_value()));
  auto raw = core::Base64Decode(sealed);
  REQUIRE(raw.ok());
  auto plain = core::AeadOpen(**dek, *raw, "stage|" + base + "|" + trk + "|face_match");
  REQUIRE(plain.ok());
  core::Json details = core::ParseJsonOrDiscarded(*plain);
  CHECK(details["selfieEmbedding"].size() == 128);
  CHECK(details["modelName"] == FaceModels::kRecognitionModelName);
}

// Every default check on, nothing forced: an INE read by OCR (front and back), the sandbox
// registries, a selfie, and a liveness video of the person blinking.
TEST_CASE("biometrics: the five-call flow with every check: INE by OCR, registries, liveness, face") {
  testing::TempDir work;
  std::string model = ImportModel(work);
  auto models = FaceModels::Load(model, kShapePredictorPath);
  REQUIRE(models.ok());
  Env env(false, {"--face-engine", "dlib", "--face-model", model});
  const auto& s = pipeline::verification::Specimen();  // the sandbox registries know this person
  // The person: sample3's leftmost face (the liveness fixtures' face too); the same captures as
  // docs/samples/ (tests/support/sample_captures.h).
  Image person_photo = Photo("sample3.jpg");
  std::string error;
  testing::SampleCaptures captures = testing::MakeSampleCaptures(**models, work, &error);
  REQUIRE_MESSAGE(error.empty(), error);
  std::ofstream(work.Sub("front.png"), std::ios::binary) << captures.front_png;
  std::ofstream(work.Sub("back.png"), std::ios::binary) << captures.back_png;
  std::string video = captures.video_mp4;

  auto flow = [&](const std::string& idem, const std::string& selfie_png) {
    auto created = env.Create(env.test_key, idem);  // no checks given: every default check
    REQUIRE(created.status == 201);
    std::string id = Body(created)["id"];
    REQUIRE(env.Call(env.test_key, "POST", "/v1/verification-sessions/" + id + "/consent",
                     R"({"accepted":true})").status == 200);
    auto f = Upload(env, id, "document_front", ReadFile(work.Sub("front.png")), true);
    REQUIRE_MESSAGE(f.status == 201, f.body);
    core::Json fa = Body(f)["analysis"];
    CHECK(fa["documentType"] == "ine");
    CHECK(fa["requiresBackPage"] == true);
    CHECK(fa["extractedData"]["curp"] == s.curp);  // shown to the integrator who sent it
    auto b = Upload(env, id, "document_back", ReadFile(work.Sub("back.png")), true);
    REQUIRE_MESSAGE(b.status == 201, b.body);
    CHECK(Body(b)["analysis"]["extractedData"]["mrz"] == core::Json(s.mrz));
    REQUIRE(Upload(env, id, "selfie", selfie_png).status == 201);
    auto v = Upload(env, id, "liveness_video", video, true, "video/mp4");
    REQUIRE_MESSAGE(v.status == 201, v.body);
    CHECK(Body(v)["analysis"]["livenessScore"].get<double>() >= 0.75);
    REQUIRE(env.Call(env.test_key, "POST", "/v1/verification-sessions/" + id + "/submit").status == 200);
    REQUIRE(env.Admin("POST", "/admin/pipeline/wait-idle").status == 200);
    core::Json ev = Body(env.Call(env.test_key, "GET", "/v1/verification-sessions/" + id + "/evidence"));
    MESSAGE(ev.dump());
    return ev;
  };

  core::Json ev = flow("ine-same", *EncodePng(AroundFace(person_photo, 567, 376, 215, 1.0)));
  CHECK(ev["verificationStatus"] == "approved");
  CHECK(ev["document"]["documentType"] == "ine");
  CHECK(ev["document"]["checks"]["curpValid"] == true);
  CHECK(ev["document"]["checks"]["mrzValid"] == true);
  CHECK(ev["document"]["checks"]["notExpired"] == true);
  CHECK(ev["document"]["checks"]["consistent"] == true);
  REQUIRE(ev["gov"].size() == 2);
  CHECK(ev["gov"][0]["matched"] == true);  // the sandbox RENAPO found the CURP read by OCR
  CHECK(ev["gov"][1]["matched"] == true);  // and the sandbox INE list the CIC from the MRZ
  CHECK(ev["scores"]["faceMatch"].get<double>() >= 0.8);
  CHECK(ev["scores"]["liveness"].get<double>() >= 0.75);
  REQUIRE(ev["biometric"].size() == 3);
  CHECK(ev["biometric"][0]["checkType"] == "liveness");
  CHECK(ev["biometric"][0]["modelName"] == kLivenessModelName);
  CHECK(ev["biometric"][2]["checkType"] == "deepfake");
  CHECK(ev["biometric"][2]["modelName"] == kPadModelName);
  MESSAGE("deepfake score: " << ev["scores"]["deepfake"]);
  CHECK(ev["scores"]["deepfake"].get<double>() < 0.5);  // a selfie and a blinking video: nothing of an attack
  // Nothing personal in the evidence.
  std::string text = ev.dump();
  for (const char* pii : {"GARCIA", "JOSEFINA", "GAHJ900315", "1990-03-15", "123456789"}) {
    CHECK_MESSAGE(text.find(pii) == std::string::npos, pii);
  }

  // The vault: the approval made a person of the data read by OCR (the specimen's CURP and
  // names), and that person's face re-authenticates: the same face matches, another does not.
  REQUIRE(env.Admin("POST", "/admin/persons/wait-idle").status == 200);
  auto found = Body(env.Call(env.test_key, "POST", "/v1/persons/search",
                             core::Json{{"field", "curp"}, {"value", s.curp}}.dump()));
  REQUIRE(found["data"].size() == 1);
  std::string person = found["data"][0]["id"];
  auto plain = env.Call(env.test_key, "POST", "/v1/persons/" + person + "/decrypt",
                        core::Json{{"fields", {"curp", "givenName", "surname", "birthDate", "sex"}},
                                   {"purpose", "identity_verification"}, {"reason", "biometrics test"}}.dump());
  REQUIRE_MESSAGE(plain.status == 200, plain.body);
  core::Json pf = Body(plain)["fields"];
  CHECK(pf["curp"] == s.curp);
  // The names printed on the front, in full: the MRZ's name field stops at 30 characters
  // ("GARCIA<HERNANDEZ<<MARIA<JOSEFI"); the front agrees with it and with the CURP's letters.
  CHECK(pf["givenName"] == s.given_names);
  CHECK(pf["surname"] == s.surname1 + " " + s.surname2);
  CHECK(pf["birthDate"] == s.birth_date);
  CHECK(pf["sex"] == "F");
  core::Json prov = Body(env.Call(env.test_key, "GET", "/v1/persons/" + person))["piiProvenance"];
  CHECK(prov["curp"]["detail"] == "document_ocr,renapo");
  auto reauth = [&](const std::string& png) {
    auto r = env.Call(env.test_key, "POST", "/v1/persons/" + person + "/reauth-face",
                      core::Json{{"selfieBase64", core::Base64Encode(png)}, {"mime", "image/png"}}.dump());
    REQUIRE_MESSAGE(r.status == 200, r.body);
    MESSAGE(r.body);
    return Body(r);
  };
  core::Json same = reauth(*EncodePng(AroundFace(person_photo, 560, 380, 220, 1.0)));
  CHECK(same["decision"] == "match");
  CHECK(same["match"] == true);
  CHECK(same["score"].get<double>() >= 0.8);
  CHECK(same["threshold"] == 0.8);
  CHECK(same["referenceCapturedAt"].is_string());
  Image other = Photo("sample1.jpg");  // leftmost face at about (376, 376), 215 px
  core::Json stranger = reauth(*EncodePng(AroundFace(other, 376, 376, 215, 1.0)));
  CHECK(stranger["decision"] == "no_match");
  CHECK(stranger["match"] == false);
  // The same data directory served without a face model: the reference is there, the engine is
  // not (503), and nothing is revealed or counted.
  env.server->Stop();
  {
    testing::SvcServer model_free(env.server->data_dir());  // --face-engine model-free
    model_free.Start();
    auto r = api::HttpCall(model_free.target(), "POST", "/v1/persons/" + person + "/reauth-face",
                           {{"Authorization", "Bearer " + env.test_key}, {"Content-Type", "application/json"}},
                           core::Json{{"selfieBase64", core::Base64Encode(*EncodePng(AroundFace(person_photo, 560, 380, 220, 1.0)))}}.dump());
    REQUIRE(r.ok());
    CheckProblem(*r, 503, "REAUTH_ENGINE_UNAVAILABLE");
    model_free.Stop();
  }
  env.server->Start();

  // Another person's selfie with the same document and video: declined on the face.
  core::Json declined = flow("ine-other", *EncodePng(AroundFace(other, 376, 376, 215, 1.0)));
  CHECK(declined["verificationStatus"] == "declined");
  CHECK(declined["scores"]["faceMatch"].get<double>() < 0.5);
  CHECK(declined["decision"]["reasonCodes"] == core::Json::array({"FACE_MISMATCH"}));
}

// Active liveness: the server issues a challenge (actions in order), the video must show them.
TEST_CASE("scripts/demo: the README's flow with the shipped sample captures ends approved") {
  // docs/samples/ are what svc_samples writes from the same photograph and specimen; the demo
  // uploads them to a running server with the real engine and checks the certificate offline.
  testing::TempDir work;
  std::string model = ImportModel(work);
  Env env(false, {"--face-engine", "dlib", "--face-model", model});
  std::string root = std::string(SVC_TEST_SOURCE_DIR) + "/..";
  auto demo = testing::RunProgram(
      root + "/scripts/demo", {},
      {{"SVC_URL", "http://127.0.0.1:" + std::to_string(env.server->port())},
       {"SVC_KEY", env.test_key}});
  MESSAGE(demo.out);
  CHECK_MESSAGE(demo.exit_code == 0, demo.err);
  CHECK(demo.out.find("analysis ok {\"curp\": \"" + pipeline::verification::Specimen().curp) != std::string::npos);
  CHECK(demo.out.find("verification.approved") != std::string::npos);
  CHECK(demo.out.find("checked offline: valid") != std::string::npos);
  CHECK(demo.out.find("verdict: approved") != std::string::npos);
}

TEST_CASE("biometrics: active liveness challenges") {
  testing::TempDir work;
  std::string model = ImportModel(work);
  auto models = FaceModels::Load(model, kShapePredictorPath);
  REQUIRE(models.ok());
  Env env(false, {"--face-engine", "dlib", "--face-model", model, "--fake-clock"});
  const std::string active =
      R"({"channel":"api","checks":{"document":false,"governmentLookup":false,"faceMatch":false,"livenessMode":"active"}})";
  auto session = [&](const std::string& idem, const std::string& body, bool consent = true) {
    auto created = env.Create(env.test_key, idem, body);
    REQUIRE_MESSAGE(created.status == 201, created.body);
    std::string id = Body(created)["id"];
    if (consent) {
      REQUIRE(env.Call(env.test_key, "POST", "/v1/verification-sessions/" + id + "/consent",
                       R"({"accepted":true})").status == 200);
    }
    return id;
  };
  auto challenge = [&](const std::string& id) {
    return env.Call(env.test_key, "POST", "/v1/verification-sessions/" + id + "/liveness-challenges");
  };
  auto upload_video = [&](const std::string& id, const std::string& bytes, const std::string& challenge_id) {
    std::string b = "bnd-7f3a";
    std::string body = "--" + b + "\r\nContent-Disposition: form-data; name=\"kind\"\r\n\r\nliveness_video\r\n";
    if (!challenge_id.empty()) {
      body += "--" + b + "\r\nContent-Disposition: form-data; name=\"challengeId\"\r\n\r\n" + challenge_id + "\r\n";
    }
    body += "--" + b + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"v.mp4\"\r\n" +
            "Content-Type: video/mp4\r\n\r\n" + bytes + "\r\n--" + b + "--\r\n";
    return env.Call(env.test_key, "POST", "/v1/verification-sessions/" + id + "/media?analyze=true", body,
                    {{"Content-Type", "multipart/form-data; boundary=" + b}});
  };
  // A still picture: whatever the challenge, it cannot do it.
  std::string still = StillVideo(work, *EncodePng(liveness::Face()));

  // The session's mode decides. Passive sessions have no challenges.
  std::string passive = session("passive", R"({"channel":"api"})");
  auto refused = challenge(passive);
  CheckProblem(refused, 400, "CHECK_NOT_ENABLED_FOR_FLOW");
  CHECK(Body(refused)["check"] == "active_liveness");
  auto with_id = upload_video(passive, still, "lch_00000000000000000000000000000000");
  CheckProblem(with_id, 400, "CHECK_NOT_ENABLED_FOR_FLOW");
  CHECK(Body(with_id)["check"] == "active_liveness");
  // Create validation: the mode's values, and active needs the liveness check.
  auto bad = env.Create(env.test_key, "bad-mode", R"({"channel":"api","checks":{"livenessMode":"sometimes"}})");
  CheckProblem(bad, 422, "VALIDATION_ERROR");
  CHECK(Body(bad)["errors"][0]["pointer"] == "/checks/livenessMode");
  CheckProblem(env.Create(env.test_key, "bad-mode-2",
                          R"({"channel":"api","checks":{"liveness":false,"livenessMode":"active"}})"),
               422, "VALIDATION_ERROR");

  // Before consent: no challenge.
  std::string early = session("early", active, false);
  CheckProblem(challenge(early), 409, "CONSENT_REQUIRED");
  CheckProblem(challenge("vrf_00000000000000000000000000000000"), 404, "SESSION_NOT_FOUND");

  std::string id = session("active-1", active);
  CheckProblem(upload_video(id, still, ""), 400, "CHALLENGE_ID_REQUIRED");
  CheckProblem(upload_video(id, still, "lch_00000000000000000000000000000000"), 403,
               "CAPTURE_CREDENTIAL_INVALID");
  auto issued = challenge(id);
  REQUIRE_MESSAGE(issued.status == 201, issued.body);
  core::Json ch = Body(issued);
  CHECK(ch["object"] == "liveness_challenge");
  CHECK(ch["sessionId"] == id);
  REQUIRE(ch["actions"].size() == 3);
  std::vector<std::string> actions = ch["actions"];
  for (size_t i = 0; i < actions.size(); ++i) {
    CHECK((actions[i] == "blink" || actions[i] == "turn_left" || actions[i] == "turn_right"));
    if (i > 0) CHECK(actions[i] != actions[i - 1]);
  }
  auto created_at = core::ParseRfc3339(ch["createdAt"].get<std::string>());
  auto expires_at = core::ParseRfc3339(ch["expiresAt"].get<std::string>());
  REQUIRE((created_at.ok() && expires_at.ok()));
  CHECK(expires_at->micros - created_at->micros == 120'000'000);

  // The person does the actions in order: live.
  std::string performed = liveness::Challenge(**models, work, actions, "performed.mp4");
  auto ok = upload_video(id, performed, ch["challengeId"]);
  REQUIRE_MESSAGE(ok.status == 201, ok.body);
  CHECK(Body(ok)["analysis"]["livenessScore"].get<double>() >= 0.9);
  // One use only.
  CheckProblem(upload_video(id, performed, ch["challengeId"]), 403, "CAPTURE_CREDENTIAL_INVALID");
  // Short-lived: two minutes.
  auto late = Body(challenge(id));
  REQUIRE(env.Admin("POST", "/admin/clock", {{"advanceSeconds", 121}}).status == 200);
  CheckProblem(upload_video(id, performed, late["challengeId"]), 403, "CAPTURE_CREDENTIAL_INVALID");
  REQUIRE(env.Call(env.test_key, "POST", "/v1/verification-sessions/" + id + "/submit").status == 200);
  REQUIRE(env.Admin("POST", "/admin/pipeline/wait-idle").status == 200);
  core::Json ev = Body(env.Call(env.test_key, "GET", "/v1/verification-sessions/" + id + "/evidence"));
  MESSAGE(ev.dump());
  CHECK(ev["verificationStatus"] == "approved");
  CHECK(ev["scores"]["liveness"].get<double>() >= 0.9);

  // A replayed picture answering a challenge: declined, with the reason.
  std::string replay = session("active-2", active);
  auto c2 = Body(challenge(replay));
  auto up = upload_video(replay, still, c2["challengeId"]);
  REQUIRE(up.status == 201);
  CHECK(Body(up)["analysis"]["livenessScore"].get<double>() <= 0.35);
  CHECK(Body(up)["analysis"]["qualityIssues"] == core::Json::array({"challenge_not_followed"}));
  REQUIRE(env.Call(env.test_key, "POST", "/v1/verification-sessions/" + replay + "/submit").status == 200);
  REQUIRE(env.Admin("POST", "/admin/pipeline/wait-idle").status == 200);
  core::Json declined = Body(env.Call(env.test_key, "GET", "/v1/verification-sessions/" + replay + "/evidence"));
  CHECK(declined["verificationStatus"] == "declined");
  auto reasons = declined["decision"]["reasonCodes"];
  CHECK(std::find(reasons.begin(), reasons.end(), "LIVENESS_FAILED") != reasons.end());
  CHECK(std::find(reasons.begin(), reasons.end(), "LIVENESS_CHALLENGE_FAILED") != reasons.end());
  CHECK(Body(env.Call(env.test_key, "GET", "/v1/verification-sessions/" + replay + "/certificate"))["riskGrade"] ==
        "high");
  CHECK(declined["trustScore"].get<double>() <= 0.35);
  // After the verdict, no more challenges.
  CheckProblem(challenge(replay), 409, "SESSION_COMPLETED");
}

}  // namespace integration_biometrics_test
