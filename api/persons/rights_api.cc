// A person's consents and the grants of applications on their data (issue 16):
//   GET|POST /v1/persons/{id}/consents, POST …/consents/{consent_id}/revoke
//   GET|POST /v1/persons/{id}/grants,   POST …/grants/{grant_id}/revoke
// and the check every reveal runs against them (CheckRevealAllowed, persons_common.h).
#include "api/http/cursor_list.h"
#include "api/http/problem.h"
#include "api/http/write_path.h"
#include "api/persons/persons_common.h"
#include "api/persons/routes.h"
#include "commands/persons/person_decider.h"
#include "core/clock.h"
#include "core/crypto.h"
#include "core/ids.h"
#include "commands/audit/timestamps.h"
#include "pipeline/audit/timestamper.h"
#include "pipeline/certificate.h"
#include "pipeline/verification/efirma_check.h"
#include "pipeline/persons/purger.h"
#include "pipeline/persons/purposes.h"
#include "pipeline/persons/vault_keys.h"
#include "projections/persons/arco_queries.h"
#include "projections/persons/persons_view.h"
#include "projections/projector.h"
#include "projections/tenancy_view.h"

namespace svc::api::persons {

namespace ps = commands::persons;
namespace pv = svc::pipeline::verification;
namespace pp = pipeline::persons;
using PV = projections::PersonsView;

namespace {

// The body's `expiresAt`: absent or null is none (0); a time not in the future is a field error.
int64_t ExpiresAt(Validator& v, core::Timestamp now) {
  auto text = v.DateTime("expiresAt");
  if (!text.has_value()) return 0;
  auto t = core::ParseRfc3339(*text);
  if (!t.ok() || t->micros <= now.micros) {
    v.Add({"expiresAt", "/expiresAt", "out_of_range", "expiresAt must be in the future"});
    return 0;
  }
  return t->micros;
}

// The item a revocation or a creation answers with, read after the write.
HttpResponse ItemAfter(Runtime& rt, const AuthContext& a, const std::string& key, int status, const HttpRequest& slim) {
  auto row = ReadView(rt, key);
  if (!row.ok()) return StatusToProblem(slim, row.status());
  if (!row->has_value()) return StatusToProblem(slim, core::Unavailable("the item is not readable yet; retry"));
  (void)a;
  return JsonResponse(status, **row);
}

void CreateConsent(Runtime& rt, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  const AuthContext& a = call.auth;
  const std::string id = req.path_params["person_id"];
  auto person = ActivePersonRow(rt, a, id);
  if (!person.ok()) return respond(StatusToProblem(req, person.status()));
  auto body = ParseJsonObject(req.body);
  if (!body.ok()) return respond(StatusToProblem(req, body.status()));
  Validator v(*body);
  commands::CommandContext ctx = Context(rt, call);
  ps::ConsentGranted c;
  auto mechanism = v.Enum("mechanism", true, {"firma_electronica", "autenticacion"});
  auto policy = v.String("policyVersion", true, 200);
  auto purpose = v.String("purpose", true, 100);
  auto attested = v.Enum("attestedBy", false, {"applicant", "integrator"});
  const core::Json* evidence = v.Object("evidence", 64 * 1024);
  c.expires_micros = ExpiresAt(v, ctx.now);
  v.RejectUnknown();
  if (policy.has_value() && policy->empty()) v.Add({"policyVersion", "/policyVersion", "invalid_format", "policyVersion must not be empty"});
  if (!v.ok()) return respond(ValidationProblem(req, v.errors()));
  if (!pp::IsKnownPurpose(*purpose)) {
    return respond(Problem(req, "PURPOSE_UNKNOWN", "purpose must be one of the catalogue's (docs/persons.md#purposes)"));
  }
  c.consent_id = rt.ids().NewIdString(core::IdKind::kConsent);
  c.purpose = *purpose;
  c.mechanism = *mechanism;
  c.policy_version = *policy;
  c.attested_by = attested.value_or("");
  const std::string item = PV::Abs(PV::Consent(TeOf(a), id, c.consent_id));
  // Given by e.firma when the evidence names the check whose signed text states it.
  auto cmd = pv::ConsentCommand({&rt.store(), &rt.key_store(), nullptr}, RefOf(a, id), std::move(c), evidence, std::move(ctx));
  if (!cmd.ok()) return respond(StatusToProblem(req, cmd.status()));
  RunThenRender(rt, req, std::move(*cmd),
                {PV::kName},
                [&rt, a, item, slim = SlimRequest(req)](const commands::CommandOutcome&) {
                  return ItemAfter(rt, a, item, 201, slim);
                },
                std::move(respond));
}

// A revocation of a consent or grant (idempotent; the first revokedAt stands), answered with the
// item as it is after.
void Revoke(Runtime& rt, ApiCall& call, core::IdKind kind, const char* param,
            const std::function<ps::PersonCommand(const std::string&)>& command,
            const std::function<std::string(const std::string& te, const std::string& person, const std::string& item)>& key,
            Respond respond) {
  HttpRequest& req = *call.request;
  const AuthContext& a = call.auth;
  const std::string id = req.path_params["person_id"];
  const std::string item_id = req.path_params[param];
  if (auto st = core::ValidateId(kind, item_id); !st.ok()) return respond(StatusToProblem(req, st));
  auto person = PersonRow(rt, a, id);
  if (!person.ok()) return respond(StatusToProblem(req, person.status()));
  const std::string item = PV::Abs(key(TeOf(a), id, item_id));
  RunThenRender(rt, req, commands::MakeCommand<ps::PersonDecider>(a.tenant_id, id, command(item_id), Context(rt, call)),
                {PV::kName},
                [&rt, a, item, slim = SlimRequest(req)](const commands::CommandOutcome&) {
                  return ItemAfter(rt, a, item, 200, slim);
                },
                std::move(respond));
}

void CreateGrant(Runtime& rt, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  const AuthContext& a = call.auth;
  const std::string id = req.path_params["person_id"];
  auto person = ActivePersonRow(rt, a, id);
  if (!person.ok()) return respond(StatusToProblem(req, person.status()));
  auto body = ParseJsonObject(req.body);
  if (!body.ok()) return respond(StatusToProblem(req, body.status()));
  Validator v(*body);
  commands::CommandContext ctx = Context(rt, call);
  ps::GrantCreated g;
  auto app = v.OpaqueId("applicationId", "app", true);  // a malformed one is recorded (400 INVALID_ID)
  g.allowed_fields = StringList(v, *body, "allowedFields", 17);
  g.allowed_purposes = StringList(v, *body, "allowedPurposes", 20);
  g.default_redaction = v.Enum("defaultRedaction", false, {"plain", "masked", "redacted"}).value_or("masked");
  g.expires_micros = ExpiresAt(v, ctx.now);
  v.RejectUnknown();
  bool unknown_field = false;
  for (const auto& f : g.allowed_fields) unknown_field |= !ps::IsPiiFieldName(f);
  if (!v.ok()) return respond(ValidationProblem(req, v.errors()));
  if (unknown_field) return respond(Problem(req, "UNKNOWN_PII_FIELD", "allowedFields names a field the vault does not hold"));
  for (const auto& p : g.allowed_purposes) {
    if (!pp::IsKnownPurpose(p)) {
      return respond(Problem(req, "PURPOSE_UNKNOWN", "allowedPurposes names a purpose not in the catalogue: " + p));
    }
  }
  auto known = ReadView(rt, projections::TenancyView::Abs(projections::TenancyView::Application(a.tenant_id, *app)));
  if (!known.ok()) return respond(StatusToProblem(req, known.status()));
  if (!known->has_value()) return respond(Problem(req, "APPLICATION_NOT_FOUND", "no such application in this tenant"));
  g.grant_id = rt.ids().NewIdString(core::IdKind::kGrant);
  g.application_id = *app;
  const std::string item = PV::Abs(PV::Grant(TeOf(a), id, g.grant_id));
  RunThenRender(rt, req, commands::MakeCommand<ps::PersonDecider>(a.tenant_id, id, ps::PersonCommand(ps::CreateGrant{g}), ctx),
                {PV::kName},
                [&rt, a, item, slim = SlimRequest(req)](const commands::CommandOutcome&) {
                  return ItemAfter(rt, a, item, 201, slim);
                },
                std::move(respond));
}

// The legal-hold history row a write just made (the newest rows first: it is among them).
HttpResponse HoldRowAfter(Runtime& rt, const AuthContext& a, const std::string& person, const std::string& prefix,
                          const std::string& hold_id, int status, const HttpRequest& slim) {
  const int cf = rt.store().Cf(projections::kViewsCf);
  auto it = rt.store().NewIterator(cf, prefix, eventstore::PrefixEnd(prefix));
  for (it->Seek(prefix); it->Valid(); it->Next()) {
    core::Json row = core::ParseJsonOrDiscarded(it->value());
    if (core::StringOr(row, "id") == hold_id) {
      return JsonResponse(status, core::ParseJsonOrDiscarded(OpenPersonText(rt, a, person, std::string(it->value()))));
    }
  }
  return StatusToProblem(slim, core::Unavailable("the hold is not readable yet; retry"));
}

// A capture of the person's sessions named by the path (MEDIA_NOT_FOUND otherwise).
core::Status CheckPersonCapture(Runtime& rt, const AuthContext& a, const std::string& person, const std::string& asset) {
  SVC_RETURN_IF_ERROR(core::ValidateId(core::IdKind::kMedia, asset));
  SVC_ASSIGN_OR_RETURN(auto media, PersonMedia(rt, a, person));
  for (const auto& m : media) {
    if (core::StringOr(m, "id") == asset) return core::Status::Ok();
  }
  return core::NotFound("no capture of this person's sessions has that id", "MEDIA_NOT_FOUND");
}

// The body of a hold as its record (a set needs a legal basis; a release may omit it), or nullopt
// once answered.
std::optional<ps::LegalHoldRecorded> ParseHold(const HttpRequest& req, bool release, bool document, core::Timestamp now,
                                               const Respond& respond) {
  auto body = ParseJsonObject(req.body);
  if (!body.ok()) {
    respond(StatusToProblem(req, body.status()));
    return std::nullopt;
  }
  Validator v(*body);
  ps::LegalHoldRecorded h;
  h.action = document ? v.Enum("action", false, {"set", "release"}).value_or("set") : release ? "release" : "set";
  auto reason = v.String("reason", true, 2000);
  auto basis = v.String("legalBasis", h.action == "set", 500);
  if (h.action == "set") h.expires_micros = ExpiresAt(v, now);
  v.RejectUnknown();
  if (reason.has_value() && reason->empty()) v.Add({"reason", "/reason", "invalid_format", "reason must not be empty"});
  if (basis.has_value() && basis->empty()) v.Add({"legalBasis", "/legalBasis", "invalid_format", "legalBasis must not be empty"});
  if (!v.ok()) {
    respond(ValidationProblem(req, v.errors()));
    return std::nullopt;
  }
  h.reason = *reason;
  h.legal_basis = basis.value_or("");
  return h;
}

// POST …/legal-hold, …/legal-hold/release, …/documents/{asset_id}/legal-hold.
void RecordHold(Runtime& rt, ApiCall& call, bool release, bool document, Respond respond) {
  HttpRequest& req = *call.request;
  const AuthContext& a = call.auth;
  const std::string id = req.path_params["person_id"];
  auto person = PersonRow(rt, a, id);
  if (!person.ok()) return respond(StatusToProblem(req, person.status()));
  const std::string asset = document ? req.path_params["asset_id"] : "";
  if (auto st = document ? CheckPersonCapture(rt, a, id, asset) : core::Status::Ok(); !st.ok()) {
    return respond(StatusToProblem(req, st));
  }
  commands::CommandContext ctx = Context(rt, call);
  auto h = ParseHold(req, release, document, ctx.now, respond);
  if (!h) return;
  // The caller's words are the person's data: sealed under their key (docs/persons.md#legal-holds).
  auto reason = pp::SealPersonText(rt.key_store(), a.tenant_id, a.environment, id, "reason", h->reason);
  auto basis = pp::SealPersonText(rt.key_store(), a.tenant_id, a.environment, id, "legalBasis", h->legal_basis);
  if (!reason.ok() || !basis.ok()) return respond(StatusToProblem(req, !reason.ok() ? reason.status() : basis.status()));
  h->reason_sealed = std::move(*reason);
  h->legal_basis_sealed = std::move(*basis);
  h->reason.clear();
  h->legal_basis.clear();
  h->hold_id = rt.ids().NewIdString(core::IdKind::kLegalHold);
  h->asset_id = asset;
  const std::string prefix = PV::Abs(PV::LegalHolds(TeOf(a), id));
  const int status = h->action == "release" && !document ? 200 : 201;
  RunThenRender(rt, req, commands::MakeCommand<ps::PersonDecider>(a.tenant_id, id, ps::PersonCommand(ps::RecordLegalHold{*h}), ctx),
                {PV::kName},
                [&rt, a, id, prefix, hold_id = h->hold_id, status, slim = SlimRequest(req)](const commands::CommandOutcome&) {
                  return HoldRowAfter(rt, a, id, prefix, hold_id, status, slim);
                },
                std::move(respond));
}

// POST …/forget: ARCO cancellation. `block` puts the data out of reach at once and keeps it until
// the grace ends; `purge` purges now. The purger carries the purge out (pipeline/persons/purger.h).
void Forget(Runtime& rt, const PersonsOptions& o, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  const AuthContext& a = call.auth;
  const std::string id = req.path_params["person_id"];
  auto person = PersonRow(rt, a, id);
  if (!person.ok()) return respond(StatusToProblem(req, person.status()));
  auto body = ParseJsonObject(req.body.empty() ? std::string_view("{}") : std::string_view(req.body));
  if (!body.ok()) return respond(StatusToProblem(req, body.status()));
  Validator v(*body);
  auto reason = v.String("reason", false, 2000);
  const std::string arc = v.OpaqueId("arcoRequestId", "arc").value_or("");  // an ARCO cancellation
  v.Skip("mode");
  v.RejectUnknown();
  if (!v.ok()) return respond(ValidationProblem(req, v.errors()));
  const core::Json mode = body->value("mode", core::Json());
  if (!mode.is_string() || (mode != "block" && mode != "purge")) {
    return respond(Problem(req, "MODE_INVALID", "mode must be block (kept until the purge) or purge (now)"));
  }
  if (auto st = arc.empty() ? core::Status::Ok() : projections::CheckArcoFulfilment(rt.store(), TeOf(a), arc, "forget", id); !st.ok()) {
    return respond(StatusToProblem(req, st));
  }
  auto sealed = pp::SealPersonText(rt.key_store(), a.tenant_id, a.environment, id, "reason", reason.value_or(""));
  if (!sealed.ok()) return respond(StatusToProblem(req, sealed.status()));
  ps::RequestForget f{mode.get<std::string>(), std::move(*sealed), o.forget_grace_seconds * 1'000'000, arc};
  auto* purger = o.purger;
  RunThenRender(rt, req, commands::MakeCommand<ps::PersonDecider>(a.tenant_id, id, ps::PersonCommand(f), Context(rt, call)),
                {PV::kName},
                [id, purger](const commands::CommandOutcome& out) {
                  if (purger != nullptr && core::StringOr(out.result, "mode") == "purge") purger->Wake();
                  const int64_t due = core::IntOr(out.result, "purgeDueMicros");
                  return JsonResponse(200, {{"mode", core::StringOr(out.result, "mode")},
                                            {"object", "person.forget"},
                                            {"personId", id},
                                            {"purgeDueAt", core::FormatRfc3339(core::Timestamp{due})}});
                },
                std::move(respond));
}

// GET …/deletion-certificate: once the keys are gone, the signed certificate (RFC 8785 form;
// contentHash, HMAC `signature`, and an Ed25519 signature anyone checks with the tenant's public
// key), the same bytes on every request.
void DeletionCertificate(Runtime& rt, const PersonsOptions& o, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  const AuthContext& a = call.auth;
  const std::string id = req.path_params["person_id"];
  auto person = PersonRow(rt, a, id);
  if (!person.ok()) return respond(StatusToProblem(req, person.status()));
  auto content = ReadView(rt, PV::Abs(PV::Deletion(TeOf(a), id)));
  if (!content.ok()) return respond(StatusToProblem(req, content.status()));
  if (!content->has_value()) {
    return respond(Problem(req, "DELETION_NOT_COMPLETE", "the person's data is not purged (yet): no certificate"));
  }
  auto signed_doc = pipeline::audit::SignEvidence(rt.store(), TeOf(a), commands::audit::kDeletionCertificate, id,
                                                 std::move(**content), rt.certificate_root_key(), o.evidence_timestamps);
  if (!signed_doc.ok()) return respond(StatusToProblem(req, signed_doc.status()));
  HttpResponse r;
  r.status = 200;
  r.body = std::move(*signed_doc);
  respond(std::move(r));
}

// An item of a person listed newest first and revoked idempotently, answered with the item as it
// is after: consents and grants. Their list and revoke routes are written once, from this.
struct PersonItem {
  const char* plural;  // the path segment: consents | grants
  const char* param;   // consent_id | grant_id
  core::IdKind kind;
  const char* list_operation;
  const char* list_schema;
  const char* revoke_operation;
  const char* item_schema;
  const char* not_found;
  std::string (*index)(std::string_view te, std::string_view person);
  std::string (*key)(std::string_view te, std::string_view person, std::string_view item);
  ps::PersonCommand (*revoke)(const std::string& item);
};

const PersonItem kConsents{
    "consents", "consent_id", core::IdKind::kConsent, "listPersonConsents", "ConsentList", "revokePersonConsent",
    "ConsentItem", "CONSENT_NOT_FOUND",
    &PV::ConsentIndex, &PV::Consent, [](const std::string& item) { return ps::PersonCommand(ps::RevokeConsent{item}); }};
const PersonItem kGrants{
    "grants", "grant_id", core::IdKind::kGrant, "listPersonGrants", "GrantList", "revokePersonGrant", "GrantItem",
    "GRANT_NOT_FOUND", &PV::GrantIndex, &PV::Grant,
    [](const std::string& item) { return ps::PersonCommand(ps::RevokeGrant{item}); }};

ApiRoute ItemListRoute(Runtime* r, const PersonsOptions* o, const std::string& base, const std::string& tag,
                       const std::vector<std::string>& lookup, const PersonItem& k) {
  return ApiRoute{
      .method = "GET", .path = base + "/" + k.plural, .operation_id = k.list_operation, .tag = tag,
      .scope = "persons:read", .versioned = true,
      .query = PageParams(), .response_schema = k.list_schema,
      .error_codes = Codes({lookup, {"BAD_REQUEST", "INVALID_CURSOR", "LIMIT_OUT_OF_RANGE"}}),
      .handler = [r, o, &k](ApiCall& c, Respond respond) {
        const std::string te = TeOf(c.auth), id = c.request->path_params["person_id"];
        ListPersonItems(*r, *o, c, PV::Abs(k.index(te, id)),
                  [te, id, &k](std::string_view entry) { return PV::Abs(k.key(te, id, PV::IdOfOrder(entry))); },
                  std::move(respond));
      }};
}

ApiRoute ItemRevokeRoute(Runtime* r, const std::string& base, const std::string& tag,
                         const std::vector<std::string>& lookup, const PersonItem& k) {
  return ApiRoute{
      .method = "POST", .path = base + "/" + k.plural + "/{" + k.param + "}/revoke",
      .operation_id = k.revoke_operation, .tag = tag, .scope = "persons:write", .family = RateFamily::kWrite, .versioned = true, .response_schema = k.item_schema,
      .error_codes = Codes({lookup, {k.not_found}}),
      .handler = [r, &k](ApiCall& c, Respond respond) {
        Revoke(*r, c, k.kind, k.param, k.revoke, k.key, std::move(respond));
      }};
}

}  // namespace

pp::Reader ReaderOf(const AuthContext& a) { return pp::Reader{a.tenant_id, a.environment, a.application_id}; }

std::string OpenPersonText(Runtime& rt, const AuthContext& a, const std::string& person, std::string row) {
  auto opened = pp::OpenPersonTextRow(rt.key_store(), a.tenant_id, a.environment, person, row);
  return opened.ok() ? std::move(*opened) : row;  // the key store unreadable: served sealed, never in clear
}

void ListPersonItems(Runtime& rt, const PersonsOptions& o, ApiCall& call, const std::string& index_of,
                     std::function<std::string(std::string_view)> row_key, Respond respond, bool person_text) {
  const AuthContext& a = call.auth;
  const std::string id = call.request->path_params["person_id"];
  auto person = PersonRow(rt, a, id);
  if (!person.ok()) return respond(StatusToProblem(*call.request, person.status()));
  CursorList list;
  list.scope = index_of + "|" + TeOf(a) + "|" + id;
  list.index = index_of;
  list.row_key = std::move(row_key);
  if (person_text) {
    list.render = [&rt, a, id](std::string stored) { return OpenPersonText(rt, a, id, std::move(stored)); };
  }
  ServeCursorList(rt, o, call, list, std::move(respond));
}

core::Result<std::optional<core::Json>> GrantInForce(Runtime& rt, const AuthContext& a, const std::string& person_id) {
  return pp::GrantInForce(rt.store(), rt.clock().Now(), ReaderOf(a), person_id);
}

core::Status CheckRevealAllowed(Runtime& rt, const AuthContext& a, const core::Json& person_row,
                                const std::vector<std::string>& fields, const std::optional<std::string>& purpose) {
  return pp::CheckRevealAllowed(rt.store(), rt.clock().Now(), ReaderOf(a), person_row, fields, purpose);
}

std::vector<ApiRoute> RightsRoutes(Runtime* r, const PersonsOptions& options) {
  const PersonsOptions* o = &options;
  const std::string base = "/v1/persons/{person_id}";
  const std::string tag = "Persons (vault)";
  const std::vector<std::string> lookup = {"INVALID_ID", "PERSON_NOT_FOUND"};
  std::vector<ApiRoute> routes;
  routes.push_back(ItemListRoute(r, o, base, tag, lookup, kConsents));
  routes.push_back(ApiRoute{
      .method = "POST", .path = base + "/consents", .operation_id = "createPersonConsent", .tag = tag,
      .scope = "persons:write", .family = RateFamily::kWrite, .versioned = true, .has_body = true,
      .request_schema = "ConsentGrantRequest", .success_status = 201, .response_schema = "ConsentItem",
      .error_codes = Codes({lookup, {"VALIDATION_ERROR", "BAD_REQUEST", "PURPOSE_UNKNOWN", "PERSON_PURGED",
                                     "PERSON_ALREADY_MERGED", "EFIRMA_CHALLENGE_NOT_FOUND"}}),
      .handler = [r](ApiCall& c, Respond respond) { CreateConsent(*r, c, std::move(respond)); }});
  routes.push_back(ItemRevokeRoute(r, base, tag, lookup, kConsents));
  routes.push_back(ApiRoute{
      .method = "POST", .path = base + "/legal-hold", .operation_id = "setPersonLegalHold", .tag = tag,
      .scope = "persons:write", .family = RateFamily::kWrite, .versioned = true, .has_body = true,
      .request_schema = "LegalHoldSetRequest", .success_status = 201, .response_schema = "LegalHoldItem",
      .error_codes = Codes({lookup, {"VALIDATION_ERROR", "BAD_REQUEST"}}),
      .handler = [r](ApiCall& c, Respond respond) { RecordHold(*r, c, false, false, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "POST", .path = base + "/legal-hold/release", .operation_id = "releasePersonLegalHold", .tag = tag,
      .scope = "persons:write", .family = RateFamily::kWrite, .versioned = true, .has_body = true,
      .request_schema = "LegalHoldReleaseRequest", .response_schema = "LegalHoldItem",
      .error_codes = Codes({lookup, {"VALIDATION_ERROR", "BAD_REQUEST"}}),
      .handler = [r](ApiCall& c, Respond respond) { RecordHold(*r, c, true, false, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "GET", .path = base + "/legal-holds", .operation_id = "listPersonLegalHolds", .tag = tag,
      .scope = "persons:read", .versioned = true, .query = PageParams(), .response_schema = "LegalHoldList",
      .error_codes = Codes({lookup, {"BAD_REQUEST", "INVALID_CURSOR", "LIMIT_OUT_OF_RANGE"}}),
      .handler = [r, o](ApiCall& c, Respond respond) {
        const std::string te = TeOf(c.auth), id = c.request->path_params["person_id"];
        const std::string index = PV::Abs(PV::LegalHolds(te, id));
        ListPersonItems(*r, *o, c, index, [index](std::string_view entry) { return index + std::string(entry); },
                        std::move(respond), /*person_text=*/true);
      }});
  routes.push_back(ApiRoute{
      .method = "POST", .path = base + "/documents/{asset_id}/legal-hold", .operation_id = "setDocumentLegalHold",
      .tag = tag, .scope = "persons:write", .family = RateFamily::kWrite, .versioned = true, .has_body = true,
      .request_schema = "DocumentLegalHoldRequest", .success_status = 201, .response_schema = "LegalHoldItem",
      .error_codes = Codes({lookup, {"VALIDATION_ERROR", "BAD_REQUEST", "MEDIA_NOT_FOUND"}}),
      .handler = [r](ApiCall& c, Respond respond) { RecordHold(*r, c, false, true, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "POST", .path = base + "/forget", .operation_id = "forgetPerson", .tag = tag,
      .scope = "persons:redact", .family = RateFamily::kWrite, .versioned = true, .has_body = true,
      .request_schema = "PersonForgetRequest", .response_schema = "PersonForgetResponse",
      .error_codes = Codes({lookup, {"MODE_INVALID", "VALIDATION_ERROR", "BAD_REQUEST", "PERSON_LEGAL_HOLD",
                                     "PERSON_PURGED", "PERSON_ALREADY_MERGED", "ARCO_REQUEST_NOT_FOUND",
                                     "ARCO_INVALID_TRANSITION", "CONFLICT"}}),
      .handler = [r, o](ApiCall& c, Respond respond) { Forget(*r, *o, c, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "GET", .path = base + "/deletion-certificate", .operation_id = "getPersonDeletionCertificate",
      .tag = tag, .scope = "persons:read", .versioned = true, .response_schema = "PersonDeletionCertificate",
      .error_codes = Codes({lookup, {"DELETION_NOT_COMPLETE"}}),
      .handler = [r, o](ApiCall& c, Respond respond) { DeletionCertificate(*r, *o, c, std::move(respond)); }});
  routes.push_back(ItemListRoute(r, o, base, tag, lookup, kGrants));
  routes.push_back(ApiRoute{
      .method = "POST", .path = base + "/grants", .operation_id = "createPersonGrant", .tag = tag,
      .scope = "persons:write", .family = RateFamily::kWrite, .versioned = true, .has_body = true,
      .request_schema = "GrantCreateRequest", .success_status = 201, .response_schema = "GrantItem",
      .error_codes = Codes({lookup, {"VALIDATION_ERROR", "BAD_REQUEST", "UNKNOWN_PII_FIELD", "PURPOSE_UNKNOWN",
                                     "APPLICATION_NOT_FOUND", "PERSON_PURGED", "PERSON_ALREADY_MERGED"}}),
      .handler = [r](ApiCall& c, Respond respond) { CreateGrant(*r, c, std::move(respond)); }});
  routes.push_back(ItemRevokeRoute(r, base, tag, lookup, kGrants));
  return routes;
}

}  // namespace svc::api::persons
