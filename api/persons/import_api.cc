// Bulk import of persons (issue 16):
//   POST /v1/persons/import          {"persons": [PersonWriteRequest, …]} (1..1000 rows)
//   GET  /v1/person-imports/{job_id} the job and its per-row results (not under /v1/persons/: a path
//                                   /v1/persons/import/{id} is ambiguous with /v1/persons/{id}/fields)
// Every row goes through the create path (WritePerson: validation, externalRef upsert, CURP
// conflicts, sealing), all rows at once so the writer commits them in groups; each row's outcome
// is what POST /v1/persons would have answered for it. When every row has one, the job records
// them (persons.import_recorded) and the answer is the job, complete. Rows are independent: a bad
// row fails alone.
#include <atomic>

#include "api/http/problem.h"
#include "api/http/write_path.h"
#include "api/persons/persons_common.h"
#include "api/persons/routes.h"
#include "commands/persons/import_job.h"
#include "core/ids.h"
#include "projections/persons/persons_view.h"

namespace svc::api::persons {

namespace ps = commands::persons;
using PV = projections::PersonsView;

namespace {

constexpr size_t kMaxRows = 1000;

// One row's outcome from the create path's answer.
ps::ImportRow RowOutcome(int64_t index, const HttpResponse& r) {
  ps::ImportRow row;
  row.index = index;
  core::Json body = core::ParseJsonOrDiscarded(r.body);
  if (r.status == 200 || r.status == 201) {
    row.status = r.status == 201 ? "created" : "updated";
    row.person_id = core::StringOr(body, "id");
    return row;
  }
  row.status = "failed";
  row.code = core::StringOr(body, "code");
  for (const auto& e : body.value("errors", core::Json::array())) {
    const std::string field = core::StringOr(e, "field");
    if (!field.empty()) row.fields.push_back(field);
  }
  return row;
}

struct ImportRun {
  std::vector<ps::ImportRow> rows;
  std::atomic<size_t> left{0};
  HttpRequest req;  // the slim request every row's answer is rendered against
  ApiCall call;     // the import's call, without its Idempotency-Key
};

// An import of `n` rows for `call`: each row a write of its own (no Idempotency-Key of its own).
std::shared_ptr<ImportRun> NewImportRun(const ApiCall& call, size_t n) {
  auto run = std::make_shared<ImportRun>();
  run->rows.resize(n);
  run->left = n;
  run->req = SlimRequest(*call.request);
  run->call = call;
  run->call.request = &run->req;
  run->call.idempotency_key.clear();  // each row is its own write
  run->call.request_fingerprint.clear();
  return run;
}

// Once every row is answered: the job recorded with each row's outcome, and answered as its row.
void RecordImportJob(Runtime& rt, const std::shared_ptr<ImportRun>& run, const std::string& job_id, Respond respond) {
  const AuthContext& a = run->call.auth;
  ps::RecordImport rec;
  rec.job.total = static_cast<int64_t>(run->rows.size());
  for (const auto& r : run->rows) {
    if (r.status == "created") ++rec.job.created;
    if (r.status == "updated") ++rec.job.updated;
    if (r.status == "failed") ++rec.job.failed;
  }
  rec.job.rows = run->rows;
  RunThenRender(rt, run->req, commands::MakeCommand<ps::ImportDecider>(a.tenant_id, job_id, rec, Context(rt, run->call)),
                {PV::kName},
                [&rt, job_id, te = TeOf(a), slim = run->req](const commands::CommandOutcome&) {
                  auto row = ReadView(rt, PV::Abs(PV::Import(te, job_id)));
                  if (!row.ok()) return StatusToProblem(slim, row.status());
                  if (!row->has_value()) return StatusToProblem(slim, core::Unavailable("the job is not readable yet"));
                  return JsonResponse(201, **row);
                },
                std::move(respond));
}

void Import(Runtime& rt, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  auto body = ParseJsonObject(req.body);
  if (!body.ok() || !body->contains("persons") || !(*body)["persons"].is_array() || body->size() != 1) {
    return respond(Problem(req, "IMPORT_BODY_INVALID",
                           "the body is {\"persons\": [PersonWriteRequest, …]}: a JSON object with one array member"));
  }
  const core::Json& rows = (*body)["persons"];
  if (rows.empty()) return respond(Problem(req, "IMPORT_BODY_INVALID", "persons is empty: nothing to import"));
  if (rows.size() > kMaxRows) {
    return respond(Problem(req, "IMPORT_BATCH_TOO_LARGE",
                           "at most " + std::to_string(kMaxRows) + " persons per import (and 16 MiB); send several"));
  }
  auto run = NewImportRun(call, rows.size());
  auto finish = [&rt, run, job_id = rt.ids().NewIdString(core::IdKind::kImport), respond = std::move(respond)]() {
    RecordImportJob(rt, run, job_id, respond);
  };
  for (size_t i = 0; i < rows.size(); ++i) {
    auto done = [run, i, finish](HttpResponse r) {
      run->rows[i] = RowOutcome(static_cast<int64_t>(i), r);
      if (run->left.fetch_sub(1) == 1) finish();
    };
    if (!rows[i].is_object()) {
      done(Problem(run->req, "VALIDATION_ERROR", "each row is a PersonWriteRequest object"));
      continue;
    }
    WritePerson(rt, run->call, rows[i], done);
  }
}

void Job(Runtime& rt, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  const std::string id = req.path_params["job_id"];
  if (auto st = core::ValidateId(core::IdKind::kImport, id); !st.ok()) return respond(StatusToProblem(req, st));
  auto row = ReadView(rt, PV::Abs(PV::Import(TeOf(call.auth), id)));
  if (!row.ok()) return respond(StatusToProblem(req, row.status()));
  if (!row->has_value()) return respond(Problem(req, "IMPORT_JOB_NOT_FOUND", "no such import job"));
  respond(JsonResponse(200, **row));
}

}  // namespace

std::vector<ApiRoute> ImportRoutes(Runtime* r, const PersonsOptions& options) {
  (void)options;
  const std::string tag = "Persons (vault)";
  std::vector<ApiRoute> routes;
  routes.push_back(ApiRoute{
      .method = "POST", .path = "/v1/persons/import", .operation_id = "importPersons", .tag = tag,
      .scope = "persons:write", .family = RateFamily::kWrite, .has_body = true,
      .request_schema = "PersonImportRequest", .success_status = 201, .response_schema = "PersonImportJob",
      .error_codes = Codes({{"IMPORT_BODY_INVALID", "IMPORT_BATCH_TOO_LARGE", "BAD_REQUEST"}}),
      .handler = [r](ApiCall& c, Respond respond) { Import(*r, c, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "GET", .path = "/v1/person-imports/{job_id}", .operation_id = "getPersonImport", .tag = tag,
      .scope = "persons:write", .family = RateFamily::kRead, .response_schema = "PersonImportJob",
      .error_codes = Codes({{"INVALID_ID", "IMPORT_JOB_NOT_FOUND"}}),
      .handler = [r](ApiCall& c, Respond respond) { Job(*r, c, std::move(respond)); }});
  return routes;
}

}  // namespace svc::api::persons
