// The decision policy, the sandbox specimen, media sniffing and multipart parsing: pure
// functions, tested without a server.
#include <doctest/doctest.h>

#include "api/http/multipart.h"
#include "pipeline/documents/checks.h"
#include "pipeline/verification/builtin_engines.h"
#include "pipeline/verification/policy.h"

namespace pipeline_verification_policy_test {

using namespace svc;
using namespace svc::pipeline::verification;
namespace docs = svc::pipeline::documents;

namespace {
const docs::Date kToday{2026, 11, 22};

core::Json Row(const StageOutput& o) { return {{"outcome", o.outcome}, {"summary", o.summary}}; }

BiometricScore Score(double v) {
  BiometricScore s;
  s.score = v;
  s.model_name = "m";
  return s;
}
BiometricScore Score(std::optional<double> v, std::string status, std::string code) {
  BiometricScore s;
  s.score = v;
  s.status = std::move(status);
  s.error_code = std::move(code);
  return s;
}
}  // namespace

TEST_CASE("sandbox specimen: the CURP, MRZ and consistency checks all pass") {
  const auto& s = Specimen();
  CHECK(core::mx::CheckCurp(s.curp, {2026, 1, 1}).valid);
  auto mrz = docs::CheckMrz(s.mrz, kToday);
  REQUIRE(mrz.valid);
  CHECK(mrz.issuing_state == "MEX");
  CHECK(docs::CheckConsistency(mrz, core::mx::CheckCurp(s.curp, {2026, 1, 1})).empty());
  SandboxEngine engine;
  EngineContext ctx{"test", 1, "approved"};
  Capture front{"med_1", "document_front", "image/jpeg", "x", {}};
  Capture back{"med_2", "document_back", "image/jpeg", "x", {}};
  auto out = DocumentStage(engine.ReadDocument(front, &back, ctx), kToday, 1, "sandbox");
  CHECK(out.outcome == "passed");
  CHECK(out.summary["checks"]["consistent"] == true);
  // Without the back side the INE is incomplete (more information).
  CHECK(DocumentStage(engine.ReadDocument(front, nullptr, ctx), kToday, 1, "sandbox").outcome ==
        "incomplete");
}

TEST_CASE("document stage: invalid CURP, expired document, inconsistent data are failures") {
  DocumentReading r;
  r.document_type = "ine";
  r.extracted = {{"curp", "GAHJ900315MDFRRS09"}, {"expiryDate", "2025-12-31"}};
  auto out = DocumentStage(r, kToday, 0, "x");
  CHECK(out.outcome == "failed");
  CHECK(out.summary["reasonCodes"] == core::Json::array({"DOCUMENT_CURP_INVALID", "DOCUMENT_EXPIRED"}));
  DocumentReading unavailable;
  unavailable.status = "unavailable";
  CHECK(DocumentStage(unavailable, kToday, 0, "x").outcome == "unavailable");
  DocumentReading broken;
  broken.status = "error";
  CHECK(DocumentStage(broken, kToday, 0, "x").outcome == "error");
}

TEST_CASE("biometric stages: threshold, decline floor and the band between") {
  Policy p = Policy::FromSession(nullptr, nullptr);
  CHECK(FaceMatchStage(p, Score(0.80), 0).outcome == "passed");
  CHECK(FaceMatchStage(p, Score(0.79), 0).outcome == "review");
  CHECK(FaceMatchStage(p, Score(0.49), 0).outcome == "failed");
  CHECK(LivenessStage(p, Score(0.75), 0).outcome == "passed");
  CHECK(LivenessStage(p, Score(0.39), 0).outcome == "failed");
  BiometricScore none;
  none.status = "unavailable";
  CHECK(LivenessStage(p, none, 0).outcome == "unavailable");
  // A session's policy override moves the threshold (and the floor never sits above it).
  Policy strict = Policy::FromSession(nullptr, core::Json{{"faceMatchThreshold", 0.95}});
  CHECK(FaceMatchStage(strict, Score(0.93), 0).outcome == "review");
  Policy lax = Policy::FromSession(nullptr, core::Json{{"faceMatchThreshold", 0.3}});
  CHECK(FaceMatchStage(lax, Score(0.35), 0).outcome == "passed");
  CHECK(lax.face_match_decline_below == 0.3);
  // checks switch stages off
  Policy no_liveness = Policy::FromSession(core::Json{{"liveness", false}}, nullptr);
  CHECK_FALSE(no_liveness.Enabled("liveness"));
  CHECK(MissingCaptures(no_liveness, {"document_front", "selfie"}).empty());
  CHECK(MissingCaptures(p, {"document_front"}) ==
        std::vector<std::string>{"SELFIE_REQUIRED", "LIVENESS_VIDEO_REQUIRED"});
}

TEST_CASE("image quality below the policy's threshold sends a passed match to review") {
  Policy p = Policy::FromSession(nullptr, nullptr);
  auto good = FaceMatchStage(p, Score(0.95), 0);
  ApplyImageQuality(p, 0.75, good);
  CHECK(good.outcome == "passed");
  CHECK(good.summary["imageQuality"] == 0.75);
  auto poor = FaceMatchStage(p, Score(0.95), 0);
  ApplyImageQuality(p, 0.25, poor);
  CHECK(poor.outcome == "review");
  CHECK(poor.summary["reasonCodes"] == core::Json::array({"IMAGE_QUALITY_LOW"}));
  auto failed = FaceMatchStage(p, Score(0.1), 0);
  ApplyImageQuality(p, 0.25, failed);
  CHECK(failed.outcome == "failed");  // a mismatch stays a mismatch
  auto unmeasured = FaceMatchStage(p, Score(0.95), 0);
  ApplyImageQuality(p, std::nullopt, unmeasured);
  CHECK(unmeasured.outcome == "passed");
  CHECK(unmeasured.summary["imageQuality"].is_null());
  Policy lax = Policy::FromSession(nullptr, core::Json{{"imageQualityThreshold", 0.2}});
  auto ok = FaceMatchStage(lax, Score(0.95), 0);
  ApplyImageQuality(lax, 0.25, ok);
  CHECK(ok.outcome == "passed");
}

TEST_CASE("government stages: found, not found, deceased, mismatch, unavailable") {
  // The document reading speaks ICAO letters (F: the specimen is a woman), the registry the
  // CURP's (M: mujer); they agree.
  core::Json doc = {{"curp", Specimen().curp}, {"birthDate", "1990-03-15"}, {"sex", "F"}};
  SandboxGovRegistry reg;
  CHECK(GovCurpStage(reg.LookupCurp(Specimen().curp), doc, 0, "sandbox").outcome == "passed");
  core::Json male = doc;
  male["sex"] = "M";  // ICAO M is a man: that disagrees with the registry's M (mujer)
  CHECK(GovCurpStage(reg.LookupCurp(Specimen().curp), male, 0, "sandbox").summary["reasonCodes"] ==
        core::Json::array({"GOV_DATA_MISMATCH"}));
  CHECK(docs::CurpSexToIcao("H") == "M");
  CHECK(docs::CurpSexToIcao("M") == "F");
  CHECK(docs::CurpSexToIcao("X") == "X");
  CHECK(docs::CurpSexToIcao("F").empty());
  CHECK(GovCurpStage(reg.LookupCurp("XEXX010101HNEXXXA4"), doc, 0, "sandbox").outcome == "failed");
  CurpLookup dead = reg.LookupCurp(Specimen().curp);
  dead.registry_status = "BD";
  CHECK(GovCurpStage(dead, doc, 0, "x").summary["reasonCodes"] ==
        core::Json::array({"GOV_CURP_DECEASED"}));
  CurpLookup other = reg.LookupCurp(Specimen().curp);
  other.birth_date = "1991-03-15";
  CHECK(GovCurpStage(other, doc, 0, "x").summary["reasonCodes"] ==
        core::Json::array({"GOV_DATA_MISMATCH"}));
  UnconfiguredGovRegistry none;
  CHECK(GovCurpStage(none.LookupCurp(Specimen().curp), doc, 0, "x").outcome == "unavailable");
  CHECK(GovCurpStage(CurpLookup{}, core::Json::object(), 0, "x").summary["reasonCodes"] ==
        core::Json::array({"GOV_NO_CURP_READ"}));
  CHECK(GovIneStage(reg.LookupIne({Specimen().cic, ""}), 0, "x").outcome == "passed");
  CHECK(GovIneStage(reg.LookupIne({"999999999", ""}), 0, "x").outcome == "failed");
  CHECK(GovIneStage(none.LookupIne({}), 0, "x").outcome == "unavailable");
}

TEST_CASE("liveness from a file: never passes on its own") {
  Policy p = Policy::FromSession(nullptr, nullptr);
  auto passing = LivenessStage(p, Score(0.97), 0);
  REQUIRE(passing.outcome == "passed");
  MarkLivenessFromFile(passing);
  CHECK(passing.outcome == "review");
  CHECK(passing.summary["passed"] == false);
  CHECK(passing.summary["captureSource"] == "file");
  CHECK(passing.summary["reasonCodes"] == core::Json::array({"LIVENESS_FILE_UPLOAD"}));
  auto failing = LivenessStage(p, Score(0.1), 0);
  const std::string was = failing.outcome;
  MarkLivenessFromFile(failing);
  CHECK(failing.outcome == was);  // a failing one keeps its outcome, and gains the code
  CHECK(failing.summary["reasonCodes"].back() == "LIVENESS_FILE_UPLOAD");
}

TEST_CASE("government stages: the registry's answer field by field, for the reviewer") {
  const auto& sp = Specimen();
  core::Json doc = {{"curp", sp.curp}, {"birthDate", "1990-03-15"}, {"sex", "F"},
                    {"surname1", sp.surname1}, {"surname2", sp.surname2}, {"givenNames", sp.given_names}};
  SandboxGovRegistry reg;
  auto fields = [&](const CurpLookup& l, const core::Json& d) { return GovCurpStage(l, d, 0, "x").summary["fields"]; };
  CHECK(fields(reg.LookupCurp(sp.curp), doc) ==
        core::Json{{"curp", "match"}, {"birthDate", "match"}, {"sex", "match"}, {"name", "match"}});
  // Every disagreement is marked on its own field, the others still compared.
  CurpLookup other = reg.LookupCurp(sp.curp);
  other.birth_date = "1991-03-15";
  other.name_letters = "GAHX";
  core::Json f = fields(other, doc);
  CHECK(f["birthDate"] == "mismatch");
  CHECK(f["name"] == "mismatch");
  CHECK(f["sex"] == "match");
  core::Json man = doc;
  man["sex"] = "M";
  CHECK(fields(reg.LookupCurp(sp.curp), man)["sex"] == "mismatch");
  // A field the reading or the registry lacks is not compared; a CURP nobody holds compares nothing.
  core::Json bare = {{"curp", sp.curp}};
  CHECK(fields(reg.LookupCurp(sp.curp), bare) ==
        core::Json{{"curp", "match"}, {"birthDate", "not_compared"}, {"sex", "not_compared"}, {"name", "not_compared"}});
  CHECK(fields(reg.LookupCurp("XEXX010101HNEXXXA4"), doc)["curp"] == "not_found");
  CHECK(fields(reg.LookupCurp("XEXX010101HNEXXXA4"), doc)["birthDate"] == "not_compared");
  // Unavailable: no comparison at all. The summary keeps the verdicts only, never a value.
  CHECK_FALSE(GovCurpStage(UnconfiguredGovRegistry().LookupCurp(sp.curp), doc, 0, "x").summary.contains("fields"));
  const std::string dumped = GovCurpStage(other, doc, 0, "x").summary.dump();
  for (const std::string& v : {sp.curp, std::string("1990-03-15"), std::string("1991-03-15"), sp.surname1}) {
    CHECK(dumped.find(v) == std::string::npos);
  }
  // The voter list: the credential found and current, not current, or not listed.
  CHECK(GovIneStage(reg.LookupIne({sp.cic, ""}), 0, "x").summary["fields"] ==
        core::Json{{"cic", "match"}, {"credential", "valid"}});
  CHECK(GovIneStage(reg.LookupIne({"999999999", ""}), 0, "x").summary["fields"] ==
        core::Json{{"cic", "not_found"}, {"credential", "not_found"}});
  IneLookup lost{"not_valid", "", "REPORTED_LOST"};
  CHECK(GovIneStage(lost, 0, "x").summary["fields"]["credential"] == "not_valid");
}

TEST_CASE("verdict: more_info before declined before review before approved; trust score") {
  Policy p = Policy::FromSession(nullptr, nullptr);
  std::map<std::string, core::Json> stages;
  DocumentReading r;
  r.confidence = 0.9;
  r.extracted = {{"curp", Specimen().curp}, {"mrz", Specimen().mrz}};
  stages["document"] = Row(DocumentStage(r, kToday, 0, "x"));
  stages["liveness"] = Row(LivenessStage(p, Score(0.8), 0));
  stages["face_match"] = Row(FaceMatchStage(p, Score(0.9), 0));
  stages["gov_curp"] = {{"outcome", "passed"}, {"summary", {{"score", 1.0}, {"reasonCodes", core::Json::array()}}}};
  auto v = Decide(stages, 0);
  CHECK(v.outcome == "approved");
  CHECK(v.event_type == "verification.approved");
  // (0.3*0.9 + 0.25*0.8 + 0.25*0.9 + 0.2*1) / 1.0 = 0.895 -> 0.9 (2 decimals)
  REQUIRE(v.trust_score.has_value());
  CHECK(*v.trust_score == doctest::Approx(0.9));
  CHECK(Decide(stages, 1).outcome == "review");  // a capture analysis error
  stages["gov_ine"] = {{"outcome", "unavailable"}, {"summary", {{"reasonCodes", {"INE_LOOKUP_UNAVAILABLE"}}}}};
  CHECK(Decide(stages, 0).outcome == "review");
  stages["face_match"] = Row(FaceMatchStage(p, Score(0.1), 0));
  auto declined = Decide(stages, 0);
  CHECK(declined.outcome == "declined");
  CHECK(declined.reason_codes == std::vector<std::string>{"FACE_MISMATCH"});
  stages["liveness"] = Row(SkippedStage("LIVENESS_VIDEO_REQUIRED"));
  CHECK(Decide(stages, 0).outcome == "more_info");
  CHECK_FALSE(Decide({}, 0).trust_score.has_value());  // nothing scored: null
}

TEST_CASE("verdict: a failed liveness or face-match check dominates the trust score and grade") {
  Policy p = Policy::FromSession(nullptr, nullptr);
  std::map<std::string, core::Json> stages;
  DocumentReading r;
  r.confidence = 0.95;
  r.extracted = {{"curp", Specimen().curp}, {"mrz", Specimen().mrz}};
  stages["document"] = Row(DocumentStage(r, kToday, 0, "x"));
  stages["face_match"] = Row(FaceMatchStage(p, Score(0.97), 0));
  stages["gov_curp"] = {{"outcome", "passed"}, {"summary", {{"score", 1.0}, {"reasonCodes", core::Json::array()}}}};
  stages["gov_ine"] = {{"outcome", "passed"}, {"summary", {{"score", 1.0}, {"reasonCodes", core::Json::array()}}}};
  // A photo replayed as a video: liveness 0.2, everything else strong. The weighted mean alone
  // would be 0.83 ("medium"); the failed check caps it at its own score and makes the risk high.
  stages["liveness"] = Row(LivenessStage(p, Score(0.2), 0));
  auto v = Decide(stages, 0);
  CHECK(v.outcome == "declined");
  CHECK(v.reason_codes == std::vector<std::string>{"LIVENESS_FAILED"});
  REQUIRE(v.trust_score.has_value());
  CHECK(*v.trust_score == doctest::Approx(0.2));
  CHECK(v.trust_breakdown["method"] == "weighted_mean/v2");
  CHECK(v.trust_breakdown["cappedBy"] == "failed_biometric_check");
  CHECK(v.trust_breakdown["riskGrade"] == "high");
  // Another person's face: the same.
  stages["liveness"] = Row(LivenessStage(p, Score(0.9), 0));
  stages["face_match"] = Row(FaceMatchStage(p, Score(0.3), 0));
  auto impostor = Decide(stages, 0);
  CHECK(*impostor.trust_score == doctest::Approx(0.3));
  CHECK(impostor.trust_breakdown["riskGrade"] == "high");
  // All passed: not capped, graded by the score.
  stages["face_match"] = Row(FaceMatchStage(p, Score(0.97), 0));
  auto good = Decide(stages, 0);
  CHECK(good.outcome == "approved");
  CHECK(good.trust_breakdown["cappedBy"].is_null());
  CHECK(good.trust_breakdown["riskGrade"] == "low");
  // A decline for another reason (a registry says no) is high risk too, not "medium".
  stages["gov_curp"] = {{"outcome", "failed"}, {"summary", {{"score", 0.0}, {"reasonCodes", {"GOV_CURP_NOT_FOUND"}}}}};
  auto refused = Decide(stages, 0);
  CHECK(refused.outcome == "declined");
  CHECK(refused.trust_breakdown["riskGrade"] == "high");
  // The certificate shows the grade recorded with the verdict.
  ReportInputs in;
  in.session = {{"id", "vrf_1"}, {"tenantId", "ten_1"}, {"status", "declined"}};
  in.verdict = {{"outcome", v.outcome}, {"reasonCodes", v.reason_codes}, {"trustScore", *v.trust_score},
                {"decidedAt", "2026-11-22T00:00:00.000Z"}, {"trustBreakdown", v.trust_breakdown}};
  core::Json cert = BuildCertificateContent(in);
  CHECK(cert["riskGrade"] == "high");
  CHECK(cert["trustScore"] == 0.2);
  // A verdict recorded before grades were recorded keeps the rule it was issued under.
  in.verdict.erase("trustBreakdown");
  in.verdict["trustScore"] = 0.83;
  CHECK(BuildCertificateContent(in)["riskGrade"] == "medium");
}

TEST_CASE("missing captures: one reason per missing capture, none repeated") {
  Policy p = Policy::FromSession(nullptr, nullptr);
  CHECK(MissingCaptures(p, {}) == std::vector<std::string>{"DOCUMENT_FRONT_REQUIRED", "DOCUMENT_BACK_REQUIRED",
                                                           "SELFIE_REQUIRED", "LIVENESS_VIDEO_REQUIRED"});
  CHECK(MissingCaptures(p, {"document_back", "liveness_video"}) ==
        std::vector<std::string>{"DOCUMENT_FRONT_REQUIRED"});
  // Every stage that needs the front says so; the verdict names it once.
  std::map<std::string, core::Json> stages;
  stages["document"] = Row(SkippedStage(std::vector<std::string>{"DOCUMENT_FRONT_REQUIRED", "DOCUMENT_BACK_REQUIRED"}));
  stages["liveness"] = Row(SkippedStage("LIVENESS_VIDEO_REQUIRED"));
  stages["face_match"] = Row(SkippedStage("DOCUMENT_FRONT_REQUIRED"));
  stages["gov_curp"] = Row(SkippedStage("DOCUMENT_FRONT_REQUIRED"));
  stages["gov_ine"] = Row(SkippedStage("DOCUMENT_FRONT_REQUIRED"));
  auto v = Decide(stages, 0);
  CHECK(v.outcome == "more_info");
  CHECK(v.reason_codes == std::vector<std::string>{"DOCUMENT_FRONT_REQUIRED", "DOCUMENT_BACK_REQUIRED",
                                                   "LIVENESS_VIDEO_REQUIRED"});
}

TEST_CASE("media: magic numbers and image dimensions") {
  std::string png = std::string("\x89PNG\r\n\x1A\n\x00\x00\x00\x0DIHDR\x00\x00\x02\x80\x00\x00\x01\xE0", 24);
  CHECK(MagicMatches("image/png", png));
  CHECK_FALSE(MagicMatches("image/jpeg", png));
  CHECK(ImageDimensions("image/png", png) == std::make_pair(640, 480));
  std::string jpeg = std::string("\xFF\xD8\xFF\xE0\x00\x04\x00\x00\xFF\xC0\x00\x11\x08\x01\xE0\x02\x80\x03", 18);
  CHECK(MagicMatches("image/jpeg", jpeg));
  CHECK(ImageDimensions("image/jpeg", jpeg) == std::make_pair(640, 480));
  CHECK_FALSE(ImageDimensions("image/jpeg", std::string("\xFF\xD8\xFF\xDA\x00\x02", 6)).has_value());
  std::string webp = std::string("RIFF\0\0\0\0WEBPVP8X", 16) + std::string(8, '\0') + std::string("\x7F\x02\x00\xDF\x01\x00", 6);
  CHECK(MagicMatches("image/webp", webp));
  CHECK(ImageDimensions("image/webp", webp) == std::make_pair(640, 480));
  CHECK(MagicMatches("video/mp4", std::string("\x00\x00\x00\x18" "ftypisom", 12)));
  CHECK(MagicMatches("video/webm", "\x1A\x45\xDF\xA3rest"));
  CHECK_FALSE(MagicMatches("video/mp4", "\x1A\x45\xDF\xA3rest"));
  CHECK_FALSE(MagicMatches("application/pdf", "%PDF-1.7"));  // not an accepted type
  ModelFreeEngine engine;
  EngineContext ctx{"live", 1, ""};
  auto small = engine.Analyze({"m", "selfie", "image/png", png, {}}, ctx);
  CHECK(small.status == "ok");
  CHECK(small.quality_issues.empty());  // 480 is enough for a selfie
  auto doc = engine.Analyze({"m", "document_front", "image/png", png, {}}, ctx);
  CHECK(doc.quality_issues == std::vector<std::string>{"low_resolution"});
  CHECK(engine.Analyze({"m", "selfie", "image/jpeg", "\xFF\xD8\xFF", {}}, ctx).status == "error");
}

TEST_CASE("multipart/form-data parsing") {
  CHECK(*api::MultipartBoundary("multipart/form-data; boundary=abc") == "abc");
  CHECK(*api::MultipartBoundary("Multipart/Form-Data; boundary=\"a b\"") == "a b");
  CHECK(api::MultipartBoundary("application/json").status().api_code() == "UNSUPPORTED_MEDIA_TYPE");
  CHECK(api::MultipartBoundary("multipart/form-data").status().api_code() == "UNSUPPORTED_MEDIA_TYPE");
  std::string body =
      "preamble\r\n--XX\r\nContent-Disposition: form-data; name=\"kind\"\r\n\r\nselfie\r\n"
      "--XX\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.jpg\"\r\n"
      "Content-Type: image/JPEG; q=1\r\n\r\n\xFF\xD8\r\n--XX\r\nbinary\r\n--XX--\r\n";
  // "--XX\r\nbinary" has no Content-Disposition: malformed.
  CHECK(api::ParseMultipart("XX", body).status().api_code() == "BAD_REQUEST");
  std::string good =
      "--XX\r\nContent-Disposition: form-data; name=\"kind\"\r\n\r\nselfie\r\n"
      "--XX\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.jpg\"\r\n"
      "Content-Type: image/JPEG; q=1\r\n\r\n\xFF\xD8\r\n--XX--\r\n";
  auto parts = api::ParseMultipart("XX", good);
  REQUIRE(parts.ok());
  REQUIRE(parts->size() == 2);
  CHECK((*parts)[0].name == "kind");
  CHECK((*parts)[0].body == "selfie");
  CHECK_FALSE((*parts)[0].has_filename);
  CHECK((*parts)[1].filename == "a.jpg");
  CHECK((*parts)[1].content_type == "image/jpeg");
  CHECK((*parts)[1].body == "\xFF\xD8");
  CHECK(api::ParseMultipart("XX", "--XX\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nno end")
            .status().api_code() == "BAD_REQUEST");
  CHECK(api::ParseMultipart("XX", "nothing").status().api_code() == "BAD_REQUEST");
}

TEST_CASE("deepfake: the check is on by default, checks.deepfake=false turns it off, the threshold is the policy's") {
  CHECK(Policy::FromSession(nullptr, nullptr).Enabled("deepfake"));
  CHECK_FALSE(Policy::FromSession({{"deepfake", false}}, nullptr).Enabled("deepfake"));
  Policy p = Policy::FromSession(nullptr, {{"deepfakeThreshold", 0.7}});
  CHECK(p.deepfake_threshold == doctest::Approx(0.7));
  CHECK(p.ToJson()["deepfakeThreshold"] == 0.7);
  // Below the threshold: passed; the summary names the signals' scores.
  BiometricScore clean = Score(0.12);
  clean.details = {{"score", 0.12}, {"signals", {{"recapture_pattern", {{"measure", 4.1}, {"score", 0.0}}}}}};
  StageOutput ok = DeepfakeStage(p, clean, 3);
  CHECK(ok.outcome == "passed");
  CHECK(ok.summary["passed"] == true);
  CHECK(ok.summary["score"] == 0.12);
  CHECK(ok.summary["threshold"] == 0.7);
  CHECK(ok.summary["reasonCodes"].empty());
  CHECK(ok.summary["signals"] == core::Json{{"recapture_pattern", 0.0}});
  CHECK(ok.details["signals"]["recapture_pattern"]["measure"] == 4.1);
  // At or above: review — never a decline on its own, never a silent pass — with the signals' codes.
  BiometricScore attack = Score(0.7);
  attack.reasons = {"RECAPTURE_PATTERN", "SCREEN_COLOUR_MOIRE"};
  StageOutput suspect = DeepfakeStage(p, attack, 3);
  CHECK(suspect.outcome == "review");
  CHECK(suspect.summary["passed"] == false);
  CHECK(suspect.summary["reasonCodes"] ==
        core::Json::array({"DEEPFAKE_SUSPECTED", "RECAPTURE_PATTERN", "SCREEN_COLOUR_MOIRE"}));
  CHECK(DeepfakeStage(p, Score(std::nullopt, "error", "NO_FACE_FOR_ATTACK_SIGNALS"), 0).outcome == "error");
  CHECK(DeepfakeStage(p, Score(std::nullopt, "unavailable", "X"), 0).outcome == "unavailable");
}

TEST_CASE("deepfake: the score feeds the trust score (weighted_mean/v4) and an attack suspected is high risk") {
  Policy p = Policy::FromSession(nullptr, nullptr);
  std::map<std::string, core::Json> stages;
  DocumentReading r;
  r.confidence = 0.9;
  r.extracted = {{"curp", Specimen().curp}, {"mrz", Specimen().mrz}};
  stages["document"] = Row(DocumentStage(r, kToday, 0, "x"));
  stages["liveness"] = Row(LivenessStage(p, Score(0.8), 0));
  stages["face_match"] = Row(FaceMatchStage(p, Score(0.9), 0));
  stages["gov_curp"] = {{"outcome", "passed"}, {"summary", {{"score", 1.0}, {"reasonCodes", core::Json::array()}}}};
  stages["deepfake"] = Row(DeepfakeStage(p, Score(0.1), 0));
  auto v = Decide(stages, 0);
  CHECK(v.outcome == "approved");
  // (0.895 + 0.15 * 0.9) / 1.15 = 0.8957 -> 0.9
  CHECK(*v.trust_score == doctest::Approx(0.9));
  CHECK(v.trust_breakdown["method"] == "weighted_mean/v4");
  CHECK(v.trust_breakdown["weights"]["antiDeepfake"] == 0.15);
  CHECK(v.trust_breakdown["antiDeepfake"] == doctest::Approx(0.9));
  CHECK(v.trust_breakdown["riskGrade"] == "low");
  // An attack suspected: review, and the risk is high whatever the mean.
  stages["deepfake"] = Row(DeepfakeStage(p, Score(0.8), 0));
  auto suspect = Decide(stages, 0);
  CHECK(suspect.outcome == "review");
  CHECK(suspect.reason_codes == std::vector<std::string>{"DEEPFAKE_SUSPECTED"});
  CHECK(suspect.trust_breakdown["riskGrade"] == "high");
  // The evidence carries the score; the report and the certificate list the check.
  ReportInputs in;
  in.session = {{"id", "vrf_1"},
                {"tenantId", "ten_1"},
                {"status", "review"},
                {"createdAt", "2026-12-01T00:00:00.000Z"},
                {"completedAt", nullptr}};
  in.stages = stages;
  core::Json e = BuildEvidence(in);
  CHECK(e["scores"]["deepfake"] == 0.8);
  bool listed = false;
  for (const auto& item : e["biometric"]) listed |= item["checkType"] == "deepfake" && item["passed"] == false;
  CHECK(listed);
  // Without the stage (disabled, or a verdict recorded before it existed): null and the v2 rule.
  stages.erase("deepfake");
  in.stages = stages;
  CHECK(BuildEvidence(in)["scores"]["deepfake"].is_null());
  CHECK(Decide(stages, 0).trust_breakdown["method"] == "weighted_mean/v2");
}

}  // namespace pipeline_verification_policy_test
