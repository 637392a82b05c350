#include "pipeline/verification/policy.h"

#include <cmath>

namespace svc::pipeline::verification {

namespace docs = pipeline::documents;

namespace {

core::Json Num(std::optional<double> v) { return v ? core::Json(*v) : core::Json(nullptr); }

std::optional<double> NumberOf(const core::Json& j, const char* key) {
  if (!j.is_object()) return std::nullopt;
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

std::vector<std::string> ReasonsOf(const core::Json& summary) {
  std::vector<std::string> out;
  if (auto it = summary.find("reasonCodes"); it != summary.end() && it->is_array()) {
    for (const auto& v : *it) {
      if (v.is_string()) out.push_back(v.get<std::string>());
    }
  }
  return out;
}

core::Json Summary(std::optional<double> score, std::optional<double> threshold,
                   core::Json passed, const std::string& model, int64_t latency_ms,
                   std::vector<std::string> reasons) {
  return {{"score", Num(Round4(score))},
          {"threshold", Num(threshold)},
          {"passed", std::move(passed)},
          {"modelName", core::StringOrNull(model)},
          {"latencyMs", latency_ms},
          {"reasonCodes", std::move(reasons)}};
}

std::optional<docs::Date> ParseDate(const std::string& s) {
  int y = 0, m = 0, d = 0;
  if (s.size() != 10 || std::sscanf(s.c_str(), "%4d-%2d-%2d", &y, &m, &d) != 3) return std::nullopt;
  if (!docs::IsValidDate(y, m, d)) return std::nullopt;
  return docs::Date{y, m, d};
}

StageOutput Biometric(std::string_view stage, const BiometricScore& s, double threshold,
                      double decline_below, int64_t latency_ms, const char* failed_code,
                      const char* inconclusive_code) {
  StageOutput o;
  std::string upper = stage == "liveness" ? "LIVENESS" : "FACE_MATCH";
  if (s.status == "error" || (s.status == "ok" && !s.score.has_value())) {
    o.outcome = "error";
    o.summary = Summary(std::nullopt, threshold, nullptr, s.model_name, latency_ms,
                        {upper + "_ANALYSIS_ERROR"});
    o.summary["errorCode"] = core::StringOrNull(s.error_code);
    return o;
  }
  if (s.status != "ok") {
    o.outcome = "unavailable";
    o.summary = Summary(std::nullopt, threshold, nullptr, s.model_name, latency_ms,
                        {upper + "_ENGINE_UNAVAILABLE"});
    o.summary["errorCode"] = core::StringOrNull(s.error_code);
    return o;
  }
  double v = *s.score;
  if (v >= threshold) {
    o.outcome = "passed";
    o.summary = Summary(v, threshold, true, s.model_name, latency_ms, {});
  } else {
    std::vector<std::string> reasons = {v < decline_below ? failed_code : inconclusive_code};
    reasons.insert(reasons.end(), s.reasons.begin(), s.reasons.end());
    o.outcome = v < decline_below ? "failed" : "review";
    o.summary = Summary(v, threshold, false, s.model_name, latency_ms, reasons);
  }
  return o;
}

}  // namespace

std::optional<double> Round4(std::optional<double> v) {
  if (!v) return v;
  return std::round(*v * 10000.0) / 10000.0;
}

Policy Policy::FromSession(const core::Json& checks, const core::Json& policy) {
  Policy p;
  p.enabled = {"document", "liveness", "faceMatch", "deepfake", "governmentLookup"};
  if (checks.is_object()) {
    for (auto it = checks.begin(); it != checks.end(); ++it) {
      if (!it->is_boolean()) continue;
      if (it->get<bool>()) {
        p.enabled.insert(it.key());
      } else {
        p.enabled.erase(it.key());
      }
    }
  }
  if (policy.is_object()) {
    if (auto v = NumberOf(policy, "faceMatchThreshold")) p.face_match_threshold = *v;
    if (auto v = NumberOf(policy, "livenessThreshold")) p.liveness_threshold = *v;
    if (auto v = NumberOf(policy, "imageQualityThreshold")) p.image_quality_threshold = *v;
    if (auto v = NumberOf(policy, "deepfakeThreshold")) p.deepfake_threshold = *v;
    if (auto it = policy.find("requireGovernmentLookup"); it != policy.end() && it->is_boolean()) {
      p.require_government_lookup = it->get<bool>();
    }
  }
  // A threshold below the decline floor lowers the floor with it.
  p.face_match_decline_below = std::min(p.face_match_decline_below, p.face_match_threshold);
  p.liveness_decline_below = std::min(p.liveness_decline_below, p.liveness_threshold);
  return p;
}

core::Json Policy::ToJson() const {
  return {{"version", kPolicyVersion},
          {"faceMatchThreshold", face_match_threshold},
          {"livenessThreshold", liveness_threshold},
          {"imageQualityThreshold", image_quality_threshold},
          {"deepfakeThreshold", deepfake_threshold},
          {"requireGovernmentLookup", require_government_lookup},
          {"checks", enabled}};
}

std::vector<std::string> MissingCaptures(const Policy& p, const std::set<std::string>& kinds) {
  std::vector<std::string> out;
  bool needs_document = p.Enabled("document") || p.Enabled("faceMatch") ||
                        p.Enabled("governmentLookup");
  if (needs_document && kinds.count("document_front") == 0) {
    out.push_back("DOCUMENT_FRONT_REQUIRED");
    // Without the front nobody can tell whether the document has a back; both are asked for
    // (the default document, an INE, has one). A front alone is judged on its own once sent.
    bool reads_document = p.Enabled("document") || p.Enabled("governmentLookup");
    if (reads_document && kinds.count("document_back") == 0) out.push_back("DOCUMENT_BACK_REQUIRED");
  }
  if (p.Enabled("faceMatch") && kinds.count("selfie") == 0 && kinds.count("liveness_video") == 0) {
    out.push_back("SELFIE_REQUIRED");
  }
  if (p.Enabled("liveness") && kinds.count("liveness_video") == 0) {
    out.push_back("LIVENESS_VIDEO_REQUIRED");
  }
  return out;
}

StageOutput SkippedStage(std::string_view reason_code) {
  return SkippedStage(std::vector<std::string>{std::string(reason_code)});
}

StageOutput SkippedStage(std::vector<std::string> reason_codes) {
  StageOutput o;
  bool incomplete = !reason_codes.empty() && reason_codes.front().ends_with("_REQUIRED");
  o.outcome = incomplete ? "incomplete" : "skipped";
  o.summary = Summary(std::nullopt, std::nullopt, nullptr, "", 0, std::move(reason_codes));
  return o;
}

StageOutput DocumentStage(const DocumentReading& r, const docs::Date& today, int64_t latency_ms,
                          const std::string& engine) {
  StageOutput o;
  if (r.status == "error") {
    o.outcome = "error";
    o.summary = Summary(std::nullopt, std::nullopt, nullptr, engine, latency_ms,
                        {"DOCUMENT_ANALYSIS_ERROR"});
    o.summary["errorCode"] = core::StringOrNull(r.error_code);
    return o;
  }
  if (r.status != "ok") {
    o.outcome = "unavailable";
    o.summary = Summary(std::nullopt, std::nullopt, nullptr, engine, latency_ms,
                        {"DOCUMENT_READER_UNAVAILABLE"});
    o.summary["errorCode"] = core::StringOrNull(r.error_code);
    return o;
  }
  std::vector<std::string> reasons;
  const core::Json& x = r.extracted;
  core::Json checks = core::Json::object();
  std::optional<core::mx::CurpCheck> curp;
  std::optional<docs::MrzResult> mrz;
  if (std::string c = core::StringOr(x, "curp"); !c.empty()) {
    curp = core::mx::CheckCurp(c, today);
    checks["curpValid"] = curp->valid;
    if (!curp->valid) reasons.push_back("DOCUMENT_CURP_INVALID");
  } else {
    checks["curpValid"] = nullptr;
  }
  if (auto it = x.find("mrz"); it != x.end() && it->is_array()) {
    std::vector<std::string> lines;
    for (const auto& l : *it) {
      if (l.is_string()) lines.push_back(l.get<std::string>());
    }
    mrz = docs::CheckMrz(lines, today);
    checks["mrzValid"] = mrz->valid;
    if (!mrz->valid) reasons.push_back("DOCUMENT_MRZ_INVALID");
  } else {
    checks["mrzValid"] = nullptr;
  }
  std::optional<docs::Date> expiry;
  if (mrz && mrz->valid && mrz->expiry_date) expiry = mrz->expiry_date;
  if (!expiry) expiry = ParseDate(core::StringOr(x, "expiryDate"));
  if (expiry) {
    bool expired = docs::IsExpired(*expiry, today);
    checks["notExpired"] = !expired;
    if (expired) reasons.push_back("DOCUMENT_EXPIRED");
  } else {
    checks["notExpired"] = nullptr;
  }
  if (curp && curp->valid && mrz && mrz->valid) {
    bool consistent = docs::CheckConsistency(*mrz, *curp).empty();
    checks["consistent"] = consistent;
    if (!consistent) reasons.push_back("DOCUMENT_DATA_INCONSISTENT");
  } else {
    checks["consistent"] = nullptr;
  }
  if (r.requires_back_page && !mrz) {
    o.outcome = "incomplete";
    reasons.insert(reasons.begin(), "DOCUMENT_BACK_REQUIRED");
  } else {
    o.outcome = reasons.empty() ? "passed" : "failed";
  }
  o.summary = Summary(r.confidence, std::nullopt,
                      o.outcome == "incomplete" ? core::Json(nullptr) : core::Json(reasons.empty()),
                      engine, latency_ms, reasons);
  o.summary["documentType"] = core::StringOrNull(r.document_type);
  o.summary["issuingCountry"] = core::StringOrNull(r.issuing_country);
  o.summary["checks"] = checks;
  if (std::string source = core::StringOr(x, "namesSource"); !source.empty()) o.summary["namesSource"] = source;
  o.details = x;
  return o;
}

StageOutput LivenessStage(const Policy& p, const BiometricScore& s, int64_t latency_ms) {
  StageOutput o = Biometric("liveness", s, p.liveness_threshold, p.liveness_decline_below,
                            latency_ms, "LIVENESS_FAILED", "LIVENESS_INCONCLUSIVE");
  if (!s.details.is_null()) o.details = s.details;
  return o;
}

StageOutput FaceMatchStage(const Policy& p, const BiometricScore& s, int64_t latency_ms) {
  StageOutput o = Biometric("face_match", s, p.face_match_threshold, p.face_match_decline_below,
                            latency_ms, "FACE_MISMATCH", "FACE_MATCH_INCONCLUSIVE");
  o.summary["matchedAgainst"] = "document_photo";
  return o;
}

void MarkLivenessFromFile(StageOutput& o) {
  o.summary["captureSource"] = "file";
  if (o.outcome == "passed") {
    o.outcome = "review";
    o.summary["passed"] = false;
  }
  if (o.outcome == "passed" || o.outcome == "review" || o.outcome == "failed") {
    if (!o.summary["reasonCodes"].is_array()) o.summary["reasonCodes"] = core::Json::array();
    o.summary["reasonCodes"].push_back("LIVENESS_FILE_UPLOAD");
  }
}

void ApplyImageQuality(const Policy& p, std::optional<double> quality, StageOutput& o) {
  o.summary["imageQuality"] = Num(Round4(quality));
  if (!quality.has_value() || *quality >= p.image_quality_threshold) return;
  if (o.outcome == "passed") {
    o.outcome = "review";
    o.summary["passed"] = false;
  }
  if (o.outcome == "passed" || o.outcome == "review") {
    o.summary["reasonCodes"].push_back("IMAGE_QUALITY_LOW");
  }
}

StageOutput DeepfakeStage(const Policy& p, const BiometricScore& s, int64_t latency_ms) {
  StageOutput o;
  if (s.status == "error" || (s.status == "ok" && !s.score.has_value())) {
    o.outcome = "error";
    o.summary = Summary(std::nullopt, p.deepfake_threshold, nullptr, s.model_name, latency_ms, {"DEEPFAKE_ANALYSIS_ERROR"});
    o.summary["errorCode"] = core::StringOrNull(s.error_code);
    return o;
  }
  if (s.status != "ok") {
    o.outcome = "unavailable";
    o.summary = Summary(std::nullopt, p.deepfake_threshold, nullptr, s.model_name, latency_ms,
                        {"DEEPFAKE_ENGINE_UNAVAILABLE"});
    o.summary["errorCode"] = core::StringOrNull(s.error_code);
    return o;
  }
  const bool suspected = *s.score >= p.deepfake_threshold;
  std::vector<std::string> reasons;
  if (suspected) {
    reasons.push_back("DEEPFAKE_SUSPECTED");
    reasons.insert(reasons.end(), s.reasons.begin(), s.reasons.end());
  }
  o.outcome = suspected ? "review" : "passed";
  o.summary = Summary(s.score, p.deepfake_threshold, !suspected, s.model_name, latency_ms, std::move(reasons));
  core::Json signals = core::Json::object();
  if (s.details.is_object() && s.details.contains("signals") && s.details["signals"].is_object()) {
    for (auto it = s.details["signals"].begin(); it != s.details["signals"].end(); ++it) {
      signals[it.key()] = it->value("score", core::Json(nullptr));
    }
  }
  o.summary["signals"] = signals;
  if (!s.details.is_null()) o.details = s.details;
  return o;
}

StageOutput GovCurpStage(const CurpLookup& l, const core::Json& doc, int64_t latency_ms,
                         const std::string& registry) {
  StageOutput o;
  std::string curp = core::StringOr(doc, "curp");
  auto finish = [&](std::string outcome, core::Json passed, std::optional<double> score,
                    std::vector<std::string> reasons) {
    o.outcome = std::move(outcome);
    o.summary = Summary(score, std::nullopt, std::move(passed), registry, latency_ms,
                        std::move(reasons));
    o.summary["source"] = "renapo";
    o.summary["registryStatus"] = core::StringOrNull(l.registry_status);
    if (!l.error_code.empty()) o.summary["errorCode"] = l.error_code;
    return o;
  };
  if (curp.empty()) return finish("unavailable", nullptr, std::nullopt, {"GOV_NO_CURP_READ"});
  if (l.status == "unavailable" || l.status.empty()) {
    return finish("unavailable", nullptr, std::nullopt, {"GOV_LOOKUP_UNAVAILABLE"});
  }
  // Field by field, what the registry's answer says of the document's reading (a comparison's
  // result only: no value of either side is kept here).
  auto compare = [](const std::string& registry_value, const std::string& document_value) {
    if (registry_value.empty() || document_value.empty()) return "not_compared";
    return registry_value == document_value ? "match" : "mismatch";
  };
  const std::string doc_letters = docs::CurpNameLetters(core::StringOr(doc, "surname1"), core::StringOr(doc, "surname2"),
                                                        core::StringOr(doc, "givenNames"));
  const std::string doc_sex_letter = core::StringOr(doc, "sex");
  auto with_fields = [&](StageOutput out) {
    const bool found = l.status != "not_found";
    out.summary["fields"] = {
        {"curp", found ? "match" : "not_found"},
        {"birthDate", found ? compare(l.birth_date, core::StringOr(doc, "birthDate")) : "not_compared"},
        {"sex", found ? compare(l.sex.empty() ? "" : std::string(docs::CurpSexToIcao(l.sex)), doc_sex_letter) : "not_compared"},
        {"name", found && core::StringOr(doc, "surname1").size() > 0 ? compare(l.name_letters, doc_letters) : "not_compared"}};
    return out;
  };
  if (l.status == "not_found") return with_fields(finish("failed", false, 0.0, {"GOV_CURP_NOT_FOUND"}));
  if (l.registry_status == "BD" || l.registry_status == "BDM" || l.registry_status == "BDP") {
    return with_fields(finish("failed", false, 0.0, {"GOV_CURP_DECEASED"}));
  }
  std::vector<std::string> mismatch;
  std::string doc_birth = core::StringOr(doc, "birthDate"), doc_sex = core::StringOr(doc, "sex");
  if (!l.birth_date.empty() && !doc_birth.empty() && l.birth_date != doc_birth) {
    mismatch.push_back("GOV_DATA_MISMATCH");
  } else if (!l.sex.empty() && !doc_sex.empty() && docs::CurpSexToIcao(l.sex) != doc_sex) {
    // The registry answers in the CURP's letters, the document reading in ICAO's.
    mismatch.push_back("GOV_DATA_MISMATCH");
  }
  if (!mismatch.empty()) return with_fields(finish("failed", false, 0.0, mismatch));
  return with_fields(finish("passed", true, 1.0, {}));
}

StageOutput GovIneStage(const IneLookup& l, int64_t latency_ms, const std::string& registry) {
  StageOutput o;
  auto finish = [&](std::string outcome, core::Json passed, std::optional<double> score,
                    std::vector<std::string> reasons) {
    o.outcome = std::move(outcome);
    o.summary = Summary(score, std::nullopt, std::move(passed), registry, latency_ms,
                        std::move(reasons));
    o.summary["source"] = "ine";
    o.summary["detailCode"] = core::StringOrNull(l.detail_code);
    if (!l.error_code.empty()) o.summary["errorCode"] = l.error_code;
    return o;
  };
  // The voter list answers for the credential read from the document (its CIC and citizen
  // identifier together): found and current, found but not current, or not in the list.
  auto with_fields = [&](StageOutput out, const char* credential) {
    out.summary["fields"] = {{"cic", l.status == "not_found" ? "not_found" : "match"}, {"credential", credential}};
    return out;
  };
  if (l.status == "valid") return with_fields(finish("passed", true, 1.0, {}), "valid");
  if (l.status == "not_valid") return with_fields(finish("failed", false, 0.0, {"INE_CREDENTIAL_NOT_VALID"}), "not_valid");
  if (l.status == "not_found") return with_fields(finish("failed", false, 0.0, {"INE_NOT_IN_LIST"}), "not_found");
  return finish("unavailable", nullptr, std::nullopt, {"INE_LOOKUP_UNAVAILABLE"});
}

StageOutput EfirmaStage(const core::Json& check, const std::string& holder_curp, const std::string& document_curp) {
  if (!check.is_object()) return SkippedStage("EFIRMA_REQUIRED");
  std::vector<std::string> reasons = ReasonsOf(check);
  std::string comparison = "not_compared";
  if (!holder_curp.empty() && !document_curp.empty()) {
    comparison = holder_curp == document_curp ? "match" : "mismatch";
    if (comparison == "mismatch") reasons.push_back("EFIRMA_DOCUMENT_MISMATCH");
  }
  bool only_revocation_unknown = !reasons.empty();
  for (const auto& r : reasons) {
    if (r != "EFIRMA_OCSP_UNKNOWN" && r != "EFIRMA_OCSP_UNAVAILABLE") only_revocation_unknown = false;
  }
  StageOutput o;
  o.outcome = reasons.empty() ? "passed" : only_revocation_unknown ? "review" : "failed";
  const bool passed = reasons.empty();
  o.summary = Summary(passed ? std::optional<double>(1.0) : only_revocation_unknown ? std::nullopt
                                                                                    : std::optional<double>(0.0),
                      std::nullopt, passed, "", 0, std::move(reasons));
  o.summary["source"] = "sat";
  o.summary["challengeId"] = check.value("challengeId", core::Json(nullptr));
  o.summary["certificate"] = check.value("certificate", core::Json(nullptr));
  o.summary["ocsp"] = check.value("ocsp", core::Json(nullptr));
  o.summary["holder"] = check.value("holder", core::Json(nullptr));
  o.summary["holder"]["document"] = comparison;
  o.summary["signatureSha256"] = check.value("signatureSha256", core::Json(nullptr));
  o.summary["checkedAt"] = check.value("checkedAt", core::Json(nullptr));
  return o;
}

namespace {

// Appends the codes not already in `out` (one reason per cause, however many stages saw it).
void AddUnique(std::vector<std::string>& out, const std::vector<std::string>& codes) {
  for (const auto& c : codes) {
    if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
  }
}

}  // namespace

Verdict Decide(const std::map<std::string, core::Json>& stages, int analysis_errors) {
  Verdict v;
  std::vector<std::string> incomplete, failed, review;
  std::map<std::string, std::optional<double>> part;  // component -> score
  std::vector<double> gov;
  // Scores of biometric checks that failed (a presentation attack caught, another person's
  // face): they cap the trust score and make the risk high, whatever the other checks say.
  std::vector<double> failed_biometric;
  bool attack_suspected = false;
  for (const auto& [name, row] : stages) {
    std::string outcome = core::StringOr(row, "outcome");
    core::Json summary = row.contains("summary") ? row["summary"] : core::Json::object();
    auto reasons = ReasonsOf(summary);
    auto score = NumberOf(summary, "score");
    if (outcome == "incomplete") AddUnique(incomplete, reasons);
    if (outcome == "failed") AddUnique(failed, reasons);
    if (outcome == "review" || outcome == "unavailable" || outcome == "error") {
      AddUnique(review, reasons);
    }
    if (outcome == "failed" && (name == "liveness" || name == "face_match")) {
      failed_biometric.push_back(score.value_or(0.0));
    }
    if (name == "deepfake" && outcome == "review") attack_suspected = true;
    bool scored = outcome == "passed" || outcome == "failed" || outcome == "review";
    if (!scored) continue;
    if (name == "document") {
      part["document"] = outcome == "failed" ? 0.0 : score.value_or(1.0);
    } else if (name == "liveness" && score) {
      part["liveness"] = *score;
    } else if (name == "face_match" && score) {
      part["faceMatch"] = *score;
    } else if (name == "gov_curp" || name == "gov_ine") {
      gov.push_back(outcome == "passed" ? 1.0 : 0.0);
    } else if (name == "efirma" && score) {
      part["efirma"] = *score;
    } else if (name == "deepfake" && score) {
      part["antiDeepfake"] = 1.0 - *score;  // the deepfake score is how suspect; its complement counts
    }
  }
  if (!gov.empty()) {
    double sum = 0;
    for (double g : gov) sum += g;
    part["government"] = sum / static_cast<double>(gov.size());
  }
  if (analysis_errors > 0) AddUnique(review, {"CAPTURE_ANALYSIS_ERROR"});
  if (!incomplete.empty()) {
    v.outcome = "more_info";
    v.event_type = "verification.more_info_requested";
    v.reason_codes = incomplete;
  } else if (!failed.empty()) {
    v.outcome = "declined";
    v.event_type = "verification.declined";
    v.reason_codes = failed;
  } else if (!review.empty()) {
    v.outcome = "review";
    v.event_type = "verification.review_required";
    v.reason_codes = review;
  } else {
    v.outcome = "approved";
    v.event_type = "verification.approved";
  }
  std::map<std::string, double> weights = {
      {"faceMatch", 0.30}, {"liveness", 0.25}, {"document", 0.25}, {"government", 0.20}};
  // The e.firma component exists only where the session checks e.firma (weighted_mean/v3); a
  // breakdown without it is v2's, to the byte.
  const bool efirma = stages.count("efirma") > 0;
  if (efirma) weights["efirma"] = 0.20;
  // The anti-deepfake component exists where the deepfake check scored (weighted_mean/v4).
  const bool deepfake = part.count("antiDeepfake") > 0;
  if (deepfake) weights["antiDeepfake"] = 0.15;
  const auto& kWeights = weights;
  double weighted = 0, total = 0;
  const std::string_view method = deepfake ? kTrustMethodDeepfake : efirma ? kTrustMethodEfirma : kTrustMethod;
  const std::string_view basis = deepfake ? kRiskBasisDeepfake : efirma ? kRiskBasisEfirma : kRiskBasis;
  core::Json breakdown = {{"method", method}, {"weights", kWeights}};
  for (const auto& [k, w] : kWeights) {
    auto it = part.find(k);
    if (it == part.end() || !it->second) {
      breakdown[k] = nullptr;
      continue;
    }
    breakdown[k] = *Round4(*it->second);
    weighted += w * *it->second;
    total += w;
  }
  std::optional<double> cap;
  for (double s : failed_biometric) cap = std::min(cap.value_or(1.0), s);
  if (total > 0) {
    double t = weighted / total;
    if (cap.has_value()) t = std::min(t, *cap);
    v.trust_score = std::round(t * 100.0) / 100.0;
  }
  breakdown["cappedBy"] = cap.has_value() ? core::Json("failed_biometric_check") : core::Json(nullptr);
  breakdown["trustScore"] = Num(v.trust_score);
  // The risk grade is decided here, once, and recorded with the verdict: the certificate shows
  // it as decided, so a later change of the rule never changes an issued document.
  std::string grade;
  if (v.outcome == "declined" || !failed_biometric.empty() || attack_suspected) {
    grade = "high";
  } else if (v.trust_score.has_value()) {
    grade = *v.trust_score >= 0.85 ? "low" : *v.trust_score >= 0.60 ? "medium" : "high";
  }
  breakdown["riskGrade"] = grade.empty() ? core::Json(nullptr) : core::Json(grade);
  breakdown["riskBasis"] = grade.empty() ? core::Json(nullptr) : core::Json(basis);
  v.trust_breakdown = breakdown;
  return v;
}

// ---- Documents ----

namespace {

core::Json Stage(const ReportInputs& in, const char* name) {
  auto it = in.stages.find(name);
  return it == in.stages.end() ? core::Json(nullptr) : it->second;
}

bool Ran(const core::Json& row) {
  std::string o = core::StringOr(row, "outcome");
  return !row.is_null() && o != "skipped" && o != "incomplete";
}

core::Json SummaryField(const core::Json& row, const char* key) {
  if (!row.is_object() || !row.contains("summary") || !row["summary"].contains(key)) return nullptr;
  return row["summary"][key];
}

core::Json BiometricItems(const ReportInputs& in, bool with_latency) {
  core::Json items = core::Json::array();
  for (auto [stage, type] : {std::pair{"liveness", "liveness"}, std::pair{"face_match", "face_match"},
                             std::pair{"deepfake", "deepfake"}}) {
    core::Json row = Stage(in, stage);
    if (!Ran(row)) continue;
    core::Json item = {{"checkType", type},
                       {"score", SummaryField(row, "score")},
                       {"threshold", SummaryField(row, "threshold")},
                       {"passed", SummaryField(row, "passed")},
                       {"modelName", SummaryField(row, "modelName")}};
    if (with_latency) item["latencyMs"] = SummaryField(row, "latencyMs");
    items.push_back(item);
  }
  return items;
}

core::Json GovItems(const ReportInputs& in, bool full) {
  core::Json items = core::Json::array();
  for (auto [stage, check] : {std::pair{"gov_curp", "curp"}, std::pair{"gov_ine", "ine_list"}}) {
    core::Json row = Stage(in, stage);
    if (!Ran(row)) continue;
    core::Json item = {{"source", SummaryField(row, "source")},
                       {"check", check},
                       {"outcome", row["outcome"]},
                       {"matched", SummaryField(row, "passed")}};
    if (full) {
      item["registryStatus"] = SummaryField(row, "registryStatus");
      item["fields"] = SummaryField(row, "fields");
      item["reasonCodes"] = SummaryField(row, "reasonCodes");
      item["checkedAt"] = row["completedAt"];
    }
    items.push_back(item);
  }
  return items;
}

core::Json DocumentSummaryOf(const ReportInputs& in) {
  core::Json row = Stage(in, "document");
  if (!Ran(row) && core::StringOr(row, "outcome") != "incomplete") return nullptr;
  return {{"documentType", SummaryField(row, "documentType")},
          {"issuingCountry", SummaryField(row, "issuingCountry")},
          {"outcome", row["outcome"]},
          {"checks", SummaryField(row, "checks")},
          {"confidence", SummaryField(row, "score")},
          {"reasonCodes", SummaryField(row, "reasonCodes")}};
}

// The e.firma stage as the documents show it; null when the session does not check e.firma.
core::Json EfirmaSummaryOf(const ReportInputs& in, bool full) {
  core::Json row = Stage(in, "efirma");
  if (row.is_null()) return nullptr;
  const core::Json summary = row.value("summary", core::Json::object());
  core::Json cert = summary.value("certificate", core::Json(nullptr));
  core::Json out = {{"outcome", row["outcome"]},
                    {"reasonCodes", summary.value("reasonCodes", core::Json::array())},
                    {"certificateSha256", cert.is_object() ? cert.value("sha256", core::Json(nullptr)) : core::Json(nullptr)},
                    {"ocsp", summary.value("ocsp", core::Json(nullptr))},
                    {"checkedAt", summary.value("checkedAt", core::Json(nullptr))}};
  if (full) {
    out["challengeId"] = summary.value("challengeId", core::Json(nullptr));
    out["certificate"] = cert;
    out["holder"] = summary.value("holder", core::Json(nullptr));
    out["signatureSha256"] = summary.value("signatureSha256", core::Json(nullptr));
  }
  return out;
}

// "policy:<version>" for the engine's verdict; "review" for a reviewer's resolution of the case.
std::string DecidedBy(const core::Json& verdict) {
  std::string o = core::StringOr(verdict, "outcome");
  const core::Json decision = verdict.value("decision", core::Json::object());
  if (decision.is_object() && core::StringOr(decision, "decidedBy") == "review") return "review";
  return o.empty() ? "" : "policy:" + std::string(kPolicyVersion);
}

}  // namespace

core::Json DecisionSummary(const core::Json& verdict) {
  if (!verdict.is_object()) return nullptr;
  core::Json out = {{"outcome", verdict["outcome"]},
                    {"reasonCodes", verdict["reasonCodes"]},
                    {"trustScore", verdict["trustScore"]},
                    {"decidedAt", verdict["decidedAt"]},
                    {"decidedBy", DecidedBy(verdict)},
                    {"caseId", verdict.contains("caseId") ? verdict["caseId"] : core::Json(nullptr)}};
  // A reviewer's resolution names who decided (two under double approval).
  const core::Json decision = verdict.value("decision", core::Json::object());
  if (decision.is_object() && decision.contains("reviewers")) out["reviewers"] = decision["reviewers"];
  return out;
}

core::Json BuildReport(const ReportInputs& in) {
  const core::Json& s = in.session;
  core::Json r;
  r["id"] = s["id"];
  r["publicId"] = s["publicId"];
  r["channel"] = s["channel"];
  r["status"] = s["status"];
  r["createdAt"] = s["createdAt"];
  r["completedAt"] = s["completedAt"];
  r["decidedAt"] = s["decidedAt"];
  r["decision"] = in.verdict.is_object()
                      ? core::Json{{"outcome", in.verdict["outcome"]},
                                   {"reasonCodes", in.verdict["reasonCodes"]},
                                   {"trustScore", in.verdict["trustScore"]},
                                   {"decidedAt", in.verdict["decidedAt"]},
                                   {"decidedBy", DecidedBy(in.verdict)},
                                   {"policyVersion", kPolicyVersion}}
                      : core::Json(nullptr);
  r["biometric"] = BiometricItems(in, true);
  r["gov"] = GovItems(in, true);
  core::Json steps = core::Json::array();
  for (auto name : kStages) {
    core::Json row = Stage(in, std::string(name).c_str());
    if (row.is_null()) continue;
    steps.push_back({{"step", name},
                     {"status", row["outcome"]},
                     {"completedAt", row["completedAt"]},
                     {"reasonCodes", SummaryField(row, "reasonCodes")}});
  }
  r["steps"] = steps;
  r["trustBreakdown"] = in.verdict.is_object() && in.verdict.contains("trustBreakdown")
                            ? in.verdict["trustBreakdown"]
                            : core::Json(nullptr);
  r["document"] = DocumentSummaryOf(in);
  r["efirma"] = EfirmaSummaryOf(in, true);
  return r;
}

core::Json BuildEvidence(const ReportInputs& in) {
  const core::Json& s = in.session;
  core::Json e;
  e["sessionId"] = s["id"];
  e["createdAt"] = s["createdAt"];
  e["completedAt"] = s["completedAt"];
  e["verificationStatus"] = s["status"];
  e["consent"] = in.consent.is_object()
                     ? core::Json{{"consentGiven", in.consent["consentGiven"]},
                                  {"consentedAt", in.consent["consentedAt"]},
                                  {"recordedAt", in.consent["recordedAt"]},
                                  {"policyVersion", in.consent["policyVersion"]}}
                     : core::Json(nullptr);
  e["decision"] = DecisionSummary(in.verdict);
  core::Json media = core::Json::array();
  for (const auto& m : in.media) {
    media.push_back({{"mediaId", m["mediaId"]},
                     {"kind", m["kind"]},
                     {"mime", m["mime"]},
                     {"sha256", m["sha256"]},
                     {"sizeBytes", m["sizeBytes"]},
                     {"capturedAt", m["capturedAt"]},
                     {"analysisStatus", m["analysis"].is_object() ? m["analysis"]["status"]
                                                                  : core::Json(nullptr)},
                     // The bytes were deleted under the media retention policy (the hash stays).
                     {"purgedAt", m.value("purgedAt", core::Json(nullptr))}});
  }
  e["media"] = media;
  e["scores"] = {{"deepfake", SummaryField(Stage(in, "deepfake"), "score")},
                 {"faceMatch", SummaryField(Stage(in, "face_match"), "score")},
                 {"imageQuality", SummaryField(Stage(in, "face_match"), "imageQuality")},
                 {"liveness", SummaryField(Stage(in, "liveness"), "score")}};
  e["trustScore"] = in.verdict.is_object() ? in.verdict["trustScore"] : core::Json(nullptr);
  e["biometric"] = BiometricItems(in, true);
  e["document"] = DocumentSummaryOf(in);
  e["gov"] = GovItems(in, true);
  e["efirma"] = EfirmaSummaryOf(in, true);
  e["reuse"] = nullptr;
  return e;
}

core::Json BuildCertificateContent(const ReportInputs& in) {
  const core::Json& s = in.session;
  core::Json c;
  c["sessionId"] = s["id"];
  c["tenantId"] = s["tenantId"];
  c["environment"] = in.environment;
  c["verificationStatus"] = s["status"];
  c["outcome"] = in.verdict.is_object() ? in.verdict["outcome"] : core::Json(nullptr);
  c["reasonCodes"] = in.verdict.is_object() ? in.verdict["reasonCodes"] : core::Json::array();
  c["decidedAt"] = in.verdict.is_object() ? in.verdict["decidedAt"] : core::Json(nullptr);
  c["decidedBy"] = in.verdict.is_object() ? core::Json(DecidedBy(in.verdict)) : core::Json(nullptr);
  core::Json trust = in.verdict.is_object() ? in.verdict["trustScore"] : core::Json(nullptr);
  c["trustScore"] = trust;
  const core::Json breakdown = in.verdict.is_object() ? in.verdict.value("trustBreakdown", core::Json())
                                                     : core::Json();
  if (breakdown.is_object() && breakdown.contains("riskGrade")) {
    // Decided with the verdict (weighted_mean/v2 and later).
    c["riskGrade"] = breakdown["riskGrade"];
    c["riskBasis"] = breakdown.value("riskBasis", core::Json());
  } else if (trust.is_number()) {
    // Verdicts recorded before the grade was part of the verdict: the rule they were issued
    // under, so their certificates stay byte-identical.
    double t = trust.get<double>();
    c["riskGrade"] = t >= 0.85 ? "low" : t >= 0.60 ? "medium" : "high";
    c["riskBasis"] = "trust_score:weighted_mean/v1 (low >= 0.85, medium >= 0.60, else high)";
  } else {
    c["riskGrade"] = nullptr;
    c["riskBasis"] = nullptr;
  }
  c["biometric"] = BiometricItems(in, false);
  c["gov"] = GovItems(in, false);
  core::Json media = core::Json::array();
  for (const auto& m : in.media) {
    media.push_back({{"mediaId", m["mediaId"]}, {"kind", m["kind"]}, {"sha256", m["sha256"]}});
  }
  c["media"] = media;
  // Only where the session checked e.firma: every other certificate stays byte-identical.
  if (core::Json efirma = EfirmaSummaryOf(in, false); !efirma.is_null()) c["efirma"] = efirma;
  return c;
}

}  // namespace svc::pipeline::verification
