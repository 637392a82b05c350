#include "api/http/reveal.h"

#include <memory>

#include "api/http/piece_stream.h"
#include "api/http/problem.h"
#include "api/http/write_path.h"
#include "commands/persons/reveal_budget.h"
#include "core/crypto.h"
#include "eventstore/key_store.h"
#include "pipeline/persons/pii.h"
#include "pipeline/persons/vault_keys.h"
#include "pipeline/verification/sealed_media.h"
#include "eventstore/blob_store.h"
#include "projections/persons/persons_view.h"
#include "projections/verification_view.h"

namespace svc::api {

namespace pp = pipeline::persons;
namespace pv = pipeline::verification;
namespace ps = commands::persons;
using PV = projections::PersonsView;

ps::PiiAccessed AccessBy(const AuthContext& a, const std::string& person, std::string channel,
                         std::vector<std::string> fields, std::string purpose, std::string reason) {
  ps::PiiAccessed e;
  e.person_id = person;
  e.application_id = a.application_id;
  e.actor_type = a.key_type == "client_token" ? "client_token" : a.key_type == "user" ? "user" : "api_key";
  e.actor_id = a.key_id;
  e.channel = std::move(channel);
  e.fields = std::move(fields);
  e.purpose = std::move(purpose);
  e.reason = std::move(reason);
  e.redaction = "plain";
  return e;
}

namespace {

// Each access's reason sealed under its person's key before the command exists (so neither the
// log nor a cluster's commands topic holds it in clear).
core::Status SealReasons(Runtime& rt, const AuthContext& a, std::vector<ps::PiiAccessed>& accesses) {
  for (auto& e : accesses) {
    SVC_ASSIGN_OR_RETURN(auto sealed, pp::SealAccessReason(rt.key_store(), a.tenant_id, a.environment, e.person_id, e.reason));
    if (!sealed.has_value()) continue;
    e.reason_sealed = std::move(sealed->sealed);
    e.reason_commitment = std::move(sealed->commitment);
    e.reason.clear();
  }
  return core::Status::Ok();
}

}  // namespace

// Appends the accesses against the budget, then answers with `then()` (which opens the values).
void RecordThenAsync(Runtime& rt, const ApiContext& o, ApiCall& call, std::vector<ps::PiiAccessed> accesses,
                     std::function<void(Respond)> then, Respond respond) {
  const AuthContext& a = call.auth;
  if (auto sealed = SealReasons(rt, a, accesses); !sealed.ok()) return respond(StatusToProblem(*call.request, sealed));
  ps::RecordReveal rr;
  rr.accesses = std::move(accesses);
  rr.cap = o.limits.reveal_budget_per_day;
  commands::CommandContext ctx = Context(rt, call);
  ctx.idempotency_key.clear();  // each reveal is its own audit entry, never a replay
  std::string day = ps::RevealBudgetId(a.environment, ctx.now);
  auto cmd = commands::MakeCommand<ps::RevealBudgetDecider>(a.tenant_id, day, rr, ctx);
  rt.writer().Execute(std::move(cmd), [&rt, slim = SlimRequest(*call.request), then = std::move(then),
                                       respond = std::move(respond)](core::Result<commands::CommandOutcome> r) mutable {
    if (!r.ok()) {
      HttpResponse problem = StatusToProblem(slim, r.status());
      if (r.status().api_code() == "PII_DECRYPT_CAP_REACHED") {
        problem.headers.emplace_back("Retry-After", std::to_string(ps::SecondsUntilRefill(rt.clock().Now())));
      }
      return respond(std::move(problem));
    }
    then(std::move(respond));
  });
}

void RecordThen(Runtime& rt, const ApiContext& o, ApiCall& call, std::vector<ps::PiiAccessed> accesses,
                std::function<HttpResponse()> then, Respond respond) {
  RecordThenAsync(rt, o, call, std::move(accesses),
                  [then = std::move(then)](Respond answer) { answer(then()); }, std::move(respond));
}

std::optional<HttpResponse> RecordNow(Runtime& rt, const ApiContext& o, ApiCall& call,
                                      std::vector<ps::PiiAccessed> accesses) {
  const AuthContext& a = call.auth;
  if (auto sealed = SealReasons(rt, a, accesses); !sealed.ok()) return StatusToProblem(*call.request, sealed);
  ps::RecordReveal rr;
  rr.accesses = std::move(accesses);
  rr.cap = o.limits.reveal_budget_per_day;
  commands::CommandContext ctx = Context(rt, call);
  ctx.idempotency_key.clear();
  std::string day = ps::RevealBudgetId(a.environment, ctx.now);
  auto r = rt.writer().ExecuteAndWait(commands::MakeCommand<ps::RevealBudgetDecider>(a.tenant_id, day, rr, ctx));
  if (r.ok()) return std::nullopt;
  HttpResponse problem = StatusToProblem(*call.request, r.status());
  if (r.status().api_code() == "PII_DECRYPT_CAP_REACHED") {
    problem.headers.emplace_back("Retry-After", std::to_string(ps::SecondsUntilRefill(rt.clock().Now())));
  }
  return problem;
}

// The plaintext of `fields` of a person (null for a field it does not hold).
core::Result<core::Json> OpenFields(Runtime& rt, const AuthContext& a, const std::string& person,
                                    const std::vector<std::string>& fields) {
  SVC_ASSIGN_OR_RETURN(auto key, rt.key_store().Get(pp::PersonKeyName(a.tenant_id, a.environment, person)));
  if (!key.has_value()) return core::FailedPrecondition("the person's data was erased", "PERSON_PURGED");
  const std::string te = projections::TenantEnv(a.tenant_id, a.environment);
  core::Json out = core::Json::object();
  SVC_ASSIGN_OR_RETURN(auto sealed, ReadView(rt, PV::Abs(PV::Sealed(te, person))));
  for (const auto& field : fields) {
    const core::Json* row = nullptr;
    if (sealed.has_value()) {
      if (auto it = sealed->find(field); it != sealed->end() && it->is_object()) row = &*it;
    }
    if (row == nullptr) {
      out[field] = nullptr;
      continue;
    }
    SVC_ASSIGN_OR_RETURN(std::string value, pp::OpenPii(*key, a.tenant_id, a.environment, person, field,
                                                        row->value("version", 0),
                                                        core::StringOr(*row, "sealed")));
    out[field] = std::move(value);
  }
  core::SecureZero(*key);
  return out;
}

core::Result<std::optional<core::Json>> CaptureRow(Runtime& rt, const std::string& tenant, const std::string& environment,
                                                   const std::string& session, const std::string& media_id) {
  using VV = projections::VerificationView;
  SVC_ASSIGN_OR_RETURN(auto rows, ScanView(rt, VV::Abs(VV::Media(projections::TenantEnv(tenant, environment), session))));
  for (auto& m : rows) {
    if (core::StringOr(m, "mediaId") == media_id) return std::optional<core::Json>(std::move(m));
  }
  return std::optional<core::Json>();
}

core::Result<std::optional<OpenedCapture>> OpenCapture(Runtime& rt, const std::string& tenant,
                                                       const std::string& environment, const std::string& session,
                                                       const core::Json& capture) {
  const std::optional<OpenedCapture> gone;
  if (!capture.value("purgedAt", core::Json()).is_null() || core::StringOr(capture, "blob").empty()) return gone;
  SVC_ASSIGN_OR_RETURN(auto key, rt.key_store().Get(eventstore::KeyStore::SessionKeyName(tenant, environment, session)));
  if (!key.has_value()) return gone;  // the session's data was destroyed (a forget)
  auto reader = pv::MediaReader::Open(rt.blobs(), core::StringOr(capture, "blob"), *key,
                                      pv::MediaAd(tenant, environment, session, core::StringOr(capture, "mediaId")));
  core::SecureZero(*key);
  if (!reader.ok()) {
    if (reader.status().code() == core::StatusCode::kNotFound) return gone;
    return reader.status();
  }
  return std::optional<OpenedCapture>(OpenedCapture(std::move(*reader)));
}

HttpResponse CaptureResponse(const std::string& mime, OpenedCapture capture, core::ThreadPool* pool) {
  HttpResponse out;
  out.status = 200;
  out.content_type = mime;
  out.stream = PieceStream([capture = std::move(capture)] { return capture->Next(); }, pool);
  out.headers = {{"Cache-Control", "no-store"},
                 {"X-Content-Type-Options", "nosniff"},
                 {"Content-Disposition", "inline"},
                 {"Referrer-Policy", "no-referrer"},
                 {"Content-Security-Policy", "default-src 'none'; sandbox"}};
  return out;
}

}  // namespace svc::api
