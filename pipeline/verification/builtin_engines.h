#pragma once
// The engines that ship with this build.
//
// ModelFreeEngine: the default engine until the biometric engine (dlib) lands. It measures what
// needs no model (the image header: readable, dimensions, resolution) and reports document
// reading, liveness and face match as unavailable, so the decision policy sends the session to
// review: it never passes a check it did not run.
//
// SandboxEngine / SandboxGovRegistry: test environment only, selected when the session's
// policy.testOutcome is set. Deterministic data (docs/verification-pipeline.md): a fixed
// specimen INE whose CURP, MRZ and registry records are consistent, and scores that force each
// outcome through the real decision policy.

#include "pipeline/verification/engines.h"

namespace svc::pipeline::verification {

class ModelFreeEngine final : public VerificationEngine {
 public:
  std::string Name() const override { return "model-free"; }
  CaptureAnalysisResult Analyze(const Capture& capture, const EngineContext& ctx) override;
  DocumentReading ReadDocument(const Capture& front, const Capture* back,
                               const EngineContext& ctx) override;
  BiometricScore Liveness(const Capture& video, const EngineContext& ctx) override;
  BiometricScore FaceMatch(const Capture& face, const Capture& document_front,
                           const EngineContext& ctx) override;
};

// The sandbox specimen (all values public and documented).
struct SandboxSpecimen {
  std::string surname1 = "GARCIA", surname2 = "HERNANDEZ", given_names = "MARIA JOSEFINA";
  std::string birth_date = "1990-03-15";
  std::string sex = "M";
  std::string curp;                 // GAHJ900315MDFRRS + homoclave + check digit
  std::vector<std::string> mrz;     // TD1, three lines, valid check digits
  std::string cic = "123456789";
  std::string expiry_date = "2031-12-31";
};
const SandboxSpecimen& Specimen();
// Test inputs accepted in policy.testOutcome.
inline constexpr std::string_view kTestOutcomes[] = {"approved", "declined", "review",
                                                      "analysis_error", "more_info"};

class SandboxEngine final : public VerificationEngine {
 public:
  std::string Name() const override { return "sandbox"; }
  CaptureAnalysisResult Analyze(const Capture& capture, const EngineContext& ctx) override;
  DocumentReading ReadDocument(const Capture& front, const Capture* back,
                               const EngineContext& ctx) override;
  BiometricScore Liveness(const Capture& video, const EngineContext& ctx) override;
  BiometricScore FaceMatch(const Capture& face, const Capture& document_front,
                           const EngineContext& ctx) override;
  // The deepfake score: 0.02 (nothing seen) whatever the test outcome; the other scores force it.
  BiometricScore AttackSignals(const Capture* selfie, const Capture* video, const EngineContext& ctx) override;
};

// RENAPO and INE sandbox: the specimen's CURP is found (status AN) and its CIC is valid;
// SANDBOX_CURP_NOT_FOUND (documented) and every other CURP are not found; any other CIC is
// not in the list.
class SandboxGovRegistry final : public GovRegistry {
 public:
  std::string Name() const override { return "sandbox"; }
  CurpLookup LookupCurp(const std::string& curp) override;
  IneLookup LookupIne(const IneQuery& q) override;
};

}  // namespace svc::pipeline::verification
