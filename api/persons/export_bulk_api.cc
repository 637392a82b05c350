// Bulk export of persons (issue 16; docs/persons.md#bulk-export):
//   POST /v1/persons/export-bulk                   a job: which persons, which fields, why (202)
//   GET  /v1/persons/export-bulk/{job_id}          the job: queued, ready, failed or expired
//   GET  /v1/persons/export-bulk/{job_id}/dump     the sealed dump, while ready
// The scope is persons:read: no plaintext ever leaves through the API. The dump is sealed to the
// tenant's export key (an X25519 public key the operator registers with `svc admin tenant
// export-key`; its secret key stays with the data controller), so only `svc export-bulk open` with
// that secret key reads it. Every person put in the dump is audited (an access event, channel
// export_bulk) before any value is opened; the exporter (pipeline/persons/exporter.h) does the work.
#include "api/http/piece_stream.h"
#include "api/http/problem.h"
#include "api/http/write_path.h"
#include "api/persons/persons_common.h"
#include "api/persons/routes.h"
#include "commands/audit/timestamps.h"
#include "commands/persons/export_job.h"
#include "core/crypto.h"
#include "core/ids.h"
#include "pipeline/audit/timestamper.h"
#include "pipeline/persons/export_dump.h"
#include "pipeline/persons/exporter.h"
#include "pipeline/persons/pii.h"
#include "pipeline/persons/purposes.h"
#include "pipeline/persons/vault_keys.h"
#include "projections/persons/persons_view.h"
#include "projections/tenancy_view.h"

namespace svc::api::persons {

namespace ps = commands::persons;
namespace pp = pipeline::persons;
using PV = projections::PersonsView;

namespace {

constexpr size_t kMaxListed = 1000;
constexpr size_t kMaxReason = 2000;

// The body of POST /v1/persons/export-bulk as the job's request (the recipient is the tenant's
// export key, which the job's decision reads), or nullopt once answered.
std::optional<ps::ExportRequested> ParseExport(const HttpRequest& req, const Respond& respond) {
  auto body = ParseJsonObject(req.body);
  if (!body.ok()) {
    respond(StatusToProblem(req, body.status()));
    return std::nullopt;
  }
  Validator v(*body);
  auto purpose = v.String("purpose", true, 64);
  v.Skip("reason");
  v.Skip("personIds");
  v.Skip("fields");
  v.RejectUnknown();
  ps::ExportRequested r;
  bool unknown_field = false;
  if (auto it = body->find("fields"); it != body->end() && !it->is_null()) {
    r.fields = FieldNames(*it, v, &unknown_field);  // absent: every field the key may read
  }
  bool too_many = false;
  if (auto it = body->find("personIds"); it != body->end() && !it->is_null()) {
    if (!it->is_array() || it->empty()) {
      v.Add({"personIds", "/personIds", "invalid_type", "personIds is a non-empty array of person ids, or absent for all"});
    } else if (it->size() > kMaxListed) {
      too_many = true;
    } else {
      for (size_t i = 0; i < it->size(); ++i) {
        const auto& p = (*it)[i];
        if (!p.is_string() || !core::ValidateId(core::IdKind::kPerson, p.get<std::string>()).ok()) {
          v.Add({"personIds", "/personIds/" + std::to_string(i), "invalid_id", "a person id (per_…)"});
        } else if (std::find(r.person_ids.begin(), r.person_ids.end(), p.get<std::string>()) == r.person_ids.end()) {
          r.person_ids.push_back(p.get<std::string>());
        }
      }
    }
  }
  const core::Json* reason = body->contains("reason") ? &(*body)["reason"] : nullptr;
  const bool reason_ok = reason != nullptr && reason->is_string() && !reason->get<std::string>().empty() &&
                         reason->get<std::string>().size() <= kMaxReason;
  core::Status refused = core::Status::Ok();
  if (too_many) {
    refused = core::InvalidArgument(
        "personIds lists at most " + std::to_string(kMaxListed) + " persons; leave it out to export all", "BATCH_TOO_LARGE");
  } else if (!v.ok()) {
    respond(ValidationProblem(req, v.errors()));
    return std::nullopt;
  } else if (!reason_ok) {
    refused = core::InvalidArgument("reason (1-2000 characters) must say why the export is needed; it is recorded",
                                    "PII_ACCESS_REASON_REQUIRED");
  } else if (unknown_field) {
    refused = core::InvalidArgument("fields names a field that is not a vault field", "UNKNOWN_PII_FIELD");
  } else if (!pp::IsKnownPurpose(*purpose)) {
    refused = core::InvalidArgument("purpose is not in the purpose catalogue (docs/persons.md#purposes)", "PURPOSE_UNKNOWN");
  }
  if (!refused.ok()) {
    respond(StatusToProblem(req, refused));
    return std::nullopt;
  }
  r.purpose = *purpose;
  r.reason = reason->get<std::string>();
  return r;
}

// A job's row as served: its reason opened (rows of older events hold it in clear).
core::Json Served(Runtime& rt, const AuthContext& a, core::Json row) {
  auto sealed = row.find("reasonSealed");
  if (sealed == row.end()) return row;
  auto opened = pp::OpenExportReason(rt.seal_key(), a.tenant_id, a.environment, core::StringOr(row, "id"),
                                     sealed->is_string() ? sealed->get<std::string>() : "");
  row.erase(sealed);
  row["reason"] = opened.ok() ? core::Json(std::move(*opened)) : core::Json(nullptr);
  return row;
}

void Create(Runtime& rt, const PersonsOptions& o, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  const AuthContext& a = call.auth;
  auto r = ParseExport(req, respond);
  if (!r) return;
  r->application_id = a.application_id;
  r->actor_type = "api_key";
  r->actor_id = a.key_id;
  r->ttl_seconds = o.export_ttl_seconds;
  const std::string job = rt.ids().NewIdString(core::IdKind::kExport);
  r->reason_sealed = pp::SealExportReason(rt.seal_key(), a.tenant_id, a.environment, job, r->reason);
  core::SecureZero(r->reason);
  r->reason.clear();
  auto* exporter = o.exporter;
  RunThenRender(rt, req,
                commands::MakeReadingCommand<ps::ExportDecider>(a.tenant_id, job, ps::RequestExport{*r, a.tenant_id},
                                                                Context(rt, call)),
                {PV::kName},
                [&rt, a, job, exporter, slim = SlimRequest(req)](const commands::CommandOutcome& out) {
                  if (exporter != nullptr) exporter->Wake();
                  // A replay (the same Idempotency-Key) answers with the first request's job.
                  const std::string id = out.aggregate_id.empty() ? job : out.aggregate_id;
                  auto row = ReadView(rt, PV::Abs(PV::Export(TeOf(a), id)));
                  if (!row.ok()) return StatusToProblem(slim, row.status());
                  if (!row->has_value()) return StatusToProblem(slim, core::Unavailable("the job is not readable yet; retry"));
                  return JsonResponse(202, Served(rt, a, std::move(**row)));
                },
                std::move(respond));
}

// The job of the path, or nullopt once the problem is answered.
std::optional<core::Json> PathJob(Runtime& rt, ApiCall& call, const Respond& respond) {
  HttpRequest& req = *call.request;
  const std::string id = req.path_params["job_id"];
  if (auto st = core::ValidateId(core::IdKind::kExport, id); !st.ok()) {
    respond(StatusToProblem(req, st));
    return std::nullopt;
  }
  auto row = ReadView(rt, PV::Abs(PV::Export(TeOf(call.auth), id)));
  if (!row.ok()) {
    respond(StatusToProblem(req, row.status()));
    return std::nullopt;
  }
  if (!row->has_value()) {
    respond(Problem(req, "EXPORT_JOB_NOT_FOUND", "no such export job"));
    return std::nullopt;
  }
  return Served(rt, call.auth, std::move(**row));
}

// GET …/{job_id}: the job, its dump with the dump's trusted timestamps (docs/audit.md#trusted-timestamps).
void Job(Runtime& rt, const PersonsOptions& o, ApiCall& call, Respond respond) {
  auto job = PathJob(rt, call, respond);
  if (!job.has_value()) return;
  if (auto dump = job->find("dump"); dump != job->end() && dump->is_object()) {
    auto timestamps = pipeline::audit::EvidenceTimestamps(rt.store(), TeOf(call.auth), commands::audit::kBulkExport,
                                                          core::StringOr(*job, "id"), core::StringOr(*dump, "sha256"),
                                                          o.evidence_timestamps);
    if (!timestamps.ok()) return respond(StatusToProblem(*call.request, timestamps.status()));
    (*dump)["timestamps"] = std::move(*timestamps);
  }
  respond(JsonResponse(200, *job));
}

void Dump(Runtime& rt, const PersonsOptions& o, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  auto job = PathJob(rt, call, respond);
  if (!job.has_value()) return;
  const std::string status = core::StringOr(*job, "status");
  if (status == "queued" || status == "failed") {
    HttpResponse p = Problem(req, "EXPORT_DUMP_NOT_READY",
                             status == "queued" ? "the dump is being written; follow the job until its status is ready"
                                                : "the job failed; its dump will never be ready (see failure)");
    if (status == "queued") p.headers.emplace_back("Retry-After", "5");
    return respond(std::move(p));
  }
  auto expires = core::ParseRfc3339(core::StringOr(*job, "expiresAt"));
  if (status == "expired" || !expires.ok() || expires->micros <= rt.clock().Now().micros) {
    return respond(Problem(req, "EXPORT_DUMP_EXPIRED", "the dump expired and was deleted; ask for a new export"));
  }
  // The object is opened off the I/O threads (on S3 that is a request) and streamed out.
  const std::string sha = core::StringOr(job->value("dump", core::Json::object()), "sha256");
  auto open = [&rt, slim = SlimRequest(req), sha, id = core::StringOr(*job, "id"), pool = o.work_pool,
               respond = std::move(respond)] {
    auto reader = pp::DumpReader::Open(rt.blobs(), sha);
    if (!reader.ok() && reader.status().code() == core::StatusCode::kNotFound) {
      return respond(Problem(slim, "EXPORT_DUMP_EXPIRED", "the dump expired and was deleted; ask for a new export"));
    }
    if (!reader.ok()) return respond(StatusToProblem(slim, reader.status()));
    HttpResponse r;
    r.status = 200;
    r.content_type = "application/octet-stream";
    r.stream = PieceStream([d = std::shared_ptr<pp::DumpReader>(std::move(*reader))] { return d->Next(); }, pool);
    r.headers.emplace_back("Content-Disposition", "attachment; filename=\"" + id + ".svcx\"");
    r.headers.emplace_back("ETag", "\"" + sha + "\"");
    r.headers.emplace_back("Cache-Control", "no-store");
    respond(std::move(r));
  };
  if (o.work_pool == nullptr) return open();
  o.work_pool->Post(std::move(open));
}

}  // namespace

std::vector<ApiRoute> ExportBulkRoutes(Runtime* r, const PersonsOptions& options) {
  const PersonsOptions* o = &options;
  const std::string tag = "Persons (vault)";
  const std::string base = "/v1/persons/export-bulk";
  std::vector<ApiRoute> routes;
  routes.push_back(ApiRoute{
      .method = "POST", .path = base, .operation_id = "createPersonExportBulk", .tag = tag,
      .scope = "persons:read", .family = RateFamily::kWrite, .idempotency = IdempotencyRule::kOptional,
      .has_body = true, .request_schema = "PersonExportBulkRequest", .success_status = 202,
      .response_schema = "PersonExportBulkJob",
      .error_codes = Codes({{"VALIDATION_ERROR", "BAD_REQUEST", "UNKNOWN_PII_FIELD", "PURPOSE_UNKNOWN",
                             "PII_ACCESS_REASON_REQUIRED", "BATCH_TOO_LARGE", "EXPORT_KEY_NOT_CONFIGURED"},
                            IdempotencyErrors()}),
      .handler = [r, o](ApiCall& c, Respond respond) { Create(*r, *o, c, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "GET", .path = base + "/{job_id}", .operation_id = "getPersonExportBulk", .tag = tag,
      .scope = "persons:read", .family = RateFamily::kRead, .response_schema = "PersonExportBulkJob",
      .error_codes = Codes({{"INVALID_ID", "EXPORT_JOB_NOT_FOUND"}}),
      .handler = [r, o](ApiCall& c, Respond respond) { Job(*r, *o, c, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "GET", .path = base + "/{job_id}/dump", .operation_id = "downloadPersonExportBulk", .tag = tag,
      .scope = "persons:read", .family = RateFamily::kRead,
      .response_schema = "PersonExportBulkDump", .response_content_type = "application/octet-stream",
      .error_codes = Codes({{"INVALID_ID", "EXPORT_JOB_NOT_FOUND", "EXPORT_DUMP_NOT_READY", "EXPORT_DUMP_EXPIRED"}}),
      .handler = [r, o](ApiCall& c, Respond respond) { Dump(*r, *o, c, std::move(respond)); }});
  return routes;
}

}  // namespace svc::api::persons
