#pragma once
// The decision policy: from stage measurements to stage outcomes, from stage outcomes to a
// verdict, reason codes and the trust score; and the documents built from them (report,
// evidence bundle, certificate content). Pure functions: no I/O, no clock.
//
// Stage outcomes: passed | failed | review | unavailable | error | skipped.
// Verdict: more_info when a required capture is missing; else declined when any stage failed;
// else review when any stage is review/unavailable/error or any capture analysis errored; else
// approved.
// Trust score (0..1, 2 decimals): weighted mean over the stages that produced a score: face
// match 0.30, liveness 0.25, document 0.25, government 0.20 (1 passed, 0 failed); null when no
// stage scored. The session's integer trustScore is round(100 x that).

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/json.h"
#include "pipeline/documents/checks.h"
#include "pipeline/verification/engines.h"

namespace svc::pipeline::verification {

inline constexpr std::string_view kStages[] = {"document", "liveness", "face_match", "deepfake",
                                               "gov_curp", "gov_ine", "efirma"};
inline constexpr std::string_view kPolicyVersion = "default/v1";

struct Policy {
  double face_match_threshold = 0.80;
  double face_match_decline_below = 0.50;
  double liveness_threshold = 0.75;
  double liveness_decline_below = 0.40;
  double image_quality_threshold = 0.50;
  // The deepfake score (0 = nothing of an attack seen, 1 = an attack) at or above which the
  // deepfake check sends the session to review (never a silent approval, never a decline alone).
  double deepfake_threshold = 0.50;
  bool require_government_lookup = true;
  std::set<std::string> enabled;  // document, liveness, faceMatch, deepfake, governmentLookup (efirma)

  bool Enabled(std::string_view check) const { return enabled.count(std::string(check)) > 0; }
  // The default flow's policy with the session's `checks` and `policy` applied.
  static Policy FromSession(const core::Json& checks, const core::Json& policy);
  core::Json ToJson() const;
};

// One stage's result: `summary` has no personal data; `details` does (sealed by the caller).
struct StageOutput {
  std::string outcome;
  core::Json summary = core::Json::object();
  core::Json details = nullptr;
};

// Which captures the enabled checks need and are missing (reason codes, e.g.
// SELFIE_REQUIRED). `kinds` are the kinds captured.
std::vector<std::string> MissingCaptures(const Policy& p, const std::set<std::string>& kinds);

StageOutput SkippedStage(std::string_view reason_code);
// Several reasons (e.g. both document sides missing); `incomplete` when the first ends _REQUIRED.
StageOutput SkippedStage(std::vector<std::string> reason_codes);
StageOutput DocumentStage(const DocumentReading& reading, const documents::Date& today,
                          int64_t latency_ms, const std::string& engine);
StageOutput LivenessStage(const Policy& p, const BiometricScore& s, int64_t latency_ms);
StageOutput FaceMatchStage(const Policy& p, const BiometricScore& s, int64_t latency_ms);
// Adds the image quality of the compared captures (the lower of the two) to a face-match stage:
// below the policy's imageQualityThreshold a passed match goes to review (IMAGE_QUALITY_LOW).
//
// A liveness video the applicant chose from a file (captureSource "file", where the flow allows
// it) never passes on its own: the recording could be anyone's, from any time. MarkLivenessFromFile
// sends a passing liveness stage to review and adds LIVENESS_FILE_UPLOAD (a failing one keeps its
// outcome and gains the code), for the reviewer and the attack signals.
void MarkLivenessFromFile(StageOutput& o);
void ApplyImageQuality(const Policy& p, std::optional<double> quality, StageOutput& face_match);
// The deepfake check from the engine's attack signals: passed below the policy's
// deepfakeThreshold; at or above it review, with DEEPFAKE_SUSPECTED and the codes of the signals
// that fired (RECAPTURE_PATTERN, SCREEN_COLOUR_MOIRE, FACE_NOISE_MISMATCH, FACE_DETAIL_MISMATCH,
// VIDEO_FRAME_REPEATS). The summary's `score` is the deepfake score (higher = more suspect) and
// `signals` each signal's score; the measurements go to the sealed details.
StageOutput DeepfakeStage(const Policy& p, const BiometricScore& s, int64_t latency_ms);
// `document_details`: the document stage's details (curp, birthDate, sex…), or null.
StageOutput GovCurpStage(const CurpLookup& lookup, const core::Json& document_details,
                         int64_t latency_ms, const std::string& registry);
StageOutput GovIneStage(const IneLookup& lookup, int64_t latency_ms, const std::string& registry);
// The e.firma stage from the session's latest recorded check (`check`: the EfirmaCheck row, null
// when the applicant answered none: incomplete, EFIRMA_REQUIRED). `holder_curp`: the CURP of the
// certificate's holder; `document_curp`: the CURP read from the session's document ("" when none
// was read): different ones fail the stage with EFIRMA_DOCUMENT_MISMATCH. A check whose only
// reasons are that revocation could not be confirmed (EFIRMA_OCSP_UNKNOWN, EFIRMA_OCSP_UNAVAILABLE)
// goes to review; any other reason fails; none passes (score 1).
StageOutput EfirmaStage(const core::Json& check, const std::string& holder_curp, const std::string& document_curp);

struct Verdict {
  std::string outcome;  // approved | declined | review | more_info
  std::string event_type;
  std::vector<std::string> reason_codes;
  std::optional<double> trust_score;
  core::Json trust_breakdown;
};
// The trust score and risk rule (docs/verification-pipeline.md#trust-score-and-risk-grade):
// the weighted mean of the checks that ran, capped by the score of a failed liveness or face-match
// check; the risk grade is high for a decline or any failed biometric check, else by the score.
// v3 is v2 with the e.firma component (0.20); a verdict without an e.firma stage says v2, whose
// result it has.
inline constexpr std::string_view kTrustMethod = "weighted_mean/v2";
inline constexpr std::string_view kTrustMethodEfirma = "weighted_mean/v3";
// v4: v3 with the anti-deepfake component (1 - the deepfake score, 0.15) wherever the deepfake
// check scored; an attack suspected makes the risk high.
inline constexpr std::string_view kTrustMethodDeepfake = "weighted_mean/v4";
inline constexpr std::string_view kRiskBasis =
    "trust_score:weighted_mean/v2 (high when declined or a liveness/face-match check failed; "
    "else low >= 0.85, medium >= 0.60, else high)";
inline constexpr std::string_view kRiskBasisEfirma =
    "trust_score:weighted_mean/v3 (high when declined or a liveness/face-match check failed; "
    "else low >= 0.85, medium >= 0.60, else high)";
inline constexpr std::string_view kRiskBasisDeepfake =
    "trust_score:weighted_mean/v4 (high when declined, a liveness/face-match check failed or an attack "
    "was suspected; else low >= 0.85, medium >= 0.60, else high)";
// `stages`: stage name -> stored stage row ({outcome, summary, …}); `analysis_errors`: captures
// whose analysis had status error. Reason codes are listed once each.
Verdict Decide(const std::map<std::string, core::Json>& stages, int analysis_errors);

std::optional<double> Round4(std::optional<double> v);

// ---- Documents ----
struct ReportInputs {
  core::Json session;   // VerificationSessionResponse row
  std::map<std::string, core::Json> stages;  // of the latest submission
  core::Json verdict;   // the verdict row, or null
  std::vector<core::Json> media;  // capture rows, in order
  core::Json consent;   // consent row, or null
  std::string environment;
};
core::Json DecisionSummary(const core::Json& verdict);
core::Json BuildReport(const ReportInputs& in);
core::Json BuildEvidence(const ReportInputs& in);
// The certificate's content before signing (contentHash and signature are added by
// SignCertificate). Only for approved and declined sessions.
core::Json BuildCertificateContent(const ReportInputs& in);

}  // namespace svc::pipeline::verification
