// Isolation, generated from the served OpenAPI document (issue 68): every operation whose path
// takes an id is called on one tenant's real resources with the credentials of every other
// tenant-and-environment, and must answer exactly as it answers for ids that name nothing (the
// same status and code: no 2xx, no 409 that tells a state, no 403 that tells an existence), with
// none of the owner's ids in the answer; the owner's resources read the same afterwards, and the
// others' lists never show them. Both environments own a set. A path parameter this file does not
// know fails the test, so a new route cannot be missed.
#include <doctest/doctest.h>

#include <map>
#include <regex>
#include <set>

#include "core/crypto.h"
#include "core/ids.h"
#include "tests/support/api_env.h"
#include "tests/support/session_flow.h"

namespace integration_isolation_test {

using namespace svc;
using svc::testing::Body;
using svc::testing::Env;
using svc::testing::Sharing;

namespace {

// What each path parameter names: the prefix of its ids. Parameters whose id is chosen by the
// integrator (a portfolio's name) or is itself the credential (a media link's token) are listed
// with how they are handled.
const std::map<std::string, std::string>& Prefixes() {
  static const std::map<std::string, std::string> kPrefixes = {
      {"arco_request_id", "arc"}, {"asset_id", "med"},       {"case_id", "cas"},   {"company_id", "cmp"},
      {"consent_id", "cns"},      {"consolidation_id", "csl"}, {"delivery_id", "whd"}, {"endpoint_id", "whe"},
      {"export_id", "pxb"},       {"grant_id", "grt"},       {"hit_id", "hit"},    {"media_id", "med"},
      {"member_id", "cmm"},       {"node_id", "ubo"},        {"person_id", "per"}, {"session_id", "vrf"},
      {"token_id", "ctok"},
      // job_id: "imp" under /person-imports, "exb" under /export-bulk (JobPrefix).
      {"job_id", ""},
      // portfolio_id: the integrator's own name for a portfolio (screening_api.cc): "iso-portfolio-<env>".
      {"portfolio_id", ""},
  };
  return kPrefixes;
}
// Operations left out, with why: their path's credential is the path itself, not a tenant's key.
const std::set<std::string>& LeftOut() {
  static const std::set<std::string> kLeftOut = {
      "GET /v1/media-links/{token}",                      // the signed link is the credential (guard_test.cc)
      "GET /v1/embedded/sessions/{session_id}/policy",    // the widget's: its credential is the link (embedded_test.cc)
  };
  return kLeftOut;
}

std::string JobPrefix(const std::string& path) { return path.find("export-bulk") != std::string::npos ? "exb" : "imp"; }

std::string FakeId(const std::string& prefix) { return prefix + "_" + core::HexEncode(core::RandomBytes(16)); }

// Every id of the service's shape in a text.
std::set<std::string> IdsIn(const std::string& text) {
  static const std::regex kId("\\b(arc|med|cas|cmp|cns|csl|whd|whe|pxb|grt|hit|cmm|ubo|per|vrf|ctok|imp|exb|ems|scr|opp|cdc|lgh)_[0-9a-f]{32}\\b");
  std::set<std::string> out;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), kId); it != std::sregex_iterator(); ++it) out.insert(it->str());
  return out;
}

// A minimal body for a JSON request schema: its required members, each given a value of its
// type (the enum's first, a format's sample), so that a route gets past its validation to the
// lookup. Not every route will; the summary says how many did.
core::Json Sample(const core::Json& doc, const core::Json& schema, int depth = 0) {
  if (depth > 6 || !schema.is_object()) return nullptr;
  if (schema.contains("$ref")) {
    const std::string ref = schema["$ref"];
    return Sample(doc, doc["components"]["schemas"][ref.substr(ref.rfind('/') + 1)], depth + 1);
  }
  for (const char* any : {"oneOf", "anyOf", "allOf"}) {
    if (schema.contains(any)) {
      for (const auto& s : schema[any]) {
        core::Json v = Sample(doc, s, depth + 1);
        if (!v.is_null()) return v;
      }
    }
  }
  if (schema.contains("enum") && !schema["enum"].empty()) return schema["enum"][0];
  if (schema.contains("const")) return schema["const"];
  std::string type = "object";
  if (schema.contains("type") && schema["type"].is_string()) {
    type = schema["type"];
  } else if (schema.contains("type") && schema["type"].is_array()) {
    for (const auto& t : schema["type"]) {
      if (t != "null") {
        type = t;
        break;
      }
    }
  }
  if (type == "string") {
    const std::string format = schema.value("format", "");
    static const std::regex kIdPattern("^\\^([a-z]+)_\\[0-9a-f\\]\\{32\\}\\$$");
    std::smatch id;
    const std::string pattern = schema.value("pattern", "");
    if (std::regex_match(pattern, id, kIdPattern)) return FakeId(id[1].str());
    if (format == "date-time") return "2026-12-01T00:00:00Z";
    if (format == "date") return "2026-12-01";
    if (format == "email") return "titular@example.com";
    if (format == "uri") return "https://example.com/iso";
    return std::string(std::max<size_t>(3, static_cast<size_t>(schema.value("minLength", 3))), 'a');
  }
  if (type == "integer" || type == "number") return schema.value("minimum", 1);
  if (type == "boolean") return true;
  if (type == "array") {
    core::Json a = core::Json::array();
    if (schema.value("minItems", 0) > 0) a.push_back(Sample(doc, schema.value("items", core::Json::object()), depth + 1));
    return a;
  }
  core::Json o = core::Json::object();
  for (const auto& r : schema.value("required", core::Json::array())) {
    const std::string name = r;
    o[name] = Sample(doc, schema["properties"].value(name, core::Json::object()), depth + 1);
  }
  return o;
}

struct Owner {
  std::string environment, key;
  std::map<std::string, std::string> ids;  // prefix -> one real id
  std::set<std::string> all;               // every id the owner's answers showed
};

void Harvest(Owner& o, const std::string& text) {
  for (const auto& id : IdsIn(text)) {
    o.all.insert(id);
    o.ids.emplace(id.substr(0, id.find('_')), id);
  }
}

api::HttpResponse Must(Owner& o, Env& env, const std::string& method, const std::string& path, const core::Json& body,
                       int status = 201) {
  auto r = env.Call(o.key, method, path, body.is_null() ? "" : body.dump(),
                    {{"Idempotency-Key", "iso-" + core::HexEncode(core::RandomBytes(8))}});
  REQUIRE_MESSAGE(r.status == status, method, " ", path, ": ", r.body);
  Harvest(o, r.body);
  return r;
}

// One of each resource in tenant `tenant`'s `environment`, made with `key`.
Owner MakeResources(Env& env, const std::string& tenant, const std::string& environment, const std::string& key) {
  Owner o{environment, key, {}, {}};
  const std::string person =
      Body(Must(o, env, "POST", "/v1/persons",
                {{"pii", {{"email", "iso-" + environment + "@example.com"}, {"fullName", "Titular Aislado"}}}}))["id"];
  // A session of the person that went to review: the session, its case, its media.
  std::string session;
  if (environment == "test") {
    session = testing::SandboxSession(env, key, "iso-" + environment, "review", person);
  } else {
    // Live: no registry gateway here, so the verdict is review.
    session = Body(Must(o, env, "POST", "/v1/verification-sessions", {{"channel", "api"}, {"personId", person}}))["id"];
    Must(o, env, "POST", "/v1/verification-sessions/" + session + "/consent", {{"accepted", true}}, 200);
    for (const auto& [kind, mime, bytes] : testing::MinimalCaptures()) {
      auto up = testing::Upload(env, key, session, kind, mime, bytes);
      REQUIRE_MESSAGE(up.status == 201, up.body);
    }
    Must(o, env, "POST", "/v1/verification-sessions/" + session + "/submit", nullptr, 200);
    REQUIRE(env.Admin("POST", "/admin/pipeline/wait-idle").status == 200);
  }
  Harvest(o, env.Call(key, "GET", "/v1/verification-sessions/" + session + "/evidence").body);
  const std::string pb = "/v1/persons/" + person;
  Must(o, env, "POST", pb + "/consents", {{"mechanism", "firma_electronica"}, {"policyVersion", "2026-01"}, {"purpose", "credit_assessment"}});
  const std::string partner = env.NewApplication(tenant, "iso-partner-" + environment);
  Must(o, env, "POST", pb + "/grants",
       {{"applicationId", partner}, {"allowedFields", {"email"}}, {"allowedPurposes", {"aml_compliance"}}});
  auto token = Must(o, env, "POST", pb + "/client-token", {{"fields", {"email"}}, {"reason", "isolation"}});
  const std::string ctok = Body(token).value("token", "");
  if (ctok.rfind("ctok_", 0) == 0) o.ids.emplace("ctok", ctok.substr(0, ctok.find('.')));
  Must(o, env, "POST", pb + "/export", {{"reason", "isolation"}}, 200);
  // A second person merged into a third (the first keeps its consents and grants); an import job.
  const std::string survivor = Body(Must(o, env, "POST", "/v1/persons", {{"pii", {{"fullName", "Titular Superviviente"}}}}))["id"];
  const std::string merged = Body(Must(o, env, "POST", "/v1/persons", {{"pii", {{"fullName", "Titular Fusionado"}}}}))["id"];
  Must(o, env, "POST", "/v1/persons/" + survivor + "/consolidate", {{"sourcePersonIds", {merged}}}, 202);
  Harvest(o, env.Call(key, "GET", "/v1/persons/" + survivor).body);
  Must(o, env, "POST", "/v1/persons/import", {{"persons", {{{"pii", {{"fullName", "Titular Importado"}}}}}}});
  const std::string company = Body(Must(o, env, "POST", "/v1/companies", {{"legalName", "Aislada " + environment + " SA"}}))["id"];
  Must(o, env, "POST", "/v1/companies/" + company + "/members", {{"name", "Jorge Salas Ibarra"}, {"role", "director"}});
  Must(o, env, "POST", "/v1/companies/" + company + "/ubo", {{"name", "Holding Uno"}, {"nodeType", "company"}, {"ownershipPct", 70}});
  const std::string endpoint =
      Body(Must(o, env, "POST", "/v1/developer/webhooks", {{"url", "http://127.0.0.1:9/iso"}, {"events", {"verification.approved"}}}))["id"];
  Must(o, env, "POST", "/v1/developer/webhooks/" + endpoint + "/test", core::Json::object(), 200);
  Harvest(o, env.Call(key, "GET", "/v1/developer/webhooks/" + endpoint + "/deliveries").body);
  Must(o, env, "POST", "/v1/screenings", {{"subjectType", "person"}, {"personId", person}, {"portfolioId", "iso-portfolio-" + environment}});
  Must(o, env, "POST", "/v1/arco-requests",
       {{"personId", person},
        {"right", "access"},
        {"identityVerification", {{"method", "official_id"}, {"reference", "INE folio 0012"}}},
        {"reference", "TICKET-ISO"}});
  return o;
}

// The path with each {param} given an id: the owner's when `real`, else one that names nothing.
std::string Fill(const std::string& path, const Owner& o, bool real, std::vector<std::string>* missing = nullptr) {
  std::string out = path;
  for (size_t open = out.find('{'); open != std::string::npos; open = out.find('{')) {
    const size_t close = out.find('}', open);
    const std::string param = out.substr(open + 1, close - open - 1);
    auto p = Prefixes().find(param);
    REQUIRE_MESSAGE(p != Prefixes().end(), "a path parameter isolation_test.cc does not know: {", param, "} in ", path);
    std::string value;
    if (param == "portfolio_id") {
      value = real ? "iso-portfolio-" + o.environment : "iso-none-" + core::HexEncode(core::RandomBytes(4));
    } else {
      const std::string prefix = param == "job_id" ? JobPrefix(path) : p->second;
      auto id = o.ids.find(prefix);
      if (real && id != o.ids.end()) {
        value = id->second;
      } else {
        if (real && missing != nullptr) missing->push_back(param);
        value = FakeId(prefix);
      }
    }
    out.replace(open, close - open + 1, value);
  }
  return out;
}

std::string CodeOf(const api::HttpResponse& r) {
  core::Json b = core::ParseJsonOrDiscarded(r.body);
  return b.is_object() ? b.value("code", "") : "";
}

}  // namespace

TEST_CASE("isolation: every route that takes an id, from the served OpenAPI document, across tenants and environments") {
  REQUIRE(core::InitCrypto().ok());
  Env env(false,
          {"--webhooks-allow-private-urls", "--rate-writes", "0", "--rate-reads", "0", "--rate-reveals", "0",
           "--guard-requests-per-second", "0", "--guard-failures-per-minute", "0", "--guard-target-failures-per-minute",
           "0", "--guard-key-failures-per-minute", "0"},
          Sharing::kIsolated);
  const std::string tenant_b = env.NewTenant("Beta");
  struct Credential {
    std::string tenant, environment, key;
  };
  const std::vector<Credential> all = {{env.tenant, "test", env.test_key},
                                       {env.tenant, "live", env.live_key},
                                       {tenant_b, "test", env.NewKey(tenant_b, "test", {"*"})},
                                       {tenant_b, "live", env.NewKey(tenant_b, "live", {"*"})}};
  std::vector<Owner> owners = {MakeResources(env, env.tenant, "test", env.test_key),
                               MakeResources(env, env.tenant, "live", env.live_key)};

  const core::Json doc = Body(env.Call("", "GET", "/v1/openapi.json"));
  struct Operation {
    std::string method, path;
    core::Json body;  // null: none
  };
  std::vector<Operation> with_ids, lists;
  for (auto p = doc["paths"].begin(); p != doc["paths"].end(); ++p) {
    for (auto m = p->begin(); m != p->end(); ++m) {
      std::string method = m.key();
      for (auto& c : method) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      if (method != "GET" && method != "POST" && method != "PATCH" && method != "PUT" && method != "DELETE") continue;
      Operation op{method, p.key(), nullptr};
      const core::Json content = m->value("requestBody", core::Json::object()).value("content", core::Json::object());
      if (content.contains("application/json")) op.body = Sample(doc, content["application/json"].value("schema", core::Json::object()));
      if (LeftOut().count(method + " " + op.path) != 0) continue;
      if (op.path.find('{') != std::string::npos) {
        with_ids.push_back(op);
      } else if (method == "GET" && !m->value("security", core::Json::array()).empty()) {
        lists.push_back(op);
      }
    }
  }
  REQUIRE(with_ids.size() >= 80);

  // The owners' own reads, before.
  auto reads = [&](const Owner& o) {
    std::map<std::string, std::string> out;
    for (const std::string path : {"/v1/persons/{person_id}", "/v1/verification-sessions/{session_id}",
                                   "/v1/companies/{company_id}", "/v1/developer/webhooks/{endpoint_id}",
                                   "/v1/arco-requests/{arco_request_id}", "/v1/review/cases/{case_id}/state",
                                   "/v1/persons/{person_id}/consents", "/v1/persons/{person_id}/grants"}) {
      auto r = env.Call(o.key, "GET", Fill(path, o, true));
      out[path] = std::to_string(r.status) + " " + r.body;
    }
    return out;
  };
  std::vector<std::map<std::string, std::string>> before;
  for (const auto& o : owners) before.push_back(reads(o));

  size_t calls = 0, reached = 0;
  std::set<std::string> not_made;
  for (const auto& o : owners) {
    for (const auto& c : all) {
      if (c.tenant == env.tenant && c.environment == o.environment) continue;  // the owner
      for (const auto& op : with_ids) {
        std::vector<std::string> missing;
        const std::string real = Fill(op.path, o, true, &missing);
        const std::string fake = Fill(op.path, o, false);
        for (const auto& m : missing) not_made.insert(m);
        const std::string body = op.body.is_null() ? "" : op.body.dump();
        auto headers = [&] {
          return std::map<std::string, std::string>{{"Idempotency-Key", "iso-" + core::HexEncode(core::RandomBytes(8))}};
        };
        auto on_real = env.Call(c.key, op.method, real, body, headers());
        auto on_fake = env.Call(c.key, op.method, fake, body, headers());
        ++calls;
        const std::string who = op.method + " " + op.path + " by " + c.tenant.substr(0, 8) + "/" + c.environment +
                                " on " + o.environment;
        CHECK_MESSAGE(on_real.status < 500, who, ": ", on_real.body);
        CHECK_MESSAGE((on_real.status < 200 || on_real.status > 299), who, " answered ", on_real.status, ": ",
                      on_real.body.substr(0, 300));
        CHECK_MESSAGE(on_real.status == on_fake.status, who, ": ", on_real.status, " for the owner's ids, ",
                      on_fake.status, " for ids that name nothing: ", on_real.body.substr(0, 300));
        CHECK_MESSAGE(CodeOf(on_real) == CodeOf(on_fake), who, ": ", CodeOf(on_real), " vs ", CodeOf(on_fake));
        for (const auto& id : IdsIn(on_real.body)) {
          CHECK_MESSAGE((o.all.count(id) == 0 || real.find(id) != std::string::npos), who, " shows ", id);
        }
        if (on_real.status == 404) ++reached;
      }
      // The other's lists never show the owner's resources.
      for (const auto& op : lists) {
        auto r = env.Call(c.key, "GET", op.path);
        for (const auto& id : IdsIn(r.body)) {
          CHECK_MESSAGE(o.all.count(id) == 0, "GET ", op.path, " by ", c.environment, " shows the ", o.environment, " owner's ", id);
        }
      }
    }
  }
  // The owners read what they read before: nothing the others sent moved their resources.
  for (size_t i = 0; i < owners.size(); ++i) {
    auto after = reads(owners[i]);
    for (const auto& [path, seen] : before[i]) {
      CHECK_MESSAGE(after[path] == seen, owners[i].environment, " owner's GET ", path, " changed");
    }
  }
  MESSAGE(calls, " calls on ", with_ids.size(), " operations; ", reached,
          " reached the lookup (404); parameters with no real resource made here: ",
          [&] {
            std::string s;
            for (const auto& m : not_made) s += m + " ";
            return s;
          }());
  // Most operations get past their body's validation to the lookup.
  CHECK(reached * 10 >= calls * 7);
}

}  // namespace integration_isolation_test
