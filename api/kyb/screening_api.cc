// /v1/screenings, /v1/screening-hits, /v1/monitoring/portfolios/{id}/run: AML screening
// (docs/screening.md).
#include <algorithm>
#include <thread>

#include "api/http/cursor_list.h"
#include "api/http/json_input.h"
#include "api/http/pagination.h"
#include "api/http/problem.h"
#include "api/http/reveal.h"
#include "api/http/write_path.h"
#include "api/kyb/routes.h"
#include "commands/kyb/screening.h"
#include "core/ids.h"
#include "pipeline/kyb/portfolio_run.h"
#include "pipeline/kyb/screening_run.h"
#include "projections/kyb/kyb_view.h"
#include "projections/persons/persons_view.h"

namespace svc::api::kyb {

namespace kc = commands::kyb;
namespace pk = pipeline::kyb;
using KV = projections::KybView;

namespace {

bool ValidPortfolioId(const std::string& id) {
  if (id.empty() || id.size() > 64) return false;
  if (!std::islower(static_cast<unsigned char>(id[0])) && !std::isdigit(static_cast<unsigned char>(id[0]))) return false;
  return std::all_of(id.begin(), id.end(), [](char c) {
    return std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_' ||
           c == '-';
  });
}

// The context of each command a screening records: the call's, without its Idempotency-Key (a
// screening is many commands; the screening's id is new on every call).
std::function<commands::CommandContext()> UnkeyedContext(Runtime& rt, ApiCall& call) {
  return [&rt, &call] {
    commands::CommandContext ctx = Context(rt, call);
    ctx.idempotency_key.clear();
    return ctx;
  };
}

// Screens `names` of one subject and records it; the hits as served.
core::Result<core::Json> ScreenAndRecord(Runtime& rt, ApiCall& call, const std::string& screening_id,
                                         kc::ScreeningCompleted completed, const std::vector<pk::ScreenedName>& names,
                                         const pk::ListsInForce& lists) {
  const AuthContext& a = call.auth;
  auto found = pk::ScreenNames(lists, names, a.tenant_id, a.environment);
  SVC_ASSIGN_OR_RETURN(auto recorded,
                       pk::RecordScreening(rt.writer(), UnkeyedContext(rt, call), KeysOf(rt), a.tenant_id, a.environment,
                                           screening_id, std::move(completed), lists, names, found));
  rt.projections().WaitApplied(recorded.positions, kReadYourWrites);
  core::Json hits = core::Json::array();
  for (const auto& h : recorded.hits) {
    SVC_ASSIGN_OR_RETURN(auto row, ReadView(rt, KV::Abs(KV::Hit(TeOf(a), core::StringOr(h, "hitId")))));
    if (row.has_value()) hits.push_back(RenderHit(rt, *row));
  }
  return hits;
}

struct ScreeningRequest {
  std::string type;  // person | company | name
  std::optional<std::string> person, company, portfolio;
  core::Json query;  // a name's: {name, kind, birthDate, nationality, idNumber}
};

// The body of POST /v1/screenings, or nullopt once answered.
std::optional<ScreeningRequest> ParseScreening(const HttpRequest& req, const Respond& respond) {
  auto body = ParseJsonObject(req.body);
  if (!body.ok()) {
    respond(StatusToProblem(req, body.status()));
    return std::nullopt;
  }
  Validator v(*body);
  auto type = v.Enum("subjectType", true, {"person", "company", "name"});
  ScreeningRequest r{"", v.OpaqueId("personId", "per"), v.OpaqueId("companyId", "cmp"), std::nullopt, nullptr};
  auto name = v.String("name", false, 300);
  auto kind = v.Enum("kind", false, {"person", "company"});
  auto birth = v.String("birthDate", false, 10);
  auto nationality = v.String("nationality", false, 3);
  auto id_number = v.String("idNumber", false, 20);
  r.portfolio = v.String("portfolioId", false, 64);
  v.RejectUnknown();
  if (v.ok() && r.portfolio && !ValidPortfolioId(*r.portfolio)) {
    v.Add({"portfolioId", "/portfolioId", "invalid_format", "portfolioId is 1-64 of a-z, 0-9, _ and -, from a letter or digit"});
  }
  if (v.ok() && birth && !(birth->size() == 4 || (birth->size() == 10 && (*birth)[4] == '-' && (*birth)[7] == '-'))) {
    v.Add({"birthDate", "/birthDate", "invalid_format", "birthDate is YYYY-MM-DD or YYYY"});
  }
  if (v.ok()) {
    const bool is_name = *type == "name";
    if (*type == "person" && !r.person) v.Add({"personId", "/personId", "required", "a person's screening needs personId"});
    if (*type == "company" && !r.company) v.Add({"companyId", "/companyId", "required", "a company's screening needs companyId"});
    if (is_name && (!name || name->find_first_not_of(" \t") == std::string::npos)) {
      v.Add({"name", "/name", "required", "a name's screening needs a name"});
    }
    if (!is_name && (name || kind || birth || nationality || id_number)) {
      v.Add({"name", "/name", "invalid_value", "name, kind, birthDate, nationality and idNumber are for subjectType name"});
    }
    if (*type != "person" && r.person) v.Add({"personId", "/personId", "invalid_value", "personId is for subjectType person"});
    if (*type != "company" && r.company) v.Add({"companyId", "/companyId", "invalid_value", "companyId is for subjectType company"});
  }
  if (!v.ok()) {
    respond(ValidationProblem(req, v.errors()));
    return std::nullopt;
  }
  r.type = *type;
  r.query = {{"name", name.value_or("")}, {"kind", kind.value_or("")}, {"birthDate", birth.value_or("")},
             {"nationality", nationality.value_or("")}, {"idNumber", id_number.value_or("")}};
  return r;
}

// The subject's names and what its screening records of it; a problem when the subject is not
// found or its data may not be opened (a person's access is recorded first).
core::Result<std::vector<pk::ScreenedName>> SubjectNames(Runtime& rt, const KybOptions& o, ApiCall& call,
                                                         const ScreeningRequest& r, kc::ScreeningCompleted& completed,
                                                         std::optional<HttpResponse>& refused) {
  const AuthContext& a = call.auth;
  const auto keys = KeysOf(rt);
  if (r.type == "company") {
    SVC_ASSIGN_OR_RETURN(auto row, ReadView(rt, KV::Abs(KV::Company(TeOf(a), *r.company))));
    if (!row.has_value()) return core::NotFound("no such company", "COMPANY_NOT_FOUND");
    completed.subject_id = *r.company;
    completed.subject_key = "company:" + *r.company;
    return pk::CompanyScreenedNames(keys, *row);
  }
  if (r.type == "person") {
    SVC_ASSIGN_OR_RETURN(auto row, ReadView(rt, projections::PersonsView::Abs(projections::PersonsView::Record(TeOf(a), *r.person))));
    if (!row.has_value()) return core::NotFound("no such person", "PERSON_NOT_FOUND");
    refused = RecordNow(rt, o, call, {AccessBy(a, *r.person, "aml_screening", pk::PersonScreenFields(), "aml_screening", "")});
    if (refused) return std::vector<pk::ScreenedName>{};
    SVC_ASSIGN_OR_RETURN(auto fields, OpenFields(rt, a, *r.person, pk::PersonScreenFields()));
    completed.subject_id = *r.person;
    completed.subject_key = "person:" + *r.person;
    return std::vector<pk::ScreenedName>{pk::PersonScreenedName(*r.person, fields)};
  }
  const std::string canonical = core::DumpJson(r.query);
  completed.subject_key = "name:" + pk::QueryBlind(keys, a.tenant_id, a.environment, canonical);
  completed.subject_sealed =
      pk::SealValue(keys, pk::KybAad(a.tenant_id, a.environment, completed.subject_key, "query"), canonical);
  return std::vector<pk::ScreenedName>{pk::QueryScreenedName(r.query, completed.subject_key)};
}

void Screen(Runtime& rt, const KybOptions& o, ApiCall& call, Respond respond) {
  auto parsed = ParseScreening(*call.request, respond);
  if (!parsed) return;
  OnWorkPool(o.work_pool, call, std::move(respond), [&rt, &o, r = std::move(*parsed)](ApiCall& c, Respond out) {
    HttpRequest& rq = *c.request;
    auto lists = o.aml_lists != nullptr ? o.aml_lists->Current() : std::make_shared<const pk::ListsInForce>();
    kc::ScreeningCompleted completed;
    completed.subject_type = r.type;
    completed.origin = "api";
    completed.portfolio_id = r.portfolio.value_or("");
    std::optional<HttpResponse> refused;
    auto names = SubjectNames(rt, o, c, r, completed, refused);
    if (refused) return out(std::move(*refused));
    if (!names.ok()) return out(StatusToProblem(rq, names.status()));
    const std::string id = rt.ids().NewIdString(core::IdKind::kScreening);
    auto hits = ScreenAndRecord(rt, c, id, completed, *names, *lists);
    if (!hits.ok()) return out(StatusToProblem(rq, hits.status()));
    out(JsonResponse(201, {{"object", "screening"},
                           {"id", id},
                           {"subjectType", r.type},
                           {"subjectId", completed.subject_id.empty() ? core::Json(nullptr) : core::Json(completed.subject_id)},
                           {"portfolioId", r.portfolio ? core::Json(*r.portfolio) : core::Json(nullptr)},
                           {"lists", lists->lists},
                           {"namesScreened", static_cast<int64_t>(names->size())},
                           {"algorithm", std::string(pk::kNameMatchVersion)},
                           {"hits", *hits},
                           {"createdAt", core::FormatRfc3339(rt.clock().Now())}}));
  });
}

// The hit list's filters given, each checked (a field error when not valid).
std::map<std::string, std::string> HitFilters(const std::map<std::string, std::string>& query,
                                              const std::vector<std::string>& names, std::vector<FieldError>& errors) {
  std::map<std::string, std::string> want;
  for (const auto& f : names) {
    if (auto it = query.find(f); it != query.end()) want[f] = it->second;
  }
  auto given = [&want](const char* f) { return want.count(f) ? want[f] : std::optional<std::string>(); };
  if (auto st = given("status"); st && *st != "open" && *st != "confirmed" && *st != "dismissed") {
    errors.push_back({"status", "", "invalid_value", "status must be open, confirmed or dismissed"});
  }
  static const std::vector<std::string> kTypes = {"person", "company", "company_member", "ubo_node", "name"};
  if (auto t = given("subjectType"); t && std::find(kTypes.begin(), kTypes.end(), *t) == kTypes.end()) {
    errors.push_back({"subjectType", "", "invalid_value", "subjectType must be person, company, company_member, ubo_node or name"});
  }
  if (auto c = given("companyId"); c && !core::ValidateId(core::IdKind::kCompany, *c).ok()) {
    errors.push_back({"companyId", "", "invalid_id", "companyId must be a company id (cmp_…)"});
  }
  if (auto sc = given("screeningId"); sc && !core::ValidateId(core::IdKind::kScreening, *sc).ok()) {
    errors.push_back({"screeningId", "", "invalid_id", "screeningId must be a screening id (scr_…)"});
  }
  return want;
}

void ListHits(Runtime& rt, const KybOptions& o, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  auto query = ParseQuery(req.query);
  CursorList list;
  const std::string te = TeOf(call.auth);
  list.filters = {"status", "subjectType", "companyId", "screeningId"};
  const std::map<std::string, std::string> want = HitFilters(query, list.filters, list.errors);
  std::string scope = "hits|" + te;
  for (const auto& [k, val] : want) scope += "|" + k + "=" + val;
  list.scope = scope;
  list.index = KV::Abs(KV::Hits(te));
  list.row_key = [te](std::string_view entry) { return KV::Abs(KV::Hit(te, entry.size() > 8 ? entry.substr(8) : entry)); };
  if (!want.empty()) {
    list.accept = [want](const core::Json& row) {
      for (const auto& [k, val] : want) {
        if (core::StringOr(row, k) != val) return false;
      }
      return true;
    };
  }
  list.render = [&rt](const std::string& stored) { return core::DumpJson(RenderHit(rt, core::ParseJsonOrDiscarded(stored))); };
  ServeCursorList(rt, o, call, list, std::move(respond));
}

std::optional<core::Json> PathHit(Runtime& rt, ApiCall& call, const Respond& respond) {
  const std::string te = TeOf(call.auth);
  return PathRow(rt, call, respond, "hit_id", core::IdKind::kScreeningHit,
                 [&te](const std::string& id) { return KV::Abs(KV::Hit(te, id)); }, "SCREENING_NOT_FOUND",
                 "no such screening hit");
}

void ReviewHit(Runtime& rt, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  auto body = ParseJsonObject(req.body);
  if (!body.ok()) return respond(StatusToProblem(req, body.status()));
  Validator v(*body);
  auto decision = v.Enum("decision", true, {"confirmed", "dismissed"});
  auto reason = v.Enum("reasonCode", true, {"true_match", "false_positive", "insufficient_data", "other"});
  auto note = v.String("note", false, 2000);
  v.RejectUnknown();
  if (v.ok() && *decision == "confirmed" && *reason == "false_positive") {
    v.Add({"reasonCode", "/reasonCode", "invalid_value", "a confirmed hit is no false_positive"});
  }
  if (v.ok() && *decision == "dismissed" && *reason == "true_match") {
    v.Add({"reasonCode", "/reasonCode", "invalid_value", "a dismissed hit is no true_match"});
  }
  if (!v.ok()) return respond(ValidationProblem(req, v.errors()));
  auto row = PathHit(rt, call, respond);
  if (!row) return;
  const AuthContext a = call.auth;
  const std::string id = core::StringOr(*row, "id");
  kc::HitReviewed r;
  r.decision = *decision;
  r.reason_code = *reason;
  if (note && !note->empty()) {
    r.note_sealed = pk::SealValue(KeysOf(rt), pk::KybAad(a.tenant_id, a.environment, id, "note"), *note);
  }
  r.actor_type = a.key_type == "user" ? "user" : "api_key";
  r.actor_id = a.key_type == "user" ? a.user_id : a.key_id;
  RunThenRender(rt, req,
                commands::MakeCommand<kc::HitDecider>(a.tenant_id, id, kc::HitCommand(kc::ReviewHit{r}), Context(rt, call)),
                {KV::kName},
                [&rt, a, id, slim = SlimRequest(req)](const commands::CommandOutcome&) {
                  auto now = ReadView(rt, KV::Abs(KV::Hit(TeOf(a), id)));
                  if (!now.ok()) return StatusToProblem(slim, now.status());
                  if (!now->has_value()) return StatusToProblem(slim, core::Unavailable("the hit is not readable yet"));
                  return JsonResponse(200, RenderHit(rt, **now));
                },
                std::move(respond));
}

// The access a portfolio run makes to each person of the portfolio.
std::vector<commands::persons::PiiAccessed> PersonAccesses(const AuthContext& a, const std::vector<core::Json>& subjects,
                                                           const std::string& portfolio) {
  std::vector<commands::persons::PiiAccessed> accesses;
  for (const auto& s : subjects) {
    if (core::StringOr(s, "subjectType") == "person") {
      accesses.push_back(AccessBy(a, core::StringOr(s, "subjectId"), "aml_monitoring", pk::PersonScreenFields(),
                                  "aml_screening", "portfolio " + portfolio));
    }
  }
  return accesses;
}

// PortfolioRun, with the hits found first by the run as served.
core::Json PortfolioRunBody(Runtime& rt, const std::string& te, const std::string& portfolio, const pk::PortfolioRun& run,
                            const pk::ListsInForce& lists) {
  core::Json fresh = core::Json::array();
  for (const auto& h : run.new_hits) {
    auto row = ReadView(rt, KV::Abs(KV::Hit(te, h)));
    if (row.ok() && row->has_value()) fresh.push_back(RenderHit(rt, **row));
  }
  return {{"object", "portfolio_run"}, {"portfolioId", portfolio},   {"subjects", run.subjects},
          {"subjectsSkipped", run.skipped}, {"namesScreened", run.names_screened}, {"hits", run.hits},
          {"newHits", fresh},              {"lists", lists.lists},    {"ranAt", core::FormatRfc3339(rt.clock().Now())}};
}

void RunPortfolio(Runtime& rt, const KybOptions& o, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  if (!NoBody(call, respond, "a portfolio run")) return;
  const std::string portfolio = req.path_params["portfolio_id"];
  auto subjects = ValidPortfolioId(portfolio) ? ScanView(rt, KV::Abs(KV::Portfolio(TeOf(call.auth), portfolio)))
                                              : core::Result<std::vector<core::Json>>(std::vector<core::Json>{});
  if (!subjects.ok()) return respond(StatusToProblem(req, subjects.status()));
  if (subjects->empty()) {
    return respond(Problem(req, "PORTFOLIO_NOT_FOUND",
                           "no subject was ever screened into this portfolio (POST /v1/screenings with portfolioId)"));
  }
  OnWorkPool(o.work_pool, call, std::move(respond), [&rt, &o, portfolio, subjects = std::move(*subjects)](
                                                        ApiCall& c, Respond out) {
    HttpRequest& rq = *c.request;
    const AuthContext& a = c.auth;
    auto lists = o.aml_lists != nullptr ? o.aml_lists->Current() : std::make_shared<const pk::ListsInForce>();
    // The persons' data is opened for the run: one access each, recorded first.
    auto accesses = PersonAccesses(a, subjects, portfolio);
    if (!accesses.empty()) {
      if (auto refused = RecordNow(rt, o, c, accesses)) return out(std::move(*refused));
    }
    pk::PortfolioRunDeps deps{&rt.writer(), &rt.store(), &rt.ids(), KeysOf(rt), UnkeyedContext(rt, c),
                              [&rt, &a](const std::string& person) {
                                return OpenFields(rt, a, person, pk::PersonScreenFields());
                              }};
    auto run = pk::RunPortfolio(deps, a.tenant_id, a.environment, portfolio, subjects, *lists);
    if (!run.ok()) return out(StatusToProblem(rq, run.status()));
    rt.projections().WaitApplied(run->positions, kReadYourWrites);
    out(JsonResponse(200, PortfolioRunBody(rt, TeOf(a), portfolio, *run, *lists)));
  });
}

}  // namespace

std::vector<ApiRoute> ScreeningRoutes(Runtime* r, const KybOptions& options) {
  std::vector<ApiRoute> routes;
  const KybOptions* o = &options;
  const std::string tag = "AML screening";
  routes.push_back(ApiRoute{
      .method = "POST", .path = "/v1/screenings", .operation_id = "createScreening", .tag = tag,
      .scope = "aml:write", .family = RateFamily::kWrite, .has_body = true, .request_schema = "ScreeningRequest",
      .success_status = 201, .response_schema = "ScreeningResponse",
      .error_codes = Codes({{"VALIDATION_ERROR", "BAD_REQUEST", "INVALID_ID", "COMPANY_NOT_FOUND", "PERSON_NOT_FOUND",
                             "PERSON_PURGED", "PII_DECRYPT_CAP_REACHED"}}),
      .handler = [r, o](ApiCall& c, Respond respond) { Screen(*r, *o, c, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "GET", .path = "/v1/screening-hits", .operation_id = "listScreeningHits", .tag = tag,
      .scope = "aml:read",
      .query = [] {
        auto q = PageParams();
        q.push_back({"status", {{"type", "string"}, {"enum", {"open", "confirmed", "dismissed"}}}});
        q.push_back({"subjectType", {{"type", "string"}, {"enum", {"person", "company", "company_member", "ubo_node", "name"}}}});
        q.push_back({"companyId", {{"type", "string"}}});
        q.push_back({"screeningId", {{"type", "string"}}});
        return q;
      }(),
      .response_schema = "ScreeningHitList",
      .error_codes = Codes({{"BAD_REQUEST", "VALIDATION_ERROR", "INVALID_ID", "INVALID_CURSOR", "LIMIT_OUT_OF_RANGE"}}),
      .handler = [r, o](ApiCall& c, Respond respond) { ListHits(*r, *o, c, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "GET", .path = "/v1/screening-hits/{hit_id}", .operation_id = "getScreeningHit", .tag = tag,
      .scope = "aml:read", .response_schema = "ScreeningHitResponse",
      .error_codes = {"INVALID_ID", "SCREENING_NOT_FOUND"},
      .handler = [r](ApiCall& c, Respond respond) {
        auto row = PathHit(*r, c, respond);
        if (!row) return;
        respond(JsonResponse(200, RenderHit(*r, *row)));
      }});
  routes.push_back(ApiRoute{
      .method = "POST", .path = "/v1/screening-hits/{hit_id}/review", .operation_id = "reviewScreeningHit", .tag = tag,
      .scope = "aml:write", .family = RateFamily::kWrite, .has_body = true, .request_schema = "ScreeningHitReview",
      .response_schema = "ScreeningHitResponse",
      .error_codes = {"VALIDATION_ERROR", "BAD_REQUEST", "INVALID_ID", "SCREENING_NOT_FOUND"},
      .handler = [r](ApiCall& c, Respond respond) { ReviewHit(*r, c, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "POST", .path = "/v1/monitoring/portfolios/{portfolio_id}/run", .operation_id = "runMonitoringPortfolio",
      .tag = tag, .scope = "aml:write", .family = RateFamily::kWrite, .response_schema = "PortfolioRunResponse",
      .error_codes = {"VALIDATION_ERROR", "BAD_REQUEST", "PORTFOLIO_NOT_FOUND", "PII_DECRYPT_CAP_REACHED"},
      .handler = [r, o](ApiCall& c, Respond respond) { RunPortfolio(*r, *o, c, std::move(respond)); }});
  return routes;
}

}  // namespace svc::api::kyb
