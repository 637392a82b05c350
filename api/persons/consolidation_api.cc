// Consolidation of duplicate persons (issue 16):
//   POST /v1/persons/{survivor}/consolidate            202 ConsolidationEnvelope
//   GET  /v1/persons/{survivor}/consolidations/{csl}   ConsolidationStatusResponse
// The request is recorded on the survivor; the merges are the consolidator's
// (pipeline/persons/consolidator.h), so the answer is 202 and the status route reports each.
#include "api/http/problem.h"
#include "api/http/write_path.h"
#include "core/crypto.h"
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

// The request's consolidation (a new id, the sources, whose value each resolved field keeps), or
// nullopt once answered.
std::optional<ps::ConsolidationRequested> ParseConsolidation(Runtime& rt, const HttpRequest& req,
                                                             const std::string& survivor, const Respond& respond) {
  auto body = ParseJsonObject(req.body);
  if (!body.ok()) {
    respond(StatusToProblem(req, body.status()));
    return std::nullopt;
  }
  Validator v(*body);
  ps::ConsolidationRequested q;
  q.source_ids = StringList(v, *body, "sourcePersonIds", kMaxSources);
  const core::Json* resolutions = v.Object("fieldResolutions");
  v.RejectUnknown();
  for (const auto& s : q.source_ids) {
    if (auto st = core::ValidateId(core::IdKind::kPerson, s); !st.ok()) {
      v.Add({"sourcePersonIds", "/sourcePersonIds", "invalid_id", st.message()});
    }
  }
  bool unknown_field = false;
  const core::Json none = core::Json::object();
  const core::Json& resolved = resolutions != nullptr ? *resolutions : none;
  for (auto it = resolved.begin(); it != resolved.end(); ++it) {
    const std::string who = it->is_string() ? it->get<std::string>() : "";
    if (!ps::IsPiiFieldName(it.key())) {
      unknown_field = true;
    } else if (who != survivor && std::find(q.source_ids.begin(), q.source_ids.end(), who) == q.source_ids.end()) {
      v.Add({"fieldResolutions." + it.key(), "/fieldResolutions/" + JsonPointerEscape(it.key()), "invalid_value",
             "each resolution names the survivor or one of sourcePersonIds: whose value the survivor keeps"});
    } else {
      q.field_resolutions[it.key()] = who;
    }
  }
  core::Status refused = core::Status::Ok();
  if (unknown_field) {
    refused = core::InvalidArgument("fieldResolutions names a field the vault does not hold", "UNKNOWN_PII_FIELD");
  } else if (std::find(q.source_ids.begin(), q.source_ids.end(), survivor) != q.source_ids.end()) {
    refused = core::InvalidArgument("the survivor cannot be one of its own sources", "CANNOT_MERGE_INTO_SELF");
  }
  if (!v.ok()) respond(ValidationProblem(req, v.errors()));
  else if (!refused.ok()) respond(StatusToProblem(req, refused));
  if (!v.ok() || !refused.ok()) return std::nullopt;
  q.consolidation_id = rt.ids().NewIdString(core::IdKind::kConsolidation);
  return q;
}

// Under an Idempotency-Key the consolidation's id follows from the key (and the tenant,
// environment and survivor), so that a retry after a crash, whose recorded outcome carries no
// result (rebuilt from the log: docs/write-side.md), is answered with the same consolidation.
std::string ConsolidationIdFor(const AuthContext& a, const std::string& survivor, const std::string& idempotency_key) {
  return "csl_" + core::Sha256Hex("svc/consolidation/v1|" + a.tenant_id + "|" + a.environment + "|" + survivor + "|" +
                                  idempotency_key)
                      .substr(0, 32);
}

// ConsolidationEnvelope: the consolidation's row, merge by merge.
HttpResponse Envelope(const core::Json& row, const std::string& cid, const std::string& survivor) {
  core::Json merges = core::Json::array();
  for (const auto& m : row["merges"]) merges.push_back({{"sourcePersonId", m["sourcePersonId"]}, {"status", m["status"]}});
  return JsonResponse(202, {{"object", "person.consolidation"},
                            {"consolidationId", cid},
                            {"survivorId", survivor},
                            {"status", row["status"]},
                            {"merges", merges}});
}

void Consolidate(Runtime& rt, const PersonsOptions& o, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  const AuthContext& a = call.auth;
  const std::string id = req.path_params["person_id"];
  auto survivor = PersonRow(rt, a, id);
  if (!survivor.ok()) return respond(StatusToProblem(req, survivor.status()));
  auto q = ParseConsolidation(rt, req, id, respond);
  if (!q) return;
  if (!call.idempotency_key.empty()) q->consolidation_id = ConsolidationIdFor(a, id, call.idempotency_key);
  const std::string asked = q->consolidation_id;
  auto* consolidator = o.consolidator;
  RunThenRender(rt, req,
                // The person decides, reading its sources (each must exist and hold its data). A
                // retry with an Idempotency-Key already used is answered as the first time.
                commands::MakeReadingCommand<ps::PersonDecider>(a.tenant_id, id,
                                                                ps::PersonCommand(ps::RequestConsolidation{*q}),
                                                                Context(rt, call)),
                {PV::kName},
                [&rt, a, id, consolidator, asked, slim = SlimRequest(req)](const commands::CommandOutcome& out) {
                  if (consolidator != nullptr) consolidator->Wake();
                  std::string cid = core::StringOr(out.result, "consolidationId");
                  if (cid.empty()) cid = asked;  // a replay whose outcome was rebuilt from the log
                  auto row = ReadView(rt, PV::Abs(PV::Consolidation(TeOf(a), id, cid)));
                  if (!row.ok()) return StatusToProblem(slim, row.status());
                  if (!row->has_value()) return StatusToProblem(slim, core::Unavailable("the consolidation is not readable yet; retry"));
                  return Envelope(**row, cid, id);
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

std::vector<ApiRoute> ConsolidationRoutes(Runtime* r, const PersonsOptions& options) {
  const PersonsOptions* o = &options;
  const std::string base = "/v1/persons/{person_id}";
  const std::string tag = "Persons (vault)";
  const std::vector<std::string> lookup = {"INVALID_ID", "PERSON_NOT_FOUND"};
  std::vector<ApiRoute> routes;
  routes.push_back(ApiRoute{
      .method = "POST", .path = base + "/consolidate", .operation_id = "consolidatePerson", .tag = tag,
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
      .tag = tag, .scope = "persons:read", .family = RateFamily::kRead, .versioned = true,
      .response_schema = "ConsolidationStatusResponse",
      .error_codes = Codes({lookup, {"CONSOLIDATION_NOT_FOUND"}}),
      .handler = [r](ApiCall& c, Respond respond) { Status(*r, c, std::move(respond)); }});
  return routes;
}

}  // namespace svc::api::persons
