// Every route that lets plaintext personal data leave the vault. Each one is a command on the
// day's reveal budget of the tenant and environment (commands/persons/reveal_budget.h): the
// budget is checked and one access event per person is appended — durably — before a value is
// opened; a refused budget reveals nothing (429 PII_DECRYPT_CAP_REACHED with Retry-After until
// the next UTC midnight).
#include <set>

#include "api/http/problem.h"
#include "core/crypto.h"
#include "api/http/write_path.h"
#include "api/persons/persons_common.h"
#include "commands/audit/timestamps.h"
#include "commands/persons/client_token.h"
#include "commands/persons/person_events.h"
#include "commands/persons/reveal_budget.h"
#include "commands/tenancy/scopes.h"
#include "pipeline/audit/timestamper.h"
#include "pipeline/persons/pii.h"
#include "pipeline/persons/integrity.h"
#include "pipeline/persons/purposes.h"
#include "pipeline/persons/reauth.h"
#include "pipeline/persons/vault_keys.h"
#include "eventstore/key_store.h"
#include "pipeline/verification/engines.h"
#include "pipeline/verification/stage_details.h"
#include "projections/persons/arco_queries.h"
#include "projections/persons/persons_view.h"
#include "projections/projector.h"
#include "projections/verification_view.h"

namespace svc::api::persons {

namespace pp = pipeline::persons;
namespace ps = commands::persons;
using PV = projections::PersonsView;

std::vector<std::string> FieldNames(const core::Json& fields, Validator& v, bool* unknown) {
  std::vector<std::string> out;
  if (!fields.is_array() || fields.empty()) {
    v.Add({"fields", "/fields", "invalid_type", "fields must be a non-empty array of PII field names"});
    return out;
  }
  for (size_t i = 0; i < fields.size(); ++i) {
    const auto& f = fields[i];
    if (!f.is_string()) {
      v.Add({"fields", "/fields/" + std::to_string(i), "invalid_type", "PII field names are strings"});
    } else if (pp::FindPiiField(f.get<std::string>()) == nullptr) {
      *unknown = true;
    } else if (std::find(out.begin(), out.end(), f.get<std::string>()) == out.end()) {
      out.push_back(f.get<std::string>());
    }
  }
  return out;
}

namespace {

constexpr size_t kMaxReason = 2000;
constexpr size_t kMaxBatch = 100;

// The active person the path names, or nullopt once the problem is answered.
std::optional<core::Json> PathPerson(Runtime& rt, ApiCall& call, const Respond& respond) {
  auto row = ActivePersonRow(rt, call.auth, call.request->path_params["person_id"]);
  if (!row.ok()) {
    respond(StatusToProblem(*call.request, row.status()));
    return std::nullopt;
  }
  return std::move(*row);
}

// The request's JSON object body, or nullopt once the problem is answered.
std::optional<core::Json> JsonBody(const HttpRequest& req, const Respond& respond) {
  auto body = ParseJsonObject(req.body);
  if (!body.ok()) {
    respond(StatusToProblem(req, body.status()));
    return std::nullopt;
  }
  return std::move(*body);
}

// The opening every reveal of one person shares: the request, the key, the path's person (active:
// else answered) and, `with_body`, the JSON object body (else answered). nullopt once answered.
struct PersonCall {
  HttpRequest& req;
  const AuthContext a;
  const std::string id;
  std::optional<core::Json> row;
  std::optional<core::Json> body;
};
std::optional<PersonCall> OpenPersonCall(Runtime& rt, ApiCall& call, const Respond& respond, bool with_body) {
  PersonCall p{*call.request, call.auth, call.request->path_params["person_id"], PathPerson(rt, call, respond), std::nullopt};
  if (!p.row) return std::nullopt;
  if (with_body) {
    p.body = JsonBody(p.req, respond);
    if (!p.body) return std::nullopt;
  }
  return p;
}

// A call kept for work that answers after the handler returned (the request may be gone by then):
// its auth, ids and a copy of the request's path and id.
struct KeptCall {
  HttpRequest req;
  ApiCall call;
};
std::shared_ptr<KeptCall> Keep(const ApiCall& call) {
  auto kept = std::make_shared<KeptCall>(KeptCall{SlimRequest(*call.request), call});
  kept->call.request = &kept->req;
  return kept;
}



// The common members of DecryptRequest and BatchDecryptRequest: fields, purpose, reason. Answers
// the problem itself and returns false when they are wrong.
struct RevealRequest {
  std::vector<std::string> fields;
  std::string purpose;
  std::string reason;
};

bool ParseReveal(const HttpRequest& req, const core::Json& body, Validator& v, RevealRequest& out,
                 const Respond& respond) {
  const core::Json* fields = body.contains("fields") ? &body["fields"] : nullptr;
  v.Skip("fields");
  auto purpose = v.String("purpose", true, 64);
  v.Skip("reason");
  v.RejectUnknown();
  bool unknown = false;
  if (fields == nullptr || fields->is_null()) {
    v.Add({"fields", "/fields", "required", "fields is required: the PII fields to reveal"});
  } else {
    out.fields = FieldNames(*fields, v, &unknown);
  }
  if (!v.ok()) {
    respond(ValidationProblem(req, v.errors()));
    return false;
  }
  const core::Json* reason = body.contains("reason") ? &body["reason"] : nullptr;
  if (reason == nullptr || !reason->is_string() || reason->get<std::string>().empty() ||
      reason->get<std::string>().size() > kMaxReason) {
    respond(Problem(req, "PII_ACCESS_REASON_REQUIRED",
                    "reason (1-2000 characters) must say why the plaintext is needed; it is recorded"));
    return false;
  }
  if (unknown) {
    respond(Problem(req, "UNKNOWN_PII_FIELD", "fields names a field that is not a vault field"));
    return false;
  }
  if (!pp::IsKnownPurpose(*purpose)) {
    respond(Problem(req, "PURPOSE_UNKNOWN", "purpose is not in the purpose catalogue (docs/persons.md#purposes)"));
    return false;
  }
  out.purpose = *purpose;
  out.reason = reason->get<std::string>();
  return true;
}

// The answer of a decrypt (PersonDecryptResponse): the fields opened, once the reveal is recorded.
HttpResponse DecryptAnswer(Runtime& rt, const AuthContext& a, const std::string& id, const std::vector<std::string>& fields,
                           const HttpRequest& slim) {
  auto values = OpenFields(rt, a, id, fields);
  if (!values.ok()) return StatusToProblem(slim, values.status());
  return JsonResponse(200, {{"object", "person.decrypt"}, {"personId", id}, {"fields", *values}});
}

// The fields a client token's spend reveals: the token's, or the subset its (optional) body names;
// nullopt once answered.
std::optional<std::vector<std::string>> TokenFields(const HttpRequest& req, std::vector<std::string> fields,
                                                    const Respond& respond) {
  if (req.body.empty()) return fields;
  auto body = JsonBody(req, respond);
  if (!body) return std::nullopt;
  Validator v(*body);
  v.Skip("fields");
  v.Skip("purpose");  // the token's purpose and reason apply; these are ignored
  v.Skip("reason");
  v.RejectUnknown();
  bool unknown = false;
  if (body->contains("fields")) fields = FieldNames((*body)["fields"], v, &unknown);
  std::optional<HttpResponse> refused;
  if (!v.ok()) refused = ValidationProblem(req, v.errors());
  else if (unknown) refused = Problem(req, "UNKNOWN_PII_FIELD", "fields names a field that is not a vault field");
  if (refused) {
    respond(std::move(*refused));
    return std::nullopt;
  }
  return fields;
}

// The reason the token was issued with, for the access its spend records: opened from the
// issue's sealed words (a token issued before they were sealed kept them in clear).
core::Result<std::string> TokenReason(Runtime& rt, const AuthContext& a, const std::string& person,
                                      const core::Json& spent) {
  const std::string sealed = core::StringOr(spent, "reasonSealed");
  if (sealed.empty()) return core::StringOr(spent, "reason");
  SVC_ASSIGN_OR_RETURN(auto opened, pp::OpenPersonText(rt.key_store(), a.tenant_id, a.environment, person, "reason", sealed));
  if (!opened.has_value()) return core::FailedPrecondition("the person's data was erased", "PERSON_FORGET_PENDING");
  return std::move(*opened);
}

// A browser spends a client token: the token's fields (or a subset named in `fields`), its
// purpose and reason; the spend is decided once on the token's aggregate, then recorded against
// the budget like any reveal.
void DecryptWithToken(Runtime& rt, const PersonsOptions& o, ApiCall& call, Respond respond) {
  auto opened = OpenPersonCall(rt, call, respond, /*with_body=*/false);
  if (!opened) return;
  auto& [req, a, id, row, no_body] = *opened;
  auto token = ReadView(rt, PV::Abs(PV::ClientToken(TeOf(a), a.key_id)));
  if (!token.ok()) return respond(StatusToProblem(req, token.status()));
  if (!token->has_value()) return respond(Problem(req, "CLIENT_TOKEN_INVALID", "the client token is not valid"));
  auto chosen = TokenFields(req, (**token).value("fields", std::vector<std::string>{}), respond);
  if (!chosen) return;
  const std::vector<std::string>& fields = *chosen;
  // Consents and grants as they stand now (a grant or consent revoked since the issue applies).
  if (auto st = CheckRevealAllowed(rt, a, *row, fields, core::StringOr(**token, "purpose")); !st.ok()) {
    return respond(StatusToProblem(req, st));
  }
  std::string bearer = BearerOf(req);
  ps::UseClientToken use;
  use.secret_hash = core::Sha256Hex(bearer.substr(bearer.find('.') + 1));
  core::SecureZero(bearer);
  use.person_id = id;
  use.fields = fields;
  commands::CommandContext ctx = Context(rt, call);
  ctx.actor = {"client_token", a.key_id};
  auto cmd = commands::MakeCommand<ps::ClientTokenDecider>(a.tenant_id, a.key_id, ps::ClientTokenCommand(use), ctx);
  auto kept = Keep(call);  // the reveal is recorded after the spend
  rt.writer().Execute(std::move(cmd), [&rt, &o, kept, a = a, id = id, fields, slim = SlimRequest(req),
                                       respond = std::move(respond)](core::Result<commands::CommandOutcome> r) mutable {
    if (!r.ok()) return respond(StatusToProblem(slim, r.status()));
    auto reason = TokenReason(rt, a, id, r->result);
    if (!reason.ok()) return respond(StatusToProblem(slim, reason.status()));
    auto access = AccessBy(a, id, "client_token", fields, core::StringOr(r->result, "purpose"), *reason);
    RecordThen(rt, o, kept->call, {access}, [&rt, a, id, fields, slim]() { return DecryptAnswer(rt, a, id, fields, slim); },
               std::move(respond));
  });
}

void Decrypt(Runtime& rt, const PersonsOptions& o, ApiCall& call, Respond respond) {
  if (call.auth.key_type == "client_token") return DecryptWithToken(rt, o, call, std::move(respond));
  auto opened = OpenPersonCall(rt, call, respond, /*with_body=*/true);
  if (!opened) return;
  auto& [req, a, id, row, body] = *opened;
  Validator v(*body);
  RevealRequest rr;
  if (!ParseReveal(req, *body, v, rr, respond)) return;
  if (auto st = CheckRevealAllowed(rt, a, *row, rr.fields, rr.purpose); !st.ok()) return respond(StatusToProblem(req, st));
  auto access = AccessBy(a, id, "decrypt", rr.fields, rr.purpose, rr.reason);
  RecordThen(rt, o, call, {access},
             [&rt, a = a, id = id, fields = rr.fields, slim = SlimRequest(req)]() { return DecryptAnswer(rt, a, id, fields, slim); },
             std::move(respond));
}

// The body of a batch decrypt: its person ids (as sent) and the reveal; nullopt once answered.
std::optional<std::pair<core::Json, RevealRequest>> ParseBatch(const HttpRequest& req, const Respond& respond) {
  auto body = JsonBody(req, respond);
  if (!body) return std::nullopt;
  // The size is checked by hand before anything else (spec, Limits): 413, not a 422.
  const core::Json ids = body->value("personIds", core::Json());
  if (ids.is_array() && ids.size() > kMaxBatch) {
    respond(Problem(req, "BATCH_TOO_LARGE", "personIds holds at most 100 ids; split the batch", {{"maximum", kMaxBatch}}));
    return std::nullopt;
  }
  Validator v(*body);
  v.Skip("personIds");
  if (ids.is_null()) {
    v.Add({"personIds", "/personIds", "required", "personIds is required (1-100 person ids)"});
  } else if (!ids.is_array() || ids.empty()) {
    v.Add({"personIds", "/personIds", "invalid_type", "personIds must be an array of 1-100 person ids"});
  }
  RevealRequest rr;
  if (!ParseReveal(req, *body, v, rr, respond)) return std::nullopt;
  return std::pair{ids, std::move(rr)};
}

// An item of a batch's `errors`.
core::Json BatchError(const std::string& person, const core::Status& st) {
  return {{"personId", person}, {"error", {{"code", st.api_code()}, {"reason", st.message()}}}};
}

// The persons of a batch the reveal may read (each once, in order), and the errors of the others.
std::pair<std::vector<std::string>, core::Json> BatchTargets(Runtime& rt, const AuthContext& a, const core::Json& ids,
                                                             const RevealRequest& rr) {
  core::Json errors = core::Json::array();
  std::vector<std::string> persons;
  std::set<std::string> seen;
  for (const auto& raw : ids) {
    const std::string sent = raw.is_string() ? raw.get<std::string>() : core::DumpJson(raw);
    auto person = raw.is_string() ? ActivePersonRow(rt, a, sent)
                                  : core::Result<core::Json>(core::InvalidArgument("a person id is a string", "INVALID_ID"));
    core::Status st = person.ok() ? CheckRevealAllowed(rt, a, *person, rr.fields, rr.purpose) : person.status();
    if (!st.ok()) errors.push_back(BatchError(sent, st));
    else if (seen.insert(sent).second) persons.push_back(sent);
  }
  return {std::move(persons), std::move(errors)};
}

void BatchDecrypt(Runtime& rt, const PersonsOptions& o, ApiCall& call, Respond respond) {
  const AuthContext a = call.auth;
  auto parsed = ParseBatch(*call.request, respond);
  if (!parsed) return;
  const auto& [ids, rr] = *parsed;
  auto [persons, errors] = BatchTargets(rt, a, ids, rr);
  auto answer = [&rt, a, persons = persons, errors = errors, fields = rr.fields]() {
    core::Json data = core::Json::array();
    core::Json errs = errors;
    for (const auto& id : persons) {
      auto values = OpenFields(rt, a, id, fields);
      if (values.ok()) data.push_back({{"personId", id}, {"fields", *values}});
      else errs.push_back(BatchError(id, values.status()));
    }
    return JsonResponse(200, {{"object", "list"}, {"data", data}, {"errors", errs}});
  };
  if (persons.empty()) return respond(answer());  // nobody to reveal: no budget, no access
  std::vector<ps::PiiAccessed> accesses;
  for (const auto& id : persons) accesses.push_back(AccessBy(a, id, "batch_decrypt", rr.fields, rr.purpose, rr.reason));
  RecordThen(rt, o, call, std::move(accesses), std::move(answer), std::move(respond));
}

// The fields `expand` names (pii: every field), whether it names one the vault does not hold; a
// malformed item is BAD_REQUEST.
core::Result<std::pair<std::vector<std::string>, bool>> ExpandFields(const std::string& expand) {
  std::vector<std::string> fields;
  bool unknown = false;
  size_t start = 0;
  while (start <= expand.size()) {
    size_t comma = expand.find(',', start);
    if (comma == std::string::npos) comma = expand.size();
    const std::string item = expand.substr(start, comma - start);
    start = comma + 1;
    if (item == "pii") {
      fields.assign(std::begin(ps::kPiiFieldNames), std::end(ps::kPiiFieldNames));
    } else if (item.rfind("pii.", 0) != 0) {
      return core::InvalidArgument("expand takes pii or pii.<field>, comma-separated", "BAD_REQUEST");
    } else if (pp::FindPiiField(item.substr(4)) == nullptr) {
      unknown = true;
    } else if (std::find(fields.begin(), fields.end(), item.substr(4)) == fields.end()) {
      fields.push_back(item.substr(4));
    }
  }
  return std::pair{std::move(fields), unknown};
}

// GET /v1/persons/{id}?expand=pii | pii.<field>,…
void Expand(Runtime& rt, const PersonsOptions& o, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  const AuthContext a = call.auth;
  const std::string id = req.path_params["person_id"];
  auto expanded = ExpandFields(ParseQuery(req.query)["expand"]);
  if (!expanded.ok()) return respond(StatusToProblem(req, expanded.status()));
  const auto& [fields, unknown] = *expanded;
  if (!commands::tenancy::ScopesAllow(a.scopes, "persons:read_pii")) {
    core::Status st = core::PermissionDenied("expanding personal data needs the scope persons:read_pii",
                                             "INSUFFICIENT_SCOPE");
    st.WithExtension("requiredScope", "persons:read_pii");
    return respond(StatusToProblem(req, st));
  }
  std::string reason = req.Header("service-reason");
  if (reason.empty() || reason.size() > kMaxReason) {
    return respond(Problem(req, "REASON_REQUIRED",
                           "a Service-Reason header (1-2000 characters) must say why the plaintext is needed"));
  }
  if (unknown) return respond(Problem(req, "UNKNOWN_PII_FIELD", "expand names a field that is not a vault field"));
  auto row = PathPerson(rt, call, respond);
  if (!row) return;
  std::string purpose = req.Header("service-purpose");
  if (!purpose.empty() && !pp::IsKnownPurpose(purpose)) {
    return respond(Problem(req, "PURPOSE_UNKNOWN", "Service-Purpose is not in the purpose catalogue"));
  }
  if (auto st = CheckRevealAllowed(rt, a, *row, fields, purpose); !st.ok()) return respond(StatusToProblem(req, st));
  RecordThen(rt, o, call, {AccessBy(a, id, "expand", fields, purpose, reason)},
             [&rt, a = a, id = id, fields = fields, slim = SlimRequest(req)]() {
               auto detail = MaskedDetail(rt, a, id);
               if (!detail.ok()) return StatusToProblem(slim, detail.status());
               auto values = OpenFields(rt, a, id, fields);
               if (!values.ok()) return StatusToProblem(slim, values.status());
               for (auto it = values->begin(); it != values->end(); ++it) {
                 if (!it->is_null()) (*detail)["pii"][it.key()] = *it;
               }
               return JsonResponse(200, *detail);
             },
             std::move(respond));
}

// The body of a client token's issue: the reveal it allows, its purpose (optional on a token:
// recorded when given) and its lifetime; nullopt once answered.
std::optional<std::tuple<RevealRequest, std::optional<std::string>, int64_t>> ParseTokenRequest(
    const HttpRequest& req, const core::Json& body, const Respond& respond) {
  std::optional<std::string> purpose;
  core::Json reveal_part = body;
  const core::Json given = body.value("purpose", core::Json());
  if (given.is_string()) purpose = given.get<std::string>();
  if (given.is_null()) reveal_part["purpose"] = "identity_verification";
  Validator v(reveal_part);
  v.Enum("scope", false, {"decrypt"});
  const std::optional<int64_t> ttl = v.Integer("ttlSeconds", false, 1, ps::kMaxClientTokenSeconds);
  RevealRequest rr;
  if (!ParseReveal(req, reveal_part, v, rr, respond)) return std::nullopt;  // checks a given purpose too
  return std::tuple{std::move(rr), purpose, ttl.value_or(ps::kMaxClientTokenSeconds)};
}

// A token's issue: what it allows, and the caller's words sealed under the person's key (they
// leave with it).
core::Result<ps::IssueClientToken> TokenIssue(Runtime& rt, const AuthContext& a, const std::string& person,
                                              const RevealRequest& rr, const std::string& purpose, int64_t expires_micros,
                                              const std::string& secret) {
  ps::IssueClientToken issue;
  SVC_ASSIGN_OR_RETURN(issue.issued.reason_sealed,
                       pp::SealPersonText(rt.key_store(), a.tenant_id, a.environment, person, "reason", rr.reason));
  issue.issued.person_id = person;
  issue.issued.application_id = a.application_id;
  issue.issued.issued_by = a.key_id;
  issue.issued.fields = rr.fields;
  issue.issued.purpose = purpose;
  issue.issued.secret_hash = core::Sha256Hex(secret);
  issue.issued.expires_micros = expires_micros;
  return issue;
}

// POST …/client-token: a single-use token for a browser. Issuing reveals nothing (no budget);
// spending it does.
void IssueToken(Runtime& rt, ApiCall& call, Respond respond) {
  auto opened = OpenPersonCall(rt, call, respond, /*with_body=*/true);
  if (!opened) return;
  auto& [req, a, id, row, body] = *opened;
  auto parsed = ParseTokenRequest(req, *body, respond);
  if (!parsed) return;
  auto& [rr, purpose, ttl] = *parsed;
  // The token can only ever reveal what the issuing application may (checked again when spent).
  if (auto st = CheckRevealAllowed(rt, a, *row, rr.fields, purpose.value_or("")); !st.ok()) {
    return respond(StatusToProblem(req, st));
  }
  std::string token_id = rt.ids().NewIdString(core::IdKind::kClientToken);
  std::string secret = core::Base64UrlEncode(core::RandomBytes(32));
  commands::CommandContext ctx = Context(rt, call);
  auto issue = TokenIssue(rt, a, id, rr, purpose.value_or(""), ctx.now.micros + ttl * 1'000'000, secret);
  if (!issue.ok()) return respond(StatusToProblem(req, issue.status()));
  auto cmd = commands::MakeCommand<ps::ClientTokenDecider>(a.tenant_id, token_id, ps::ClientTokenCommand(*issue), ctx);
  cmd.fresh_id = true;
  RunThenRender(rt, req, std::move(cmd), {PV::kName},
                [&rt, a = a, token_id, secret, slim = SlimRequest(req)](const commands::CommandOutcome&) {
                  auto tok = ReadView(rt, PV::Abs(PV::ClientToken(TeOf(a), token_id)));
                  if (!tok.ok() || !tok->has_value()) {
                    return StatusToProblem(slim, core::Unavailable("the token is not readable yet; retry"));
                  }
                  core::Json out = **tok;
                  out.erase("usedAt");
                  out.erase("revokedAt");
                  out["token"] = token_id + "." + secret;
                  return JsonResponse(201, out);
                },
                std::move(respond));
}

void RevokeToken(Runtime& rt, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  const AuthContext a = call.auth;
  const std::string id = req.path_params["person_id"];
  const std::string token_id = req.path_params["token_id"];
  auto row = PersonRow(rt, a, id);
  if (!row.ok()) return respond(StatusToProblem(req, row.status()));
  if (auto st = core::ValidateId(core::IdKind::kClientToken, token_id); !st.ok()) {
    return respond(StatusToProblem(req, st));
  }
  auto tok = ReadView(rt, PV::Abs(PV::ClientToken(TeOf(a), token_id)));
  if (!tok.ok()) return respond(StatusToProblem(req, tok.status()));
  if (!tok->has_value() || core::StringOr(**tok, "personId") != id) {
    return respond(Problem(req, "CLIENT_TOKEN_NOT_FOUND", "no such client token for this person"));
  }
  auto cmd = commands::MakeCommand<ps::ClientTokenDecider>(a.tenant_id, token_id,
                                                           ps::ClientTokenCommand(ps::RevokeClientToken{id}),
                                                           Context(rt, call));
  RunThenRender(rt, req, std::move(cmd), {PV::kName},
                [&rt, a, id, token_id](const commands::CommandOutcome& out) {
                  return JsonResponse(200, {{"id", token_id},
                                            {"object", "person.client_token"},
                                            {"personId", id},
                                            {"revokedAt", out.result.is_object() ? out.result.value("revokedAt", core::Json(nullptr))
                                                                                  : core::Json(nullptr)}});
                },
                std::move(respond));
}

// POST …/integrity: does the vault hold the value the caller holds? The caller sends, per field,
// hex(HMAC-SHA256(signingKey, value as normalised)); each is compared in constant time with the
// same computed over the sealed value, which never leaves. A reveal of one bit per field: audited
// (redaction "compared") and budgeted.
struct IntegrityRequest {
  std::map<std::string, std::string> expected;  // field -> lowercase hex MAC
  std::string key;
  std::string reason;
};

// The body of an integrity check, or nullopt once answered.
std::optional<IntegrityRequest> ParseIntegrity(const HttpRequest& req, const core::Json& body, const Respond& respond) {
  Validator v(body);
  const core::Json* fields = v.Object("fields", 64 * 1024);
  auto signing_key = v.String("signingKey", true, 512);
  auto reason = v.String("reason", false, kMaxReason);
  v.RejectUnknown();
  if (!body.contains("fields") || body["fields"].is_null()) {
    v.Add({"fields", "/fields", "required", "fields is required: per field, the hex HMAC-SHA256 you computed"});
  }
  IntegrityRequest r;
  bool unsupported = false;
  for (auto it = fields != nullptr ? fields->begin() : body.end(); fields != nullptr && it != fields->end(); ++it) {
    if (pp::FindPiiField(it.key()) == nullptr) {
      unsupported = true;
    } else if (!it->is_string() || it->get<std::string>().size() != 64) {
      v.Add({"fields." + it.key(), "/fields/" + JsonPointerEscape(it.key()), "invalid_format",
             "each value is the 64-hex-digit HMAC-SHA256 of the field's normalised value"});
    } else {
      std::string h = it->get<std::string>();
      for (auto& c : h) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      r.expected[it.key()] = h;
    }
  }
  core::Status refused = core::Status::Ok();
  if (!v.ok()) {
    respond(ValidationProblem(req, v.errors()));
    return std::nullopt;
  } else if (r.expected.empty() && !unsupported) {
    refused = core::InvalidArgument("fields names no field to compare", "INTEGRITY_NO_FIELDS");
  } else if (unsupported) {
    refused = core::InvalidArgument("fields names a field that is not a vault field", "INTEGRITY_FIELD_UNSUPPORTED");
  }
  auto key = refused.ok() ? pp::IntegritySigningKey(*signing_key) : core::Result<std::string>(refused);
  if (!key.ok()) {
    respond(StatusToProblem(req, key.status()));
    return std::nullopt;
  }
  r.key = std::move(*key);
  r.reason = reason.value_or("");
  return r;
}

// POST …/integrity: a reveal of one bit per field (pipeline/persons/integrity.h), audited
// (redaction "compared") and budgeted.
void Integrity(Runtime& rt, const PersonsOptions& o, ApiCall& call, Respond respond) {
  auto opened = OpenPersonCall(rt, call, respond, /*with_body=*/true);
  if (!opened) return;
  auto& [req, a, id, row, body] = *opened;
  auto r = ParseIntegrity(req, *body, respond);
  if (!r) return;
  std::vector<std::string> names;
  for (const auto& [f, h] : r->expected) names.push_back(f);
  if (auto st = CheckRevealAllowed(rt, a, *row, names, std::nullopt); !st.ok()) return respond(StatusToProblem(req, st));
  ps::PiiAccessed access = AccessBy(a, id, "integrity", names, "", r->reason);
  access.redaction = "compared";
  RecordThen(rt, o, call, {access},
             [&rt, a = a, id = id, names, r = std::move(*r), slim = SlimRequest(req)]() mutable {
               auto values = OpenFields(rt, a, id, names);
               if (!values.ok()) return StatusToProblem(slim, values.status());
               core::Json results = pp::CompareIntegrity(*values, r.expected, r.key);
               core::SecureZero(r.key);
               return JsonResponse(200, {{"id", id}, {"object", "person.integrity"}, {"results", results}});
             },
             std::move(respond));
}

// POST …/export: the ARCO access bundle — every held field in plaintext, its provenance, the
// person's verification sessions, the metadata of their captures (no bytes) and their consents
// with the evidence given for each (an e.firma's signed text, signature and certificate). Audited with
// purpose arco_request and budgeted as one person.
// The ARCO access bundle (PersonExport) of the person: the `held` fields opened, provenance,
// metadata, references, verification sessions and the metadata of their captures.
core::Result<core::Json> ArcoBundle(Runtime& rt, const AuthContext& a, const std::string& id,
                                    const std::vector<std::string>& held, const std::string& bundle_id,
                                    const std::string& generated_at) {
  SVC_ASSIGN_OR_RETURN(auto values, OpenFields(rt, a, id, held));
  SVC_ASSIGN_OR_RETURN(auto detail, MaskedDetail(rt, a, id));
  SVC_ASSIGN_OR_RETURN(auto sessions, PersonSessions(rt, a, id));
  SVC_ASSIGN_OR_RETURN(auto media, PersonMedia(rt, a, id));
  SVC_ASSIGN_OR_RETURN(auto consents, pp::ConsentsWithEvidence(rt.store(), rt.key_store(), {a.tenant_id, a.environment, id}));
  return core::Json{{"object", "person.export"},
                    {"id", bundle_id},
                    {"personId", id},
                    {"generatedAt", generated_at},
                    {"pii", values},
                    {"piiProvenance", detail["piiProvenance"]},
                    {"metadata", detail["metadata"]},
                    {"externalRefs", detail["externalRefs"]},
                    {"verificationSessions", sessions},
                    {"media", media},
                    {"consents", consents}};
}

// The bundle is evidence (docs/persons.md#export-receipts): once the access is recorded it is
// built, and its digest recorded (evidence.recorded) before it is answered, so that a trusted
// timestamp can be asked for it and its receipt shown. A bundle whose record fails is not answered.
void AnswerBundle(Runtime& rt, const AuthContext& a, const std::string& id, const std::vector<std::string>& held,
                  const std::string& arco_request_id, const HttpRequest& slim, commands::CommandContext ctx,
                  Respond answer) {
  const std::string bundle_id = rt.ids().NewIdString(core::IdKind::kPersonExport);
  const std::string generated_at = core::FormatRfc3339(rt.clock().Now());
  auto bundle = ArcoBundle(rt, a, id, held, bundle_id, generated_at);
  if (!bundle.ok()) return answer(StatusToProblem(slim, bundle.status()));
  HttpResponse r = JsonResponse(200, *bundle);
  bundle->clear();
  commands::audit::EvidenceRecorded e;
  e.kind = commands::audit::kPersonExport;
  e.subject = bundle_id;
  e.digest = core::Sha256Hex(r.body);
  e.size_bytes = static_cast<int64_t>(r.body.size());
  e.person_id = id;
  e.generated_at = generated_at;
  e.arco_request_id = arco_request_id;  // the ARCO access request it fulfils, recorded on it once durable
  r.headers.emplace_back("Content-Digest", "sha-256=:" + core::Base64Encode(core::Sha256(r.body)) + ":");
  r.headers.emplace_back("Cache-Control", "no-store");
  ctx.idempotency_key.clear();
  rt.writer().Execute(
      commands::MakeCommand<commands::audit::TimestampsDecider>(
          a.tenant_id, commands::audit::TimestampsId(e.kind, bundle_id), commands::audit::RecordEvidence{e}, ctx),
      [slim, r = std::move(r), answer = std::move(answer)](core::Result<commands::CommandOutcome> done) mutable {
        if (!done.ok()) {
          core::SecureZero(r.body);
          return answer(StatusToProblem(slim, done.status()));
        }
        answer(std::move(r));
      });
}

void Export(Runtime& rt, const PersonsOptions& o, ApiCall& call, Respond respond) {
  auto opened = OpenPersonCall(rt, call, respond, /*with_body=*/false);
  if (!opened) return;
  auto& [req, a, id, row, no_body] = *opened;
  std::optional<std::string> reason;
  std::string arc;
  if (!req.body.empty()) {
    auto body = ParseJsonObject(req.body);
    if (!body.ok()) return respond(StatusToProblem(req, body.status()));
    Validator v(*body);
    reason = v.String("reason", false, kMaxReason);
    arc = v.OpaqueId("arcoRequestId", "arc").value_or("");
    v.RejectUnknown();
    if (!v.ok()) return respond(ValidationProblem(req, v.errors()));
  }
  if (auto st = arc.empty() ? core::Status::Ok() : projections::CheckArcoFulfilment(rt.store(), TeOf(a), arc, "export", id); !st.ok()) {
    return respond(StatusToProblem(req, st));
  }
  std::vector<std::string> held;
  for (auto name : ps::kPiiFieldNames) {
    if (row->value(std::string(name) + "Provided", false)) held.emplace_back(name);
  }
  if (auto st = CheckRevealAllowed(rt, a, *row, held, std::string("arco_request")); !st.ok()) {
    return respond(StatusToProblem(req, st));
  }
  RecordThenAsync(rt, o, call, {AccessBy(a, id, "export", held, "arco_request", reason.value_or(""))},
                  [&rt, a = a, id = id, held, arc, slim = SlimRequest(req), ctx = Context(rt, call)](Respond answer) mutable {
                    AnswerBundle(rt, a, id, held, arc, slim, std::move(ctx), std::move(answer));
                  },
                  std::move(respond));
}

// GET …/exports/{export_id}: the receipt of a bundle answered by the export (no value of it).
void ExportReceipt(Runtime& rt, const PersonsOptions& o, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  const AuthContext& a = call.auth;
  const std::string id = req.path_params["person_id"];
  auto person = PersonRow(rt, a, id);
  if (!person.ok()) return respond(StatusToProblem(req, person.status()));
  auto receipt = pipeline::audit::ExportReceipt(rt.store(), TeOf(a), id, req.path_params["export_id"],
                                                o.evidence_timestamps);
  if (!receipt.ok()) return respond(StatusToProblem(req, receipt.status()));
  respond(JsonResponse(200, *receipt));
}

// POST …/reauth-face: the 1:1 match runs first (nothing leaves yet), then the reveal is recorded
// against the budget, then the result is answered.
// The selfie of a reauth-face body, decoded, and its type; nullopt once answered.
std::optional<std::pair<std::string, std::string>> ParseReauth(const HttpRequest& req, const Respond& respond) {
  auto body = JsonBody(req, respond);
  if (!body) return std::nullopt;
  Validator v(*body);
  auto selfie_b64 = v.String("selfieBase64", true, 16 * 1024 * 1024);
  auto mime = v.Enum("mime", false, {"image/jpeg", "image/png"});
  v.RejectUnknown();
  std::string selfie;
  if (selfie_b64.has_value()) {
    auto decoded = core::Base64Decode(*selfie_b64);
    if (!decoded.ok() || decoded->empty()) {
      v.Add({"selfieBase64", "/selfieBase64", "invalid_format", "selfieBase64 must be a base64 JPEG or PNG"});
    } else {
      selfie = std::move(*decoded);
    }
  }
  if (!v.ok()) {
    respond(ValidationProblem(req, v.errors()));
    return std::nullopt;
  }
  std::string type = mime.value_or(selfie.rfind("\x89PNG", 0) == 0 ? "image/png" : "image/jpeg");
  return std::pair{std::move(selfie), std::move(type)};
}

void ReauthFace(Runtime& rt, const PersonsOptions& o, ApiCall& call, Respond respond) {
  auto opened = OpenPersonCall(rt, call, respond, /*with_body=*/false);
  if (!opened) return;
  auto& [req, a, id, row, no_body] = *opened;
  // A match against the person's face: no vault field, the purpose its access event records.
  if (auto st = CheckRevealAllowed(rt, a, *row, {}, std::string("identity_verification")); !st.ok()) {
    return respond(StatusToProblem(req, st));
  }
  auto selfie = ParseReauth(req, respond);
  if (!selfie) return;
  auto ref = pp::ReferenceFace(rt.store(), rt.key_store(), a.tenant_id, a.environment, id);
  if (!ref.ok()) return respond(StatusToProblem(req, ref.status()));
  if (o.engine == nullptr) return respond(Problem(req, "REAUTH_ENGINE_UNAVAILABLE", "no face engine runs on this server"));
  auto kept = Keep(call);  // the match runs on the work pool
  auto work = [&rt, &o, a = a, id = id, kept, ref = std::move(*ref), selfie = std::move(*selfie), respond]() mutable {
    pipeline::verification::EngineContext ectx;
    ectx.environment = a.environment;
    const pipeline::verification::Capture face{"", "selfie", selfie.second, std::move(selfie.first), {}};
    auto score = o.engine->MatchReference(face, ref.embedding, ref.model, ectx);
    auto result = pp::ReauthAnswer(score, ref, o.engine->AttackSignals(&face, nullptr, ectx));
    if (!result.ok()) return respond(StatusToProblem(kept->req, result.status()));
    ps::PiiAccessed access = AccessBy(a, id, "reauth", {"face"}, "identity_verification", "");
    access.redaction = "biometric";
    RecordThen(rt, o, kept->call, {access}, [answer = *result]() { return JsonResponse(200, answer); }, respond);
  };
  if (o.work_pool == nullptr) return work();
  o.work_pool->Post(std::move(work));
}

}  // namespace

RevealHandler RevealOnRead(Runtime* rt, const PersonsOptions& options) {
  const PersonsOptions* o = &options;
  return [rt, o](ApiCall& c, Respond respond) { Expand(*rt, *o, c, std::move(respond)); };
}

std::vector<ApiRoute> RevealRoutes(Runtime* r, const PersonsOptions& options) {
  std::vector<ApiRoute> routes;
  const PersonsOptions* o = &options;
  const std::string base = "/v1/persons";
  const std::string tag = "Persons (vault)";
  const std::vector<std::string> reveal = {"VALIDATION_ERROR", "PII_ACCESS_REASON_REQUIRED", "UNKNOWN_PII_FIELD",
                                           "PURPOSE_UNKNOWN", "PII_DECRYPT_CAP_REACHED"};
  routes.push_back(ApiRoute{
      .method = "POST", .path = base + "/batch-decrypt", .operation_id = "batchDecryptPersons", .tag = tag,
      .scope = "persons:read_pii", .family = RateFamily::kReveal, .versioned = true, .has_body = true,
      .request_schema = "BatchDecryptRequest", .response_schema = "BatchDecryptResponse",
      .error_codes = Codes({reveal, {"BATCH_TOO_LARGE"}}),
      .handler = [r, o](ApiCall& c, Respond respond) { BatchDecrypt(*r, *o, c, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "POST", .path = base + "/{person_id}/decrypt", .operation_id = "decryptPerson", .tag = tag,
      .scope = "persons:read_pii", .family = RateFamily::kReveal, .versioned = true, .has_body = true,
      .request_schema = "DecryptRequest", .response_schema = "DecryptResponse",
      .error_codes = Codes({{"INVALID_ID", "PERSON_NOT_FOUND", "PERSON_PURGED", "PERSON_ALREADY_MERGED",
                             "CLIENT_TOKEN_INVALID", "FIELD_NOT_IN_TOKEN_SCOPE"}, reveal}),
      .handler = [r, o](ApiCall& c, Respond respond) { Decrypt(*r, *o, c, std::move(respond)); }});
  routes.back().client_token = true;
  routes.push_back(ApiRoute{
      .method = "POST", .path = base + "/{person_id}/client-token", .operation_id = "issuePersonClientToken",
      .tag = tag, .scope = "persons:read_pii", .family = RateFamily::kWrite, .versioned = true, .has_body = true,
      .request_schema = "ClientTokenCreateRequest", .success_status = 201,
      .response_schema = "ClientTokenIssueResponse",
      .error_codes = {"INVALID_ID", "PERSON_NOT_FOUND", "PERSON_PURGED", "PERSON_ALREADY_MERGED", "VALIDATION_ERROR",
                      "PII_ACCESS_REASON_REQUIRED", "UNKNOWN_PII_FIELD", "PURPOSE_UNKNOWN"},
      .handler = [r](ApiCall& c, Respond respond) { IssueToken(*r, c, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "POST", .path = base + "/{person_id}/client-token/{token_id}/revoke",
      .operation_id = "revokePersonClientToken", .tag = tag, .scope = "persons:write", .family = RateFamily::kWrite, .versioned = true,
      .response_schema = "ClientTokenRevokeResponse",
      .error_codes = {"INVALID_ID", "PERSON_NOT_FOUND", "CLIENT_TOKEN_NOT_FOUND"},
      .handler = [r](ApiCall& c, Respond respond) { RevokeToken(*r, c, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "POST", .path = base + "/{person_id}/integrity", .operation_id = "checkPersonIntegrity",
      .tag = tag, .scope = "persons:read_pii", .family = RateFamily::kReveal, .versioned = true, .has_body = true,
      .request_schema = "IntegrityRequest", .response_schema = "IntegrityResponse",
      .error_codes = {"INVALID_ID", "PERSON_NOT_FOUND", "PERSON_PURGED", "PERSON_ALREADY_MERGED", "VALIDATION_ERROR",
                      "INTEGRITY_NO_FIELDS", "INTEGRITY_FIELD_UNSUPPORTED", "INTEGRITY_SIGNING_KEY_INVALID",
                      "PII_DECRYPT_CAP_REACHED"},
      .handler = [r, o](ApiCall& c, Respond respond) { Integrity(*r, *o, c, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "POST", .path = base + "/{person_id}/export", .operation_id = "exportPerson", .tag = tag,
      .scope = "persons:read_pii", .family = RateFamily::kReveal, .versioned = true, .has_body = true,
      .request_schema = "PersonExportRequest", .response_schema = "PersonExportBundle",
      .error_codes = {"INVALID_ID", "PERSON_NOT_FOUND", "PERSON_PURGED", "PERSON_ALREADY_MERGED", "VALIDATION_ERROR",
                      "PII_DECRYPT_CAP_REACHED", "PURPOSE_OPPOSED", "ARCO_REQUEST_NOT_FOUND", "ARCO_INVALID_TRANSITION",
                      "CONFLICT"},
      .handler = [r, o](ApiCall& c, Respond respond) { Export(*r, *o, c, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "GET", .path = base + "/{person_id}/exports/{export_id}", .operation_id = "getPersonExportReceipt",
      .tag = tag, .scope = "persons:read", .family = RateFamily::kRead, .versioned = true,
      .response_schema = "PersonExportReceipt",
      .error_codes = {"INVALID_ID", "PERSON_NOT_FOUND", "EXPORT_NOT_FOUND"},
      .handler = [r, o](ApiCall& c, Respond respond) { ExportReceipt(*r, *o, c, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "POST", .path = base + "/{person_id}/reauth-face", .operation_id = "reauthPersonFace", .tag = tag,
      .scope = "persons:read_pii", .family = RateFamily::kReveal, .versioned = true, .has_body = true,
      .request_schema = "ReauthFaceRequest", .response_schema = "ReauthFaceResult",
      .error_codes = {"INVALID_ID", "PERSON_NOT_FOUND", "PERSON_PURGED", "PERSON_ALREADY_MERGED", "VALIDATION_ERROR",
                      "REAUTH_MEDIA_UNAVAILABLE", "REAUTH_ENGINE_UNAVAILABLE", "PII_DECRYPT_CAP_REACHED"},
      .handler = [r, o](ApiCall& c, Respond respond) { ReauthFace(*r, *o, c, std::move(respond)); }});
  return routes;
}

}  // namespace svc::api::persons
