// The two review routes that show personal data, each an audited reveal (docs/review.md#what-a-reviewer-sees):
//   GET /v1/review/cases/{case_id}    the case detail: the applicant's data (ApplicantPII), the
//                                     session's scores and checks, the captures, the decisions and
//                                     the case log with its notes opened
//   GET /v1/review/media/{media_id}   one capture of a case's session, decrypted for the caller
// Each call appends one access event (channel review_case or review_media, the case named) against
// the day's reveal budget before anything is opened; the access lands in the audit chain and is
// sent as `audit.event` to subscribed endpoints.
#include "api/http/problem.h"
#include "api/http/reveal.h"
#include "api/http/write_path.h"
#include "api/review/review_common.h"
#include "api/review/routes.h"
#include "commands/review/case_decider.h"
#include "commands/review/reason_codes.h"
#include "commands/verification/session_events.h"
#include "core/crypto.h"
#include "eventstore/key_store.h"
#include "pipeline/persons/reveal_rules.h"
#include "pipeline/verification/policy.h"
#include "pipeline/verification/stage_details.h"
#include "pipeline/review/resolution.h"
#include "projections/persons/persons_view.h"
#include "projections/projector.h"
#include "projections/audit/audit_view.h"
#include "projections/review/review_queries.h"
#include "projections/review/review_view.h"
#include "projections/tenancy_view.h"
#include "projections/sessions_view.h"
#include "projections/verification_view.h"

namespace svc::api::review {

namespace {

using RV = projections::ReviewView;
using VV = projections::VerificationView;
using SV = projections::SessionsView;
using PV = projections::PersonsView;

// The fields of ApplicantPII, as the vault names them.
const std::vector<std::string>& ApplicantFields() {
  static const std::vector<std::string> kFields = {"fullName", "curp",  "rfc",         "claveElector", "email", "phone",
                                                   "birthDate", "sex", "nationality", "state"};
  return kFields;
}

const char* kPurpose = "manual_review";

// The newest entries of "who viewed" that a case shows.
constexpr size_t kViewersShown = 50;

core::Result<core::Json> Viewers(Runtime& rt, const AuthContext& a, const std::string& case_id) {
  SVC_ASSIGN_OR_RETURN(auto v, projections::CaseViews(rt.store(), a.tenant_id, TeOf(a), case_id, kViewersShown));
  return core::Json{{"total", v.total}, {"openings", v.openings}, {"entries", std::move(v.entries)}};
}


// A row of the views that is a plain string (an index entry: an id).
core::Result<std::optional<std::string>> ReadRaw(Runtime& rt, const std::string& key) {
  return rt.store().Get(rt.store().Cf(projections::kViewsCf), key);
}

// What the caller may do with the case now (ReviewActionItem): each action with `allowed` and,
// when refused, the code the operation would answer with.
core::Json Actions(const core::Json& c, const AuthContext& a) {
  const std::string status = core::StringOr(c, "status");
  const bool finished = CaseFinished(status);
  const bool mine = HeldByCaller(c, a);
  const bool held = CaseHeld(c);
  const bool has_session = !core::StringOr(c, "sessionId").empty();
  const core::Json proposed = c.value("proposedResolution", core::Json());
  const commands::review::CaseActor me = ActorOf(a);
  const bool proposed_by_me = proposed.is_object() && core::StringOr(proposed.value("by", core::Json::object()), "id") == me.id;
  core::Json out = core::Json::array();
  auto add = [&out](const char* action, const char* refusal) {
    out.push_back({{"action", action},
                   {"allowed", refusal == nullptr},
                   {"refusal", refusal == nullptr ? core::Json(nullptr) : core::Json(refusal)}});
  };
  auto resolve = [&](const char* action, bool needs_session) {
    const char* refusal = finished ? "CASE_CLOSED"
                          : !mine ? (held ? "CASE_ALREADY_CLAIMED" : "CASE_CLAIM_REQUIRED")
                          : (needs_session && !has_session) ? "CASE_HAS_NO_SESSION"
                          : (proposed_by_me && proposed.value("action", "") == action) ? "SECOND_APPROVAL_REQUIRED"
                                                                                        : nullptr;
    add(action, refusal);
  };
  add("claim", finished ? "CASE_CLOSED" : (held && !mine) ? "CASE_ALREADY_CLAIMED" : nullptr);
  add("release", finished ? "CASE_CLOSED" : !mine ? "CASE_CLAIM_REQUIRED" : nullptr);
  add("note", has_session ? nullptr : "CASE_HAS_NO_SESSION");
  add("reassign", finished ? "CASE_CLOSED" : nullptr);
  resolve("approve", true);
  resolve("decline", true);
  // An override of the engine needs a note (commands/review/reason_codes.h).
  std::vector<std::string> engine_codes;
  for (const auto& x : c.value("reasonCodes", core::Json::array())) {
    if (x.is_string()) engine_codes.push_back(x.get<std::string>());
  }
  const std::string_view lean = commands::review::EngineLean(commands::review::CasePriorityFor(engine_codes));
  for (auto& item : out) {
    const std::string action = item["action"];
    if (action == "approve" || action == "decline") item["noteRequired"] = commands::review::IsOverride(lean, action);
  }
  resolve("request_more_info", true);
  resolve("escalate", false);
  return out;
}

// CaseSummary: the case as the queue shows it.
core::Json Summary(const core::Json& c) {
  core::Json out = c;
  out.erase("object");
  return out;
}

// The session part of the detail (ReviewSessionSummary), the decisions and the government
// lookups, from the session's record and verdicts; no personal data (the report holds none).
struct SessionPart {
  core::Json session = nullptr;
  core::Json decisions = core::Json::array();
  core::Json gov = core::Json::array();
  core::Json media = core::Json::array();
};

core::Result<SessionPart> ReadSession(Runtime& rt, const std::string& te, const std::string& session) {
  SessionPart out;
  if (session.empty()) return out;
  SVC_ASSIGN_OR_RETURN(auto rec, ReadView(rt, SV::Abs(SV::Record(te, session))));
  if (!rec.has_value()) return out;
  SVC_ASSIGN_OR_RETURN(auto verdict, ReadView(rt, VV::Abs(VV::Verdict(te, session))));
  const core::Json v = verdict.value_or(core::Json(nullptr));
  const core::Json report = v.is_object() ? v.value("report", core::Json::object()) : core::Json::object();
  // The component scores the trust score was made of (null when that check did not score), else
  // the biometric checks' own scores.
  const core::Json breakdown = v.is_object() ? v.value("trustBreakdown", core::Json(nullptr)) : core::Json(nullptr);
  core::Json face = breakdown.is_object() ? breakdown.value("faceMatch", core::Json(nullptr)) : core::Json(nullptr);
  core::Json liveness = breakdown.is_object() ? breakdown.value("liveness", core::Json(nullptr)) : core::Json(nullptr);
  for (const auto& b : report.value("biometric", core::Json::array())) {
    const std::string kind = core::StringOr(b, "checkType");
    const core::Json score = b.value("score", core::Json(nullptr));
    if (face.is_null() && kind.find("face") != std::string::npos) face = score;
    if (liveness.is_null() && kind.find("live") != std::string::npos) liveness = score;
  }
  out.session = {{"sessionId", session},
                 {"publicId", (*rec)["publicId"]},
                 {"status", (*rec)["status"]},
                 {"applicationId", rec->value("applicationId", core::Json(nullptr))},
                 {"channel", rec->value("channel", core::Json(nullptr))},
                 {"locale", rec->value("locale", core::Json("es-MX"))},
                 {"createdAt", (*rec)["createdAt"]},
                 {"completedAt", rec->value("completedAt", core::Json(nullptr))},
                 {"outcome", v.is_object() ? v.value("outcome", core::Json(nullptr)) : core::Json(nullptr)},
                 {"reasonCodes", v.is_object() ? v.value("reasonCodes", core::Json::array()) : core::Json::array()},
                 {"trustScore", v.is_object() ? v.value("trustScore", core::Json(nullptr)) : core::Json(nullptr)},
                 {"trustBreakdown", breakdown},
                 {"faceMatchScore", face},
                 {"livenessScore", liveness},
                 {"document", report.value("document", core::Json(nullptr))},
                 {"biometric", report.value("biometric", core::Json::array())},
                 {"checks", report.value("steps", core::Json::array())}};
  out.gov = report.value("gov", core::Json::array());
  // Every verdict of the session, oldest first: the engine's (decidedBy "policy:<version>"), then
  // a reviewer's ("review").
  SVC_ASSIGN_OR_RETURN(auto stream, ScanView(rt, VV::Abs(VV::Stream(te, session))));
  for (const auto& e : stream) {
    const std::string type = core::StringOr(e, "type");
    bool verdict_type = false;
    for (auto t : commands::verification::kVerdictTypes) verdict_type |= type == t;
    if (!verdict_type) continue;
    out.decisions.push_back({{"decidedBy", "policy:" + std::string(pipeline::verification::kPolicyVersion)},
                             {"outcome", e.value("outcome", core::Json(nullptr))},
                             {"reasonCodes", e.value("reasonCodes", core::Json::array())},
                             {"trustScore", e.value("trustScore", core::Json(nullptr))},
                             {"decidedAt", e.value("at", core::Json(nullptr))}});
  }
  // The latest says who decided it (a reviewer's resolution names the reviewers).
  if (v.is_object() && !out.decisions.empty()) {
    core::Json latest = pipeline::verification::DecisionSummary(v);
    out.decisions.back()["decidedBy"] = latest["decidedBy"];
    if (latest.contains("reviewers")) out.decisions.back()["reviewers"] = latest["reviewers"];
  }
  SVC_ASSIGN_OR_RETURN(auto captures, ScanView(rt, VV::Abs(VV::Media(te, session))));
  for (const auto& m : captures) {
    const bool held = m.value("purgedAt", core::Json()).is_null() && !core::StringOr(m, "blob").empty();
    const core::Json analysis = m.value("analysis", core::Json::object());
    out.media.push_back({{"mediaId", m.value("mediaId", "")},
                         {"kind", m.value("kind", "")},
                         {"mime", m.value("mime", "")},
                         {"sizeBytes", m.value("sizeBytes", int64_t{0})},
                         {"sha256", m.value("sha256", "")},
                         {"capturedAt", m.value("capturedAt", "")},
                         {"analysisStatus", analysis.is_object() ? analysis.value("status", core::Json(nullptr)) : core::Json(nullptr)},
                         {"qualityIssues", analysis.is_object() ? analysis.value("qualityIssues", core::Json::array()) : core::Json::array()},
                         {"url", held ? core::Json("/v1/review/media/" + core::StringOr(m, "mediaId")) : core::Json(nullptr)}});
  }
  return out;
}

// The case log (CaseEventItem): with `open_notes`, its notes opened with the session's key (absent
// once erased); without, every body null and `sealed` saying where a note is (the state read).
core::Result<core::Json> CaseLog(Runtime& rt, const AuthContext& a, const std::string& case_id,
                                 const std::string& session, bool open_notes = true) {
  const std::string te = TeOf(a);
  SVC_ASSIGN_OR_RETURN(auto rows, ScanView(rt, RV::Abs(RV::Events(te, case_id))));
  std::optional<std::string> key;
  if (open_notes && !session.empty()) {
    SVC_ASSIGN_OR_RETURN(key, rt.key_store().Get(eventstore::KeyStore::SessionKeyName(a.tenant_id, a.environment, session)));
  }
  core::Json out = core::Json::array();
  for (const auto& r : rows) {
    const std::string actor_type = core::StringOr(r, "actorType");
    core::Json body = nullptr;
    if (const std::string sealed = core::StringOr(r, "noteSealed"); !sealed.empty() && key.has_value()) {
      auto raw = core::Base64Decode(sealed);
      if (raw.ok()) {
        auto note = core::AeadOpen(*key, *raw, pipeline::review::NoteAad(case_id));
        if (note.ok()) body = std::move(*note);
      }
    }
    core::Json item = {{"eventType", r.value("eventType", "")},
                       {"actorType", actor_type},
                       {"actorUserId", actor_type == "user" ? r.value("actorId", core::Json(nullptr)) : core::Json(nullptr)},
                       {"actorId", r.value("actorId", core::Json(nullptr))},
                       {"body", body},
                       {"createdAt", r.value("createdAt", "")}};
    if (!open_notes) item["sealed"] = !core::StringOr(r, "noteSealed").empty();
    if (auto it = r.find("action"); it != r.end()) item["action"] = *it;
    if (auto it = r.find("assigneeUserId"); it != r.end()) item["assigneeUserId"] = *it;
    out.push_back(std::move(item));
  }
  if (key.has_value()) core::SecureZero(*key);
  return out;
}

// The person of a session whose data a reviewer may see: none when the session has no person or
// the person was erased, merged away or asked to be forgotten.
core::Result<std::string> ApplicantOf(Runtime& rt, const std::string& te, const std::string& session) {
  if (session.empty()) return std::string();
  SVC_ASSIGN_OR_RETURN(auto linked, rt.store().Get(rt.store().Cf(projections::kViewsCf), PV::Abs(PV::SessionPerson(te, session))));
  if (!linked.has_value()) return std::string();
  SVC_ASSIGN_OR_RETURN(auto row, ReadView(rt, PV::Abs(PV::Record(te, *linked))));
  if (!row.has_value() || !pipeline::persons::CheckActive(*row).ok()) return std::string();
  return *linked;
}

// The applicant's fields, opened once the access is recorded; null without a person, or when the
// person was erased between the check and now.
core::Result<core::Json> Applicant(Runtime& rt, const AuthContext& a, const std::string& person) {
  if (person.empty()) return core::Json(nullptr);
  auto values = OpenFields(rt, a, person, ApplicantFields());
  if (!values.ok()) {
    if (values.status().api_code() == "PERSON_PURGED") return core::Json(nullptr);
    return values.status();
  }
  core::Json applicant = {{"personId", person}};
  for (const auto& f : ApplicantFields()) applicant[f] = (*values)[f];
  return applicant;
}

// What the document said, read by the latest submission's document stage, when the session has
// no person (issue 69, item 9: the reviewer saw "—" for every field): null when none was read,
// or the session's data was destroyed. Opened only once the access is recorded.
core::Result<core::Json> DocumentRead(Runtime& rt, const AuthContext& a, const std::string& session) {
  const std::string te = TeOf(a);
  if (session.empty()) return core::Json(nullptr);
  SVC_ASSIGN_OR_RETURN(auto submission, ReadView(rt, VV::Abs(VV::Submission(te, session))));
  if (!submission.has_value()) return core::Json(nullptr);
  const std::string tracking = core::StringOr(*submission, "trackingId");
  SVC_ASSIGN_OR_RETURN(auto stage, ReadView(rt, VV::Abs(VV::Stage(te, session, tracking, "document"))));
  const std::string sealed = stage.has_value() ? core::StringOr(*stage, "detailsSealed") : "";
  if (sealed.empty()) return core::Json(nullptr);
  SVC_ASSIGN_OR_RETURN(auto key, rt.key_store().Get(eventstore::KeyStore::SessionKeyName(a.tenant_id, a.environment, session)));
  if (!key.has_value()) return core::Json(nullptr);
  auto opened = pipeline::verification::OpenStageDetails(*key, {a.tenant_id, a.environment, session, tracking, "document"}, sealed);
  core::SecureZero(*key);
  SVC_RETURN_IF_ERROR(opened.status());
  const core::Json& x = *opened;
  auto text = [&](const char* k) { return x.contains(k) && x[k].is_string() && !x[k].get<std::string>().empty() ? x[k] : core::Json(nullptr); };
  std::string name = core::StringOr(x, "givenNames");
  for (const char* k : {"surname1", "surname2"}) {
    const std::string part = core::StringOr(x, k);
    if (!part.empty()) name += (name.empty() ? "" : " ") + part;
  }
  return core::Json{{"fullName", name.empty() ? core::Json(nullptr) : core::Json(name)},
                    {"curp", text("curp")},
                    {"birthDate", text("birthDate")},
                    {"sex", text("sex")},
                    {"documentNumber", text("documentNumber")},
                    {"claveElector", text("claveElector")},
                    {"expiryDate", text("expiryDate")}};
}

// What the detail adds once its access is recorded: the case log with the notes opened, the
// applicant's data (or, without a person, what the document said) and who viewed the case.
core::Status OpenDetail(Runtime& rt, const AuthContext& a, const std::string& case_id, const std::string& session,
                        const std::string& person, core::Json& detail) {
  SVC_ASSIGN_OR_RETURN(detail["events"], CaseLog(rt, a, case_id, session));
  SVC_ASSIGN_OR_RETURN(detail["applicant"], Applicant(rt, a, person));
  if (person.empty()) {
    SVC_ASSIGN_OR_RETURN(detail["documentRead"], DocumentRead(rt, a, session));
  } else {
    detail["documentRead"] = nullptr;
  }
  SVC_ASSIGN_OR_RETURN(detail["viewers"], Viewers(rt, a, case_id));
  return core::Status::Ok();
}

// Why the caller may not see a capture of the case `row`, or null: the case is unfinished and
// free or held by the caller; a supervisor, any case.
const char* CaptureRefusal(Runtime& rt, const AuthContext& a, const core::Json& row) {
  if (CallerIsSupervisor(rt, a)) return nullptr;
  if (CaseFinished(core::StringOr(row, "status"))) return "CASE_CLOSED";
  if (CaseHeld(row) && !HeldByCaller(row, a)) return "CASE_ALREADY_CLAIMED";
  return nullptr;
}

void Detail(Runtime& rt, const ReviewOptions& o, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  auto c = PathCase(rt, call, respond);
  if (!c) return;
  const AuthContext a = call.auth;
  const std::string te = TeOf(a);
  const std::string case_id = core::StringOr(*c, "caseId");
  const std::string session = core::StringOr(*c, "sessionId");
  auto part = ReadSession(rt, te, session);
  if (!part.ok()) return respond(StatusToProblem(req, part.status()));
  auto person = ApplicantOf(rt, te, session);
  if (!person.ok()) return respond(StatusToProblem(req, person.status()));
  // Every opening is an access, with or without a person (the notes may hold personal data).
  std::vector<std::string> fields;
  if (!person->empty()) fields = ApplicantFields();
  if (person->empty()) fields.push_back("documentRead");  // what the document said, opened below
  fields.push_back("caseNotes");
  auto access = AccessBy(a, *person, "review_case", fields, kPurpose, "");
  access.case_id = case_id;
  core::Json detail = {{"object", "review_case_detail"},
                       {"case", Summary(*c)},
                       {"session", part->session},
                       {"decisions", part->decisions},
                       {"govLookups", part->gov},
                       {"media", part->media},
                       {"actions", Actions(*c, a)}};
  RecordThen(rt, o, call, {access},
             [&rt, a, case_id, session, person = *person, detail = std::move(detail), slim = SlimRequest(req)]() mutable {
               auto st = OpenDetail(rt, a, case_id, session, person, detail);
               if (!st.ok()) return StatusToProblem(slim, st);
               HttpResponse r = JsonResponse(200, detail);
               r.headers.emplace_back("Cache-Control", "no-store");
               return r;
             },
             std::move(respond));
}

// The case as it stands, without opening anything (no access, no budget): the detail's members
// less `applicant`, the notes' bodies null (`sealed` says a note is there). What the console
// reads after an action, so that a visit stays one audited opening (docs/review.md#one-view-per-visit).
void State(Runtime& rt, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  auto c = PathCase(rt, call, respond);
  if (!c) return;
  const AuthContext& a = call.auth;
  const std::string te = TeOf(a);
  const std::string case_id = core::StringOr(*c, "caseId");
  auto part = ReadSession(rt, te, core::StringOr(*c, "sessionId"));
  if (!part.ok()) return respond(StatusToProblem(req, part.status()));
  auto events = CaseLog(rt, a, case_id, core::StringOr(*c, "sessionId"), false);
  if (!events.ok()) return respond(StatusToProblem(req, events.status()));
  auto viewers = Viewers(rt, a, case_id);
  if (!viewers.ok()) return respond(StatusToProblem(req, viewers.status()));
  HttpResponse r = JsonResponse(200, {{"object", "review_case_state"},
                                      {"case", Summary(*c)},
                                      {"session", part->session},
                                      {"decisions", part->decisions},
                                      {"govLookups", part->gov},
                                      {"media", part->media},
                                      {"events", std::move(*events)},
                                      {"actions", Actions(*c, a)},
                                      {"viewers", std::move(*viewers)}});
  r.headers.emplace_back("Cache-Control", "no-store");
  respond(std::move(r));
}

// The catalogue of decision reasons (reason_codes.h), per action, with their labels.
HttpResponse ReasonCodes() {
  core::Json data = core::Json::array();
  for (const auto& rc : commands::review::ReasonCatalogue()) {
    data.push_back({{"code", rc.code},
                    {"action", rc.action},
                    {"label", {{"es-MX", rc.label_es}, {"en", rc.label_en}}},
                    {"default", commands::review::DefaultReason(rc.action) == rc.code},
                    {"capture", rc.capture.empty() ? core::Json(nullptr) : core::Json(rc.capture)}});
  }
  return JsonResponse(200, {{"object", "list"}, {"data", std::move(data)}, {"hasMore", false}, {"nextCursor", nullptr}});
}

void Media(Runtime& rt, const ReviewOptions& o, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  const AuthContext a = call.auth;
  const std::string media = req.path_params["media_id"];
  if (auto st = core::ValidateId(core::IdKind::kMedia, media); !st.ok()) return respond(StatusToProblem(req, st));
  const std::string te = TeOf(a);
  auto gone = [&] { respond(Problem(req, "MEDIA_NOT_FOUND", "no capture of a review case with this id is held")); };
  auto session = ReadRaw(rt, VV::Abs(VV::MediaOwner(te, media)));
  if (!session.ok()) return respond(StatusToProblem(req, session.status()));
  if (!session->has_value()) return gone();
  auto case_id = ReadRaw(rt, RV::Abs(RV::BySession(te, **session)));
  if (!case_id.ok()) return respond(StatusToProblem(req, case_id.status()));
  if (!case_id->has_value()) return gone();  // a capture of a session no case was opened for
  auto c = ReadView(rt, RV::Abs(RV::Case(te, **case_id)));
  if (!c.ok()) return respond(StatusToProblem(req, c.status()));
  if (!c->has_value()) return gone();
  if (const char* refusal = CaptureRefusal(rt, a, **c)) {
    return respond(Problem(req, refusal, std::string_view(refusal) == "CASE_CLOSED"
                                             ? "the case is finished: its captures are shown to supervisors only"
                                             : "another reviewer holds the case: only they (or a supervisor) see its captures"));
  }
  auto capture = CaptureRow(rt, a.tenant_id, a.environment, **session, media);
  if (!capture.ok()) return respond(StatusToProblem(req, capture.status()));
  if (!capture->has_value()) return gone();
  auto bytes = OpenCapture(rt, a.tenant_id, a.environment, **session, **capture);
  if (!bytes.ok()) return respond(StatusToProblem(req, bytes.status()));
  if (!bytes->has_value()) return gone();
  auto person = ApplicantOf(rt, te, **session);
  if (!person.ok()) return respond(StatusToProblem(req, person.status()));
  auto access = AccessBy(a, *person, "review_media", {"capture:" + core::StringOr(**capture, "kind")}, kPurpose, "");
  access.case_id = **case_id;
  RecordThen(rt, o, call, {access},
             [mime = core::StringOr(**capture, "mime"), opened = **bytes, pool = o.work_pool]() {
               return CaptureResponse(mime, opened, pool);
             },
             std::move(respond));
}

}  // namespace

std::vector<ApiRoute> CaseDetailRoutes(Runtime* r, const ReviewOptions& options) {
  const ReviewOptions* o = &options;
  const std::string tag = "Manual review";
  std::vector<ApiRoute> routes;
  routes.push_back(ApiRoute{
      .method = "GET", .path = "/v1/review/cases/{case_id}", .operation_id = "getReviewCase", .tag = tag,
      .scope = "review:read", .reviewer_token = true, .response_schema = "ReviewCaseDetail",
      .error_codes = Codes({{"INVALID_ID", "CASE_NOT_FOUND", "PII_DECRYPT_CAP_REACHED"}}),
      .handler = [r, o](ApiCall& c, Respond respond) { Detail(*r, *o, c, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "GET", .path = "/v1/review/cases/{case_id}/state", .operation_id = "getReviewCaseState", .tag = tag,
      .scope = "review:read", .reviewer_token = true, .response_schema = "ReviewCaseState",
      .error_codes = Codes({{"INVALID_ID", "CASE_NOT_FOUND"}}),
      // Caught up with the log first: "who viewed" lists every access recorded before the call.
      .handler = [r](ApiCall& c, Respond respond) {
        WhenCaughtUp(*r, c, {projections::AuditView::kName, RV::kName}, std::move(respond),
                     [r](ApiCall& held, Respond then) { State(*r, held, std::move(then)); });
      }});
  routes.push_back(ApiRoute{
      .method = "GET", .path = "/v1/review/reason-codes", .operation_id = "listReviewReasonCodes", .tag = tag,
      .scope = "review:read", .reviewer_token = true, .response_schema = "ReviewReasonCodeList",
      .handler = [](ApiCall&, Respond respond) { respond(ReasonCodes()); }});
  routes.push_back(ApiRoute{
      .method = "GET", .path = "/v1/review/media/{media_id}", .operation_id = "getReviewMedia", .tag = tag,
      .scope = "review:read", .reviewer_token = true, .response_schema = "ReviewMediaBytes",
      .response_content_type = "application/octet-stream",
      .error_codes = Codes({{"INVALID_ID", "MEDIA_NOT_FOUND", "CASE_CLOSED", "CASE_ALREADY_CLAIMED",
                             "PII_DECRYPT_CAP_REACHED"}}),
      .handler = [r, o](ApiCall& c, Respond respond) { Media(*r, *o, c, std::move(respond)); }});
  return routes;
}

}  // namespace svc::api::review
