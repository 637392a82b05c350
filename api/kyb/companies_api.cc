// /v1/companies: the KYB record (docs/kyb.md).
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "api/http/cursor_list.h"
#include "api/http/json_input.h"
#include "api/http/pagination.h"
#include "api/http/problem.h"
#include "api/http/write_path.h"
#include "api/kyb/routes.h"
#include "commands/kyb/company_decider.h"
#include "core/crypto.h"
#include "core/ids.h"
#include "pipeline/documents/checks.h"
#include "pipeline/kyb/company_verifier.h"
#include "pipeline/kyb/company_writes.h"
#include "projections/kyb/company_reads.h"
#include "projections/kyb/kyb_view.h"
#include "projections/persons/persons_view.h"

namespace svc::api::kyb {

namespace kc = commands::kyb;
namespace pk = pipeline::kyb;
using KV = projections::KybView;

std::string TeOf(const AuthContext& a) { return projections::TenantEnv(a.tenant_id, a.environment); }
pk::KybKeys KeysOf(Runtime& rt) { return pk::KybKeys::From(rt.seal_key(), &rt.key_store()); }

std::optional<core::Json> PathCompany(Runtime& rt, ApiCall& call, const Respond& respond) {
  const std::string te = TeOf(call.auth);
  return PathRow(rt, call, respond, "company_id", core::IdKind::kCompany,
                 [&te](const std::string& id) { return KV::Abs(KV::Company(te, id)); }, "COMPANY_NOT_FOUND",
                 "no such company");
}

bool NoBody(ApiCall& call, const Respond& respond, const std::string& operation) {
  HttpRequest& req = *call.request;
  if (req.body.empty()) return true;
  auto body = ParseJsonObject(req.body);
  if (!body.ok()) {
    respond(StatusToProblem(req, body.status()));
    return false;
  }
  if (body->empty()) return true;
  respond(ValidationProblem(req, {{body->begin().key(), "/" + JsonPointerEscape(body->begin().key()), "unknown_field",
                                   operation + " takes no body"}}));
  return false;
}

core::Json RenderHit(Runtime& rt, const core::Json& row) {
  const auto keys = KeysOf(rt);
  core::Json out = pk::OpenHitNames(keys, row);
  const std::string hit = core::StringOr(row, "id");
  core::Json reviews = core::Json::array();
  for (const auto& r : row.value("reviews", core::Json::array())) {
    core::Json o = r;
    o.erase("noteSealed");
    o["note"] = nullptr;
    if (r.contains("noteSealed") && r["noteSealed"].is_string()) {
      auto v = pk::OpenValue(keys, pk::KybAad(core::StringOr(row, "tenantId"), core::StringOr(row, "environment"),
                                               hit, "note"),
                             r["noteSealed"].get<std::string>());
      if (v.ok()) o["note"] = *v;
    }
    o.erase("eventId");
    reviews.push_back(o);
  }
  out["reviews"] = reviews;
  out.erase("tenantId");
  out.erase("environment");
  return out;
}

namespace {

std::string Open(const pk::KybKeys& keys, const core::Json& row, const std::string& record, const char* field,
                 const char* member) {
  const core::Json sealed = row.value(member, core::Json(nullptr));
  if (!sealed.is_string()) return "";
  auto v = pk::OpenValue(keys, pk::KybAad(core::StringOr(row, "tenantId"), core::StringOr(row, "environment"), record,
                                           field),
                         sealed.get<std::string>());
  return v.ok() ? *v : "";
}

// CompanyResponse from the stored row.
core::Json RenderCompany(const pk::KybKeys& keys, const core::Json& row) {
  const std::string id = core::StringOr(row, "id");
  core::Json out = {{"object", "company"},
                    {"id", id},
                    {"tenantId", row.value("tenantId", "")},
                    {"legalName", Open(keys, row, id, "legalName", "legalNameSealed")},
                    {"tradeName", core::StringOrNull(Open(keys, row, id, "tradeName", "tradeNameSealed"))},
                    {"country", row.value("country", "")},
                    {"rfc", core::StringOrNull(Open(keys, row, id, "rfc", "rfcSealed"))}};
  for (const char* f : {"taxId", "subjectKind", "legalForm", "activity", "industryCode", "incorporationDate",
                        "registryAuthority", "registryId", "registryStatus", "networkCompanyId", "claimStatus",
                        "status", "riskLevel", "riskScore", "verificationMethod", "verifiedAt", "createdAt",
                        "updatedAt"}) {
    out[f] = row.value(f, core::Json(nullptr));
  }
  return out;
}

core::Json RenderDetail(Runtime& rt, const pk::KybKeys& keys, const core::Json& row) {
  core::Json out = RenderCompany(keys, row);
  out["checks"] = row.value("checks", core::Json::array());
  out["documents"] = row.value("documents", core::Json::array());
  core::Json members = core::Json::array();
  // A member's or node's name; null once erased (docs/kyb.md#erasure).
  auto subjects = [&](const char* member) {
    core::Json list = core::Json::array();
    for (const auto& m : row.value(member, core::Json::array())) {
      core::Json o = m;
      auto name = pk::OpenSubjectName(keys, core::StringOr(row, "tenantId"), core::StringOr(row, "environment"),
                                      core::StringOr(row, "id"), core::StringOr(m, "id"), m);
      o.erase("nameSealed");
      o.erase("sealedWith");
      o["name"] = name.ok() && name->has_value() ? core::Json(**name) : core::Json(nullptr);
      if (!o.contains("forgottenAt")) o["forgottenAt"] = nullptr;
      list.push_back(o);
    }
    return list;
  };
  out["members"] = subjects("members");
  out["uboNodes"] = subjects("uboNodes");
  core::Json hits = core::Json::array();
  const std::string te = projections::TenantEnv(core::StringOr(row, "tenantId"), core::StringOr(row, "environment"));
  const std::string prefix = KV::Abs(KV::HitsOfCompany(te, core::StringOr(row, "id")));
  const int cf = rt.store().Cf(projections::kViewsCf);
  auto it = rt.store().NewIterator(cf, prefix, eventstore::PrefixEnd(prefix));
  for (it->Seek(prefix); it->Valid(); it->Next()) {
    auto h = ReadView(rt, KV::Abs(KV::Hit(te, it->key().substr(prefix.size()))));
    if (h.ok() && h->has_value()) hits.push_back(RenderHit(rt, **h));
  }
  out["screeningHits"] = hits;
  return out;
}

core::Json StatusOf(const core::Json& row) {
  return {{"id", row.value("id", "")},
          {"status", row.value("status", "")},
          {"claimStatus", row.value("claimStatus", "")},
          {"riskLevel", row.value("riskLevel", core::Json(nullptr))},
          {"riskScore", row.value("riskScore", core::Json(nullptr))}};
}

// A percentage: a number or a decimal string in (0, 100], at most 4 decimals; canonical text.
std::optional<std::string> ParsePct(const core::Json& v, std::string& error) {
  std::string text;
  if (v.is_number()) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6f", v.get<double>());
    text = buf;
  } else if (v.is_string()) {
    text = v.get<std::string>();
    if (text.empty() || text.size() > 12 || text.find_first_not_of("0123456789.") != std::string::npos ||
        std::count(text.begin(), text.end(), '.') > 1 || text.front() == '.' || text.back() == '.') {
      error = "ownershipPct must be a decimal number such as 25 or 12.5";
      return std::nullopt;
    }
  } else {
    error = "ownershipPct must be a number or a decimal string";
    return std::nullopt;
  }
  const double d = std::atof(text.c_str());
  if (!(d > 0) || d > 100) {
    error = "ownershipPct must be more than 0 and at most 100";
    return std::nullopt;
  }
  const double scaled = d * 10000;
  if (std::fabs(scaled - std::round(scaled)) > 1e-6) {
    error = "ownershipPct takes at most 4 decimals";
    return std::nullopt;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", std::round(scaled) / 10000);
  std::string out = buf;
  while (out.back() == '0') out.pop_back();
  if (out.back() == '.') out.pop_back();
  return out;
}

// The body of POST /v1/companies (the RFC normalised and checked, the subject kind agreeing with
// it), or nullopt once answered.
std::optional<pk::NewCompany> ParseCompany(Runtime& rt, const HttpRequest& req, const Respond& respond) {
  auto body = ParseJsonObject(req.body);
  if (!body.ok()) {
    respond(StatusToProblem(req, body.status()));
    return std::nullopt;
  }
  Validator v(*body);
  auto legal_name = v.String("legalName", true, 300);
  auto country = v.String("country", false, 2);
  auto rfc_in = v.String("rfc", false, 20);
  auto kind = v.Enum("subjectKind", false, {"legal_entity", "individual_business"});
  auto trade = v.String("tradeName", false, 300);
  v.RejectUnknown();
  pk::NewCompany c;
  c.country = country.value_or("MX");
  const std::string& cc = c.country;
  if (v.ok() && (cc.size() != 2 || !std::isupper(static_cast<unsigned char>(cc[0])) ||
                 !std::isupper(static_cast<unsigned char>(cc[1])))) {
    v.Add({"country", "/country", "invalid_format", "country must be an ISO 3166-1 alpha-2 code (MX, US, …)"});
  }
  if (v.ok() && legal_name->find_first_not_of(" \t") == std::string::npos) {
    v.Add({"legalName", "/legalName", "required", "legalName must not be blank"});
  }
  if (v.ok() && rfc_in.has_value()) {
    c.rfc = core::mx::NormaliseRfc(*rfc_in);
    auto check = core::mx::CheckRfc(c.rfc, rt.Today());
    if (cc != "MX") {
      v.Add({"rfc", "/rfc", "invalid_format", "an RFC is Mexican: give it with country MX (or no country)"});
    } else if (!check.valid) {
      v.Add({"rfc", "/rfc", "invalid_format",
             "rfc is not a valid RFC of a moral (12 characters) or physical (13) person: " +
                 core::mx::Explain(check.reasons)});
    } else {
      c.rfc_kind = check.persona_moral ? "moral" : "fisica";
    }
  }
  c.subject_kind = kind.value_or(c.rfc_kind == "fisica" ? "individual_business" : "legal_entity");
  if (v.ok() && !c.rfc_kind.empty() && (c.rfc_kind == "fisica") != (c.subject_kind == "individual_business")) {
    v.Add({"subjectKind", "/subjectKind", "invalid_value",
           "subjectKind must agree with the RFC: legal_entity for 12 characters, individual_business for 13"});
  }
  if (!v.ok()) {
    respond(ValidationProblem(req, v.errors()));
    return std::nullopt;
  }
  c.legal_name = *legal_name;
  c.trade_name = trade.value_or("");
  return c;
}

void Create(Runtime& rt, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  auto c = ParseCompany(rt, req, respond);
  if (!c) return;
  const AuthContext& a = call.auth;
  const std::string te = TeOf(a);
  c->tenant = a.tenant_id;
  c->environment = a.environment;
  // The company id of a request with an Idempotency-Key is derived from it: a retry names the same
  // company, so its own RFC is no conflict and the writer answers the first outcome again.
  c->id = "cmp_" + core::Sha256Hex("svc/company/v1|" + te + "|" + call.idempotency_key).substr(0, 32);
  const auto keys = KeysOf(rt);
  pk::CreateCompany(rt.writer(), keys, *c, Context(rt, call),
                    [&rt, te, id = c->id, keys, slim = SlimRequest(req), respond](core::Result<commands::CommandOutcome> out) {
                      RenderWhenApplied(rt, slim, std::move(out), {KV::kName},
                                        [&rt, te, id, keys, slim](const commands::CommandOutcome&) {
                                          // The company as its create made it, not as it is now: a
                                          // retry with the key gets the first answer byte for byte
                                          // though a verification ran since (issue 67).
                                          auto row = projections::CompanyAsCreatedRow(rt.store(), te, id);
                                          if (!row.ok()) return StatusToProblem(slim, row.status());
                                          if (!row->has_value()) {
                                            return StatusToProblem(slim, core::Unavailable("the company is not readable yet"));
                                          }
                                          return JsonResponse(201, RenderCompany(keys, **row));
                                        },
                                        respond);
                    });
}

void ListCompanies(Runtime& rt, const KybOptions& o, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  auto query = ParseQuery(req.query);
  CursorList list;
  const std::string te = TeOf(call.auth);
  list.filters = {"claimStatus"};
  auto claim = query.find("claimStatus");
  std::string claim_status;
  if (claim != query.end()) {
    claim_status = claim->second;
    if (claim_status != "unclaimed" && claim_status != "pending" && claim_status != "claimed") {
      list.errors.push_back({"claimStatus", "", "invalid_value", "claimStatus must be unclaimed, pending or claimed"});
    }
  }
  list.scope = "companies|" + te + "|" + claim_status;
  list.index = claim_status.empty() ? KV::Abs(KV::Companies(te)) : KV::Abs(KV::ByClaim(te, claim_status));
  list.row_key = [te](std::string_view entry) {
    return KV::Abs(KV::Company(te, entry.size() > 8 ? entry.substr(8) : entry));
  };
  const auto keys = KeysOf(rt);
  list.render = [keys](const std::string& stored) {
    return core::DumpJson(RenderCompany(keys, core::ParseJsonOrDiscarded(stored)));
  };
  ServeCursorList(rt, o, call, list, std::move(respond));
}

void RunCompany(Runtime& rt, ApiCall& call, const std::string& id, kc::CompanyCommand cmd, int status,
                std::function<core::Json(const core::Json& row, const commands::CommandOutcome&)> render,
                Respond respond) {
  const AuthContext a = call.auth;
  commands::CommandContext ctx = Context(rt, call);
  // The company decides, reading the persons and companies its command names.
  RunThenRender(rt, *call.request, commands::MakeReadingCommand<kc::CompanyDecider>(a.tenant_id, id, std::move(cmd), ctx),
                {KV::kName},
                [&rt, a, id, status, render = std::move(render), slim = SlimRequest(*call.request)](
                    const commands::CommandOutcome& outcome) {
                  auto row = ReadView(rt, KV::Abs(KV::Company(TeOf(a), id)));
                  if (!row.ok()) return StatusToProblem(slim, row.status());
                  if (!row->has_value()) return StatusToProblem(slim, core::Unavailable("the company is not readable yet"));
                  return JsonResponse(status, render(**row, outcome));
                },
                std::move(respond));
}

// The element of `array` (members, documents, uboNodes) with `id`.
core::Json ElementOf(const core::Json& row, const char* array, const std::string& id) {
  for (const auto& e : row.value(array, core::Json::array())) {
    if (core::StringOr(e, "id") == id) return e;
  }
  return nullptr;
}

void AddMember(Runtime& rt, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  auto body = ParseJsonObject(req.body);
  if (!body.ok()) return respond(StatusToProblem(req, body.status()));
  Validator v(*body);
  auto name = v.String("name", true, 300);
  auto person = v.OpaqueId("personId", "per");
  auto role = v.String("role", false, 100);
  v.RejectUnknown();
  if (v.ok() && name->find_first_not_of(" \t") == std::string::npos) {
    v.Add({"name", "/name", "required", "name must not be blank"});
  }
  if (!v.ok()) return respond(ValidationProblem(req, v.errors()));
  auto row = PathCompany(rt, call, respond);
  if (!row) return;
  const AuthContext& a = call.auth;
  const std::string company = core::StringOr(*row, "id");
  const std::string member = rt.ids().NewIdString(core::IdKind::kCompanyMember);
  auto sealed = pk::SealSubjectName(rt.key_store(), a.tenant_id, a.environment, company, member, *name);
  if (!sealed.ok()) return respond(StatusToProblem(req, sealed.status()));
  kc::MemberAdded m{member, std::move(*sealed), person.value_or(""), role.value_or(""), "record"};
  RunCompany(rt, call, company, kc::AddMember{m}, 201,
             [member, n = *name](const core::Json& r, const commands::CommandOutcome&) {
               core::Json e = ElementOf(r, "members", member);
               e.erase("nameSealed");
               e.erase("sealedWith");
               e["name"] = n;
               e["forgottenAt"] = nullptr;
               return e;
             },
             std::move(respond));
}

void AddDocument(Runtime& rt, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  auto body = ParseJsonObject(req.body);
  if (!body.ok()) return respond(StatusToProblem(req, body.status()));
  Validator v(*body);
  auto kind = v.String("kind", false, 64);
  auto sha = v.String("sha256", false, 64);
  auto storage = v.String("storageKey", false, 512);
  v.RejectUnknown();
  if (v.ok() && sha.has_value() &&
      (sha->size() != 64 || sha->find_first_not_of("0123456789abcdef") != std::string::npos)) {
    v.Add({"sha256", "/sha256", "invalid_format", "sha256 must be 64 lowercase hex characters"});
  }
  if (v.ok() && !sha.has_value() && !storage.has_value()) {
    v.Add({"storageKey", "/storageKey", "required", "a document is a reference: give storageKey or sha256 (no bytes)"});
  }
  if (!v.ok()) return respond(ValidationProblem(req, v.errors()));
  auto row = PathCompany(rt, call, respond);
  if (!row) return;
  const std::string doc = rt.ids().NewIdString(core::IdKind::kCompanyDocument);
  kc::DocumentAdded d{doc, kind.value_or(""), sha.value_or(""), storage.value_or(""), call.auth.user_id};
  RunCompany(rt, call, core::StringOr(*row, "id"), kc::AddDocument{d}, 201,
             [doc](const core::Json& r, const commands::CommandOutcome&) { return ElementOf(r, "documents", doc); },
             std::move(respond));
}

// The body of POST …/ubo-nodes: the node (its id and sealed name still to set) and its name, or
// nullopt once answered.
std::optional<std::pair<kc::UboNodeAdded, std::string>> ParseUboNode(const HttpRequest& req, const Respond& respond) {
  auto body = ParseJsonObject(req.body);
  if (!body.ok()) {
    respond(StatusToProblem(req, body.status()));
    return std::nullopt;
  }
  Validator v(*body);
  auto name = v.String("name", true, 300);
  auto control = v.Bool("isControlPerson", false);
  auto type = v.Enum("nodeType", false, {"person", "company"});
  auto parent = v.OpaqueId("parentNodeId", "ubo");
  auto person = v.OpaqueId("personId", "per");
  auto related = v.OpaqueId("relatedCompanyId", "cmp");
  auto role = v.String("role", false, 100);
  v.Skip("ownershipPct");
  std::optional<std::string> pct;
  if (body->contains("ownershipPct") && !(*body)["ownershipPct"].is_null()) {
    std::string error;
    pct = ParsePct((*body)["ownershipPct"], error);
    if (!pct) v.Add({"ownershipPct", "/ownershipPct", "invalid_value", error});
  }
  v.RejectUnknown();
  kc::UboNodeAdded n;
  n.node_type = type.value_or("person");
  if (v.ok() && name->find_first_not_of(" \t") == std::string::npos) {
    v.Add({"name", "/name", "required", "name must not be blank"});
  }
  if (v.ok() && !pct && !control.value_or(false)) {
    v.Add({"ownershipPct", "/ownershipPct", "required", "a node holds a share (ownershipPct) or control (isControlPerson)"});
  }
  if (v.ok() && person && n.node_type != "person") {
    v.Add({"personId", "/personId", "invalid_value", "personId is for a node of type person"});
  }
  if (v.ok() && related && n.node_type != "company") {
    v.Add({"relatedCompanyId", "/relatedCompanyId", "invalid_value", "relatedCompanyId is for a node of type company"});
  }
  if (!v.ok()) {
    respond(ValidationProblem(req, v.errors()));
    return std::nullopt;
  }
  n.ownership_pct = pct.value_or("");
  n.parent_node_id = parent.value_or("");
  n.person_id = person.value_or("");
  n.related_company_id = related.value_or("");
  n.role = role.value_or("");
  n.is_control_person = control.value_or(false);
  return std::pair{std::move(n), *name};
}

void AddUbo(Runtime& rt, ApiCall& call, Respond respond) {
  auto parsed = ParseUboNode(*call.request, respond);
  if (!parsed) return;
  auto row = PathCompany(rt, call, respond);
  if (!row) return;
  const AuthContext& a = call.auth;
  auto* n = &parsed->first;
  const std::string name = parsed->second;
  n->node_id = rt.ids().NewIdString(core::IdKind::kUboNode);
  auto sealed = pk::SealSubjectName(rt.key_store(), a.tenant_id, a.environment, core::StringOr(*row, "id"), n->node_id,
                                    name);
  if (!sealed.ok()) return respond(StatusToProblem(*call.request, sealed.status()));
  n->name_sealed = std::move(*sealed);
  n->sealed_with = "record";
  RunCompany(rt, call, core::StringOr(*row, "id"), kc::AddUboNode{*n}, 201,
             [node = n->node_id, name](const core::Json& r, const commands::CommandOutcome&) {
               core::Json e = ElementOf(r, "uboNodes", node);
               e.erase("nameSealed");
               e.erase("sealedWith");
               e["name"] = name;
               e["forgottenAt"] = nullptr;
               return e;
             },
             std::move(respond));
}

core::Json VerifyResponse(const core::Json& row) {
  return {{"id", row.value("id", "")},
          {"status", row.value("status", "")},
          {"claimStatus", row.value("claimStatus", "")},
          {"riskLevel", row.value("riskLevel", core::Json(nullptr))},
          {"riskScore", row.value("riskScore", core::Json(nullptr))},
          {"verifiedAt", row.value("verifiedAt", core::Json(nullptr))}};
}

void Verify(Runtime& rt, const KybOptions& o, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  if (!NoBody(call, respond, "verify")) return;
  auto row = PathCompany(rt, call, respond);
  if (!row) return;
  const AuthContext a = call.auth;
  const std::string id = core::StringOr(*row, "id");
  commands::CommandContext ctx = Context(rt, call);
  pk::CompanyVerifier* verifier = o.kyb_verifier;
  const auto wait = o.kyb_verify_wait;
  const HttpRequest slim = SlimRequest(req);
  rt.writer().Execute(
      commands::MakeCommand<kc::CompanyDecider>(a.tenant_id, id, kc::CompanyCommand(kc::StartVerification{}), ctx),
      [&rt, a, id, verifier, wait, slim, respond](core::Result<commands::CommandOutcome> r) {
        if (!r.ok()) return respond(StatusToProblem(slim, r.status()));
        const int64_t run = r->result.value("run", int64_t{0});
        auto answer = [&rt, a, id, slim, respond](bool) {
          auto now = ReadView(rt, KV::Abs(KV::Company(TeOf(a), id)));
          if (!now.ok()) return respond(StatusToProblem(slim, now.status()));
          if (!now->has_value()) return respond(StatusToProblem(slim, core::Unavailable("the company is not readable yet")));
          respond(JsonResponse(200, VerifyResponse(**now)));
        };
        if (verifier == nullptr) {
          return rt.projections().WhenApplied(r->positions, {KV::kName}, kReadYourWrites, answer);
        }
        verifier->WhenDone(a.tenant_id, a.environment, id, run, wait, answer);
      });
}

}  // namespace

std::vector<ApiRoute> CompanyRoutes(Runtime* r, const KybOptions& options) {
  std::vector<ApiRoute> routes;
  const KybOptions* o = &options;
  const std::string base = "/v1/companies";
  const std::string one = base + "/{company_id}";
  const std::string tag = "Companies (KYB)";
  const std::vector<std::string> lookup = {"INVALID_ID", "COMPANY_NOT_FOUND"};
  routes.push_back(ApiRoute{
      .method = "GET", .path = base, .operation_id = "listCompanies", .tag = tag,
      .scope = "kyb:read",
      .query = [] {
        auto q = PageParams();
        q.push_back({"claimStatus", {{"type", "string"}, {"enum", {"unclaimed", "pending", "claimed"}}}});
        return q;
      }(),
      .response_schema = "CompanyList",
      .error_codes = Codes({{"BAD_REQUEST", "VALIDATION_ERROR", "INVALID_CURSOR", "LIMIT_OUT_OF_RANGE"}}),
      .handler = [r, o](ApiCall& c, Respond respond) { ListCompanies(*r, *o, c, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "POST", .path = base, .operation_id = "createCompany", .tag = tag,
      .scope = "kyb:write", .family = RateFamily::kWrite, .idempotency = IdempotencyRule::kRequired,
      .has_body = true, .request_schema = "CompanyCreate", .success_status = 201, .response_schema = "CompanyResponse",
      .error_codes = Codes({{"VALIDATION_ERROR", "BAD_REQUEST", "RFC_CONFLICT"}, IdempotencyErrors()}),
      .handler = [r](ApiCall& c, Respond respond) { Create(*r, c, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "GET", .path = one, .operation_id = "getCompany", .tag = tag,
      .scope = "kyb:read", .response_schema = "CompanyDetail", .error_codes = lookup,
      .handler = [r](ApiCall& c, Respond respond) {
        auto row = PathCompany(*r, c, respond);
        if (!row) return;
        respond(JsonResponse(200, RenderDetail(*r, KeysOf(*r), *row)));
      }});
  routes.push_back(ApiRoute{
      .method = "GET", .path = one + "/status", .operation_id = "getCompanyStatus", .tag = tag,
      .scope = "kyb:read",
      .response_schema = "CompanyStatusResponse", .error_codes = lookup,
      .handler = [r](ApiCall& c, Respond respond) {
        auto row = PathCompany(*r, c, respond);
        if (!row) return;
        respond(JsonResponse(200, StatusOf(*row)));
      }});
  routes.push_back(ApiRoute{
      .method = "POST", .path = one + "/members", .operation_id = "addCompanyMember", .tag = tag,
      .scope = "kyb:write", .family = RateFamily::kWrite, .has_body = true, .request_schema = "CompanyMemberCreate",
      .success_status = 201, .response_schema = "CompanyMemberResponse",
      .error_codes = Codes({lookup, {"VALIDATION_ERROR", "BAD_REQUEST", "PERSON_NOT_FOUND"}}),
      .handler = [r](ApiCall& c, Respond respond) { AddMember(*r, c, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "POST", .path = one + "/documents", .operation_id = "addCompanyDocument", .tag = tag,
      .scope = "kyb:write", .family = RateFamily::kWrite, .has_body = true, .request_schema = "CompanyDocumentCreate",
      .success_status = 201, .response_schema = "CompanyDocumentResponse",
      .error_codes = Codes({lookup, {"VALIDATION_ERROR", "BAD_REQUEST"}}),
      .handler = [r](ApiCall& c, Respond respond) { AddDocument(*r, c, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "POST", .path = one + "/ubo", .operation_id = "addCompanyUboNode", .tag = tag,
      .scope = "kyb:write", .family = RateFamily::kWrite, .has_body = true, .request_schema = "UboNodeCreate",
      .success_status = 201, .response_schema = "UboNodeResponse",
      .error_codes = Codes({lookup, {"VALIDATION_ERROR", "BAD_REQUEST", "UBO_NODE_NOT_FOUND", "PERSON_NOT_FOUND"}}),
      .handler = [r](ApiCall& c, Respond respond) { AddUbo(*r, c, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "POST", .path = one + "/verify", .operation_id = "verifyCompany", .tag = tag,
      .scope = "kyb:write", .family = RateFamily::kWrite, .response_schema = "CompanyVerifyResponse",
      .error_codes = Codes({lookup, {"VALIDATION_ERROR", "BAD_REQUEST"}}),
      .handler = [r, o](ApiCall& c, Respond respond) { Verify(*r, *o, c, std::move(respond)); }});
  return routes;
}

std::vector<ApiRoute> KybRoutes(Runtime* rt, const KybOptions& options) {
  auto routes = CompanyRoutes(rt, options);
  for (auto& r : ErasureRoutes(rt, options)) routes.push_back(std::move(r));
  for (auto& r : ScreeningRoutes(rt, options)) routes.push_back(std::move(r));
  return routes;
}

}  // namespace svc::api::kyb
