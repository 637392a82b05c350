// Consolidation of duplicate persons (issue 16):
//   POST /v1/persons/{survivor}/consolidate            202 ConsolidationEnvelope
//   GET  /v1/persons/{survivor}/consolidations/{csl}   ConsolidationStatusResponse
// The request is recorded on the survivor; the merges are the consolidator's
// (pipeline/persons/consolidator.h), so the answer is 202 and the status route reports each.
#include "api/http/problem.h"
#include "api/http/write_path.h"
#include "api/persons/persons_common.h"
#include "api/persons/routes.h"
#include "commands/persons/person_decider.h"
#include "commands/writer.h"
#include "core/ids.h"
#include "pipeline/persons/consolidator.h"
#include "projections/persons/persons_view.h"

namespace svc::api::persons {

namespace ps = commands::persons;
using PV = projections::PersonsView;

namespace {

constexpr size_t kMaxSources = 20;

void Consolidate(Runtime& rt, const PersonsOptions& o, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  const AuthContext& a = call.auth;
  const std::string id = req.path_params["person_id"];
  auto survivor = PersonRow(rt, a, id);
  if (!survivor.ok()) return respond(StatusToProblem(req, survivor.status()));
  auto body = ParseJsonObject(req.body);
  if (!body.ok()) return respond(StatusToProblem(req, body.status()));
  Validator v(*body);
  std::vector<std::string> sources = StringList(v, *body, "sourcePersonIds", kMaxSources);
  const core::Json* resolutions = v.Object("fieldResolutions");
  v.RejectUnknown();
  for (const auto& s : sources) {
    if (auto st = core::ValidateId(core::IdKind::kPerson, s); !st.ok()) {
      v.Add({"sourcePersonIds", "/sourcePersonIds", "invalid_id", st.message()});
    }
  }
  bool unknown_field = false;
  std::map<std::string, std::string> resolved;
  if (resolutions != nullptr) {
    for (auto it = resolutions->begin(); it != resolutions->end(); ++it) {
      const std::string ptr = "/fieldResolutions/" + JsonPointerEscape(it.key());
      if (!ps::IsPiiFieldName(it.key())) {
        unknown_field = true;
        continue;
      }
      const std::string who = it->is_string() ? it->get<std::string>() : "";
      if (who != id && std::find(sources.begin(), sources.end(), who) == sources.end()) {
        v.Add({"fieldResolutions." + it.key(), ptr, "invalid_value",
               "each resolution names the survivor or one of sourcePersonIds: whose value the survivor keeps"});
        continue;
      }
      resolved[it.key()] = who;
    }
  }
  if (!v.ok()) return respond(ValidationProblem(req, v.errors()));
  if (unknown_field) return respond(Problem(req, "UNKNOWN_PII_FIELD", "fieldResolutions names a field the vault does not hold"));
  if (std::find(sources.begin(), sources.end(), id) != sources.end()) {
    return respond(Problem(req, "CANNOT_MERGE_INTO_SELF", "the survivor cannot be one of its own sources"));
  }
  // Each source must exist here and still hold its data. The consolidator checks again when it
  // freezes each one (a source may change in between; the status route then says so). A retry
  // with an Idempotency-Key already used goes straight to the writer, which answers as the first
  // time (its sources are being merged by then).
  bool retry = false;
  if (!call.idempotency_key.empty()) {
    auto known = rt.store().Get(rt.store().Cf("writer"),
                                commands::Writer::IdempotencyKey(a.tenant_id, a.environment, call.idempotency_key));
    if (!known.ok()) return respond(StatusToProblem(req, known.status()));
    retry = known->has_value();
  }
  for (const auto& s : retry ? std::vector<std::string>{} : sources) {
    auto row = PersonRow(rt, a, s);
    if (!row.ok()) return respond(StatusToProblem(req, row.status()));
    const std::string status = core::StringOr(*row, "status");
    if (status == "merged" || row->contains("mergingInto")) {
      return respond(Problem(req, "PERSON_ALREADY_MERGED", s + " is merged (or being merged) into another person"));
    }
    if (status == "redacted") return respond(Problem(req, "PERSON_PURGED", s + " was erased"));
    if (row->value("forgetRequested", false)) {
      return respond(Problem(req, "PERSON_FORGET_PENDING", s + " asked to be forgotten"));
    }
  }
  ps::ConsolidationRequested q;
  q.consolidation_id = rt.ids().NewIdString(core::IdKind::kConsolidation);
  q.source_ids = sources;
  q.field_resolutions = resolved;
  auto* consolidator = o.consolidator;
  RunThenRender(rt, req,
                commands::MakeCommand<ps::PersonDecider>(a.tenant_id, id, ps::PersonCommand(ps::RequestConsolidation{q}),
                                                         Context(rt, call)),
                {PV::kName},
                [&rt, a, id, consolidator, slim = SlimRequest(req)](const commands::CommandOutcome& out) {
                  if (consolidator != nullptr) consolidator->Wake();
                  const std::string cid = core::StringOr(out.result, "consolidationId");
                  auto row = ReadView(rt, PV::Abs(PV::Consolidation(TeOf(a), id, cid)));
                  if (!row.ok()) return StatusToProblem(slim, row.status());
                  if (!row->has_value()) return StatusToProblem(slim, core::Unavailable("the consolidation is not readable yet; retry"));
                  core::Json merges = core::Json::array();
                  for (const auto& m : (**row)["merges"]) {
                    merges.push_back({{"sourcePersonId", m["sourcePersonId"]}, {"status", m["status"]}});
                  }
                  return JsonResponse(202, {{"object", "person.consolidation"},
                                            {"consolidationId", cid},
                                            {"survivorId", id},
                                            {"status", (**row)["status"]},
                                            {"merges", merges}});
                },
                std::move(respond));
}

void Status(Runtime& rt, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  const AuthContext& a = call.auth;
  const std::string id = req.path_params["person_id"];
  const std::string cid = req.path_params["consolidation_id"];
  auto person = PersonRow(rt, a, id);
  if (!person.ok()) return respond(StatusToProblem(req, person.status()));
  if (auto st = core::ValidateId(core::IdKind::kConsolidation, cid); !st.ok()) return respond(StatusToProblem(req, st));
  auto row = ReadView(rt, PV::Abs(PV::Consolidation(TeOf(a), id, cid)));
  if (!row.ok()) return respond(StatusToProblem(req, row.status()));
  if (!row->has_value()) {
    return respond(Problem(req, "CONSOLIDATION_NOT_FOUND", "no such consolidation into this person"));
  }
  respond(JsonResponse(200, **row));  // the row is the response, as served
}

}  // namespace

std::vector<ApiRoute> ConsolidationRoutes(Runtime* rt, const PersonsOptions& options) {
  Runtime* r = rt;
  const PersonsOptions* o = &options;
  const std::string base = "/v1/persons/{person_id}";
  const std::string tag = "Persons (vault)";
  const std::vector<std::string> lookup = {"INVALID_ID", "PERSON_NOT_FOUND"};
  std::vector<ApiRoute> routes;
  routes.push_back(ApiRoute{
      .method = "POST", .path = base + "/consolidate", .operation_id = "consolidatePerson", .tag = tag,
      .summary = "Merge duplicate persons into this one (asynchronous)",
      .description = "Records the consolidation and answers 202; the merges run in the background, one source "
                     "at a time in the order given, each exactly once even across a crash: the source is "
                     "frozen, the survivor takes its values (sealed again under the survivor's key, provenance "
                     "`consolidation`), then the source becomes `merged` and points to the survivor. "
                     "`fieldResolutions` maps a PII field to the person (the survivor or a source) whose value "
                     "the survivor keeps; a field nobody resolved keeps the survivor's value, or takes the first "
                     "source's that has one. Follow it with `GET …/consolidations/{consolidation_id}`. "
                     "`CANNOT_MERGE_INTO_SELF` when the survivor is among the sources, 409 `SURVIVOR_NOT_ACTIVE` "
                     "when the survivor is not active (merged, erased, being forgotten or merged), 409 "
                     "`PERSON_ALREADY_MERGED` for a source merged or being merged, 410 for a source erased or "
                     "being forgotten.",
      .scope = "persons:write", .family = RateFamily::kWrite, .idempotency = IdempotencyRule::kOptional,
      .versioned = true, .has_body = true, .request_schema = "ConsolidateRequest", .success_status = 202,
      .response_schema = "ConsolidationEnvelope",
      .error_codes = Codes({lookup, {"VALIDATION_ERROR", "BAD_REQUEST", "UNKNOWN_PII_FIELD", "CANNOT_MERGE_INTO_SELF",
                                     "SURVIVOR_NOT_ACTIVE", "PERSON_ALREADY_MERGED", "PERSON_PURGED",
                                     "PERSON_FORGET_PENDING"},
                            IdempotencyErrors()}),
      .handler = [r, o](ApiCall& c, Respond respond) { Consolidate(*r, *o, c, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "GET", .path = base + "/consolidations/{consolidation_id}", .operation_id = "getPersonConsolidation",
      .tag = tag, .summary = "A consolidation into this person, merge by merge",
      .description = "`status` is `pending` until every source is done, then `completed`. Each merge: "
                     "`pending`, `merging` (the source is frozen), `merged` (with `mergedAt` and the `fieldsTaken` "
                     "by the survivor), or `failed` with the `error` code when the source could no longer be "
                     "merged (erased, forgotten or merged elsewhere meanwhile).",
      .scope = "persons:read", .family = RateFamily::kRead, .versioned = true,
      .response_schema = "ConsolidationStatusResponse",
      .error_codes = Codes({lookup, {"CONSOLIDATION_NOT_FOUND"}}),
      .handler = [r](ApiCall& c, Respond respond) { Status(*r, c, std::move(respond)); }});
  return routes;
}

}  // namespace svc::api::persons
