#include "pipeline/verification/capture.h"

#include <algorithm>
#include <set>

#include "commands/verification/session_decider.h"
#include "commands/verification/session_status.h"
#include "core/crypto.h"
#include "core/log.h"
#include "projections/verification_view.h"
#include "projections/sessions_view.h"
#include "projections/view_rows.h"

namespace svc::pipeline::verification {

namespace vs = commands::verification;
using SV = projections::SessionsView;
using VV = projections::VerificationView;
using projections::ReadRow;

namespace {

// The sealing context of a session's captures.
std::string SealBase(const CaptureUpload& u) { return u.tenant + "/" + u.environment + "/" + u.session_id; }

core::Status CheckSessionOpen(const core::Json& rec, const core::Json& settings, core::Timestamp now,
                              const std::string& kind) {
  auto expires = core::ParseRfc3339(core::StringOr(rec, "expiresAt"));
  const std::string status = core::StringOr(rec, "status");  // SessionFacts views it
  vs::SessionFacts facts{status, core::StringOr(rec, "currentStep") == "processing",
                         expires.ok() && now.micros >= expires->micros};
  SVC_RETURN_IF_ERROR(vs::CheckLive(facts));
  SVC_RETURN_IF_ERROR(vs::CheckCaptureOpen(facts));
  std::set<std::string> off;
  const core::Json& checks = settings.is_object() ? settings["checks"] : core::Json();
  if (checks.is_object()) {
    for (auto it = checks.begin(); it != checks.end(); ++it) {
      if (it->is_boolean() && !it->get<bool>()) off.insert(it.key());
    }
  }
  if (!vs::CaptureAllowed(kind, off)) {
    return core::FailedPrecondition("the checks that use " + kind + " are off for this session",
                                    "CAPTURE_NOT_ALLOWED");
  }
  return core::Status::Ok();
}

// Active liveness: the challenge's actions, or a problem. Passive mode: no actions.
core::Result<std::vector<std::string>> ChallengeActions(const eventstore::KvStore& views, core::Timestamp now,
                                                        const core::Json& settings, const CaptureUpload& u) {
  if (u.kind != "liveness_video") return std::vector<std::string>{};
  core::Json checks = settings.is_object() ? settings.value("checks", core::Json()) : core::Json();
  const bool active = checks.is_object() && checks.value("livenessMode", "") == "active";
  if (!active) {
    if (!u.challenge_id.has_value()) return std::vector<std::string>{};
    return core::InvalidArgument("active liveness is not on for this session", "CHECK_NOT_ENABLED_FOR_FLOW")
        .WithExtension("check", vs::kActiveLivenessCheck);
  }
  if (!u.challenge_id.has_value()) {
    return core::InvalidArgument(
        "this session uses active liveness: send the challengeId of a challenge from "
        "POST …/liveness-challenges with the video",
        "CHALLENGE_ID_REQUIRED");
  }
  const std::string te = projections::TenantEnv(u.tenant, u.environment);
  SVC_ASSIGN_OR_RETURN(auto row, ReadRow(views, VV::Abs(VV::Challenge(te, u.session_id, *u.challenge_id))));
  SVC_ASSIGN_OR_RETURN(auto used, ReadRow(views, VV::Abs(VV::ChallengeUsed(te, u.session_id, *u.challenge_id))));
  if (!row.has_value()) {
    return core::PermissionDenied("no such liveness challenge for this session", "CAPTURE_CREDENTIAL_INVALID");
  }
  if (used.has_value()) {
    return core::PermissionDenied("this liveness challenge was already used", "CAPTURE_CREDENTIAL_INVALID");
  }
  auto expires = core::ParseRfc3339(core::StringOr(*row, "expiresAt"));
  if (!expires.ok() || now.micros >= expires->micros) {
    return core::PermissionDenied("this liveness challenge has expired", "CAPTURE_CREDENTIAL_INVALID");
  }
  std::vector<std::string> actions;
  if (auto it = row->find("actions"); it != row->end() && it->is_array()) {
    for (const auto& a : *it) {
      if (a.is_string()) actions.push_back(a.get<std::string>());
    }
  }
  return actions;
}

CaptureAnalysisResult Analyze(const CaptureDeps& deps, const CaptureUpload& u, const CaptureAdmission& admitted,
                              const std::string& media_id) {
  EngineContext ectx;
  ectx.environment = u.environment;
  ectx.today = DateOf(deps.clock->Now());
  ectx.test_outcome = TestOutcomeFor(
      u.environment, admitted.settings.is_object() ? admitted.settings["policy"] : core::Json(nullptr));
  VerificationEngine* engine = ectx.test_outcome.empty() ? deps.engine : deps.sandbox_engine;
  CaptureAnalysisResult result;
  if (engine == nullptr) {
    result.status = "error";
    result.error_code = "ENGINE_NOT_CONFIGURED";
    return result;
  }
  try {
    return engine->Analyze(Capture{media_id, u.kind, u.mime, std::string(u.bytes), admitted.actions}, ectx);
  } catch (const std::exception& e) {
    // An analysis that fails is status=error, never an error of the upload.
    core::LogWarn("capture analysis threw", {{"mediaId", media_id}, {"error", e.what()}});
    result.status = "error";
    result.error_code = "ANALYSIS_FAILED";
    return result;
  }
}

}  // namespace

core::Status CheckCaptureType(const CaptureUpload& u) {
  const MediaKindSpec* spec = FindMediaKind(u.kind);
  if (spec == nullptr) {
    return core::InvalidArgument("kind must be document_front, document_back, selfie or liveness_video",
                                 "UNKNOWN_MEDIA_KIND");
  }
  if (std::find(spec->mimes.begin(), spec->mimes.end(), u.mime) == spec->mimes.end()) {
    std::string accepted;
    for (auto m : spec->mimes) accepted += (accepted.empty() ? "" : ", ") + std::string(m);
    return core::InvalidArgument("declare the file's Content-Type as one of " + accepted + " for " + u.kind,
                                 "MEDIA_CONTENT_INVALID");
  }
  return core::Status::Ok();
}

size_t LargestCaptureBytes() {
  size_t largest = 0;
  for (const auto& k : MediaKinds()) largest = std::max(largest, k.max_bytes);
  return largest;
}

namespace {
core::Status TooLarge(const std::string& kind, size_t max_bytes) {
  return core::InvalidArgument(kind + " captures are limited to " + std::to_string(max_bytes >> 20) + " MiB",
                               "PAYLOAD_TOO_LARGE");
}
core::Status CheckBytesSeen(const CaptureUpload& u, size_t size, std::string_view head) {
  if (size == 0) return core::InvalidArgument("the file is empty; capture it again", "MEDIA_CONTENT_INVALID");
  if (!MagicMatches(u.mime, head)) {
    return core::InvalidArgument("the file's bytes are not " + u.mime + "; capture it again", "MEDIA_CONTENT_INVALID");
  }
  return core::Status::Ok();
}
constexpr size_t kHeadBytes = 64;  // enough for every accepted type's magic number
}  // namespace

core::Status CaptureMemoryFull() {
  return core::Unavailable("the captures being received hold all the memory uploads may use; retry", "ADMISSION_FULL");
}

core::Status CheckCaptureContent(const CaptureUpload& u) {
  const MediaKindSpec* spec = FindMediaKind(u.kind);
  if (spec == nullptr) return CheckCaptureType(u);
  if (u.bytes.size() > spec->max_bytes) return TooLarge(u.kind, spec->max_bytes);
  if (u.bytes.empty()) return CheckBytesSeen(u, 0, "");
  SVC_RETURN_IF_ERROR(CheckCaptureType(u));
  return CheckBytesSeen(u, u.bytes.size(), u.bytes.substr(0, kHeadBytes));
}

core::Result<CaptureAdmission> AdmitCapture(const eventstore::KvStore& views, core::Timestamp now,
                                            const CaptureUpload& u) {
  SVC_RETURN_IF_ERROR(core::ValidateId(core::IdKind::kVerification, u.session_id));
  const std::string te = projections::TenantEnv(u.tenant, u.environment);
  SVC_ASSIGN_OR_RETURN(auto rec, ReadRow(views, SV::Abs(SV::Record(te, u.session_id))));
  if (!rec.has_value()) return core::NotFound("no such session", "SESSION_NOT_FOUND");
  SVC_ASSIGN_OR_RETURN(auto settings, ReadRow(views, VV::Abs(VV::Settings(te, u.session_id))));
  CaptureAdmission a;
  a.settings = settings.value_or(core::Json(nullptr));
  SVC_RETURN_IF_ERROR(CheckSessionOpen(*rec, a.settings, now, u.kind));
  const core::Json checks = a.settings.is_object() ? a.settings.value("checks", core::Json()) : core::Json();
  SVC_RETURN_IF_ERROR(vs::CheckCaptureSource(u.kind, u.capture_source,
                                             checks.is_object() && checks.value("livenessFileAllowed", false) == true));
  SVC_ASSIGN_OR_RETURN(a.actions, ChallengeActions(views, now, a.settings, u));
  return a;
}

core::Result<std::unique_ptr<CaptureSealing>> CaptureSealing::Start(const CaptureDeps& deps, const CaptureUpload& u) {
  SVC_RETURN_IF_ERROR(CheckCaptureType(u));
  std::unique_ptr<CaptureSealing> c(new CaptureSealing(deps, FindMediaKind(u.kind)->max_bytes));
  SVC_ASSIGN_OR_RETURN(auto dek, deps.keys->GetOrCreate(eventstore::KeyStore::SessionKeyName(
                                     u.tenant, u.environment, u.session_id)));
  c->dek_ = std::move(dek);
  c->keep_ = u.analyze && u.bytes.empty();  // bytes in memory are analysed where they are
  c->m_.media_id = deps.ids->NewIdString(core::IdKind::kMedia);
  c->m_.kind = u.kind;
  c->m_.mime = u.mime;
  // Sealed in chunks into a spool as they pass, then stored durably (sealed_media.h): the event
  // that names the object is appended only after Finish returned.
  SVC_ASSIGN_OR_RETURN(c->sealer_, MediaSealer::Start(*deps.blobs, c->dek_, MediaAd(u.tenant, u.environment,
                                                                                   u.session_id, c->m_.media_id)));
  return c;
}

core::Status CaptureSealing::Write(std::string_view bytes) {
  size_ += bytes.size();
  if (size_ > max_bytes_) return TooLarge(m_.kind, max_bytes_);
  if (head_.size() < kHeadBytes) head_.append(bytes.substr(0, kHeadBytes - head_.size()));
  if (keep_ && !kept_.Append(bytes)) return CaptureMemoryFull();
  return sealer_->Write(bytes);
}

core::Result<vs::MediaCaptured> CaptureSealing::Finish(const CaptureUpload& u, const CaptureAdmission& admitted) {
  if (size_ > max_bytes_) return TooLarge(u.kind, max_bytes_);
  SVC_RETURN_IF_ERROR(CheckBytesSeen(u, size_, head_));
  SVC_ASSIGN_OR_RETURN(auto sealed, sealer_->Finish());
  vs::MediaCaptured m = std::move(m_);
  m.blob = sealed.address;
  m.sha256 = sealed.sha256;
  m.size_bytes = sealed.size;
  m.challenge_id = u.challenge_id.value_or("");
  m.capture_source = u.capture_source;
  // How the capture was made, as the client says: sealed; its signals kept in the clear (codes
  // and numbers only).
  const std::vector<InjectionSignal> signals =
      EvaluateCaptureFacts(u.facts.value_or(CaptureFacts{}), u.kind, u.capture_source);
  if (u.facts.has_value() || !signals.empty()) m.injection = InjectionJson(signals);
  if (u.facts.has_value()) {
    m.facts_sealed = core::Base64Encode(core::AeadSeal(dek_, core::DumpJson(CaptureFactsJson(*u.facts)),
                                                       "facts|" + SealBase(u) + "|" + m.media_id));
  }
  if (u.analyze) {
    CaptureUpload whole = u;
    if (keep_) whole.bytes = kept_.Whole();
    CaptureAnalysisResult result = Analyze(deps_, whole, admitted, m.media_id);
    m.analysis = result.ToJson();
    if (result.extracted.is_object()) {
      const std::string base = SealBase(u);
      m.extracted_sealed = core::Base64Encode(
          core::AeadSeal(dek_, core::DumpJson(result.extracted), "extracted|" + base + "|" + m.media_id));
    }
  }
  kept_.Clear();
  core::SecureZero(dek_);
  return m;
}

core::Result<vs::MediaCaptured> SealCapture(const CaptureDeps& deps, const CaptureUpload& u,
                                            const CaptureAdmission& admitted) {
  SVC_ASSIGN_OR_RETURN(auto sealing, CaptureSealing::Start(deps, u));
  SVC_RETURN_IF_ERROR(sealing->Write(u.bytes));
  return sealing->Finish(u, admitted);
}

core::Result<core::Json> CaptureAnswer(const eventstore::KvStore& views, eventstore::KeyStore& keys,
                                       std::string_view tenant, std::string_view environment,
                                       std::string_view session_id, std::string_view media_id) {
  const std::string base = std::string(tenant) + "/" + std::string(environment) + "/" + std::string(session_id);
  SVC_ASSIGN_OR_RETURN(auto rows,
                       projections::ScanRows(views, VV::Abs(VV::Media(projections::TenantEnv(tenant, environment),
                                                                      session_id))));
  for (auto& m : rows) {
    if (core::StringOr(m, "mediaId") != media_id) continue;
    core::Json analysis = m["analysis"];
    if (analysis.is_object()) {
      analysis["extractedData"] = nullptr;
      const std::string sealed = core::StringOr(m, "extractedSealed");
      if (!sealed.empty()) {
        // The integrator who sent the image may see what was read from it.
        SVC_ASSIGN_OR_RETURN(auto dek, keys.Get(eventstore::KeyStore::SessionKeyName(
                                           std::string(tenant), std::string(environment), std::string(session_id))));
        if (dek.has_value()) {
          SVC_ASSIGN_OR_RETURN(std::string raw, core::Base64Decode(sealed));
          SVC_ASSIGN_OR_RETURN(std::string plain,
                               core::AeadOpen(*dek, raw, "extracted|" + base + "|" + std::string(media_id)));
          analysis["extractedData"] = core::ParseJsonOrDiscarded(plain);
        }
      }
    }
    return core::Json{{"kind", m["kind"]},   {"mediaId", m["mediaId"]},        {"mime", m["mime"]},
                      {"sha256", m["sha256"]}, {"sizeBytes", m["sizeBytes"]}, {"status", "stored"},
                      {"analysis", analysis}};
  }
  return core::Unavailable("the capture is stored but not readable yet; retry with the same Idempotency-Key");
}

}  // namespace svc::pipeline::verification
