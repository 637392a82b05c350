// /v1/persons: the vault's write and read paths, none of which decrypts personal data: create
// (an upsert by application and externalRef), PATCH (a revision), the masked detail, the list,
// the presence of fields, search and duplicates through the blind indexes.
#include <set>

#include "api/http/cursor_list.h"
#include "api/http/pagination.h"
#include "api/http/problem.h"
#include "api/http/write_path.h"
#include "api/persons/persons_common.h"
#include "api/persons/routes.h"
#include "commands/persons/person_events.h"
#include "core/clock.h"
#include "core/crypto.h"
#include "eventstore/key_store.h"
#include "pipeline/persons/pii.h"
#include "pipeline/persons/vault_keys.h"
#include "projections/persons/persons_queries.h"
#include "projections/persons/arco_queries.h"
#include "projections/persons/persons_view.h"
#include "projections/projector.h"
#include "projections/tenancy_view.h"

namespace svc::api::persons {

namespace pp = pipeline::persons;
namespace ps = commands::persons;
using PV = projections::PersonsView;
using TV = projections::TenancyView;

namespace {

constexpr size_t kMaxMetadataBytes = 16 * 1024;
constexpr size_t kMaxExternalRef = 256;

// The members of PersonWriteResponse, from the masked record.
core::Json WriteResponse(const core::Json& row) {
  core::Json out = core::Json::object();
  for (const char* k : {"id", "object", "createdAt", "updatedAt", "environment", "piiVersion", "status"}) {
    if (row.contains(k)) out[k] = row[k];
  }
  for (auto name : ps::kPiiFieldNames) {
    std::string k = std::string(name) + "Provided";
    out[k] = row.value(k, false);
  }
  return out;
}

// The members of PersonWriteResponse from a keyed write's answer: the person as that write left
// it (PersonDecider::ResultOf's "written"), so that a retry with the same Idempotency-Key, even
// after a crash, is told byte for byte what the first request was (issue 67). Null when the
// answer has none (a write without a key).
core::Json WrittenResponse(const core::Json& result) {
  if (!result.is_object()) return nullptr;
  auto w = result.find("written");
  if (w == result.end() || !w->is_object()) return nullptr;
  core::Json out = {{"id", core::StringOr(*w, "personId")},
                    {"object", "person"},
                    {"createdAt", core::FormatRfc3339(core::Timestamp{core::IntOr(*w, "createdAtMicros")})},
                    {"updatedAt", core::FormatRfc3339(core::Timestamp{core::IntOr(*w, "updatedAtMicros")})},
                    {"environment", core::StringOr(*w, "environment")},
                    {"piiVersion", core::IntOr(*w, "piiVersion")},
                    {"status", core::StringOr(*w, "status")}};
  std::set<std::string> held;
  if (auto f = w->find("fields"); f != w->end() && f->is_array()) {
    for (const auto& name : *f) {
      if (name.is_string()) held.insert(name.get<std::string>());
    }
  }
  for (auto name : ps::kPiiFieldNames) out[std::string(name) + "Provided"] = held.count(std::string(name)) != 0;
  return out;
}

// The person write use case's dependencies (pipeline/persons/person_writes.h).
pp::PersonWriteDeps WriteDeps(Runtime& rt) {
  pp::PersonWriteDeps d{&rt.writer(), &rt.key_store(), &rt.ids(), {}, {}};
  d.after = [&rt](std::chrono::milliseconds delay, std::function<void()> task) {
    rt.delays().After(delay, std::move(task));
  };
  d.pii_version = [&rt](const pp::PersonRef& who) -> std::optional<int64_t> {
    auto row = ReadView(rt, PV::Abs(PV::Record(projections::TenantEnv(who.tenant, who.environment), who.person)));
    if (!row.ok() || !row->has_value() || !(**row).contains("piiVersion")) return std::nullopt;
    return (**row)["piiVersion"].get<int64_t>();
  };
  return d;
}

// Validates `metadata` (an object of at most 16 KiB, or null): 400 METADATA_INVALID otherwise.
core::Status CheckMetadata(const core::Json& m) {
  if (m.is_null()) return core::Status::Ok();
  if (!m.is_object()) return core::InvalidArgument("metadata must be a JSON object or null", "METADATA_INVALID");
  if (core::DumpJson(m).size() > kMaxMetadataBytes) {
    return core::InvalidArgument("metadata is larger than 16 KiB", "METADATA_INVALID");
  }
  return core::Status::Ok();
}

// The common part of create and PATCH bodies, after the route's own members were read (and
// their errors added to `v`): pii (null clears a field on PATCH) and metadata. Returns the
// problem to answer, if any.
std::optional<HttpResponse> ReadWriteBody(const HttpRequest& req, const core::Json& body, Validator& v,
                                          bool patch, core::mx::CivilDate today, pp::PiiWrite& out) {
  v.Skip("metadata");
  v.Skip("pii");
  if (patch) out.arco_request_id = v.OpaqueId("arcoRequestId", "arc").value_or("");  // an ARCO rectification
  v.RejectUnknown();
  std::vector<FieldError> errors = v.errors();
  bool unknown = false;
  out.source = {"api", "", ""};
  if (body.contains("pii") && !body["pii"].is_null()) {
    if (!body["pii"].is_object()) {
      errors.push_back({"pii", "/pii", "invalid_type", "pii must be an object (PiiInput) or null"});
    } else {
      ParsePiiInput(body["pii"], patch, today, out, errors, &unknown);
    }
  }
  if (unknown) {
    return Problem(req, "UNKNOWN_PII_FIELD", "a member of pii is not a vault field (PiiInput lists the 17 fields)");
  }
  if (!errors.empty()) return ValidationProblem(req, errors);
  if (body.contains("metadata")) {
    if (auto st = CheckMetadata(body["metadata"]); !st.ok()) return StatusToProblem(req, st);
    out.metadata = body["metadata"];
  }
  return std::nullopt;
}

void Create(Runtime& rt, ApiCall& call, Respond respond) {
  auto body = ParseJsonObject(call.request->body);
  if (!body.ok()) return respond(StatusToProblem(*call.request, body.status()));
  WritePerson(rt, call, *body, std::move(respond));
}

void Patch(Runtime& rt, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  const AuthContext& a = call.auth;
  const std::string id = req.path_params["person_id"];
  auto existing = ActivePersonRow(rt, a, id);
  if (!existing.ok()) return respond(StatusToProblem(req, existing.status()));
  auto body = ParseJsonObject(req.body);
  if (!body.ok()) return respond(StatusToProblem(req, body.status()));
  Validator v(*body);
  pp::PersonWriteInput in;
  if (auto problem = ReadWriteBody(req, *body, v, true, rt.Today(), in.write)) return respond(std::move(*problem));
  if (const std::string& arc = in.write.arco_request_id; !arc.empty()) {
    auto st = projections::CheckArcoFulfilment(rt.store(), TeOf(a), arc, "rectification", id);
    if (!st.ok()) return respond(StatusToProblem(req, st));
  }
  in.who = RefOf(a, id);
  in.ctx = Context(rt, call);
  pp::WritePerson(WriteDeps(rt), std::move(in),
                  [&rt, a, slim = SlimRequest(req), respond = std::move(respond)](core::Result<pp::PersonWriteResult> r) {
                    RenderWhenApplied(rt, slim, r.ok() ? core::Result<commands::CommandOutcome>(r->outcome) : r.status(),
                                      {PV::kName}, [&rt, a, slim, id = r.ok() ? r->person_id : ""](const commands::CommandOutcome&) {
                                        auto row = PersonRow(rt, a, id);
                                        if (!row.ok()) return StatusToProblem(slim, row.status());
                                        return JsonResponse(200, WriteResponse(*row));
                                      },
                                      respond);
                  });
}

}  // namespace

// The masked detail: the record, `pii` with a mask per provided field, provenance, metadata and
// the verification summary. Opens nothing but the metadata (the integrator's own data, sealed
// with the person's key); when that key is gone the rest still reads, metadata is {}.
core::Result<core::Json> MaskedDetail(Runtime& rt, const AuthContext& a, const std::string& id) {
  SVC_ASSIGN_OR_RETURN(core::Json row, UnpurgedPersonRow(rt, a, id));
  const std::string te = TeOf(a);
  core::Json out = WriteResponse(row);
  out["object"] = "person";
  out["applicationId"] = row.value("applicationId", core::Json(nullptr));
  out["externalRefs"] = row.value("externalRefs", core::Json::array());
  out["forgetRequested"] = row.value("forgetRequested", false);
  if (row.contains("mergedInto")) out["mergedInto"] = row["mergedInto"];
  core::Json pii = core::Json::object();
  for (auto name : ps::kPiiFieldNames) {
    if (row.value(std::string(name) + "Provided", false)) pii[std::string(name)] = kMaskedValue;
  }
  out["pii"] = pii;
  SVC_ASSIGN_OR_RETURN(auto prov, ReadView(rt, PV::Abs(PV::Provenance(te, id))));
  out["piiProvenance"] = prov.value_or(core::Json::object());
  // An application whose grant says `redacted` is not shown even which fields are held.
  SVC_ASSIGN_OR_RETURN(auto grant, GrantInForce(rt, a, id));
  if (grant.has_value() && core::StringOr(*grant, "defaultRedaction") == "redacted") {
    out["pii"] = core::Json::object();
    out["piiProvenance"] = core::Json::object();
  }
  out["metadata"] = core::Json::object();
  const int cf = rt.store().Cf(projections::kViewsCf);
  SVC_ASSIGN_OR_RETURN(auto sealed_meta, rt.store().Get(cf, PV::Abs(PV::Metadata(te, id))));
  if (sealed_meta.has_value() && !row.value("forgetRequested", false)) {  // out of reach once forget is asked
    auto key = rt.key_store().Get(pp::PersonKeyName(a.tenant_id, a.environment, id));
    if (key.ok() && key->has_value()) {
      auto meta = pp::OpenMetadata(**key, RefOf(a, id), *sealed_meta);
      if (meta.ok()) out["metadata"] = *meta;
    }
  }
  out["verificationSummary"] = row["verificationSummary"];  // every record has one (the projector writes it)
  return out;
}

// An externalRef is kept in clear: 1-256 printable characters that do not look like personal data.
void CheckExternalRef(Validator& v, const std::string& ref, const core::mx::CivilDate& today) {
  bool printable = !ref.empty();
  for (unsigned char c : ref) printable &= c >= 0x20 && c != 0x7f;
  if (!printable) {
    v.Add({"externalRef", "/externalRef", "invalid_format", "externalRef must be 1-256 printable characters"});
  } else if (pp::LooksLikePii(ref, today)) {
    v.Add({"externalRef", "/externalRef", "looks_like_pii",
           "externalRef is stored in clear and must not be personal data (it looks like a "
           "CURP, RFC, e-mail address or phone number); send your internal user id"});
  }
}

// The application a person is written for: the key's, or another of the tenant
// (APPLICATION_NOT_FOUND).
core::Result<std::string> ApplicationOf(Runtime& rt, const AuthContext& a, const std::optional<std::string>& named) {
  if (!named.has_value() || *named == a.application_id) return a.application_id;
  SVC_ASSIGN_OR_RETURN(auto row, ReadView(rt, TV::Abs(TV::Application(a.tenant_id, *named))));
  if (!row.has_value()) return core::NotFound("no such application", "APPLICATION_NOT_FOUND");
  return *named;
}

// A new person's answer is what the decision made (the read model has it too, and is waited for so
// that the next read finds it; reading it back would only cost a parse); its id is set once made.
core::Json NewPersonBody(core::Timestamp now, const std::string& environment, const pp::PiiWrite& write) {
  const std::string at = core::FormatRfc3339(now);
  core::Json fresh = {{"id", ""}, {"object", "person"}, {"createdAt", at}, {"updatedAt", at},
                      {"environment", environment}, {"piiVersion", 1}, {"status", "active"}};
  for (auto name : ps::kPiiFieldNames) fresh[std::string(name) + "Provided"] = write.values.count(std::string(name)) != 0;
  return fresh;
}

// A create or externalRef upsert of one person from a PersonWriteRequest body: POST /v1/persons,
// and each row of a bulk import. Answers what the create route answers (201 new, 200 updated, or
// the problem).
void WritePerson(Runtime& rt, ApiCall& call, const core::Json& body, Respond respond) {
  HttpRequest& req = *call.request;
  const AuthContext& a = call.auth;
  Validator v(body);
  auto application_id = v.OpaqueId("applicationId", "app");
  auto environment = v.Enum("environment", false, {"live", "test"});
  auto external_ref = v.String("externalRef", false, kMaxExternalRef);
  if (external_ref.has_value()) CheckExternalRef(v, *external_ref, rt.Today());
  pp::PiiWrite write;
  if (auto problem = ReadWriteBody(req, body, v, false, rt.Today(), write)) return respond(std::move(*problem));
  if (environment.has_value() && *environment != a.environment) {
    return respond(Problem(req, "ENVIRONMENT_MISMATCH",
                           "the key's environment decides: this key writes " + a.environment + " persons"));
  }
  auto app = ApplicationOf(rt, a, application_id);
  if (!app.ok()) return respond(StatusToProblem(req, app.status()));
  pp::PersonWriteInput in{RefOf(a, ""), *app, external_ref.value_or(""), {}, Context(rt, call), pp::CurpClash::kRefuse};
  core::Json fresh = NewPersonBody(in.ctx.now, a.environment, write);
  in.write = std::move(write);
  pp::WritePerson(
      WriteDeps(rt), std::move(in),
      [&rt, a, fresh = std::move(fresh), slim = SlimRequest(req), respond = std::move(respond)](
          core::Result<pp::PersonWriteResult> r) mutable {
        if (!r.ok()) return respond(StatusToProblem(slim, r.status()));
        auto render = [&rt, a, fresh = std::move(fresh), slim, id = r->person_id,
                       created = r->created](const commands::CommandOutcome& out) mutable {
          if (core::Json written = WrittenResponse(out.result); !written.is_null()) {
            return JsonResponse(created ? 201 : 200, written);  // keyed: as the write left the person
          }
          if (created && !out.replayed) {
            fresh["id"] = id;
            return JsonResponse(201, fresh);
          }
          auto row = PersonRow(rt, a, id);
          if (!row.ok()) return StatusToProblem(slim, row.status());
          return JsonResponse(created ? 201 : 200, WriteResponse(*row));  // a replay answers as the original did
        };
        RenderWhenApplied(rt, slim, std::move(r->outcome), {PV::kName}, std::move(render), std::move(respond));
      });
}

namespace {

void Fields(Runtime& rt, ApiCall& call, Respond respond) {
  const std::string id = call.request->path_params["person_id"];
  auto row = UnpurgedPersonRow(rt, call.auth, id);
  if (!row.ok()) return respond(StatusToProblem(*call.request, row.status()));
  core::Json fields = core::Json::object();
  for (auto name : ps::kPiiFieldNames) fields[std::string(name)] = row->value(std::string(name) + "Provided", false);
  respond(JsonResponse(200, {{"id", id}, {"object", "person.fields"}, {"fields", fields}}));
}

void List(Runtime& rt, const PersonsOptions& o, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  const AuthContext& a = call.auth;
  auto query = ParseQuery(req.query);
  CursorList list;
  list.filters = {"environment", "created[gte]", "created[lte]", "forgetRequested", "application"};
  std::string app, forget;
  if (auto it = query.find("environment"); it != query.end()) {
    if (it->second != "live" && it->second != "test") {
      list.errors.push_back({"environment", "", "invalid_enum", "environment must be live or test"});
    } else if (it->second != a.environment) {
      return respond(Problem(req, "ENVIRONMENT_MISMATCH",
                             "the key's environment decides: this key lists " + a.environment + " persons"));
    }
  }
  const CreatedWindow created = CreatedWindow::Parse(query, "created[gte]", "created[lte]", list.errors);
  if (auto it = query.find("forgetRequested"); it != query.end()) {
    forget = it->second;
    if (forget != "true" && forget != "false") {
      list.errors.push_back({"forgetRequested", "", "invalid_type", "forgetRequested must be true or false"});
    }
  }
  if (auto it = query.find("application"); it != query.end()) {
    app = it->second;
    if (!core::ValidateId(core::IdKind::kApplication, app).ok()) {
      list.errors.push_back({"application", "", "invalid_id", "application must be app_<32 lowercase hex>"});
    }
  }
  const std::string te = TeOf(a);
  list.scope = "persons|" + te + "/|" + app + "|" + forget + "|" + created.Text();
  list.index = PV::Abs(PV::Index(te, app.empty() ? PV::All() : PV::ByApplication(app)));
  list.row_key = [te](std::string_view entry) { return PV::Abs(PV::Record(te, PV::IdOfOrder(entry))); };
  if (created.Any() || !forget.empty()) {
    list.accept = [created, forget](const core::Json& row) {
      if (!forget.empty() && row.value("forgetRequested", false) != (forget == "true")) return false;
      return created.Contains(row);
    };
  }
  ServeCursorList(rt, o, call, list, std::move(respond));
}

// The persons a search matches: one blind key per term, the persons holding every term.
core::Result<std::vector<std::string>> Matches(Runtime& rt, const AuthContext& a, const std::string& field,
                                               const std::string& normalised) {
  SVC_ASSIGN_OR_RETURN(std::string index_key, pp::IndexKey(rt.key_store(), a.tenant_id, a.environment));
  // A name query matches the persons holding all its tokens in any name field.
  std::vector<std::string> terms = pp::IndexTerms(field == "name" ? "fullName" : field, normalised);
  if (field == "curp" && terms.size() == 1) {  // the holders row: one Get instead of an index seek
    SVC_ASSIGN_OR_RETURN(auto out, CurpHolders(rt, a, pp::BlindIndex(index_key, field, terms[0])));
    std::sort(out.begin(), out.end());
    return out;
  }
  std::optional<std::set<std::string>> found;
  for (const auto& term : terms) {
    SVC_ASSIGN_OR_RETURN(auto holding, IdsWithBlindKey(rt, a, pp::BlindIndex(index_key, field, term)));
    std::set<std::string> ids;
    for (auto& id : holding) {
      if (!found.has_value() || found->count(id) != 0) ids.insert(std::move(id));
    }
    found = std::move(ids);
    if (found->empty()) break;
  }
  std::vector<std::string> out;
  if (found.has_value()) out.assign(found->begin(), found->end());
  return out;
}

struct SearchRequest {
  std::string field, normalised;
  std::optional<std::string> cursor, environment;
  std::optional<int64_t> limit;
};

// The body of POST /v1/persons/search, its value normalised as the blind index holds it; nullopt
// once answered.
std::optional<SearchRequest> ParseSearch(Runtime& rt, const HttpRequest& req, const Respond& respond) {
  auto body = ParseJsonObject(req.body);
  if (!body.ok()) {
    respond(StatusToProblem(req, body.status()));
    return std::nullopt;
  }
  Validator v(*body);
  auto field = v.Enum("field", true, {"curp", "rfc", "email", "phone", "name"});
  auto value = v.String("value", true, 512);
  SearchRequest r;
  r.cursor = v.String("cursor", false, 1024);
  r.environment = v.Enum("environment", false, {"live", "test"});
  // The range is the list's (LIMIT_OUT_OF_RANGE, as a query limit): any integer is read here.
  r.limit = v.Integer("limit", false, INT64_MIN, INT64_MAX);
  v.RejectUnknown();
  if (field.has_value() && value.has_value() && *field == "name") {
    if (pp::NameTokens(*value).empty()) {
      v.Add({"value", "/value", "invalid_format", "a name search needs at least one letter or digit"});
    }
    r.normalised = *value;
  } else if (field.has_value() && value.has_value()) {
    auto n = pp::NormalisePii(*field, *value, rt.Today());
    if (!n.ok()) v.Add({"value", "/value", "invalid_format", "value is not a valid " + *field + ": " + n.status().message()});
    if (n.ok()) r.normalised = *n;
  }
  if (!v.ok()) {
    respond(ValidationProblem(req, v.errors()));
    return std::nullopt;
  }
  r.field = *field;
  return r;
}

// A page of the persons `ids` (in id order) as the list envelope, the rows as stored.
std::string SearchPageBody(Runtime& rt, const projections::PersonsPage& page, const std::string& scope) {
  return "{\"object\":\"list\",\"data\":[" + page.data + "],\"hasMore\":" + (page.has_more ? "true" : "false") +
         ",\"totalCount\":" + std::to_string(page.total) + ",\"totalIsEstimate\":false,\"nextCursor\":" +
         (page.has_more ? core::DumpJson(core::Json(EncodeCursor(rt.cursor_key(), scope, page.last))) : "null") + "}";
}

void Search(Runtime& rt, const PersonsOptions& o, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  const AuthContext& a = call.auth;
  auto r = ParseSearch(rt, req, respond);
  if (!r) return;
  if (r->environment.has_value() && *r->environment != a.environment) {
    return respond(Problem(req, "ENVIRONMENT_MISMATCH",
                           "the key's environment decides: this key searches " + a.environment + " persons"));
  }
  const int max_limit = o.limits.page_limit_max;
  if (r->limit.has_value() && (*r->limit < 1 || *r->limit > max_limit)) {
    return respond(Problem(req, "LIMIT_OUT_OF_RANGE", "limit must be from 1 to " + std::to_string(max_limit),
                           {{"minimum", 1}, {"maximum", max_limit}}));
  }
  // The cursor binds to the query through a keyed hash of it (never the value itself).
  const std::string scope = "persons-search|" + TeOf(a) + "|" + r->field + "|" +
                            core::Base64UrlEncode(core::HmacSha256(rt.cursor_key(), "search|" + r->normalised));
  std::map<std::string, std::string> page_query = {{"limit", std::to_string(r->limit.value_or(20))}};
  if (r->cursor.has_value()) page_query["startingAfter"] = *r->cursor;
  auto page_req = ParsePageRequest(page_query, {}, rt.cursor_key(), r->cursor.has_value() ? scope : "", 20, max_limit);
  if (!page_req.ok()) return respond(StatusToProblem(req, page_req.status()));
  auto ids = Matches(rt, a, r->field, r->normalised);
  if (!ids.ok()) return respond(StatusToProblem(req, ids.status()));
  auto page = projections::PagePersons(rt.store(), TeOf(a), *ids, page_req->starting_after, page_req->limit);
  if (!page.ok()) return respond(StatusToProblem(req, page.status()));
  HttpResponse out;
  out.body = SearchPageBody(rt, *page, scope);
  respond(std::move(out));
}

// Candidates sharing the person's CURP or e-mail (their blind keys), active or not; suggests only.
void Duplicates(Runtime& rt, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  const AuthContext& a = call.auth;
  const std::string id = req.path_params["person_id"];
  auto row = UnpurgedPersonRow(rt, a, id);
  if (!row.ok()) return respond(StatusToProblem(req, row.status()));
  auto found = projections::FindDuplicates(rt.store(), TeOf(a), id);
  if (!found.ok()) return respond(StatusToProblem(req, found.status()));
  core::Json data = core::Json::array();
  for (const auto& d : *found) {
    data.push_back({{"personId", d.person_id},
                    {"matchedOn", d.matched_on},
                    {"status", core::StringOr(d.record, "status")},
                    {"createdAt", core::StringOr(d.record, "createdAt")},
                    {"applicationId", d.record.value("applicationId", core::Json(nullptr))}});
  }
  respond(JsonResponse(200, {{"object", "list"}, {"data", data}}));
}

// GET …/verification-sessions: the person's sessions (their records), newest first.
void Sessions(Runtime& rt, const PersonsOptions& o, ApiCall& call, Respond respond) {
  const std::string id = call.request->path_params["person_id"];
  auto row = UnpurgedPersonRow(rt, call.auth, id);
  if (!row.ok()) return respond(StatusToProblem(*call.request, row.status()));
  const std::string te = TeOf(call.auth);
  CursorList list;
  list.index = PV::Abs(PV::Sessions(te, id));
  list.scope = "person-sessions|" + te + "/" + id;
  list.row_key = [te](std::string_view entry) {
    return projections::SessionsView::Abs(projections::SessionsView::Record(te, PV::IdOfOrder(entry)));
  };
  ServeCursorList(rt, o, call, list, std::move(respond));
}

// GET …/documents: the metadata of the person's captures, newest first (no bytes; viewing one
// is a separate, audited operation).
void Documents(Runtime& rt, const PersonsOptions& o, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  const std::string id = req.path_params["person_id"];
  auto row = UnpurgedPersonRow(rt, call.auth, id);
  if (!row.ok()) return respond(StatusToProblem(req, row.status()));
  const std::string scope = "person-documents|" + TeOf(call.auth) + "/" + id;
  auto page_req = ParsePageRequest(ParseQuery(req.query), {}, rt.cursor_key(), scope,
                                   o.limits.page_limit_default, o.limits.page_limit_max);
  if (!page_req.ok()) return respond(StatusToProblem(req, page_req.status()));
  auto media = PersonMedia(rt, call.auth, id);
  if (!media.ok()) return respond(StatusToProblem(req, media.status()));
  // Pages over the list in its order; a cursor is the position key of its last item.
  auto key_of = [](const core::Json& m) { return core::StringOr(m, "capturedAt") + "|" + core::StringOr(m, "id"); };
  Page page;
  core::Json data = core::Json::array();
  bool started = page_req->starting_after.empty();
  for (const auto& m : *media) {
    if (!started) {
      started = key_of(m) == page_req->starting_after;
      page.has_previous = true;
      continue;
    }
    if (static_cast<int>(data.size()) == page_req->limit) {
      page.has_more = true;
      break;
    }
    page.keys.push_back(key_of(m));
    data.push_back(m);
  }
  std::optional<int64_t> total;
  if (page_req->include_total) total = static_cast<int64_t>(media->size());
  respond(JsonResponse(200, ListEnvelope(data, page, *page_req, rt.cursor_key(), scope, total)));
}

void Get(Runtime& rt, ApiCall& call, Respond respond, const RevealHandler& expand) {
  HttpRequest& req = *call.request;
  auto query = ParseQuery(req.query);
  for (const auto& [k, val] : query) {
    if (k != "expand") return respond(Problem(req, "BAD_REQUEST", "unknown query parameter " + k));
  }
  if (auto it = query.find("expand"); it != query.end() && !it->second.empty()) {
    return expand(call, std::move(respond));
  }
  auto detail = MaskedDetail(rt, call.auth, req.path_params["person_id"]);
  if (!detail.ok()) return respond(StatusToProblem(req, detail.status()));
  respond(JsonResponse(200, *detail));
}

}  // namespace

std::vector<ApiRoute> PersonRoutes(Runtime* r, const PersonsOptions& options) {
  std::vector<ApiRoute> routes;
  const PersonsOptions* o = &options;
  const std::string base = "/v1/persons";
  const std::string tag = "Persons (vault)";
  const std::vector<std::string>& idem = IdempotencyErrors();
  const std::vector<std::string> lookup = {"INVALID_ID", "PERSON_NOT_FOUND"};
  const std::vector<std::string> pii_input = {"VALIDATION_ERROR", "UNKNOWN_PII_FIELD", "METADATA_INVALID",
                                              "CURP_CONFLICT"};
  RevealHandler expand = RevealOnRead(r, options);
  std::vector<QueryParam> list_query = {
      {"environment", {{"type", "string"}, {"enum", {"live", "test"}}},
       "must be the key's environment (the key decides; another value is 400 `ENVIRONMENT_MISMATCH`)"},
      {"created[gte]", {{"type", "string"}, {"format", "date-time"}}, "created at or after"},
      {"created[lte]", {{"type", "string"}, {"format", "date-time"}}, "created at or before"},
      {"forgetRequested", {{"type", "boolean"}}, "only persons with (true) or without (false) a forget request"},
      {"application", {{"type", "string"}, {"pattern", "^app_[0-9a-f]{32}$"}}, "only this application's persons"}};
  for (auto& q : PageParams()) list_query.push_back(q);
  routes.push_back(ApiRoute{
      .method = "POST", .path = base, .operation_id = "createPerson", .tag = tag,
      .scope = "persons:write", .family = RateFamily::kWrite, .idempotency = IdempotencyRule::kOptional,
      .versioned = true, .has_body = true, .request_schema = "PersonWriteRequest", .success_status = 201,
      .response_schema = "PersonWriteResponse",
      .error_codes = Codes({pii_input, {"INVALID_ID", "APPLICATION_NOT_FOUND", "ENVIRONMENT_MISMATCH", "CONFLICT",
                                        "PERSON_PURGED", "PERSON_ALREADY_MERGED"}, idem}),
      .handler = [r](ApiCall& c, Respond respond) { Create(*r, c, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "GET", .path = base, .operation_id = "listPersons", .tag = tag,
      .scope = "persons:read", .versioned = true, .query = list_query, .response_schema = "PersonList",
      .error_codes = {"INVALID_ID", "VALIDATION_ERROR", "BAD_REQUEST", "INVALID_CURSOR", "LIMIT_OUT_OF_RANGE",
                      "ENVIRONMENT_MISMATCH"},
      .handler = [r, o](ApiCall& c, Respond respond) { List(*r, *o, c, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "POST", .path = base + "/search", .operation_id = "searchPersons", .tag = tag,
      .scope = "persons:read", .versioned = true, .has_body = true, .request_schema = "PersonSearchRequest",
      .response_schema = "PersonSearchResults",
      .error_codes = {"VALIDATION_ERROR", "INVALID_CURSOR", "LIMIT_OUT_OF_RANGE", "ENVIRONMENT_MISMATCH"},
      .handler = [r, o](ApiCall& c, Respond respond) { Search(*r, *o, c, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "GET", .path = base + "/{person_id}", .operation_id = "getPerson", .tag = tag,
      .scope = "persons:read", .versioned = true,
      .query = {{"expand", {{"type", "string"}}, "`pii` or a comma-separated list of `pii.<field>`"}},
      .headers = {"Service-Reason"}, .response_schema = "PersonDetailMasked",
      .error_codes = Codes({lookup, {"BAD_REQUEST", "REASON_REQUIRED", "INSUFFICIENT_SCOPE", "UNKNOWN_PII_FIELD",
                                     "PII_DECRYPT_CAP_REACHED", "PERSON_PURGED", "PERSON_ALREADY_MERGED"}}),
      .handler = [r, expand](ApiCall& c, Respond respond) { Get(*r, c, std::move(respond), expand); }});
  routes.push_back(ApiRoute{
      .method = "PATCH", .path = base + "/{person_id}", .operation_id = "updatePerson", .tag = tag,
      .scope = "persons:write", .family = RateFamily::kWrite, .idempotency = IdempotencyRule::kOptional,
      .versioned = true, .has_body = true, .request_schema = "PersonPatchRequest",
      .response_schema = "PersonWriteResponse",
      .error_codes = Codes({lookup, pii_input, {"PERSON_PURGED", "PERSON_ALREADY_MERGED", "ARCO_REQUEST_NOT_FOUND",
                                                "ARCO_INVALID_TRANSITION", "CONFLICT"}, idem}),
      .handler = [r](ApiCall& c, Respond respond) { Patch(*r, c, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "GET", .path = base + "/{person_id}/fields", .operation_id = "getPersonFields", .tag = tag,
      .scope = "persons:read", .versioned = true, .response_schema = "PersonFieldsResponse",
      .error_codes = lookup,
      .handler = [r](ApiCall& c, Respond respond) { Fields(*r, c, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "GET", .path = base + "/{person_id}/duplicates", .operation_id = "listPersonDuplicates",
      .tag = tag, .scope = "persons:read", .versioned = true, .response_schema = "DuplicatesResponse",
      .error_codes = lookup,
      .handler = [r](ApiCall& c, Respond respond) { Duplicates(*r, c, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "GET", .path = base + "/{person_id}/verification-sessions",
      .operation_id = "listPersonVerificationSessions", .tag = tag,
      .scope = "persons:read", .versioned = true, .query = PageParams(),
      .response_schema = "PersonVerificationSessionList",
      .error_codes = Codes({lookup, {"BAD_REQUEST", "INVALID_CURSOR", "LIMIT_OUT_OF_RANGE"}}),
      .handler = [r, o](ApiCall& c, Respond respond) { Sessions(*r, *o, c, std::move(respond)); }});
  routes.push_back(ApiRoute{
      .method = "GET", .path = base + "/{person_id}/documents", .operation_id = "listPersonDocuments",
      .tag = tag, .scope = "persons:read", .versioned = true, .query = PageParams(),
      .response_schema = "PersonDocumentList",
      .error_codes = Codes({lookup, {"BAD_REQUEST", "INVALID_CURSOR", "LIMIT_OUT_OF_RANGE"}}),
      .handler = [r, o](ApiCall& c, Respond respond) { Documents(*r, *o, c, std::move(respond)); }});
  for (auto& route : RevealRoutes(r, options)) routes.push_back(std::move(route));
  for (auto& route : RightsRoutes(r, options)) routes.push_back(std::move(route));
  for (auto& route : ConsolidationRoutes(r, options)) routes.push_back(std::move(route));
  for (auto& route : ArcoRoutes(r, options)) routes.push_back(std::move(route));
  for (auto& route : MediaLinkRoutes(r, options)) routes.push_back(std::move(route));
  for (auto& route : ImportRoutes(r, options)) routes.push_back(std::move(route));
  for (auto& route : ExportBulkRoutes(r, options)) routes.push_back(std::move(route));
  return routes;
}

}  // namespace svc::api::persons
