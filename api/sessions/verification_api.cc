// /v1/verification-sessions/{id}: media capture, submit, evidence, report, certificate.
// (Create, consent, get and list are in sessions_api.cc; the progress stream in sse.cc.)
#include <atomic>
#include <memory>
#include <set>

#include "api/http/catch_up.h"
#include "api/http/multipart.h"
#include "api/http/pagination.h"
#include "api/http/public_api.h"
#include "api/sessions/routes.h"
#include "api/sessions/sessions_common.h"
#include "api/sessions/sse.h"
#include "commands/tenancy/api_keys.h"
#include "commands/verification/session_decider.h"
#include "core/crypto.h"
#include "core/log.h"
#include "pipeline/biometrics/liveness.h"
#include "commands/audit/timestamps.h"
#include "pipeline/audit/timestamper.h"
#include "pipeline/certificate.h"
#include "pipeline/verification/builtin_engines.h"
#include "pipeline/verification/capture.h"
#include "pipeline/verification/policy.h"
#include "pipeline/verification/report_inputs.h"
#include "pipeline/verification/engines.h"
#include "projections/efirma_queries.h"
#include "projections/embedded/embedded_view.h"
#include "projections/projector.h"
#include "projections/sessions_view.h"
#include "projections/verification_projector.h"

namespace svc::api {

namespace vs = commands::verification;
namespace pv = pipeline::verification;
using namespace sessions_internal;

namespace {

using SV = projections::SessionsView;
using VV = projections::VerificationView;

std::string TeOf(const ApiCall& call) {
  return projections::TenantEnv(call.auth.tenant_id, call.auth.environment);
}

// The session record of the caller's tenant and environment, or a problem.
core::Result<core::Json> SessionRecord(Runtime& rt, const ApiCall& call, const std::string& id) {
  SVC_RETURN_IF_ERROR(core::ValidateId(core::IdKind::kVerification, id));
  SVC_ASSIGN_OR_RETURN(auto rec, ReadViewCaughtUp(rt, call.auth.tenant_id, SV::Abs(SV::Record(TeOf(call), id))));
  if (!rec.has_value()) return core::NotFound("no such session", "SESSION_NOT_FOUND");
  return std::move(*rec);
}

// The query of an upload (analyze; its field errors are answered with the form's) and the form's
// boundary (a problem answered when there is none).
struct CaptureStart {
  pv::CaptureUpload upload;
  std::string boundary;
  std::vector<FieldError> errors;
};
std::optional<CaptureStart> StartCapture(const HttpRequest& req, const AuthContext& auth, const Respond& respond) {
  std::vector<FieldError> errors;
  pv::CaptureUpload u;
  u.tenant = auth.tenant_id;
  u.environment = auth.environment;
  u.session_id = req.path_params.at("session_id");
  for (const auto& [k, v] : ParseQuery(req.query)) {
    if (k != "analyze") {
      errors.push_back({k, "", "unknown_field", k + " is not a query parameter of this operation"});
    } else if (v == "true" || v == "false") {
      u.analyze = v == "true";
    } else {
      errors.push_back({"analyze", "", "invalid_type", "analyze must be true or false"});
    }
  }
  auto boundary = MultipartBoundary(req.Header("content-type"));
  if (!boundary.ok()) {
    respond(StatusToProblem(req, boundary.status()));
    return std::nullopt;
  }
  return CaptureStart{std::move(u), std::move(*boundary), std::move(errors)};
}

// A text field's value (at most `max` bytes kept; longer is flagged by *too_long).
core::Result<std::string> ReadField(MultipartReader& form, size_t max, bool* too_long) {
  std::string value;
  for (;;) {
    SVC_ASSIGN_OR_RETURN(std::string piece, form.ReadBody(4096));
    if (piece.empty()) return value;
    if (value.size() + piece.size() > max) {
      *too_long = true;
      value.append(piece.substr(0, max - std::min(max, value.size())));
    } else {
      value += piece;
    }
  }
}

// What an upload's form gave: the field errors to answer, or the capture sealed and stored.
struct Received {
  std::vector<FieldError> errors;
  std::optional<vs::MediaCaptured> captured;
};

// pv::AdmitCapture on this node's read models. A refusal there reads the session's state, which on
// a cluster may trail a write another node answered a moment ago (consent recorded, a challenge
// issued, through another node): like a miss, it is an answer only once this node's read models
// hold what the tenant's partition held when asked (api/http/catch_up.h). The session's writer
// decides again when the capture is recorded.
core::Result<pv::CaptureAdmission> Admit(Runtime& rt, const pv::CaptureUpload& u) {
  auto admitted = pv::AdmitCapture(rt.store(), rt.clock().Now(), u);
  if (admitted.ok()) return admitted;
  static const std::set<std::string, std::less<>> kReadFromState = {"CONSENT_REQUIRED", "SESSION_NOT_FOUND", "SESSION_COMPLETED",
                                                       "INVALID_STATE_TRANSITION", "CAPTURE_CREDENTIAL_INVALID"};
  if (kReadFromState.count(admitted.status().api_code()) == 0) return admitted;
  SVC_RETURN_IF_ERROR(CatchUpTenant(rt, u.tenant));
  return pv::AdmitCapture(rt.store(), rt.clock().Now(), u);
}

// Reads the form as it arrives. The file is sealed as it streams in when `kind` came before it
// (what the widget and the SDKs send) and the session admits the capture; sent before `kind`,
// the file is held in memory until the kind is known. The session decides again once every
// field is in (a challengeId may follow the file), before anything is stored for good.
core::Result<Received> ReceiveCapture(Runtime& rt, const SessionsOptions& o, CaptureStart& start, BodyReader& body) {
  const pv::CaptureDeps deps{&rt.key_store(), &rt.blobs(), &rt.ids(), &rt.clock(), o.engine, o.sandbox_engine,
                             o.upload_memory};
  constexpr size_t kPiece = 64 * 1024;
  pv::CaptureUpload& u = start.upload;
  MultipartReader form(start.boundary, &body);
  Received r;
  r.errors = std::move(start.errors);
  std::set<std::string> seen;
  std::optional<std::string> kind;
  std::unique_ptr<pv::CaptureSealing> sealing;
  core::HeldBytes held(o.upload_memory);  // the file, when it came before the kind
  for (;;) {
    SVC_ASSIGN_OR_RETURN(auto part, form.NextPart());
    if (!part.has_value()) break;
    if (!seen.insert(part->name).second) {
      r.errors.push_back({part->name, "", "duplicate_field", part->name + " is given more than once"});
    } else if (part->name == "file" && !part->has_filename) {
      r.errors.push_back({"file", "", "invalid_type", "file must be a file part (with a filename)"});
    } else if (part->name == "file") {
      u.mime = part->content_type;
      if (kind.has_value() && r.errors.empty()) {
        u.kind = *kind;
        SVC_RETURN_IF_ERROR(pv::CheckCaptureType(u));
        auto admitted = Admit(rt, u);
        if (!admitted.ok() && admitted.status().api_code() != "CHALLENGE_ID_REQUIRED") return admitted.status();
        SVC_ASSIGN_OR_RETURN(sealing, pv::CaptureSealing::Start(deps, u));
        for (;;) {
          SVC_ASSIGN_OR_RETURN(std::string piece, form.ReadBody(kPiece));
          if (piece.empty()) break;
          SVC_RETURN_IF_ERROR(sealing->Write(piece));
        }
      } else {
        for (;;) {
          SVC_ASSIGN_OR_RETURN(std::string piece, form.ReadBody(kPiece));
          if (piece.empty()) break;
          if (!held.Append(piece)) return pv::CaptureMemoryFull();
          if (held.size() > pv::LargestCaptureBytes()) {
            return core::InvalidArgument(
                "a capture is at most " + std::to_string(pv::LargestCaptureBytes() >> 20) + " MiB", "PAYLOAD_TOO_LARGE");
          }
        }
      }
    } else if (part->name == "kind") {
      bool too_long = false;
      SVC_ASSIGN_OR_RETURN(std::string value, ReadField(form, 256, &too_long));
      kind = std::move(value);
    } else if (part->name == "challengeId") {
      bool too_long = false;
      SVC_ASSIGN_OR_RETURN(std::string value, ReadField(form, 128, &too_long));
      if (value.empty() || too_long) {
        r.errors.push_back({"challengeId", "", "invalid_format", "challengeId must be 1 to 128 characters"});
      }
      u.challenge_id = std::move(value);
    } else if (part->name == "captureSource") {
      bool too_long = false;
      SVC_ASSIGN_OR_RETURN(std::string value, ReadField(form, 16, &too_long));
      if (value != "camera" && value != "file") {
        r.errors.push_back({"captureSource", "", "invalid_enum", "captureSource must be one of: camera, file"});
      }
      u.capture_source = std::move(value);
    } else if (part->name == "captureFacts") {
      bool too_long = false;
      SVC_ASSIGN_OR_RETURN(std::string value, ReadField(form, pv::kCaptureFactsMaxBytes, &too_long));
      if (too_long) {
        r.errors.push_back({"captureFacts", "", "too_long",
                            "captureFacts must be at most " + std::to_string(pv::kCaptureFactsMaxBytes) + " bytes"});
      } else if (auto facts = pv::ParseCaptureFacts(value); auto* e = std::get_if<pv::FactsError>(&facts)) {
        r.errors.push_back({"captureFacts", "/captureFacts" + e->pointer, e->code, "captureFacts: " + e->message});
      } else {
        u.facts = std::get<pv::CaptureFacts>(std::move(facts));
      }
    } else {
      r.errors.push_back({part->name, "", "unknown_field", part->name + " is not a field of a capture"});
    }
  }
  if (!kind.has_value()) r.errors.push_back({"kind", "", "required", "kind is required"});
  if (seen.count("file") == 0) r.errors.push_back({"file", "", "required", "file is required"});
  if (r.errors.empty() && u.challenge_id.has_value() && *kind != "liveness_video" && pv::FindMediaKind(*kind) != nullptr) {
    r.errors.push_back({"challengeId", "", "not_allowed", "challengeId belongs to liveness_video captures"});
  }
  if (!r.errors.empty()) return r;
  u.kind = *kind;
  if (sealing == nullptr) {
    u.bytes = held.Whole();
    SVC_RETURN_IF_ERROR(pv::CheckCaptureContent(u));
    SVC_ASSIGN_OR_RETURN(auto admitted, Admit(rt, u));
    SVC_ASSIGN_OR_RETURN(r.captured, pv::SealCapture(deps, u, admitted));
    return r;
  }
  SVC_ASSIGN_OR_RETURN(auto admitted, Admit(rt, u));
  SVC_ASSIGN_OR_RETURN(r.captured, sealing->Finish(u, admitted));
  return r;
}

// An upload slot for this request's source and tenant (upload_slots.h), or the refusal answered.
bool TakeUploadSlot(const SessionsOptions& o, const HttpRequest& req, const std::string& source,
                    const std::string& tenant, const Respond& respond) {
  if (o.upload_slots == nullptr) return true;
  HttpResponse r;
  switch (o.upload_slots->Take(source, tenant)) {
    case UploadSlots::Taken::kYes:
      return true;
    case UploadSlots::Taken::kSourceFull:
      r = Problem(req, "RATE_LIMITED",
                  "this address has " + std::to_string(o.upload_slots->limits().per_source) +
                      " uploads in progress, the most one address may; retry when one has finished");
      break;
    case UploadSlots::Taken::kTenantFull:
      r = Problem(req, "RATE_LIMITED",
                  "this account has " + std::to_string(o.upload_slots->limits().per_tenant) +
                      " uploads in progress in this environment, the most it may; retry when one has finished");
      break;
    case UploadSlots::Taken::kFull:
      r = Problem(req, "ADMISSION_FULL", "too many captures are being processed; retry");
      break;
  }
  r.headers.emplace_back("Retry-After", "1");
  respond(std::move(r));
  return false;
}

// A refused upload's problem; one refused for memory (ADMISSION_FULL) says when to retry.
HttpResponse UploadProblem(const HttpRequest& req, const core::Status& st) {
  HttpResponse r = StatusToProblem(req, st);
  if (st.api_code() == "ADMISSION_FULL") r.headers.emplace_back("Retry-After", "1");
  return r;
}

void CaptureMedia(Runtime& rt, const SessionsOptions& o, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  if (auto st = core::ValidateId(core::IdKind::kVerification, req.path_params["session_id"]); !st.ok()) {
    return respond(StatusToProblem(req, st));
  }
  auto start = StartCapture(req, call.auth, respond);
  if (!start.has_value()) return;
  const std::string source = o.credential_guard != nullptr ? o.credential_guard->SourceOf(req) : req.remote;
  const std::string tenant = TeOf(call);
  if (!TakeUploadSlot(o, req, source, tenant, respond)) return;
  auto done = [respond, slots = o.upload_slots, source, tenant](HttpResponse r) {
    if (slots != nullptr) slots->Release(source, tenant);
    respond(std::move(r));
  };
  // The body is read (as it arrives, on a streamed route), sealed and analysed on the upload
  // pool, never on an I/O thread; the request lives until `done` answers.
  auto work = [&rt, &o, call, &req, start = std::move(*start), done]() mutable {
    std::shared_ptr<BodyReader> reader = req.body_stream;
    if (reader == nullptr) reader = std::make_shared<StringBodyReader>(req.body);
    auto got = ReceiveCapture(rt, o, start, *reader);
    const pv::CaptureUpload& u = start.upload;
    if (!got.ok()) return done(UploadProblem(req, got.status()));
    if (!got->errors.empty()) return done(ValidationProblem(req, got->errors));
    auto cmd = commands::MakeCommand<vs::SessionDecider>(u.tenant, u.session_id,
                                                         vs::SessionCommand(vs::CaptureMedia{*got->captured}),
                                                         Context(rt, call));
    RunThenRender(rt, req, std::move(cmd), {VV::kName, SV::kName},
                  [&rt, slim = SlimRequest(req), u](const commands::CommandOutcome& out) {
                    auto body = pv::CaptureAnswer(rt.store(), rt.key_store(), u.tenant, u.environment, u.session_id,
                                                  core::StringOr(out.result, "mediaId"));
                    return body.ok() ? JsonResponse(201, *body) : StatusToProblem(slim, body.status());
                  },
                  done);
  };
  core::ThreadPool* pool = o.upload_pool != nullptr ? o.upload_pool : o.work_pool;
  if (pool == nullptr) return work();
  pool->Post(std::move(work));
}

// POST …/handoff: a link that continues this session on another device (docs/embedded.md#handoff):
// single use, ten minutes. Not idempotent: the token exists only in this answer (its hash is
// recorded), so a retry asks for another (at most five a session).
void IssueHandoff(Runtime& rt, const SessionsOptions& o, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  const std::string id = req.path_params["session_id"];
  auto rec = SessionRecord(rt, call, id);
  if (!rec.ok()) return respond(StatusToProblem(req, rec.status()));
  if (!req.body.empty()) return respond(Problem(req, "BAD_REQUEST", "a handoff takes no request body"));
  std::string token = core::Base64UrlEncode(core::RandomBytes(24));
  vs::IssueHandoff c{commands::tenancy::HashApiKey(rt.api_key_lookup_key(), token)};
  auto cmd = commands::MakeCommand<vs::SessionDecider>(call.auth.tenant_id, id, vs::SessionCommand(c), Context(rt, call));
  RunThenRender(rt, req, std::move(cmd), {projections::EmbeddedView::kName},
                [token, base = o.public_base_url, id](const commands::CommandOutcome& out) {
                  const int64_t expires = out.result.is_object() ? out.result.value("expiresAtMicros", int64_t{0}) : 0;
                  HttpResponse r = JsonResponse(201, {{"object", "handoff"},
                                                      {"sessionId", id},
                                                      {"url", base + "/v/" + token},
                                                      {"expiresAt", core::FormatRfc3339(core::Timestamp{expires})}});
                  r.headers.emplace_back("Cache-Control", "no-store");
                  return r;
                },
                std::move(respond));
}

// Three actions, no action twice in a row: 3 x 2 x 2 = 12 sequences.
std::vector<std::string> DrawActions() {
  std::vector<std::string> out;
  while (out.size() < 3) {
    std::string b = core::RandomBytes(1);
    auto r = static_cast<unsigned char>(b[0]);
    if (r >= 255) continue;  // 255 = 3 x 85: no modulo bias
    std::string a = pipeline::biometrics::kLivenessActions[r % 3];
    if (!out.empty() && out.back() == a) continue;
    out.push_back(a);
  }
  return out;
}

void IssueChallenge(Runtime& rt, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  const std::string id = req.path_params["session_id"];
  auto rec = SessionRecord(rt, call, id);
  if (!rec.ok()) return respond(StatusToProblem(req, rec.status()));
  if (!req.body.empty()) {
    return respond(Problem(req, "BAD_REQUEST", "issuing a liveness challenge takes no request body"));
  }
  vs::IssueLivenessChallenge c;
  c.challenge.challenge_id = rt.ids().NewIdString(core::IdKind::kLivenessChallenge);
  c.challenge.actions = DrawActions();
  auto cmd = commands::MakeCommand<vs::SessionDecider>(call.auth.tenant_id, id,
                                                       vs::SessionCommand(c), Context(rt, call));
  RunThenRender(rt, req, std::move(cmd), {VV::kName},
                [id, now = rt.clock().Now()](const commands::CommandOutcome& out) {
                  core::Json body;
                  body["object"] = "liveness_challenge";
                  body["challengeId"] = core::StringOr(out.result, "challengeId");
                  body["sessionId"] = id;
                  body["actions"] = out.result.is_object() ? out.result.value("actions", core::Json::array())
                                                           : core::Json::array();
                  body["createdAt"] = core::FormatRfc3339(now);
                  body["expiresAt"] = core::FormatRfc3339(core::Timestamp{core::IntOr(out.result, "expiresAtMicros")});
                  return JsonResponse(201, body);
                },
                std::move(respond));
}

void Submit(Runtime& rt, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  const std::string id = req.path_params["session_id"];
  auto rec = SessionRecord(rt, call, id);
  if (!rec.ok()) return respond(StatusToProblem(req, rec.status()));
  if (!req.body.empty()) {
    return respond(Problem(req, "BAD_REQUEST", "submit takes no request body"));
  }
  vs::SubmitSession s;
  s.tracking_id = rt.ids().NewIdString(core::IdKind::kTracking);
  auto efirma = projections::LatestEfirmaCheckId(rt.store(), projections::TenantEnv(call.auth.tenant_id, call.auth.environment), id);
  if (!efirma.ok()) return respond(StatusToProblem(req, efirma.status()));
  s.efirma_check = std::move(*efirma);
  auto cmd = commands::MakeCommand<vs::SessionDecider>(call.auth.tenant_id, id,
                                                       vs::SessionCommand(s), Context(rt, call));
  RunThenRender(rt, req, std::move(cmd), {SV::kName, VV::kName},
                [](const commands::CommandOutcome& out) {
                  // The verdict arrives as events (webhooks, the progress stream) and in the
                  // evidence; the submit answer says the submission was accepted.
                  core::Json body;
                  body["kind"] = "pending";
                  body["trackingId"] = core::StringOr(out.result, "trackingId");
                  body["status"] = "in_progress";
                  body["decision"] = {{"outcome", nullptr},   {"reasonCodes", core::Json::array()},
                                      {"trustScore", nullptr}, {"decidedAt", nullptr},
                                      {"decidedBy", nullptr},  {"caseId", nullptr}};
                  body["caseId"] = nullptr;
                  return JsonResponse(200, body);
                },
                std::move(respond));
}

}  // namespace

core::Result<pv::ReportInputs> LoadReportInputs(Runtime& rt, const ApiCall& call,
                                                const std::string& id) {
  SVC_ASSIGN_OR_RETURN(core::Json rec, SessionRecord(rt, call, id));
  return pv::ReadReportInputs(rt.store(), rec, call.auth.environment);
}

namespace {

void Evidence(Runtime& rt, ApiCall& call, Respond respond) {
  auto in = LoadReportInputs(rt, call, call.request->path_params["session_id"]);
  if (!in.ok()) return respond(StatusToProblem(*call.request, in.status()));
  respond(JsonResponse(200, pv::BuildEvidence(*in)));
}

void Report(Runtime& rt, ApiCall& call, Respond respond) {
  auto in = LoadReportInputs(rt, call, call.request->path_params["session_id"]);
  if (!in.ok()) return respond(StatusToProblem(*call.request, in.status()));
  respond(JsonResponse(200, pv::BuildReport(*in)));
}

// GET …/certificate: signed (pipeline/certificate.h), with its trusted timestamps
// (pipeline/audit/timestamper.h) outside the signed content.
void Certificate(Runtime& rt, const SessionsOptions& o, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  const std::string id = req.path_params["session_id"];
  auto in = LoadReportInputs(rt, call, id);
  if (!in.ok()) return respond(StatusToProblem(req, in.status()));
  if (!pv::CertificateIssued(*in)) {
    return respond(Problem(req, "CONFLICT",
                           "a certificate is issued once the session is approved or declined (it "
                           "is " + core::StringOr(in->session, "status") + ")"));
  }
  auto signed_doc = pipeline::audit::SignEvidence(rt.store(), TeOf(call), commands::audit::kVerificationCertificate, id,
                                                 pv::BuildCertificateContent(*in), rt.certificate_root_key(),
                                                 o.evidence_timestamps);
  if (!signed_doc.ok()) return respond(StatusToProblem(req, signed_doc.status()));
  HttpResponse r;
  r.body = std::move(*signed_doc);  // canonical form: the same bytes on every request
  respond(std::move(r));
}

// The Ed25519 public key certificates of the caller's tenant and environment are signed with:
// with it anyone checks a certificate offline (svc certificate verify --public-key, or the
// stand-alone docs/verify_certificate.py).
void CertificateKeys(Runtime& rt, ApiCall& call, Respond respond) {
  const AuthContext& a = call.auth;
  core::Ed25519KeyPair kp =
      pipeline::CertificateSigningKey(rt.certificate_root_key(), a.tenant_id, a.environment);
  core::SecureZero(kp.secret_key);
  respond(JsonResponse(200, {{"object", "certificate_keys"},
                             {"tenantId", a.tenant_id},
                             {"environment", a.environment},
                             {"keys", core::Json::array({{{"keyId", pipeline::CertificateKeyId(kp.public_key)},
                                                          {"algorithm", "Ed25519"},
                                                          {"publicKey", core::Base64Encode(kp.public_key)},
                                                          {"signs", "signatureEd25519 of verification certificates"}}})}}));
}

void Events(Runtime& rt, const SessionsOptions& o, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  const std::string id = req.path_params["session_id"];
  auto rec = SessionRecord(rt, call, id);
  if (!rec.ok()) return respond(StatusToProblem(req, rec.status()));
  std::optional<eventstore::LogPosition> after;
  if (std::string last = req.Header("last-event-id"); !last.empty()) {
    eventstore::LogPosition p;
    if (!projections::VerificationProjector::ParseStreamId(last, &p)) {
      return respond(Problem(req, "BAD_REQUEST",
                             "Last-Event-ID must be an id this stream sent (<partition>-<offset>)"));
    }
    after = p;
  }
  if (o.sse_hub == nullptr) {
    return respond(Problem(req, "SERVICE_UNAVAILABLE", "progress streams are not available"));
  }
  SseFeed feed = SessionProgressFeed(call.auth.tenant_id, call.auth.environment, id, after);
  if (o.sse_hub->Ended(feed)) {
    // The client has the final entry: 204 makes EventSource (browsers, the npm package) stop
    // instead of reconnecting every few seconds forever.
    HttpResponse done;
    done.status = 204;
    done.content_type.clear();
    return respond(std::move(done));
  }
  HttpResponse r;
  r.content_type = "text/event-stream";
  r.headers.emplace_back("Cache-Control", "no-store");
  r.headers.emplace_back("X-Accel-Buffering", "no");
  r.stream = o.sse_hub->Open(std::move(feed));
  respond(std::move(r));
}

}  // namespace

std::vector<ApiRoute> VerificationRoutes(Runtime* r, const SessionsOptions& options) {
  std::vector<ApiRoute> routes;
  const SessionsOptions* o = &options;
  const std::vector<std::string> lookup = {"INVALID_ID", "SESSION_NOT_FOUND"};
  auto with = [&](std::vector<std::string> extra) { return Codes({lookup, extra}); };
  const std::string tag = "Verification flow";
  const std::vector<std::string>& idem = IdempotencyErrors();
  routes.push_back(ApiRoute{
      .method = "POST", .path = "/v1/verification-sessions/{session_id}/media",
      .operation_id = "uploadVerificationMedia", .tag = tag,
      .scope = "verification:write", .family = RateFamily::kWrite,
      .idempotency = IdempotencyRule::kOptional, .applicant_token = true, .request_schema = "MediaCaptureUpload",
      .request_content_type = "multipart/form-data",
      .query = {{"analyze", {{"type", "boolean"}, {"default", false}},
                 "run the capture analysis now and return it"}},
      .success_status = 201, .response_schema = "MediaCaptureResult",
      .error_codes = Codes({with({"UNSUPPORTED_MEDIA_TYPE", "BAD_REQUEST", "VALIDATION_ERROR",
                                "UNKNOWN_MEDIA_KIND", "MEDIA_CONTENT_INVALID", "PAYLOAD_TOO_LARGE",
                                "CONSENT_REQUIRED", "SESSION_EXPIRED", "CHALLENGE_ID_REQUIRED",
                                "CAPTURE_CREDENTIAL_INVALID", "CHECK_NOT_ENABLED_FOR_FLOW",
                                "SESSION_COMPLETED", "INVALID_STATE_TRANSITION",
                                "CAPTURE_NOT_ALLOWED", "ADMISSION_FULL"}),
                          idem}),
      .handler = [r, o](ApiCall& c, Respond respond) { CaptureMedia(*r, *o, c, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "POST", .path = "/v1/verification-sessions/{session_id}/liveness-challenges",
      .operation_id = "createLivenessChallenge", .tag = tag,
      .scope = "verification:write", .family = RateFamily::kWrite,
      .idempotency = IdempotencyRule::kOptional, .applicant_token = true, .success_status = 201,
      .response_schema = "LivenessChallenge",
      .error_codes = Codes({with({"BAD_REQUEST", "CHECK_NOT_ENABLED_FOR_FLOW", "CONSENT_REQUIRED",
                                "SESSION_EXPIRED", "SESSION_COMPLETED", "INVALID_STATE_TRANSITION",
                                "CAPTURE_NOT_ALLOWED"}),
                          idem}),
      .handler = [r](ApiCall& c, Respond respond) { IssueChallenge(*r, c, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "POST", .path = "/v1/verification-sessions/{session_id}/handoff",
      .operation_id = "createHandoff", .tag = tag,
      .scope = "verification:write", .family = RateFamily::kWrite, .applicant_token = true, .success_status = 201,
      .response_schema = "Handoff",
      .error_codes = with({"BAD_REQUEST", "SESSION_EXPIRED", "SESSION_COMPLETED", "SESSION_ALREADY_USED",
                           "CAPTURE_NOT_ALLOWED"}),
      .handler = [r, o](ApiCall& c, Respond respond) { IssueHandoff(*r, *o, c, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "POST", .path = "/v1/verification-sessions/{session_id}/submit",
      .operation_id = "submitVerificationSession", .tag = tag,
      .scope = "verification:write", .family = RateFamily::kWrite,
      .idempotency = IdempotencyRule::kOptional, .applicant_token = true, .response_schema = "SubmitResponse",
      .error_codes = Codes({with({"BAD_REQUEST", "CONSENT_REQUIRED", "SESSION_NOT_SUBMITTABLE",
                                "SESSION_EXPIRED", "SESSION_COMPLETED"}),
                          idem}),
      .handler = [r](ApiCall& c, Respond respond) { Submit(*r, c, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "GET", .path = "/v1/verification-sessions/{session_id}/evidence",
      .operation_id = "getVerificationEvidence", .tag = tag, .scope = "verification:read", .response_schema = "EvidenceBundle", .error_codes = lookup,
      .handler = [r](ApiCall& c, Respond respond) { Evidence(*r, c, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "GET", .path = "/v1/verification-sessions/{session_id}/report",
      .operation_id = "getVerificationReport", .tag = tag,
      .scope = "verification:read", .response_schema = "VerificationReportDetail",
      .error_codes = lookup,
      .handler = [r](ApiCall& c, Respond respond) { Report(*r, c, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "GET", .path = "/v1/verification-sessions/{session_id}/certificate",
      .operation_id = "getVerificationCertificate", .tag = tag,
      .scope = "verification:read", .response_schema = "VerificationCertificate",
      .error_codes = with({"CONFLICT"}),
      .handler = [r, o](ApiCall& c, Respond respond) { Certificate(*r, *o, c, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "GET", .path = "/v1/certificate-keys", .operation_id = "listCertificateKeys",
      .tag = tag, .scope = "verification:read", .response_schema = "CertificateKeys",
      .handler = [r](ApiCall& c, Respond respond) { CertificateKeys(*r, c, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "GET", .path = "/v1/verification-sessions/{session_id}/events",
      .operation_id = "streamVerificationEvents", .tag = tag,
      .scope = "verification:read", .reviewer_token = true, .applicant_token = true,
      .query = {{"access_token", {{"type", "string"}}, "a reviewer token, for clients that cannot send headers"}},
      .headers = {"Last-Event-ID"},
      .response_schema = "ProgressStream", .response_content_type = "text/event-stream",
      .error_codes = with({"BAD_REQUEST", "SERVICE_UNAVAILABLE"}),
      .handler = [r, o](ApiCall& c, Respond respond) { Events(*r, *o, c, std::move(respond)); }});
  return routes;
}

}  // namespace svc::api
