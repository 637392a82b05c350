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
#include "pipeline/kyb/screening_run.h"
#include "projections/kyb/kyb_view.h"
#include "projections/persons/persons_view.h"

namespace svc::api::kyb {

namespace kc = commands::kyb;
namespace pk = pipeline::kyb;
using KV = projections::KybView;

namespace {

const std::vector<std::string> kPersonFields = {"fullName", "givenName", "surname", "birthDate",
                                                "nationality", "curp", "rfc"};

bool ValidPortfolioId(const std::string& id) {
  if (id.empty() || id.size() > 64) return false;
  if (!std::islower(static_cast<unsigned char>(id[0])) && !std::isdigit(static_cast<unsigned char>(id[0]))) return false;
  return std::all_of(id.begin(), id.end(), [](char c) {
    return std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_' ||
           c == '-';
  });
}

// The screened name of a person of the vault, from its opened fields.
pk::ScreenedName PersonName(const std::string& person, const core::Json& f) {
  auto s = [&f](const char* k) { return f.contains(k) && f[k].is_string() ? f[k].get<std::string>() : std::string(); };
  pk::ScreenedName n;
  n.subject_type = "person";
  n.subject_id = person;
  n.subject_key = "person:" + person;
  n.query.kind = "person";
  n.query.name = !s("fullName").empty() ? s("fullName") : s("givenName") + " " + s("surname");
  if (n.query.name == " ") n.query.name.clear();
  n.query.facts.birth_date = s("birthDate");
  n.query.facts.nationality = s("nationality");
  n.query.facts.id_number = !s("curp").empty() ? s("curp") : s("rfc");
  for (const char* id : {"curp", "rfc", "documentNumber"}) {
    if (!s(id).empty()) n.query.identifiers.push_back(s(id));
  }
  return n;
}

pk::ScreenedName QueryName(const core::Json& q, const std::string& subject_key) {
  pk::ScreenedName n;
  n.subject_type = "name";
  n.subject_key = subject_key;
  n.query.name = core::StringOr(q, "name");
  n.query.kind = core::StringOr(q, "kind");
  n.query.facts.birth_date = core::StringOr(q, "birthDate");
  n.query.facts.nationality = core::StringOr(q, "nationality");
  n.query.facts.id_number = core::StringOr(q, "idNumber");
  if (!n.query.facts.id_number.empty()) n.query.identifiers = {n.query.facts.id_number};
  return n;
}

// Screens `names` of one subject and records it; the hits as served.
core::Result<core::Json> ScreenAndRecord(Runtime& rt, ApiCall& call, const std::string& screening_id,
                                         kc::ScreeningCompleted completed, const std::vector<pk::ScreenedName>& names,
                                         const pk::ListsInForce& lists) {
  const AuthContext& a = call.auth;
  auto found = pk::ScreenNames(lists, names, a.tenant_id, a.environment);
  auto context = [&rt, &call] {
    commands::CommandContext ctx = Context(rt, call);
    ctx.idempotency_key.clear();
    return ctx;
  };
  SVC_ASSIGN_OR_RETURN(auto recorded,
                       pk::RecordScreening(rt.writer(), context, a.tenant_id, screening_id, std::move(completed), lists,
                                           names, found));
  rt.projections().WaitApplied(recorded.positions, kReadYourWrites);
  core::Json hits = core::Json::array();
  for (const auto& h : recorded.hits) {
    SVC_ASSIGN_OR_RETURN(auto row, ReadView(rt, KV::Abs(KV::Hit(TeOf(a), core::StringOr(h, "hitId")))));
    if (row.has_value()) hits.push_back(RenderHit(rt, *row));
  }
  return hits;
}

void Screen(Runtime& rt, const KybOptions& o, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  auto body = ParseJsonObject(req.body);
  if (!body.ok()) return respond(StatusToProblem(req, body.status()));
  Validator v(*body);
  auto type = v.Enum("subjectType", true, {"person", "company", "name"});
  auto person = v.OpaqueId("personId", "per");
  auto company = v.OpaqueId("companyId", "cmp");
  auto name = v.String("name", false, 300);
  auto kind = v.Enum("kind", false, {"person", "company"});
  auto birth = v.String("birthDate", false, 10);
  auto nationality = v.String("nationality", false, 3);
  auto id_number = v.String("idNumber", false, 20);
  auto portfolio = v.String("portfolioId", false, 64);
  v.RejectUnknown();
  if (v.ok() && portfolio && !ValidPortfolioId(*portfolio)) {
    v.Add({"portfolioId", "/portfolioId", "invalid_format", "portfolioId is 1-64 of a-z, 0-9, _ and -, from a letter or digit"});
  }
  if (v.ok() && birth && !(birth->size() == 4 || (birth->size() == 10 && (*birth)[4] == '-' && (*birth)[7] == '-'))) {
    v.Add({"birthDate", "/birthDate", "invalid_format", "birthDate is YYYY-MM-DD or YYYY"});
  }
  if (v.ok()) {
    const bool is_name = *type == "name";
    if (*type == "person" && !person) v.Add({"personId", "/personId", "required", "a person's screening needs personId"});
    if (*type == "company" && !company) v.Add({"companyId", "/companyId", "required", "a company's screening needs companyId"});
    if (is_name && (!name || name->find_first_not_of(" \t") == std::string::npos)) {
      v.Add({"name", "/name", "required", "a name's screening needs a name"});
    }
    if (!is_name && (name || kind || birth || nationality || id_number)) {
      v.Add({"name", "/name", "invalid_value", "name, kind, birthDate, nationality and idNumber are for subjectType name"});
    }
    if (*type != "person" && person) v.Add({"personId", "/personId", "invalid_value", "personId is for subjectType person"});
    if (*type != "company" && company) v.Add({"companyId", "/companyId", "invalid_value", "companyId is for subjectType company"});
  }
  if (!v.ok()) return respond(ValidationProblem(req, v.errors()));
  core::Json query = {{"name", name.value_or("")}, {"kind", kind.value_or("")}, {"birthDate", birth.value_or("")},
                      {"nationality", nationality.value_or("")}, {"idNumber", id_number.value_or("")}};
  OnWorkPool(o.work_pool, call, std::move(respond), [&rt, &o, type = *type, person, company, query,
                                                     portfolio](ApiCall& c, Respond out) {
    HttpRequest& rq = *c.request;
    const AuthContext& a = c.auth;
    const std::string te = TeOf(a);
    const auto keys = KeysOf(rt);
    auto lists = o.aml_lists != nullptr ? o.aml_lists->Current() : std::make_shared<const pk::ListsInForce>();
    kc::ScreeningCompleted completed;
    completed.subject_type = type;
    completed.origin = "api";
    completed.portfolio_id = portfolio.value_or("");
    std::vector<pk::ScreenedName> names;
    if (type == "company") {
      auto row = ReadView(rt, KV::Abs(KV::Company(te, *company)));
      if (!row.ok()) return out(StatusToProblem(rq, row.status()));
      if (!row->has_value()) return out(Problem(rq, "COMPANY_NOT_FOUND", "no such company"));
      names = pk::CompanyScreenedNames(keys, **row);
      completed.subject_id = *company;
      completed.subject_key = "company:" + *company;
    } else if (type == "person") {
      auto row = ReadView(rt, projections::PersonsView::Abs(projections::PersonsView::Record(te, *person)));
      if (!row.ok()) return out(StatusToProblem(rq, row.status()));
      if (!row->has_value()) return out(Problem(rq, "PERSON_NOT_FOUND", "no such person"));
      if (auto refused = RecordNow(rt, o, c, {AccessBy(a, *person, "aml_screening", kPersonFields, "aml_screening", "")})) {
        return out(std::move(*refused));
      }
      auto fields = OpenFields(rt, a, *person, kPersonFields);
      if (!fields.ok()) return out(StatusToProblem(rq, fields.status()));
      names.push_back(PersonName(*person, *fields));
      completed.subject_id = *person;
      completed.subject_key = "person:" + *person;
    } else {
      const std::string canonical = core::DumpJson(query);
      completed.subject_key = "name:" + pk::QueryBlind(keys, a.tenant_id, a.environment, canonical);
      completed.subject_sealed =
          pk::SealValue(keys, pk::KybAad(a.tenant_id, a.environment, completed.subject_key, "query"), canonical);
      names.push_back(QueryName(query, completed.subject_key));
    }
    const std::string id = rt.ids().NewIdString(core::IdKind::kScreening);
    auto hits = ScreenAndRecord(rt, c, id, completed, names, *lists);
    if (!hits.ok()) return out(StatusToProblem(rq, hits.status()));
    out(JsonResponse(201, {{"object", "screening"},
                               {"id", id},
                               {"subjectType", type},
                               {"subjectId", completed.subject_id.empty() ? core::Json(nullptr) : core::Json(completed.subject_id)},
                               {"portfolioId", portfolio ? core::Json(*portfolio) : core::Json(nullptr)},
                               {"lists", lists->lists},
                               {"namesScreened", static_cast<int64_t>(names.size())},
                               {"algorithm", std::string(pk::kNameMatchVersion)},
                               {"hits", *hits},
                               {"createdAt", core::FormatRfc3339(rt.clock().Now())}}));
  });
}

void ListHits(Runtime& rt, const KybOptions& o, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  auto query = ParseQuery(req.query);
  CursorList list;
  const std::string te = TeOf(call.auth);
  list.filters = {"status", "subjectType", "companyId", "screeningId"};
  std::map<std::string, std::string> want;
  for (const auto& f : list.filters) {
    auto it = query.find(f);
    if (it != query.end()) want[f] = it->second;
  }
  if (want.count("status") && want["status"] != "open" && want["status"] != "confirmed" && want["status"] != "dismissed") {
    list.errors.push_back({"status", "", "invalid_value", "status must be open, confirmed or dismissed"});
  }
  static const std::vector<std::string> kTypes = {"person", "company", "company_member", "ubo_node", "name"};
  if (want.count("subjectType") && std::find(kTypes.begin(), kTypes.end(), want["subjectType"]) == kTypes.end()) {
    list.errors.push_back({"subjectType", "", "invalid_value",
                           "subjectType must be person, company, company_member, ubo_node or name"});
  }
  if (want.count("companyId") && !core::ValidateId(core::IdKind::kCompany, want["companyId"]).ok()) {
    list.errors.push_back({"companyId", "", "invalid_id", "companyId must be a company id (cmp_…)"});
  }
  if (want.count("screeningId") && !core::ValidateId(core::IdKind::kScreening, want["screeningId"]).ok()) {
    list.errors.push_back({"screeningId", "", "invalid_id", "screeningId must be a screening id (scr_…)"});
  }
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
    const std::string te = TeOf(a);
    const auto keys = KeysOf(rt);
    auto lists = o.aml_lists != nullptr ? o.aml_lists->Current() : std::make_shared<const pk::ListsInForce>();
    // The persons' data is opened for the run: one access each, recorded first.
    std::vector<commands::persons::PiiAccessed> accesses;
    for (const auto& s : subjects) {
      if (core::StringOr(s, "subjectType") == "person") {
        accesses.push_back(AccessBy(a, core::StringOr(s, "subjectId"), "aml_monitoring", kPersonFields, "aml_screening",
                                    "portfolio " + portfolio));
      }
    }
    if (!accesses.empty()) {
      if (auto refused = RecordNow(rt, o, c, accesses)) return out(std::move(*refused));
    }
    int64_t names_screened = 0, hits_total = 0, skipped = 0;
    std::vector<pk::ScreeningJob> jobs;
    for (const auto& s : subjects) {
      const std::string type = core::StringOr(s, "subjectType"), key = core::StringOr(s, "subjectKey");
      pk::ScreeningJob job;
      if (type == "company") {
        auto row = ReadView(rt, KV::Abs(KV::Company(te, core::StringOr(s, "subjectId"))));
        if (!row.ok()) return out(StatusToProblem(rq, row.status()));
        if (row->has_value()) job.names = pk::CompanyScreenedNames(keys, **row);
      } else if (type == "person") {
        auto fields = OpenFields(rt, a, core::StringOr(s, "subjectId"), kPersonFields);
        if (fields.ok()) job.names.push_back(PersonName(core::StringOr(s, "subjectId"), *fields));
      } else {
        auto q = pk::OpenValue(keys, pk::KybAad(a.tenant_id, a.environment, key, "query"), core::StringOr(s, "subjectSealed"));
        if (q.ok()) job.names.push_back(QueryName(core::ParseJsonOrDiscarded(*q), key));
      }
      if (job.names.empty()) {  // erased, or no longer readable: nothing to screen
        ++skipped;
        continue;
      }
      job.screening_id = rt.ids().NewIdString(core::IdKind::kScreening);
      job.completed.subject_type = type;
      job.completed.subject_id = core::StringOr(s, "subjectId");
      job.completed.subject_key = key;
      job.completed.subject_sealed = core::StringOr(s, "subjectSealed");
      job.completed.portfolio_id = portfolio;
      job.completed.origin = "portfolio_run";
      names_screened += static_cast<int64_t>(job.names.size());
      jobs.push_back(std::move(job));
    }
    // The matching on every core (the index is immutable), then everything recorded together.
    const size_t workers = std::max<size_t>(1, std::min<size_t>(std::thread::hardware_concurrency(), 8));
    std::vector<std::thread> threads;
    for (size_t w = 0; w < workers; ++w) {
      threads.emplace_back([&jobs, &lists, &a, w, workers] {
        for (size_t i = w; i < jobs.size(); i += workers) {
          jobs[i].hits = pk::ScreenNames(*lists, jobs[i].names, a.tenant_id, a.environment);
        }
      });
    }
    for (auto& t : threads) t.join();
    for (const auto& job : jobs) hits_total += static_cast<int64_t>(job.hits.size());
    // Every screening and hit recorded together: they share the log's group commits.
    auto recorded = pk::RecordScreenings(rt.writer(), [&rt, &c] {
      commands::CommandContext ctx = Context(rt, c);
      ctx.idempotency_key.clear();
      return ctx;
    }, a.tenant_id, *lists, std::move(jobs), [&rt, &te](const std::string& hit) {
      auto row = rt.store().Get(rt.store().Cf(projections::kViewsCf), KV::Abs(KV::Hit(te, hit)));
      return row.ok() && row->has_value();
    });
    if (!recorded.ok()) return out(StatusToProblem(rq, recorded.status()));
    std::vector<eventstore::LogPosition> positions;
    std::vector<std::string> new_hits;
    for (const auto& r : *recorded) {
      positions.insert(positions.end(), r.positions.begin(), r.positions.end());
      new_hits.insert(new_hits.end(), r.new_hits.begin(), r.new_hits.end());
    }
    rt.projections().WaitApplied(positions, kReadYourWrites);
    core::Json fresh = core::Json::array();
    for (const auto& h : new_hits) {
      auto row = ReadView(rt, KV::Abs(KV::Hit(te, h)));
      if (row.ok() && row->has_value()) fresh.push_back(RenderHit(rt, **row));
    }
    out(JsonResponse(200, {{"object", "portfolio_run"},
                               {"portfolioId", portfolio},
                               {"subjects", static_cast<int64_t>(subjects.size())},
                               {"subjectsSkipped", skipped},
                               {"namesScreened", names_screened},
                               {"hits", hits_total},
                               {"newHits", fresh},
                               {"lists", lists->lists},
                               {"ranAt", core::FormatRfc3339(rt.clock().Now())}}));
  });
}

}  // namespace

std::vector<ApiRoute> ScreeningRoutes(Runtime* rt, const KybOptions& options) {
  std::vector<ApiRoute> routes;
  auto* r = rt;
  const KybOptions* o = &options;
  const std::string tag = "AML screening";
  routes.push_back(ApiRoute{
      .method = "POST", .path = "/v1/screenings", .operation_id = "createScreening", .tag = tag,
      .summary = "Screen a person, a company or a name against the sanctions and PEP lists in force",
      .description = "`subjectType` person (`personId`: the vault's data is opened for it, one audited access on the "
                     "reveal budget), company (`companyId`: its names, members and owners) or name (`name`, with "
                     "`kind`, `birthDate`, `nationality` and `idNumber` as strengtheners or eliminators). Every hit "
                     "names the list, the version (content hash), the entry, the score and the algorithm. "
                     "`portfolioId` enrols the subject in a portfolio for monitoring runs.",
      .scope = "aml:write", .family = RateFamily::kWrite, .has_body = true, .request_schema = "ScreeningRequest",
      .success_status = 201, .response_schema = "ScreeningResponse",
      .error_codes = Codes({{"VALIDATION_ERROR", "BAD_REQUEST", "INVALID_ID", "COMPANY_NOT_FOUND", "PERSON_NOT_FOUND",
                             "PERSON_PURGED", "PII_DECRYPT_CAP_REACHED"}}),
      .handler = [r, o](ApiCall& c, Respond respond) { Screen(*r, *o, c, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "GET", .path = "/v1/screening-hits", .operation_id = "listScreeningHits", .tag = tag,
      .summary = "The hits of the key's environment, newest first",
      .description = "Filters: `status` (open, confirmed, dismissed), `subjectType`, `companyId`, `screeningId`.",
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
      .summary = "One hit, with its reviews", .scope = "aml:read", .response_schema = "ScreeningHitResponse",
      .error_codes = {"INVALID_ID", "SCREENING_NOT_FOUND"},
      .handler = [r](ApiCall& c, Respond respond) {
        auto row = PathHit(*r, c, respond);
        if (!row) return;
        respond(JsonResponse(200, RenderHit(*r, *row)));
      }});
  routes.push_back(ApiRoute{
      .method = "POST", .path = "/v1/screening-hits/{hit_id}/review", .operation_id = "reviewScreeningHit", .tag = tag,
      .summary = "Confirm or dismiss a hit, with a reason",
      .description = "Each decision is recorded with its actor and time and listed in the hit's `reviews`; a later one "
                     "replaces the status. The note is sealed at rest. A confirmed hit weighs as a strong hit in the "
                     "company's next risk assessment; a dismissed one no longer weighs.",
      .scope = "aml:write", .family = RateFamily::kWrite, .has_body = true, .request_schema = "ScreeningHitReview",
      .response_schema = "ScreeningHitResponse",
      .error_codes = {"VALIDATION_ERROR", "BAD_REQUEST", "INVALID_ID", "SCREENING_NOT_FOUND"},
      .handler = [r](ApiCall& c, Respond respond) { ReviewHit(*r, c, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "POST", .path = "/v1/monitoring/portfolios/{portfolio_id}/run", .operation_id = "runMonitoringPortfolio",
      .tag = tag, .summary = "Screen every subject of a portfolio again, against the lists in force now",
      .description = "A portfolio is the subjects screened with its `portfolioId` (404 `PORTFOLIO_NOT_FOUND` when none "
                     "was). Hits met before are the same hits; each new one is listed in `newHits` and sent as the "
                     "`aml.hit_found` webhook. Persons' data is opened for the run: one audited access each.",
      .scope = "aml:write", .family = RateFamily::kWrite, .response_schema = "PortfolioRunResponse",
      .error_codes = {"VALIDATION_ERROR", "BAD_REQUEST", "PORTFOLIO_NOT_FOUND", "PII_DECRYPT_CAP_REACHED"},
      .handler = [r, o](ApiCall& c, Respond respond) { RunPortfolio(*r, *o, c, std::move(respond)); }});
  return routes;
}

}  // namespace svc::api::kyb
