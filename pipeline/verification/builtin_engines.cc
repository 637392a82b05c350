#include "pipeline/verification/builtin_engines.h"

#include "pipeline/documents/checks.h"

namespace svc::pipeline::verification {

namespace docs = pipeline::documents;

// ---- ModelFreeEngine ----

CaptureAnalysisResult ModelFreeEngine::Analyze(const Capture& c, const EngineContext&) {
  CaptureAnalysisResult r;
  if (c.kind == "liveness_video") {
    // The container was checked at upload; frames are the biometric engine's work.
    return r;
  }
  auto dims = ImageDimensions(c.mime, c.bytes);
  if (!dims.has_value() || dims->first <= 0 || dims->second <= 0) {
    r.status = "error";
    r.error_code = "IMAGE_UNREADABLE";
    r.retry_hints.push_back("take the photo again");
    return r;
  }
  const int shorter = std::min(dims->first, dims->second);
  const int longer = std::max(dims->first, dims->second);
  // As the dlib engine's quality check (docs/biometrics.md#image-quality).
  if (c.kind == "selfie" ? shorter < 480 : (longer < 960 || shorter < 540)) {
    r.quality_issues.push_back("low_resolution");
    r.retry_hints.push_back(c.kind == "selfie" ? "move closer to the camera"
                                               : "fill the frame with the document");
  }
  return r;
}

DocumentReading ModelFreeEngine::ReadDocument(const Capture&, const Capture*, const EngineContext&) {
  DocumentReading r;
  r.status = "unavailable";
  r.error_code = "DOCUMENT_READER_UNAVAILABLE";
  return r;
}

BiometricScore ModelFreeEngine::Liveness(const Capture&, const EngineContext&) {
  BiometricScore r;
  r.status = "unavailable";
  r.error_code = "BIOMETRIC_ENGINE_UNAVAILABLE";
  return r;
}

BiometricScore ModelFreeEngine::FaceMatch(const Capture&, const Capture&, const EngineContext&) {
  BiometricScore r;
  r.status = "unavailable";
  r.error_code = "BIOMETRIC_ENGINE_UNAVAILABLE";
  return r;
}

// ---- Sandbox ----

const SandboxSpecimen& Specimen() {
  static const SandboxSpecimen s = [] {
    SandboxSpecimen x;
    std::string first17 = "GAHJ900315MDFRRS0";
    x.curp = first17 + core::mx::CurpCheckDigit(first17);
    std::string l1 = "IDMEX" + x.cic + "0<<<<<<<<<<<<<<<";
    l1[14] = static_cast<char>('0' + docs::MrzCheckDigit(l1.substr(5, 9)));
    std::string l2 = "9003155F3112314MEX<<<<<<<<<<<";  // 29 characters, checks fixed below
    l2[6] = static_cast<char>('0' + docs::MrzCheckDigit(l2.substr(0, 6)));
    l2[14] = static_cast<char>('0' + docs::MrzCheckDigit(l2.substr(8, 6)));
    l2 += static_cast<char>('0' + docs::MrzCheckDigit(l1.substr(5, 25) + l2.substr(0, 7) +
                                                      l2.substr(8, 7) + l2.substr(18, 11)));
    std::string l3 = "GARCIA<HERNANDEZ<<MARIA<JOSEFI";
    x.mrz = {l1, l2, l3};
    return x;
  }();
  return s;
}

namespace {
core::Json FrontFields() {
  const auto& s = Specimen();
  return {{"surname1", s.surname1},   {"surname2", s.surname2}, {"givenNames", s.given_names},
          {"curp", s.curp},           {"birthDate", s.birth_date}, {"sex", docs::CurpSexToIcao(s.sex)},
          {"expiryDate", s.expiry_date}};
}
core::Json BackFields() {
  const auto& s = Specimen();
  return {{"mrz", s.mrz}, {"cic", s.cic}};
}
}  // namespace

CaptureAnalysisResult SandboxEngine::Analyze(const Capture& c, const EngineContext& ctx) {
  CaptureAnalysisResult r;
  if (ctx.test_outcome == "analysis_error") {
    r.status = "error";
    r.error_code = "SANDBOX_ANALYSIS_ERROR";
    r.retry_hints.push_back("this is the sandbox's forced analysis error");
    return r;
  }
  r.confidence = 0.98;
  if (c.kind == "document_front") {
    r.document_type = "ine";
    r.issuing_country = "MEX";
    r.requires_back_page = true;
    r.extracted = FrontFields();
  } else if (c.kind == "document_back") {
    r.document_type = "ine";
    r.issuing_country = "MEX";
    r.extracted = BackFields();
  } else if (c.kind == "liveness_video") {
    r.liveness_score = ctx.test_outcome == "review" ? 0.6 : 0.97;
  }
  return r;
}

DocumentReading SandboxEngine::ReadDocument(const Capture&, const Capture* back,
                                            const EngineContext& ctx) {
  DocumentReading r;
  if (ctx.test_outcome == "analysis_error") {
    r.status = "error";
    r.error_code = "SANDBOX_ANALYSIS_ERROR";
    return r;
  }
  r.document_type = "ine";
  r.issuing_country = "MEX";
  r.requires_back_page = true;
  r.confidence = 0.98;
  r.extracted = FrontFields();
  // more_info: the first submission's back side is "not legible", so it is asked for again.
  bool back_legible = back != nullptr && !(ctx.test_outcome == "more_info" && ctx.submission == 1);
  if (back_legible) {
    core::Json back_fields = BackFields();
    for (auto it = back_fields.begin(); it != back_fields.end(); ++it) r.extracted[it.key()] = *it;
    r.requires_back_page = false;
  }
  return r;
}

namespace {

// A sandbox score: `score`, or the documented analysis error when the test outcome asks for it.
BiometricScore SandboxScore(const EngineContext& ctx, double score) {
  BiometricScore r;
  r.model_name = "sandbox";
  if (ctx.test_outcome == "analysis_error") {
    r.status = "error";
    r.error_code = "SANDBOX_ANALYSIS_ERROR";
    return r;
  }
  r.score = score;
  return r;
}

}  // namespace

BiometricScore SandboxEngine::Liveness(const Capture&, const EngineContext& ctx) { return SandboxScore(ctx, 0.97); }

BiometricScore SandboxEngine::FaceMatch(const Capture&, const Capture&, const EngineContext& ctx) {
  return SandboxScore(ctx, ctx.test_outcome == "declined" ? 0.18 : ctx.test_outcome == "review" ? 0.68 : 0.93);
}

BiometricScore SandboxEngine::AttackSignals(const Capture*, const Capture*, const EngineContext&) {
  BiometricScore r;
  r.model_name = "sandbox";
  r.score = 0.02;
  return r;
}

CurpLookup SandboxGovRegistry::LookupCurp(const std::string& curp) {
  CurpLookup r;
  r.source = "renapo";
  const auto& s = Specimen();
  if (curp == s.curp) {
    r.status = "found";
    r.registry_status = "AN";
    r.birth_date = s.birth_date;
    r.sex = s.sex;
    r.name_letters = curp.substr(0, 4);
    return r;
  }
  r.status = "not_found";
  return r;
}

IneLookup SandboxGovRegistry::LookupIne(const IneQuery& q) {
  IneLookup r;
  if (q.cic == Specimen().cic) {
    r.status = "valid";
    return r;
  }
  r.status = "not_found";
  r.detail_code = "NOT_IN_LIST";
  return r;
}

}  // namespace svc::pipeline::verification
