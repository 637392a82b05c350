#pragma once
// The verification pipeline's engine interfaces. An engine measures captures; it never decides
// (the decision policy does) and never writes (the process manager does). Engines are called on
// the pipeline's worker threads and must be safe to call concurrently.
//
//   VerificationEngine   document reading, capture analysis, liveness, face match
//   GovRegistry          CURP registry (RENAPO) and INE voter-list lookups
//
// Implementations here: ModelFreeEngine (the default until the biometric engine lands: real
// file and image-header measurements, reports the model-based checks as unavailable),
// SandboxEngine and SandboxGovRegistry (test environment only: documented deterministic data).
// The HTTP registry adapter lives in api/ (it needs the HTTP client).

#include <optional>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/json.h"
#include "pipeline/documents/checks.h"

namespace svc::pipeline::verification {

// One decrypted capture.
struct Capture {
  std::string media_id;
  std::string kind;  // document_front | document_back | selfie | liveness_video
  std::string mime;
  std::string bytes;
  // liveness_video in active mode: the issued challenge's actions, in order (blink, turn_left,
  // turn_right); empty in passive mode.
  std::vector<std::string> challenge;
};

// What the engine is told about the session (never the integrator's data).
struct EngineContext {
  std::string environment;   // live | test
  int submission = 1;        // which submission of the session (1, 2, …)
  std::string test_outcome;  // test environment only: approved | declined | review |
                             // analysis_error | more_info; "" = none
  documents::Date today{9999, 12, 31};  // the clock's date (expiry, two-digit years)
};

// The UTC calendar date of a time (for document expiry and two-digit years).
documents::Date DateOf(core::Timestamp t);

// The test outcome a session's policy asks for (policy.testOutcome): test keys only, "" for
// live keys, which never honour test inputs. A non-empty one selects the sandbox engine and
// registry, both in the pipeline and for the analysis of an upload.
std::string TestOutcomeFor(std::string_view environment, const core::Json& policy);

// Outcome vocabulary of every measurement.
inline constexpr std::string_view kOk = "ok";
inline constexpr std::string_view kError = "error";            // the input could not be analysed
inline constexpr std::string_view kUnavailable = "unavailable";  // no engine/model for this

// CaptureAnalysis (spec) plus the personal fields read, which the caller seals.
struct CaptureAnalysisResult {
  std::string status = "ok";  // ok | error
  std::string error_code;
  std::optional<double> confidence;
  std::string document_type;    // ine | passport | ""
  std::string issuing_country;  // ISO 3166-1 alpha-3 as in the MRZ, e.g. MEX
  std::optional<double> liveness_score;
  std::optional<double> face_match_score;
  std::vector<std::string> quality_issues;
  std::vector<std::string> retry_hints;
  bool requires_back_page = false;
  bool skip_back = false;
  core::Json extracted = nullptr;  // personal data: sealed before it is stored

  // The spec's CaptureAnalysis without extractedData (that is added, unsealed, only in the
  // capture response to the integrator who sent the image).
  core::Json ToJson() const;
};

// A document as read from its front (and back).
struct DocumentReading {
  std::string status = "ok";  // ok | error | unavailable
  std::string error_code;
  std::string document_type;
  std::string issuing_country;
  bool requires_back_page = false;
  std::optional<double> confidence;
  // Personal data read (sealed by the caller): curp, surname1, surname2, givenNames,
  // birthDate (YYYY-MM-DD), sex (ICAO: F | M | X), documentNumber, expiryDate (YYYY-MM-DD), mrz (lines), cic,
  // identificadorCiudadano.
  core::Json extracted = core::Json::object();
};

struct BiometricScore {
  std::string status = "ok";  // ok | error | unavailable
  std::string error_code;
  std::optional<double> score;  // 0..1
  std::string model_name;
  // Face match: the selfie's embedding, kept sealed (stage details) for re-authentication.
  std::vector<float> embedding;
  // Why a score is low (reason codes added to the stage's when it does not pass), and the
  // measurements behind it (no personal data; kept sealed with the stage).
  std::vector<std::string> reasons;
  core::Json details = nullptr;
};

class VerificationEngine {
 public:
  virtual ~VerificationEngine() = default;
  virtual std::string Name() const = 0;
  virtual CaptureAnalysisResult Analyze(const Capture& capture, const EngineContext& ctx) = 0;
  // `back` may be null.
  virtual DocumentReading ReadDocument(const Capture& front, const Capture* back,
                                       const EngineContext& ctx) = 0;
  virtual BiometricScore Liveness(const Capture& video, const EngineContext& ctx) = 0;
  virtual BiometricScore FaceMatch(const Capture& face, const Capture& document_front,
                                   const EngineContext& ctx) = 0;
  // Re-authentication: a 1:1 match of the face in `face` (a selfie) against `reference`, the
  // embedding the same model (`reference_model`) made of the person's face at an earlier
  // verification. An engine without a face model, or of another model, answers "unavailable".
  virtual BiometricScore MatchReference(const Capture& face, const std::vector<float>& reference,
                                        const std::string& reference_model, const EngineContext& ctx) {
    (void)face;
    (void)reference;
    (void)ctx;
    BiometricScore r;
    r.status = "unavailable";
    r.error_code = "NO_FACE_MODEL";
    r.model_name = reference_model;
    return r;
  }
  // Presentation-attack and synthesis signals on the face captures — the selfie and the liveness
  // video, either may be null — combined into the deepfake score: 0 = nothing of an attack seen,
  // 1 = an attack (docs/biometrics.md#attack-signals). `reasons` names the signals that fired,
  // `details` holds every measurement. An engine without them answers "unavailable".
  virtual BiometricScore AttackSignals(const Capture* selfie, const Capture* video, const EngineContext& ctx) {
    (void)selfie;
    (void)video;
    (void)ctx;
    BiometricScore r;
    r.status = "unavailable";
    r.error_code = "BIOMETRIC_ENGINE_UNAVAILABLE";
    return r;
  }
  // Image quality of a capture, 0..1 (1 = no quality issue); nullopt when not measured.
  virtual std::optional<double> ImageQuality(const Capture&, const EngineContext&) {
    return std::nullopt;
  }
};

// ---- Government registries ----

struct CurpLookup {
  std::string status;  // found | not_found | unavailable
  std::string error_code;
  std::string registry_status;  // RENAPO statusCurp when found (AN, AH, RCN, … ; BD = deceased)
  std::string birth_date;       // YYYY-MM-DD as registered
  std::string sex;              // H | M | X: the CURP's letters, as RENAPO answers
  std::string name_letters;     // the four letters the registered names give (no names kept)
  std::string source = "renapo";
};

struct IneQuery {
  std::string cic;                       // from the MRZ document number (INE model E onward)
  std::string identificador_ciudadano;   // from the MRZ optional data
};
struct IneLookup {
  std::string status;  // valid | not_valid | not_found | unavailable
  std::string error_code;
  std::string detail_code;  // e.g. REPORTED_LOST, EXPIRED, NOT_IN_LIST
  std::string source = "ine";
};

class GovRegistry {
 public:
  virtual ~GovRegistry() = default;
  virtual std::string Name() const = 0;
  virtual CurpLookup LookupCurp(const std::string& curp) = 0;
  virtual IneLookup LookupIne(const IneQuery& q) = 0;
};

// A registry that is not configured: every lookup is unavailable (live keys without a
// provider: the verdict goes to review, never a silent pass).
class UnconfiguredGovRegistry final : public GovRegistry {
 public:
  std::string Name() const override { return "unconfigured"; }
  CurpLookup LookupCurp(const std::string&) override {
    CurpLookup r;
    r.status = "unavailable";
    r.error_code = "GOV_PROVIDER_NOT_CONFIGURED";
    return r;
  }
  IneLookup LookupIne(const IneQuery&) override {
    IneLookup r;
    r.status = "unavailable";
    r.error_code = "GOV_PROVIDER_NOT_CONFIGURED";
    return r;
  }
};

// Media kinds and what each accepts.
struct MediaKindSpec {
  std::string_view kind;
  std::vector<std::string_view> mimes;
  size_t max_bytes;
};
const std::vector<MediaKindSpec>& MediaKinds();
const MediaKindSpec* FindMediaKind(std::string_view kind);
// True when `bytes` start with the magic number of `mime`.
bool MagicMatches(std::string_view mime, std::string_view bytes);
// Width and height from a JPEG/PNG/WebP header; nullopt when not found.
std::optional<std::pair<int, int>> ImageDimensions(std::string_view mime, std::string_view bytes);

}  // namespace svc::pipeline::verification
