// The review queue and case operations (docs/review.md):
//   GET  /v1/review/queue                      the cases, in queue order (priority, then SLA)
//   GET  /v1/review/queue/summary              counts per status
//   POST /v1/review/cases/{case_id}/claim      the case lock
//   POST /v1/review/cases/{case_id}/notes      a note (204; no claim needed)
//   POST /v1/review/cases/{case_id}/reassign   to a reviewer of the tenant
//   POST /v1/review/cases/{case_id}/release    back to the queue (204)
// The actor of a call with an API key is the key (assigneeApiKeyId). A note may hold personal
// data: it is sealed under the case's session key before it is recorded.
#include "api/review/routes.h"
#include "api/review/review_common.h"

#include "api/http/cursor_list.h"
#include "api/http/pagination.h"
#include "api/http/problem.h"
#include "api/http/write_path.h"
#include "commands/review/case_decider.h"
#include "commands/review/case_status.h"
#include "core/crypto.h"
#include "core/log.h"
#include "pipeline/review/case_search.h"
#include "pipeline/review/outcome_writer.h"
#include "pipeline/review/resolution.h"
#include "pipeline/verification/requested_input.h"
#include "projections/review/review_queries.h"
#include "core/ids.h"
#include "eventstore/key_store.h"
#include "projections/persons/persons_view.h"
#include "projections/review/review_projector.h"
#include "projections/sessions_view.h"
#include "projections/tenancy_view.h"
#include "projections/verification_view.h"

namespace svc::api::review {

namespace rv = commands::review;
using RV = projections::ReviewView;

std::string TeOf(const AuthContext& a) { return projections::TenantEnv(a.tenant_id, a.environment); }

rv::CaseActor ActorOf(const AuthContext& a) {
  if (a.key_type == "user") return {"user", a.user_id};
  return {"api_key", a.key_id};
}

bool CaseHeld(const core::Json& row) {
  return !row.value("assigneeUserId", core::Json()).is_null() || !row.value("assigneeApiKeyId", core::Json()).is_null();
}

bool CaseFinished(std::string_view status) { return rv::IsFinishedCaseStatus(status); }

bool HeldByCaller(const core::Json& row, const AuthContext& a) {
  const rv::CaseActor me = ActorOf(a);
  const char* member = me.type == "user" ? "assigneeUserId" : "assigneeApiKeyId";
  return core::StringOr(row, member) == me.id && !me.id.empty();
}

bool CallerIsSupervisor(Runtime& rt, const AuthContext& a) {
  if (a.key_type != "user") return false;
  auto row = ReadView(rt, projections::TenancyView::Abs(projections::TenancyView::User(a.tenant_id, a.user_id)));
  return row.ok() && row->has_value() && core::StringOr(**row, "role") == "supervisor";
}

bool CallerSupervises(Runtime& rt, const AuthContext& a) { return a.key_type != "user" || CallerIsSupervisor(rt, a); }

std::optional<core::Json> PathCase(Runtime& rt, ApiCall& call, const Respond& respond) {
  const std::string te = TeOf(call.auth);
  return PathRow(rt, call, respond, "case_id", core::IdKind::kCase,
                 [&te](const std::string& id) { return RV::Abs(RV::Case(te, id)); }, "CASE_NOT_FOUND",
                 "no such review case");
}

namespace {

constexpr size_t kMaxNote = 4000;

core::Json ClaimResult(const core::Json& row) {
  return {{"caseId", row["caseId"]},
          {"claimedAt", row["claimedAt"]},
          {"status", row["status"]},
          {"assigneeUserId", row["assigneeUserId"]},
          {"assigneeApiKeyId", row["assigneeApiKeyId"]}};
}

// Runs a case command, then answers with `render(row after)`.
void RunCase(Runtime& rt, ApiCall& call, const std::string& case_id, rv::CaseCommand cmd,
             std::function<HttpResponse(const core::Json&)> render, Respond respond) {
  const AuthContext a = call.auth;
  RunThenRender(rt, *call.request,
                commands::MakeCommand<rv::CaseDecider>(a.tenant_id, case_id, std::move(cmd), Context(rt, call)),
                {RV::kName},
                [&rt, a, case_id, render = std::move(render), slim = SlimRequest(*call.request)](
                    const commands::CommandOutcome&) {
                  auto row = ReadView(rt, RV::Abs(RV::Case(TeOf(a), case_id)));
                  if (!row.ok()) return StatusToProblem(slim, row.status());
                  if (!row->has_value()) return StatusToProblem(slim, core::Unavailable("the case is not readable yet"));
                  return render(**row);
                },
                std::move(respond));
}

HttpResponse NoContent() {
  HttpResponse r;
  r.status = 204;
  return r;
}

// The filters of the queue and the summary: scope, tenantId, applicationId (and for the queue
// status, priority, mine). Field errors go to `errors`.
struct QueueFilter {
  std::string status, priority, scope = "all", application;
  bool mine = false;
  std::string key_id;
  bool user = false;  // the caller is a reviewer: `mine` is assigneeUserId
  bool Accept(const core::Json& row) const {
    const std::string st = core::StringOr(row, "status");
    if (status.empty()) {
      if (CaseFinished(st)) return false;  // the queue: unfinished cases
    } else if (st != status) {
      return false;
    }
    if (!priority.empty() && core::StringOr(row, "priority") != priority) return false;
    if (!application.empty() && core::StringOr(row, "applicationId") != application) return false;
    const bool assigned = CaseHeld(row);
    if (scope == "unassigned" && assigned) return false;
    if (scope == "assigned" && !assigned) return false;
    if (mine && core::StringOr(row, user ? "assigneeUserId" : "assigneeApiKeyId") != key_id) return false;
    return true;
  }
  // No filter beyond "unfinished".
  bool Default() const { return status.empty() && priority.empty() && scope == "all" && application.empty() && !mine; }
  std::string Text() const {
    return status + "|" + priority + "|" + scope + "|" + application + "|" + (mine ? "mine" : "");
  }
};

QueueFilter ParseFilter(const AuthContext& a, const std::map<std::string, std::string>& q, bool queue,
                        std::vector<FieldError>& errors) {
  QueueFilter f;
  f.key_id = a.key_type == "user" ? a.user_id : a.key_id;
  f.user = a.key_type == "user";
  auto get = [&q](const char* n) -> std::optional<std::string> {
    auto it = q.find(n);
    if (it == q.end()) return std::nullopt;
    return it->second;
  };
  auto one_of = [&](const char* name, const std::vector<std::string>& allowed, std::string& out) {
    auto v = get(name);
    if (!v) return;
    if (std::find(allowed.begin(), allowed.end(), *v) == allowed.end()) {
      errors.push_back({name, "", "invalid_value", std::string(name) + " is not one of the allowed values"});
      return;
    }
    out = *v;
  };
  one_of("scope", {"all", "unassigned", "assigned"}, f.scope);
  if (auto t = get("tenantId"); t && *t != a.tenant_id) {
    errors.push_back({"tenantId", "", "invalid_value", "tenantId must be the key's own tenant"});
  }
  if (auto app = get("applicationId")) {
    if (!core::ValidateId(core::IdKind::kApplication, *app).ok()) {
      errors.push_back({"applicationId", "", "invalid_id", "an application id (app_…)"});
    } else {
      f.application = *app;
    }
  }
  if (!queue) return f;
  one_of("status", rv::CaseStatuses(), f.status);
  one_of("priority", {"low", "medium", "high", "critical"}, f.priority);
  if (auto m = get("mine")) {
    if (*m != "true" && *m != "false") {
      errors.push_back({"mine", "", "invalid_value", "mine is true or false"});
    } else {
      f.mine = *m == "true";
    }
  }
  return f;
}

void Queue(Runtime& rt, const ReviewOptions& o, ApiCall& call, Respond respond) {
  CursorList list;
  QueueFilter f = ParseFilter(call.auth, ParseQuery(call.request->query), true, list.errors);
  const std::string te = TeOf(call.auth);
  list.scope = "review-queue|" + te + "|" + f.Text();
  // The unfinished cases have their own index: the default queue reads it with no filter (one
  // batched read of the page's rows, none parsed); a finished status reads the whole index.
  const bool finished = CaseFinished(f.status);
  list.index = RV::Abs(finished ? RV::Queue(te) : RV::OpenQueue(te));
  list.row_key = [te](std::string_view entry) { return RV::Abs(RV::Case(te, entry.substr(9))); };
  if (!f.Default()) list.accept = [f](const core::Json& row) { return f.Accept(row); };
  list.filters = {"status", "priority", "mine", "scope", "tenantId", "applicationId"};
  ServeCursorList(rt, o, call, list, std::move(respond));
}

void Summary(Runtime& rt, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  std::vector<FieldError> errors;
  const auto query = ParseQuery(req.query);
  for (const auto& [name, value] : query) {
    if (name != "scope" && name != "tenantId" && name != "applicationId") {
      return respond(Problem(req, "BAD_REQUEST", "unknown query parameter " + name));
    }
  }
  QueueFilter f = ParseFilter(call.auth, query, false, errors);
  if (!errors.empty()) return respond(ValidationProblem(req, errors));
  const std::string te = TeOf(call.auth);
  core::Json out = {{"open", 0}, {"inProgress", 0}, {"escalated", 0}, {"resolved", 0}, {"closed", 0}, {"total", 0}};
  if (f.scope == "all" && f.application.empty()) {
    auto row = ReadView(rt, RV::Abs(RV::Summary(te)));
    if (!row.ok()) return respond(StatusToProblem(req, row.status()));
    if (row->has_value()) {
      for (auto it = out.begin(); it != out.end(); ++it) *it = (**row).value(it.key(), int64_t{0});
    }
    return respond(JsonResponse(200, out));
  }
  // Narrowed: counted over the tenant's cases.
  auto rows = ScanView(rt, RV::Abs(RV::Case(te, "")));
  if (!rows.ok()) return respond(StatusToProblem(req, rows.status()));
  f.status.clear();
  for (const auto& r : *rows) {
    QueueFilter any = f;
    any.status = core::StringOr(r, "status");
    if (!any.Accept(r)) continue;
    std::string m = any.status == "in_progress" ? "inProgress" : any.status;
    out[m] = out[m].get<int64_t>() + 1;
    out["total"] = out["total"].get<int64_t>() + 1;
  }
  respond(JsonResponse(200, out));
}

void Claim(Runtime& rt, ApiCall& call, Respond respond) {
  auto row = PathCase(rt, call, respond);
  if (!row) return;
  RunCase(rt, call, core::StringOr(*row, "caseId"), rv::ClaimCase{ActorOf(call.auth), CallerSupervises(rt, call.auth)},
          [](const core::Json& r) { return JsonResponse(200, ClaimResult(r)); }, std::move(respond));
}

void Release(Runtime& rt, ApiCall& call, Respond respond) {
  auto row = PathCase(rt, call, respond);
  if (!row) return;
  RunCase(rt, call, core::StringOr(*row, "caseId"), rv::ReleaseCase{ActorOf(call.auth)},
          [](const core::Json&) { return NoContent(); }, std::move(respond));
}

void Reassign(Runtime& rt, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  auto body = ParseJsonObject(req.body);
  if (!body.ok()) return respond(StatusToProblem(req, body.status()));
  Validator v(*body);
  auto user = v.String("assigneeUserId", true, 64);
  v.RejectUnknown();
  if (v.ok() && !core::ValidateId(core::IdKind::kUser, *user).ok()) {
    v.Add({"assigneeUserId", "/assigneeUserId", "invalid_id", "a user id (usr_…)"});
  }
  if (!v.ok()) return respond(ValidationProblem(req, v.errors()));
  auto row = PathCase(rt, call, respond);
  if (!row) return;
  auto target = ReadView(rt, projections::TenancyView::Abs(projections::TenancyView::User(call.auth.tenant_id, *user)));
  if (!target.ok()) return respond(StatusToProblem(req, target.status()));
  const bool reviewer = target->has_value() && ActiveReviewer(**target);
  RunCase(rt, call, core::StringOr(*row, "caseId"),
          rv::ReassignCase{*user, reviewer, ActorOf(call.auth), CallerSupervises(rt, call.auth)},
          [](const core::Json& r) { return JsonResponse(200, ClaimResult(r)); }, std::move(respond));
}

void Note(Runtime& rt, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  auto body = ParseJsonObject(req.body);
  if (!body.ok()) return respond(StatusToProblem(req, body.status()));
  Validator v(*body);
  auto note = v.String("note", true, kMaxNote);
  v.RejectUnknown();
  if (v.ok() && note->empty()) v.Add({"note", "/note", "required", "note must not be empty"});
  if (!v.ok()) return respond(ValidationProblem(req, v.errors()));
  auto row = PathCase(rt, call, respond);
  if (!row) return;
  const std::string case_id = core::StringOr(*row, "caseId");
  auto sealed = pipeline::review::SealCaseNote(rt.key_store(), call.auth.tenant_id, call.auth.environment, case_id,
                                               core::StringOr(*row, "sessionId"), *note);
  if (!sealed.ok()) return respond(StatusToProblem(req, sealed.status()));
  RunCase(rt, call, case_id, rv::AddCaseNote{ActorOf(call.auth), std::move(*sealed)},
          [](const core::Json&) { return NoContent(); }, std::move(respond));
}

// A resolution's body: the command (its note and message not sealed yet), the note, and the words
// for the applicant (request_more_info).
struct ParsedResolution {
  rv::ResolveCase cmd;
  std::string note, applicant_message;
};

// The body of a resolution, or nullopt once answered.
std::optional<ParsedResolution> ParseResolution(const HttpRequest& req, const Respond& respond) {
  auto body = ParseJsonObject(req.body);
  if (!body.ok()) {
    respond(StatusToProblem(req, body.status()));
    return std::nullopt;
  }
  Validator v(*body);
  auto action = v.Enum("action", true, {"approve", "decline", "request_more_info", "escalate", "note", "assign"});
  auto note = v.String("note", false, kMaxNote);
  auto message = v.String("applicantMessage", false, 4 * pipeline::verification::kMaxApplicantMessage);
  v.Skip("reasonCodes");
  v.RejectUnknown();
  rv::ResolveCase cmd;
  if (auto it = body->find("reasonCodes"); it != body->end() && !it->is_null()) {
    if (!it->is_array() || it->size() > 20) {
      v.Add({"reasonCodes", "/reasonCodes", "invalid_type", "reasonCodes is an array of up to 20 codes"});
    } else {
      for (size_t i = 0; i < it->size(); ++i) {
        const auto& c = (*it)[i];
        if (!c.is_string() || c.get<std::string>().empty() || c.get<std::string>().size() > 64) {
          v.Add({"reasonCodes", "/reasonCodes/" + std::to_string(i), "invalid_type", "a code of 1-64 characters"});
        } else {
          cmd.reason_codes.push_back(c.get<std::string>());
        }
      }
    }
  }
  if (v.ok() && *action == "note" && note.value_or("").empty()) {
    v.Add({"note", "/note", "required", "a note resolution needs the note"});
  }
  if (v.ok() && !message.value_or("").empty()) {
    // Its length here; which action may carry it, the decider says (case_decider.cc).
    size_t chars = 0;
    for (unsigned char ch : *message) chars += (ch & 0xC0) != 0x80;
    if (chars > pipeline::verification::kMaxApplicantMessage) {
      v.Add({"applicantMessage", "/applicantMessage", "too_long",
             "applicantMessage must be at most " + std::to_string(pipeline::verification::kMaxApplicantMessage) +
                 " characters"});
    }
  }
  if (!v.ok()) {
    respond(ValidationProblem(req, v.errors()));
    return std::nullopt;
  }
  cmd.action = *action;
  return ParsedResolution{std::move(cmd), note.value_or(""), message.value_or("")};
}

void Resolve(Runtime& rt, const ReviewOptions& o, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  auto parsed = ParseResolution(req, respond);
  if (!parsed) return;
  auto row = PathCase(rt, call, respond);
  if (!row) return;
  const AuthContext& a = call.auth;
  const std::string case_id = core::StringOr(*row, "caseId"), session = core::StringOr(*row, "sessionId");
  auto& [cmd, note, message] = *parsed;
  auto sealed = pipeline::review::SealCaseNote(rt.key_store(), a.tenant_id, a.environment, case_id, session, note);
  if (!sealed.ok()) return respond(StatusToProblem(req, sealed.status()));
  cmd.note_sealed = std::move(*sealed);
  if (!message.empty()) {
    auto words = pipeline::verification::SealApplicantMessage(rt.key_store(), a.tenant_id, a.environment, session,
                                                             message);
    if (!words.ok()) return respond(StatusToProblem(req, words.status()));
    cmd.applicant_message_sealed = std::move(*words);
  }
  cmd.by = ActorOf(a);
  cmd.by_supervisor = CallerSupervises(rt, a);
  cmd.tenant_id = a.tenant_id;  // the decider reads the tenant's review policy (double approval)
  pipeline::review::ResolutionDeps deps{&rt.writer(), &rt.projections(), o.review_outcomes, o.work_pool, kReadYourWrites};
  pipeline::review::ResolveCase(
      deps, a.environment, case_id, std::move(cmd), Context(rt, call),
      [&rt, te = TeOf(a), case_id, session, slim = SlimRequest(req), respond](core::Result<commands::CommandOutcome> out) {
        RenderWhenApplied(rt, slim, std::move(out), {RV::kName, projections::SessionsView::kName, projections::VerificationView::kName},
                          [&rt, te, case_id, session, slim](const commands::CommandOutcome& done) {
                            auto body = projections::ResolutionAnswer(rt.store(), te, case_id, session, done.result);
                            return body.ok() ? JsonResponse(200, *body) : StatusToProblem(slim, body.status());
                          },
                          respond);
      });
}

// The cases a query names: GET /v1/review/search?q= (pipeline/review/case_search.h).
void Search(Runtime& rt, ApiCall& call, Respond respond) {
  const auto query = ParseQuery(call.request->query);
  for (const auto& [name, value] : query) {
    if (name != "q") return respond(Problem(*call.request, "BAD_REQUEST", "unknown query parameter " + name));
  }
  auto it = query.find("q");
  std::string q = it == query.end() ? "" : it->second;
  while (!q.empty() && q.front() == ' ') q.erase(q.begin());
  while (!q.empty() && q.back() == ' ') q.pop_back();
  if (q.empty() || q.size() > 64) {
    return respond(ValidationProblem(*call.request, {{"q", "", "invalid_format", "q is a case or session id, a case number or a CURP"}}));
  }
  pipeline::review::CaseSearch s{call.auth.tenant_id, call.auth.environment, q, 20,
                                 core::mx::CivilDateOfMicros(rt.clock().Now().micros)};
  auto found = pipeline::review::SearchCases(rt.store(), rt.key_store(), s);
  if (!found.ok()) return respond(StatusToProblem(*call.request, found.status()));
  respond(JsonResponse(200, *found));
}

// The team's workload: supervisors (and API keys) only.
void Team(Runtime& rt, ApiCall& call, Respond respond) {
  if (!CallerSupervises(rt, call.auth)) {
    return respond(Problem(*call.request, "PERMISSION_DENIED", "the team's workload is shown to supervisors"));
  }
  auto team = projections::TeamWorkload(rt.store(), call.auth.tenant_id, TeOf(call.auth));
  if (!team.ok()) return respond(StatusToProblem(*call.request, team.status()));
  respond(JsonResponse(200, *team));
}

}  // namespace

std::vector<ApiRoute> ReviewRoutes(Runtime* r, const ReviewOptions& options) {
  const ReviewOptions* o = &options;
  const std::string tag = "Manual review";
  const std::string base = "/v1/review/cases/{case_id}";
  const std::vector<std::string> lookup = {"INVALID_ID", "CASE_NOT_FOUND"};
  std::vector<ApiRoute> routes;
  routes.push_back(ApiRoute{
      .method = "GET", .path = "/v1/review/queue", .operation_id = "listReviewQueue", .tag = tag,
      .scope = "review:read",
      .query = [] {
        auto q = PageParams();
        q.push_back({"status", {{"type", "string"}, {"enum", rv::CaseStatuses()}}});
        q.push_back({"priority", {{"type", "string"}, {"enum", {"low", "medium", "high", "critical"}}}});
        q.push_back({"mine", {{"type", "boolean"}}});
        q.push_back({"scope", {{"type", "string"}, {"enum", {"all", "unassigned", "assigned"}}}});
        q.push_back({"tenantId", {{"type", "string"}}});
        q.push_back({"applicationId", {{"type", "string"}}});
        return q;
      }(),
      .response_schema = "ReviewQueueList",
      .error_codes = Codes({{"BAD_REQUEST", "VALIDATION_ERROR", "INVALID_ID", "INVALID_CURSOR", "LIMIT_OUT_OF_RANGE"}}),
      .handler = [r, o](ApiCall& c, Respond respond) { Queue(*r, *o, c, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "GET", .path = "/v1/review/queue/summary", .operation_id = "getReviewQueueSummary", .tag = tag,
      .scope = "review:read",
      .query = {{"scope", {{"type", "string"}, {"enum", {"all", "unassigned", "assigned"}}}},
                {"tenantId", {{"type", "string"}}},
                {"applicationId", {{"type", "string"}}}},
      .response_schema = "ReviewQueueSummary",
      .error_codes = Codes({{"BAD_REQUEST", "VALIDATION_ERROR", "INVALID_ID"}}),
      .handler = [r](ApiCall& c, Respond respond) { Summary(*r, c, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "POST", .path = base + "/claim", .operation_id = "claimReviewCase", .tag = tag,
      .scope = "review:write", .family = RateFamily::kWrite, .response_schema = "ClaimResult",
      .error_codes = Codes({lookup, {"CASE_ALREADY_CLAIMED", "CASE_CLOSED"}}),
      .handler = [r](ApiCall& c, Respond respond) { Claim(*r, c, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "POST", .path = base + "/notes", .operation_id = "addReviewCaseNote", .tag = tag,
      .scope = "review:write", .family = RateFamily::kWrite, .has_body = true, .request_schema = "ReviewNoteRequest",
      .success_status = 204,
      .error_codes = Codes({lookup, {"VALIDATION_ERROR", "BAD_REQUEST", "CASE_HAS_NO_SESSION", "CASE_CLOSED"}}),
      .handler = [r](ApiCall& c, Respond respond) { Note(*r, c, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "POST", .path = base + "/reassign", .operation_id = "reassignReviewCase", .tag = tag,
      .scope = "review:write", .family = RateFamily::kWrite, .has_body = true,
      .request_schema = "ReviewReassignRequest", .response_schema = "ClaimResult",
      .error_codes = Codes({lookup, {"VALIDATION_ERROR", "BAD_REQUEST", "NOT_A_REVIEWER", "CASE_CLOSED", "PERMISSION_DENIED"}}),
      .handler = [r](ApiCall& c, Respond respond) { Reassign(*r, c, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "POST", .path = base + "/release", .operation_id = "releaseReviewCase", .tag = tag,
      .scope = "review:write", .family = RateFamily::kWrite, .success_status = 204,
      .error_codes = Codes({lookup, {"CASE_CLAIM_REQUIRED", "CASE_CLOSED"}}),
      .handler = [r](ApiCall& c, Respond respond) { Release(*r, c, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "POST", .path = base + "/resolve", .operation_id = "resolveReviewCase", .tag = tag,
      .scope = "review:write", .family = RateFamily::kWrite, .has_body = true, .request_schema = "ReviewResolveRequest",
      .response_schema = "ResolveResult",
      .error_codes = Codes({lookup, {"VALIDATION_ERROR", "BAD_REQUEST", "CASE_CLAIM_REQUIRED", "CASE_ALREADY_CLAIMED",
                                     "CASE_CLOSED", "CASE_HAS_NO_SESSION", "SECOND_APPROVAL_REQUIRED"}}),
      .handler = [r, o](ApiCall& c, Respond respond) { Resolve(*r, *o, c, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "GET", .path = "/v1/review/search", .operation_id = "searchReviewCases", .tag = tag,
      .scope = "review:read", .query = {{"q", {{"type", "string"}, {"maxLength", 64}}, "a case id, a case number (CASE-000042), a session id or a CURP"}},
      .response_schema = "ReviewSearchResult", .error_codes = Codes({{"VALIDATION_ERROR", "BAD_REQUEST"}}),
      .handler = [r](ApiCall& c, Respond respond) {
        WhenCaughtUp(*r, c, {RV::kName, projections::PersonsView::kName}, std::move(respond),
                     [r](ApiCall& held, Respond then) { Search(*r, held, std::move(then)); });
      }});
  routes.push_back(ApiRoute{
      .method = "GET", .path = "/v1/review/team", .operation_id = "getReviewTeam", .tag = tag,
      .scope = "review:read", .response_schema = "ReviewTeam", .error_codes = Codes({{"PERMISSION_DENIED"}}),
      .handler = [r](ApiCall& c, Respond respond) {
        WhenCaughtUp(*r, c, {RV::kName, projections::TenancyView::kName}, std::move(respond),
                     [r](ApiCall& held, Respond then) { Team(*r, held, std::move(then)); });
      }});
  for (auto& route : routes) route.reviewer_token = true;  // a reviewer in the console, or an API key
  for (auto& route : CaseDetailRoutes(r, options)) routes.push_back(std::move(route));
  return routes;
}

}  // namespace svc::api::review
