// ARCO requests (issue 35, item 3; docs/persons.md#arco-requests): a data subject's request of
// access, rectification, cancellation or opposition, recorded with the law's deadlines on Mexico's
// business-day calendar, moved through its states, and fulfilled by the operation that serves it
// (an export, a PATCH, a forget, an opposition, each naming the request by `arcoRequestId`).
//   POST /v1/arco-requests, GET /v1/arco-requests, GET /v1/arco-requests/{id}
//   POST …/{id}/request-information | information-received | extend | accept | deny | withdraw
// and a person's oppositions: POST|GET /v1/persons/{id}/oppositions.
#include "api/http/cursor_list.h"
#include "api/http/problem.h"
#include "api/http/write_path.h"
#include "api/persons/persons_common.h"
#include "api/persons/routes.h"
#include "commands/persons/arco_request.h"
#include "commands/persons/person_decider.h"
#include "core/clock.h"
#include "core/ids.h"
#include "pipeline/persons/arco_requests.h"
#include "pipeline/persons/vault_keys.h"
#include "projections/persons/arco_queries.h"
#include "projections/persons/arco_view.h"
#include "projections/persons/persons_view.h"

namespace svc::api::persons {

namespace ps = commands::persons;
namespace pp = pipeline::persons;
using AV = projections::ArcoView;
using PV = projections::PersonsView;

namespace {

constexpr int64_t kMaxBackdateMicros = int64_t{365} * 86'400'000'000;  // a request received up to a year ago

HttpResponse ArcoAnswer(Runtime& rt, const std::string& te, const std::string& id, int status, const HttpRequest& slim) {
  auto row = projections::ArcoRequestAt(rt.store(), te, id, rt.clock().Now().micros);
  if (!row.ok()) return StatusToProblem(slim, row.status());
  return JsonResponse(status, *row);
}

// The body of a create: the subject person and the opening, or nullopt once answered.
std::optional<std::pair<std::string, pp::ArcoOpening>> ParseArcoOpening(const HttpRequest& req, core::Timestamp now,
                                                                        const Respond& respond) {
  auto body = ParseJsonObject(req.body);
  if (!body.ok()) {
    respond(StatusToProblem(req, body.status()));
    return std::nullopt;
  }
  // The subject first: without it there is no request to speak of (ARCO_SUBJECT_REQUIRED).
  auto given = [&](const char* m) { return body->contains(m) && !(*body)[m].is_null(); };
  const int subjects = given("personId") + given("companyMember") + given("uboNode");
  if (subjects == 0) {
    respond(Problem(req, "ARCO_SUBJECT_REQUIRED",
                    "an ARCO request names its subject: personId (a person of the vault), companyMember {companyId, "
                    "memberId} or uboNode {companyId, uboNodeId}"));
    return std::nullopt;
  }
  Validator v(*body);
  pp::ArcoOpening o;
  if (subjects > 1) v.Add({"personId", "", "invalid_value", "an ARCO request names one subject"});
  auto person = given("personId") ? v.OpaqueId("personId", "per", true) : std::optional<std::string>("");
  for (const auto& [member, type, id_member, prefix] :
       {std::tuple{"companyMember", "company_member", "memberId", "cmm"}, std::tuple{"uboNode", "ubo_node", "uboNodeId", "ubo"}}) {
    const core::Json* sub = v.Object(member, 1024);
    if (sub == nullptr) continue;
    Validator sv(*sub);
    o.subject_type = type;
    o.company_id = sv.OpaqueId("companyId", "cmp", true).value_or("");
    o.subject_id = sv.OpaqueId(id_member, prefix, true).value_or("");
    sv.RejectUnknown();
    for (auto e : sv.errors()) {
      e.field = std::string(member) + "." + e.field;
      e.pointer = "/" + std::string(member) + e.pointer;
      v.Add(std::move(e));
    }
  }
  auto right = v.Enum("right", true, ps::kArcoRights);
  o.requester = v.Enum("requester", false, {"subject", "representative"}).value_or("subject");
  const core::Json* identity = v.Object("identityVerification", 2048);
  o.reference = v.String("reference", false, 200).value_or("");
  auto received = v.DateTime("receivedAt");
  if (body->contains("purposes") && !(*body)["purposes"].is_null()) {
    v.Skip("purposes");
    o.purposes = StringList(v, *body, "purposes", 16);
  }
  v.RejectUnknown();
  if (identity == nullptr) {
    v.Add({"identityVerification", "/identityVerification", "required",
           "identityVerification {method, reference} says how the requester's identity was checked"});
  } else {
    Validator iv(*identity);
    o.identity_method = iv.Enum("method", true, ps::kArcoIdentityMethods).value_or("");
    o.identity_reference = iv.String("reference", false, 200).value_or("");
    iv.RejectUnknown();
    for (auto e : iv.errors()) {
      e.field = "identityVerification." + e.field;
      e.pointer = "/identityVerification" + e.pointer;
      v.Add(std::move(e));
    }
  }
  if (received.has_value()) {
    auto t = core::ParseRfc3339(*received);
    if (t.ok() && (t->micros > now.micros || t->micros < now.micros - kMaxBackdateMicros)) {
      v.Add({"receivedAt", "/receivedAt", "out_of_range", "receivedAt is not in the future nor over a year ago"});
    } else if (t.ok()) {
      o.received_micros = t->micros;
    }
  }
  if (!v.ok()) {
    respond(ValidationProblem(req, v.errors()));
    return std::nullopt;
  }
  o.right = *right;
  return std::make_pair(*person, std::move(o));
}

void CreateArco(Runtime& rt, const PersonsOptions& o, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  const AuthContext& a = call.auth;
  commands::CommandContext ctx = Context(rt, call);
  auto parsed = ParseArcoOpening(req, ctx.now, respond);
  if (!parsed) return;
  const std::string id = rt.ids().NewIdString(core::IdKind::kArcoRequest);
  auto cmd = pp::OpenArcoCommand(rt.store(), RefOf(a, parsed->first), id, std::move(parsed->second), o.arco_calendar,
                                 std::move(ctx));
  if (!cmd.ok()) return respond(StatusToProblem(req, cmd.status()));
  RunThenRender(rt, req, std::move(*cmd), {AV::kName},
                [&rt, te = TeOf(a), slim = SlimRequest(req)](const commands::CommandOutcome& out) {
                  return ArcoAnswer(rt, te, out.aggregate_id, 201, slim);  // a replay: the original request
                },
                std::move(respond));
}

void GetArco(Runtime& rt, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  const std::string id = req.path_params["arco_request_id"];
  if (auto st = core::ValidateId(core::IdKind::kArcoRequest, id); !st.ok()) return respond(StatusToProblem(req, st));
  respond(ArcoAnswer(rt, TeOf(call.auth), id, 200, req));
}

void ListArco(Runtime& rt, const PersonsOptions& o, ApiCall& call, Respond respond) {
  auto query = ParseQuery(call.request->query);
  const std::string te = TeOf(call.auth);
  const int64_t now = rt.clock().Now().micros;
  CursorList list;
  list.filters = {"status", "right", "personId", "overdue"};
  list.index = AV::Abs(AV::All(te));
  std::string status = query.count("status") ? query["status"] : "", right = query.count("right") ? query["right"] : "";
  std::string person = query.count("personId") ? query["personId"] : "", overdue = query.count("overdue") ? query["overdue"] : "";
  if (!status.empty() && std::find(ps::kArcoStatuses.begin(), ps::kArcoStatuses.end(), status) == ps::kArcoStatuses.end()) {
    list.errors.push_back({"status", "", "invalid_enum", "status must be one of the ARCO request statuses"});
  }
  if (!right.empty() && std::find(ps::kArcoRights.begin(), ps::kArcoRights.end(), right) == ps::kArcoRights.end()) {
    list.errors.push_back({"right", "", "invalid_enum", "right must be access, rectification, cancellation or opposition"});
  }
  if (!person.empty() && !core::ValidateId(core::IdKind::kPerson, person).ok()) {
    list.errors.push_back({"personId", "", "invalid_id", "personId must be per_<32 lowercase hex>"});
  }
  if (!overdue.empty() && overdue != "true" && overdue != "false") {
    list.errors.push_back({"overdue", "", "invalid_type", "overdue must be true or false"});
  }
  if (!person.empty()) list.index = AV::Abs(AV::BySubject(te, person));
  if (person.empty() && !status.empty()) list.index = AV::Abs(AV::ByStatus(te, status));
  list.scope = "arco|" + te + "|" + status + "|" + right + "|" + person + "|" + overdue;
  list.row_key = [te](std::string_view entry) { return AV::Abs(AV::Request(te, AV::IdOfEntry(entry))); };
  if (!right.empty() || !overdue.empty() || (!person.empty() && !status.empty())) {
    list.accept = [=](const core::Json& row) {
      return (right.empty() || core::StringOr(row, "right") == right) &&
             (status.empty() || core::StringOr(row, "status") == status) &&
             (overdue.empty() || projections::ArcoOverdue(row, now) == (overdue == "true"));
    };
  }
  list.render = [now](const std::string& stored) {
    core::Json row = core::ParseJsonOrDiscarded(stored);
    row["overdue"] = projections::ArcoOverdue(row, now);
    return core::DumpJson(row);
  };
  ServeCursorList(rt, o, call, list, std::move(respond));
}

// A move of a request (request-information, information-received, extend, accept, deny,
// withdraw), answered with the request after it.
void MoveArco(Runtime& rt, ApiCall& call, const std::function<std::optional<ps::ArcoCommand>(const Respond&)>& parse,
              Respond respond) {
  HttpRequest& req = *call.request;
  const std::string id = req.path_params["arco_request_id"];
  if (auto st = core::ValidateId(core::IdKind::kArcoRequest, id); !st.ok()) return respond(StatusToProblem(req, st));
  auto command = parse(respond);
  if (!command) return;
  RunThenRender(rt, req,
                commands::MakeCommand<ps::ArcoDecider>(call.auth.tenant_id, id, std::move(*command), Context(rt, call)),
                {AV::kName},
                [&rt, te = TeOf(call.auth), id, slim = SlimRequest(req)](const commands::CommandOutcome&) {
                  return ArcoAnswer(rt, te, id, 200, slim);
                },
                std::move(respond));
}

// The body of a move that takes none: absent, empty, or {} (anything else is a field error).
bool NoBody(const HttpRequest& req, const Respond& respond) {
  if (req.body.empty()) return true;
  auto body = ParseJsonObject(req.body);
  if (!body.ok()) {
    respond(StatusToProblem(req, body.status()));
    return false;
  }
  Validator v(*body);
  v.RejectUnknown();
  if (!v.ok()) respond(ValidationProblem(req, v.errors()));
  return v.ok();
}

std::optional<ps::ArcoCommand> ParseDeny(const HttpRequest& req, const Respond& respond) {
  auto body = ParseJsonObject(req.body);
  if (!body.ok()) {
    respond(StatusToProblem(req, body.status()));
    return std::nullopt;
  }
  Validator v(*body);
  auto reason = v.Enum("reason", true, ps::kArcoDenialReasons);
  v.RejectUnknown();
  if (!v.ok()) {
    respond(ValidationProblem(req, v.errors()));
    return std::nullopt;
  }
  return ps::ArcoCommand(ps::DenyArcoRequest{*reason});
}

// POST /v1/persons/{id}/oppositions {purpose, reason?, arcoRequestId?}.
void CreateOpposition(Runtime& rt, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  const AuthContext& a = call.auth;
  const std::string id = req.path_params["person_id"];
  auto person = ActivePersonRow(rt, a, id);
  if (!person.ok()) return respond(StatusToProblem(req, person.status()));
  auto body = ParseJsonObject(req.body);
  if (!body.ok()) return respond(StatusToProblem(req, body.status()));
  Validator v(*body);
  ps::OppositionRecorded o;
  o.purpose = v.String("purpose", true, 100).value_or("");
  o.reason = v.String("reason", false, 2000).value_or("");
  o.arco_request_id = v.OpaqueId("arcoRequestId", "arc").value_or("");
  v.RejectUnknown();
  if (!v.ok()) return respond(ValidationProblem(req, v.errors()));
  if (!o.arco_request_id.empty()) {
    auto st = projections::CheckArcoFulfilment(rt.store(), TeOf(a), o.arco_request_id, "opposition", id, o.purpose);
    if (!st.ok()) return respond(StatusToProblem(req, st));
  }
  auto sealed = pp::SealPersonText(rt.key_store(), a.tenant_id, a.environment, id, "reason", o.reason);
  if (!sealed.ok()) return respond(StatusToProblem(req, sealed.status()));
  o.reason_sealed = std::move(*sealed);
  o.reason.clear();
  o.opposition_id = rt.ids().NewIdString(core::IdKind::kOpposition);
  o.recorded_by = a.key_id;
  const std::string item = PV::Abs(PV::Opposition(TeOf(a), id, o.opposition_id));
  auto cmd = pp::OppositionCommand(rt.store(), RefOf(a, id), std::move(o), Context(rt, call));
  if (!cmd.ok()) return respond(StatusToProblem(req, cmd.status()));
  RunThenRender(rt, req, std::move(*cmd), {PV::kName},
                [&rt, a, id, item, slim = SlimRequest(req)](const commands::CommandOutcome&) {
                  auto row = ReadView(rt, item);
                  if (!row.ok() || !row->has_value()) return StatusToProblem(slim, core::Unavailable("not readable yet; retry"));
                  return JsonResponse(201, core::ParseJsonOrDiscarded(OpenPersonText(rt, a, id, core::DumpJson(**row))));
                },
                std::move(respond));
}

}  // namespace

std::vector<ApiRoute> ArcoRoutes(Runtime* r, const PersonsOptions& options) {
  const PersonsOptions* o = &options;
  const std::string base = "/v1/arco-requests", one = base + "/{arco_request_id}";
  const std::string tag = "ARCO requests";
  const std::vector<std::string> lookup = {"INVALID_ID", "ARCO_REQUEST_NOT_FOUND"};
  std::vector<ApiRoute> routes;
  routes.push_back(ApiRoute{
      .method = "POST", .path = base, .operation_id = "createArcoRequest", .tag = tag, .scope = "persons:write",
      .family = RateFamily::kWrite, .idempotency = IdempotencyRule::kOptional, .has_body = true,
      .request_schema = "ArcoRequestCreate", .success_status = 201, .response_schema = "ArcoRequest",
      .error_codes = Codes({{"INVALID_ID", "VALIDATION_ERROR", "BAD_REQUEST", "ARCO_SUBJECT_REQUIRED", "PERSON_NOT_FOUND",
                             "COMPANY_NOT_FOUND", "COMPANY_MEMBER_NOT_FOUND", "UBO_NODE_NOT_FOUND", "PURPOSE_UNKNOWN"}}),
      .handler = [r, o](ApiCall& c, Respond respond) { CreateArco(*r, *o, c, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "GET", .path = base, .operation_id = "listArcoRequests", .tag = tag, .scope = "persons:read",
      .query = [] {
        auto q = PageParams();
        q.push_back({"status", {{"type", "string"}, {"enum", ps::kArcoStatuses}}});
        q.push_back({"right", {{"type", "string"}, {"enum", ps::kArcoRights}}});
        q.push_back({"personId", {{"type", "string"}, {"pattern", "^per_[0-9a-f]{32}$"}}});
        q.push_back({"overdue", {{"type", "boolean"}}});
        return q;
      }(),
      .response_schema = "ArcoRequestList",
      .error_codes = Codes({{"BAD_REQUEST", "INVALID_CURSOR", "LIMIT_OUT_OF_RANGE", "VALIDATION_ERROR"}}),
      .handler = [r, o](ApiCall& c, Respond respond) { ListArco(*r, *o, c, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "GET", .path = one, .operation_id = "getArcoRequest", .tag = tag, .scope = "persons:read",
      .response_schema = "ArcoRequest", .error_codes = Codes({lookup}),
      .handler = [r](ApiCall& c, Respond respond) { GetArco(*r, c, std::move(respond)); }});
  struct Move {
    const char* path;
    const char* operation;
    std::function<std::optional<ps::ArcoCommand>(const HttpRequest&, const Respond&)> parse;
    bool body = false;
  };
  const ps::ArcoCalendar cal = options.arco_calendar;
  auto plain = [](ps::ArcoCommand c) {
    return [c](const HttpRequest& req, const Respond& respond) -> std::optional<ps::ArcoCommand> {
      if (!NoBody(req, respond)) return std::nullopt;
      return c;
    };
  };
  const std::vector<Move> moves = {
      {"/request-information", "requestArcoInformation", plain(ps::RequestArcoInformation{cal})},
      {"/information-received", "receiveArcoInformation", plain(ps::ReceiveArcoInformation{cal})},
      {"/extend", "extendArcoDeadline", plain(ps::ExtendArcoDeadline{cal})},
      {"/accept", "acceptArcoRequest", plain(ps::AcceptArcoRequest{cal})},
      {"/deny", "denyArcoRequest", ParseDeny, true},
      {"/withdraw", "withdrawArcoRequest", plain(ps::WithdrawArcoRequest{})},
  };
  for (const auto& m : moves) {
    routes.push_back(ApiRoute{
        .method = "POST", .path = one + m.path, .operation_id = m.operation, .tag = tag, .scope = "persons:write",
        .family = RateFamily::kWrite, .has_body = m.body,
        .request_schema = m.body ? "ArcoDenyRequest" : "", .response_schema = "ArcoRequest",
        .error_codes = Codes({lookup, {"ARCO_INVALID_TRANSITION", "VALIDATION_ERROR", "BAD_REQUEST"}}),
        .handler = [r, parse = m.parse](ApiCall& c, Respond respond) {
          MoveArco(*r, c, [&c, &parse](const Respond& answer) { return parse(*c.request, answer); }, std::move(respond));
        }});
  }
  const std::string person = "/v1/persons/{person_id}/oppositions";
  routes.push_back(ApiRoute{
      .method = "POST", .path = person, .operation_id = "createPersonOpposition", .tag = "Persons (vault)",
      .scope = "persons:write", .family = RateFamily::kWrite, .versioned = true, .has_body = true,
      .request_schema = "OppositionCreate", .success_status = 201, .response_schema = "OppositionItem",
      .error_codes = Codes({{"INVALID_ID", "PERSON_NOT_FOUND", "VALIDATION_ERROR", "BAD_REQUEST", "PURPOSE_UNKNOWN",
                             "PERSON_PURGED", "PERSON_ALREADY_MERGED", "PERSON_FORGET_PENDING",
                             "ARCO_REQUEST_NOT_FOUND", "ARCO_INVALID_TRANSITION", "CONFLICT"}}),
      .handler = [r](ApiCall& c, Respond respond) { CreateOpposition(*r, c, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "GET", .path = person, .operation_id = "listPersonOppositions", .tag = "Persons (vault)",
      .scope = "persons:read", .versioned = true, .query = PageParams(), .response_schema = "OppositionList",
      .error_codes = Codes({{"INVALID_ID", "PERSON_NOT_FOUND", "BAD_REQUEST", "INVALID_CURSOR", "LIMIT_OUT_OF_RANGE"}}),
      .handler = [r, o](ApiCall& c, Respond respond) {
        const std::string te = TeOf(c.auth), id = c.request->path_params["person_id"];
        ListPersonItems(*r, *o, c, PV::Abs(PV::OppositionIndex(te, id)),
                        [te, id](std::string_view entry) { return PV::Abs(PV::Opposition(te, id, PV::IdOfOrder(entry))); },
                        std::move(respond), /*person_text=*/true);
      }});
  return routes;
}

}  // namespace svc::api::persons
