// AML screening through a real svc (docs/screening.md): lists loaded into the service in their
// published formats and refused when malformed; screenings of a name, a company and a person of
// the vault; the hits, their filters and their review; a changed list reloaded and a portfolio
// run that finds the new hit and delivers aml.hit_found; refusals, isolation and scopes.
#include <doctest/doctest.h>

#include <fstream>

#include "api/http/runtime.h"
#include "core/json.h"
#include "tests/support/api_env.h"
#include "tests/support/stopped_data_dir.h"
#include "tests/support/receiver_process.h"

namespace integration_aml_test {

using namespace svc;
using svc::testing::Body;
using svc::testing::CheckProblem;
using svc::testing::Env;
using svc::testing::Sharing;

namespace {

const std::string kSamples = std::string(SVC_TEST_SOURCE_DIR) + "/../docs/samples/lists/";

api::HttpResponse Load(Env& env, const std::string& format, std::vector<std::string> files, const std::string& source = "") {
  core::Json body = {{"format", format}, {"files", files}};
  if (!source.empty()) body["source"] = source;
  return env.Admin("POST", "/admin/aml/lists", body);
}

api::HttpResponse Screen(Env& env, const std::string& key, const core::Json& body) {
  return env.Call(key, "POST", "/v1/screenings", body.dump());
}

core::Json Screened(Env& env, const std::string& key, const core::Json& body) {
  auto r = Screen(env, key, body);
  REQUIRE_MESSAGE(r.status == 201, r.body);
  return Body(r);
}

// A person of the vault whose name and birth date match the OFAC sample's entry 9003, screened:
// their id and the screening (one hit).
std::pair<std::string, core::Json> ScreenedListedPerson(Env& env, const std::string& key) {
  auto person = env.Call(key, "POST", "/v1/persons",
                         R"({"pii":{"fullName":"MARIA DE LA LUZ OCHOA BELTRAN","birthDate":"1968-11-02"}})");
  REQUIRE_MESSAGE(person.status == 201, person.body);
  const std::string pid = Body(person)["id"];
  core::Json screening = Screened(env, key, {{"subjectType", "person"}, {"personId", pid}});
  REQUIRE(screening["hits"].size() == 1);
  return {pid, screening};
}

void Write(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

const char* kHeader =
    "id,schema,name,aliases,birth_date,countries,addresses,identifiers,sanctions,phones,emails,dataset,first_seen,"
    "last_seen,last_change\n";

}  // namespace

TEST_CASE("aml: lists load into the service in each published format; a malformed one is refused whole") {
  Env env(false, {}, Sharing::kIsolated);
  auto ofac = Load(env, "ofac_sdn_csv", {kSamples + "sdn.csv", kSamples + "alt.csv"});
  REQUIRE_MESSAGE(ofac.status == 200, ofac.body);
  CHECK(Body(ofac)["entries"] == 5);
  CHECK(Body(ofac)["version"] == 1);
  CHECK(Body(ofac)["unchanged"] == false);
  CHECK(Load(env, "un_consolidated_xml", {kSamples + "un_consolidated.xml"}).status == 200);
  CHECK(Load(env, "opensanctions_csv", {kSamples + "targets.simple.csv"}).status == 200);
  CHECK(Load(env, "ftm_json", {kSamples + "entities.ftm.json"}).status == 200);
  // The SAT's lists (CFF art. 69-B, art. 69: several files, one version), as the SAT publishes them.
  auto sat = Load(env, "sat_69b_csv", {kSamples + "sat_69b.csv"});
  REQUIRE_MESSAGE(sat.status == 200, sat.body);
  CHECK(Body(sat)["source"] == "sat_69b");
  CHECK(Body(sat)["entries"] == 3);
  CHECK(Body(sat)["skipped"] == core::Json{{"cleared:desvirtuado", 1}, {"cleared:sentencia favorable", 1}});
  auto sat69 = Load(env, "sat_69_csv", {kSamples + "sat_69_firmes.csv", kSamples + "sat_69_no_localizados.csv"});
  REQUIRE_MESSAGE(sat69.status == 200, sat69.body);
  CHECK(Body(sat69)["source"] == "sat_69");
  CHECK(Body(sat69)["entries"] == 3);
  // The version in force again: nothing recorded.
  auto same = Load(env, "ofac_sdn_csv", {kSamples + "sdn.csv", kSamples + "alt.csv"});
  CHECK(Body(same)["unchanged"] == true);
  CHECK(Body(same)["version"] == 1);
  // Malformed: refused with the place at fault; the version in force stays.
  const std::string bad = env.dir.Sub("bad.csv");
  Write(bad, std::string(kHeader) + "x1,Person,\"unclosed,,,,,,,,,,,,\n");
  auto refused = Load(env, "opensanctions_csv", {bad});
  CHECK(refused.status == 400);
  CHECK(refused.body.find("opensanctions_csv") != std::string::npos);
  Write(bad, "RFC,RAZON SOCIAL,SUPUESTO\nNOT-AN-RFC,Alguien,FIRMES\n");
  refused = Load(env, "sat_69_csv", {bad});
  CHECK(refused.status == 400);
  CHECK(refused.body.find("is not an RFC") != std::string::npos);
  CHECK(Load(env, "pdf", {bad}).status == 400);
  CHECK(Load(env, "ofac_sdn_csv", {env.dir.Sub("missing.csv")}).status == 400);
  CHECK(Load(env, "ofac_sdn_csv", {kSamples + "sdn.csv"}, "Bad Name!").status == 400);
  core::Json lists = Body(env.Admin("GET", "/admin/aml/lists"))["lists"];
  REQUIRE(lists.size() == 6);
  for (const auto& l : lists) CHECK(l["version"] == 1);

  // Every list screens: an entry of each.
  const std::string k = env.test_key;
  for (const std::string name : {"Rogelio Armando Villarreal Quintana", "Adriana Belén Córdova Rangel",
                                 "José Ángel Gómez Álvarez", "Abarrotes La Rivereña SA de CV"}) {
    CAPTURE(name);
    CHECK(Screened(env, k, {{"subjectType", "name"}, {"name", name}})["hits"].size() >= 1);
  }
  CHECK(Screened(env, k, {{"subjectType", "name"}, {"name", "Nadie Conocido Aquí"}})["lists"].size() == 6);
  // A SAT entry by its RFC alone, whatever the name.
  core::Json by_rfc = Screened(env, k, {{"subjectType", "name"}, {"name", "Otra Empresa Cualquiera SA"},
                                        {"kind", "company"}, {"idNumber", "CAÑ150312Q78"}});
  REQUIRE(by_rfc["hits"].size() == 1);
  CHECK(by_rfc["hits"][0]["list"]["source"] == "sat_69b");
  CHECK(by_rfc["hits"][0]["entry"]["programs"] == core::Json::array({"CFF 69-B: Definitivo"}));
  CHECK(by_rfc["hits"][0]["reasons"] == core::Json::array({"id_number_equal"}));
}

TEST_CASE("aml: screenings of a name, a company and a person; hits listed, filtered and reviewed; refusals") {
  Env env(false, {"--rate-reveals", "0"}, Sharing::kIsolated);
  REQUIRE(Load(env, "ofac_sdn_csv", {kSamples + "sdn.csv", kSamples + "alt.csv"}).status == 200);
  const std::string k = env.test_key;

  // A name: the hit carries the list, its version, the entry, the score, the algorithm.
  core::Json s = Screened(env, k, {{"subjectType", "name"}, {"name", "Rogelio Villarreal Quintana"}, {"kind", "person"}});
  CHECK(s["id"].get<std::string>().rfind("scr_", 0) == 0);
  CHECK(s["subjectId"].is_null());
  REQUIRE(s["hits"].size() == 1);
  core::Json h = s["hits"][0];
  CHECK(h["entry"]["id"] == "9001");
  CHECK(h["list"]["source"] == "ofac_sdn");
  CHECK(h["list"]["contentHash"] == s["lists"][0]["contentHash"]);
  CHECK(h["score"].get<double>() >= 0.85);
  CHECK(h["algorithm"] == "name-match/v1");
  CHECK(h["status"] == "open");
  // The same name again is the same hit; a birth year far off rules the entry out.
  CHECK(Screened(env, k, {{"subjectType", "name"}, {"name", "Rogelio Villarreal Quintana"}, {"kind", "person"}})["hits"][0]["id"] ==
        h["id"]);
  CHECK(Screened(env, k, {{"subjectType", "name"}, {"name", "Rogelio Villarreal Quintana"}, {"birthDate", "1990-01-01"}})["hits"]
            .empty());

  // A company: its legal name.
  auto company = env.Call(k, "POST", "/v1/companies",
                          R"({"legalName":"Transportes y Logística del Pacífico Norte, S.A. de C.V."})",
                          {{"Idempotency-Key", "aml-cmp"}});
  REQUIRE_MESSAGE(company.status == 201, company.body);
  const std::string cid = Body(company)["id"];
  core::Json cs = Screened(env, k, {{"subjectType", "company"}, {"companyId", cid}});
  REQUIRE(cs["hits"].size() == 1);
  CHECK(cs["hits"][0]["entry"]["id"] == "9002");
  CHECK(cs["hits"][0]["subjectType"] == "company");
  CHECK(cs["hits"][0]["companyId"] == cid);

  // A person of the vault: the data is opened for it, an audited access.
  const auto [pid, ps] = ScreenedListedPerson(env, k);
  CHECK(ps["hits"][0]["entry"]["id"] == "9003");
  CHECK(ps["hits"][0]["subjectId"] == pid);
  core::Json audit = Body(env.Call(k, "GET", "/v1/audit-logs?channel=aml_screening"))["data"];
  REQUIRE(audit.size() == 1);
  CHECK(audit[0]["personId"] == pid);
  CHECK(audit[0]["purpose"] == "aml_screening");

  // The list, newest first, and its filters.
  core::Json all = Body(env.Call(k, "GET", "/v1/screening-hits"));
  REQUIRE(all["data"].size() == 3);
  CHECK(all["data"][2]["id"] == h["id"]);
  CHECK(Body(env.Call(k, "GET", "/v1/screening-hits?subjectType=person"))["data"].size() == 1);
  CHECK(Body(env.Call(k, "GET", "/v1/screening-hits?companyId=" + cid))["data"].size() == 1);
  CHECK(Body(env.Call(k, "GET", "/v1/screening-hits?status=open&limit=2"))["hasMore"] == true);
  CHECK(Body(env.Call(k, "GET", "/v1/screening-hits?screeningId=" + s["id"].get<std::string>()))["data"].size() == 1);
  CheckProblem(env.Call(k, "GET", "/v1/screening-hits?status=closed"), 422, "VALIDATION_ERROR");
  CheckProblem(env.Call(k, "GET", "/v1/screening-hits?companyId=nope"), 400, "INVALID_ID");
  CheckProblem(env.Call(k, "GET", "/v1/screening-hits?colour=red"), 400, "BAD_REQUEST");

  // Review: confirmed with a reason and a note (sealed at rest, shown here), then changed.
  const std::string hp = "/v1/screening-hits/" + h["id"].get<std::string>();
  auto confirmed = env.Call(k, "POST", hp + "/review",
                            R"({"decision":"confirmed","reasonCode":"true_match","note":"DOB and CURP agree"})");
  REQUIRE_MESSAGE(confirmed.status == 200, confirmed.body);
  CHECK(Body(confirmed)["status"] == "confirmed");
  CHECK(Body(confirmed)["reviews"][0]["note"] == "DOB and CURP agree");
  CHECK(Body(confirmed)["reviews"][0]["actorType"] == "api_key");
  REQUIRE(env.Call(k, "POST", hp + "/review", R"({"decision":"dismissed","reasonCode":"other"})").status == 200);
  core::Json one = Body(env.Call(k, "GET", hp));
  CHECK(one["status"] == "dismissed");
  CHECK(one["reviews"].size() == 2);
  CHECK(one["reviews"][1]["note"].is_null());
  CHECK(Body(env.Call(k, "GET", "/v1/screening-hits?status=dismissed"))["data"].size() == 1);
  CheckProblem(env.Call(k, "POST", hp + "/review", R"({"decision":"maybe","reasonCode":"other"})"), 422, "VALIDATION_ERROR");
  CheckProblem(env.Call(k, "POST", hp + "/review", R"({"decision":"confirmed","reasonCode":"false_positive"})"), 422,
               "VALIDATION_ERROR");
  CheckProblem(env.Call(k, "POST", hp + "/review", R"({"decision":"confirmed"})"), 422, "VALIDATION_ERROR");
  CheckProblem(env.Call(k, "POST", "/v1/screening-hits/hit_00000000000000000000000000000000/review",
                        R"({"decision":"confirmed","reasonCode":"true_match"})"),
               404, "SCREENING_NOT_FOUND");
  CheckProblem(env.Call(k, "GET", "/v1/screening-hits/hit_1"), 400, "INVALID_ID");

  // Refusals of a screening.
  CheckProblem(Screen(env, k, core::Json::object()), 422, "VALIDATION_ERROR");
  CheckProblem(Screen(env, k, {{"subjectType", "name"}}), 422, "VALIDATION_ERROR");
  CheckProblem(Screen(env, k, {{"subjectType", "person"}}), 422, "VALIDATION_ERROR");
  CheckProblem(Screen(env, k, {{"subjectType", "company"}, {"companyId", cid}, {"name", "x"}}), 422, "VALIDATION_ERROR");
  CheckProblem(Screen(env, k, {{"subjectType", "name"}, {"name", "x"}, {"portfolioId", "Bad Id"}}), 422, "VALIDATION_ERROR");
  CheckProblem(Screen(env, k, {{"subjectType", "name"}, {"name", "x"}, {"birthDate", "01/02/1990"}}), 422, "VALIDATION_ERROR");
  CheckProblem(Screen(env, k, {{"subjectType", "person"}, {"personId", "per_00000000000000000000000000000000"}}), 404,
               "PERSON_NOT_FOUND");
  CheckProblem(Screen(env, k, {{"subjectType", "company"}, {"companyId", "cmp_00000000000000000000000000000000"}}), 404,
               "COMPANY_NOT_FOUND");
  CheckProblem(Screen(env, k, {{"subjectType", "person"}, {"personId", "per_x"}}), 400, "INVALID_ID");
  CheckProblem(env.Call(k, "POST", "/v1/screenings", "nope"), 400, "BAD_REQUEST");

  // Isolation and scopes.
  CheckProblem(env.Call(env.live_key, "GET", hp), 404, "SCREENING_NOT_FOUND");
  CHECK(Body(env.Call(env.live_key, "GET", "/v1/screening-hits"))["data"].empty());
  CheckProblem(Screen(env, env.live_key, {{"subjectType", "company"}, {"companyId", cid}}), 404, "COMPANY_NOT_FOUND");
  const std::string reader = env.NewKey(env.tenant, "test", {"aml:read"});
  CHECK(env.Call(reader, "GET", "/v1/screening-hits").status == 200);
  CheckProblem(Screen(env, reader, {{"subjectType", "name"}, {"name", "x"}}), 403, "INSUFFICIENT_SCOPE");
  CheckProblem(env.Call(reader, "POST", hp + "/review", R"({"decision":"confirmed","reasonCode":"true_match"})"), 403,
               "INSUFFICIENT_SCOPE");
  CheckProblem(env.Call(reader, "POST", "/v1/monitoring/portfolios/p/run"), 403, "INSUFFICIENT_SCOPE");
  const std::string kyb_only = env.NewKey(env.tenant, "test", {"kyb:read", "kyb:write"});
  CheckProblem(env.Call(kyb_only, "GET", "/v1/screening-hits"), 403, "INSUFFICIENT_SCOPE");
}

TEST_CASE("aml: a person's hit keeps the entry's names sealed in the log, served opened, gone when the person is forgotten") {
  Env env(false, {"--rate-reveals", "0", "--fake-clock"}, Sharing::kIsolated);
  REQUIRE(Load(env, "ofac_sdn_csv", {kSamples + "sdn.csv", kSamples + "alt.csv"}).status == 200);
  const std::string k = env.test_key;
  const auto [pid, ps] = ScreenedListedPerson(env, k);
  const std::string hit = ps["hits"][0]["id"];
  CHECK(ps["hits"][0]["entry"]["name"] == "OCHOA BELTRAN, Maria de la Luz");
  core::Json served = Body(env.Call(k, "GET", "/v1/screening-hits/" + hit));
  CHECK(served["entry"]["name"] == "OCHOA BELTRAN, Maria de la Luz");
  CHECK(served["matchedName"].is_string());
  CHECK_FALSE(served.contains("entryNameSealed"));

  // In the log (and the read model), next to the person's id: no name of the entry.
  const std::string data = env.server->data_dir();
  env.server->Stop();
  {
    auto store = testing::OpenStoppedStore(data);
    size_t events = 0;
    for (const auto& cf : api::StoreColumnFamilies()) {
      auto it = store->NewIterator(store->Cf(cf));
      for (it->SeekToFirst(); it->Valid(); it->Next()) {
        const std::string value(it->value());
        if (value.find(pid) == std::string::npos) continue;
        if (value.find("aml.hit_found") != std::string::npos) ++events;
        CHECK_MESSAGE(value.find("OCHOA") == std::string::npos, cf << " " << std::string(it->key()));
        CHECK_MESSAGE(value.find("Ochoa") == std::string::npos, cf << " " << std::string(it->key()));
      }
    }
    CHECK(events >= 1);
  }
  env.server->Start();

  // Forgotten (purged, their key destroyed): the hit stays, its names are gone.
  auto forget = env.Call(k, "POST", "/v1/persons/" + pid + "/forget", R"({"mode":"purge"})");
  REQUIRE_MESSAGE(forget.status == 200, forget.body);
  auto purged = env.Admin("POST", "/admin/persons/purge");
  REQUIRE_MESSAGE(purged.status == 200, purged.body);
  CHECK(Body(purged)["keysDestroyed"] == 1);
  served = Body(env.Call(k, "GET", "/v1/screening-hits/" + hit));
  CHECK(served["entry"]["id"] == "9003");
  CHECK(served["entry"]["name"].is_null());
  CHECK(served["matchedName"].is_null());
  CHECK(served["subjectId"] == pid);
  core::Json listed = Body(env.Call(k, "GET", "/v1/screening-hits?subjectType=person"))["data"];
  REQUIRE(listed.size() == 1);
  CHECK(listed[0]["entry"]["name"].is_null());
}

TEST_CASE("aml: a changed list reloaded, a portfolio run finds the new hit and delivers aml.hit_found") {
  testing::ReceiverProcess receiver;
  Env env(false, {"--webhooks-allow-private-urls"}, Sharing::kIsolated);
  const std::string k = env.test_key;
  receiver.AddSecret(testing::Subscribe(env, receiver.port(), "/a", {"aml.*"}, "hook-aml"));
  const std::string file = env.dir.Sub("watch.csv");
  const std::string v1 = std::string(kHeader) +
                         "w-1,Person,Saúl Benítez Carranza,,1970-03-03,mx,,,Sandbox sanctions,,,Watch list,2026-01-01,"
                         "2026-11-01,2026-01-01\n";
  Write(file, v1);
  auto first = Load(env, "opensanctions_csv", {file}, "watch");
  REQUIRE_MESSAGE(first.status == 200, first.body);

  // Two subjects join the portfolio: a name and a company; nothing matches yet.
  CHECK(Screened(env, k, {{"subjectType", "name"}, {"name", "Gerardo Fuentes Lara"}, {"kind", "person"},
                          {"portfolioId", "clients"}})["hits"]
            .empty());
  auto company = env.Call(k, "POST", "/v1/companies", R"({"legalName":"Fuentes Lara Importaciones"})",
                          {{"Idempotency-Key", "pf-cmp"}});
  REQUIRE(company.status == 201);
  CHECK(Screened(env, k, {{"subjectType", "company"}, {"companyId", Body(company)["id"]}, {"portfolioId", "clients"}})["hits"]
            .empty());
  core::Json run1 = Body(env.Call(k, "POST", "/v1/monitoring/portfolios/clients/run"));
  CHECK(run1["subjects"] == 2);
  CHECK(run1["newHits"].empty());
  CheckProblem(env.Call(k, "POST", "/v1/monitoring/portfolios/unknown/run"), 404, "PORTFOLIO_NOT_FOUND");
  CheckProblem(env.Call(k, "POST", "/v1/monitoring/portfolios/Bad%20Id/run"), 404, "PORTFOLIO_NOT_FOUND");
  CheckProblem(env.Call(env.live_key, "POST", "/v1/monitoring/portfolios/clients/run"), 404, "PORTFOLIO_NOT_FOUND");
  CheckProblem(env.Call(k, "POST", "/v1/monitoring/portfolios/clients/run", R"({"all":true})"), 422, "VALIDATION_ERROR");

  // The list changes: a new designation. Reloaded, it is version 2 with its own hash.
  Write(file, v1 + "w-2,Person,Gerardo Fuentes Lara,Gerry Fuentes,1979-05-05,mx,,,Sandbox sanctions,,,Watch list,"
                   "2026-11-20,2026-11-20,2026-11-20\n");
  auto second = Load(env, "opensanctions_csv", {file}, "watch");
  REQUIRE_MESSAGE(second.status == 200, second.body);
  CHECK(Body(second)["version"] == 2);
  const std::string v2_hash = Body(second)["contentHash"];
  CHECK(v2_hash != Body(first)["contentHash"]);

  core::Json run2 = Body(env.Call(k, "POST", "/v1/monitoring/portfolios/clients/run"));
  REQUIRE(run2["newHits"].size() == 1);
  core::Json hit = run2["newHits"][0];
  CHECK(hit["entry"]["id"] == "w-2");
  CHECK(hit["subjectType"] == "name");
  CHECK(hit["list"]["contentHash"] == v2_hash);
  CHECK(run2["lists"][0]["version"] == 2);
  // Run again: the same hit, not new.
  CHECK(Body(env.Call(k, "POST", "/v1/monitoring/portfolios/clients/run"))["newHits"].empty());

  // The webhook: aml.hit_found, once, signed, with ids and no name.
  REQUIRE(receiver.WaitFor("/a", 2));  // service.test, then the hit
  int found = 0;
  for (const auto& m : core::ParseJsonOrDiscarded(receiver.LogJson())) {
    core::Json body = core::ParseJsonOrDiscarded(m.value("body", "{}"));
    if (body.value("type", "") != "aml.hit_found") continue;
    ++found;
    CHECK(m["verifiedBy"] == core::Json::array({0}));  // the reference Standard Webhooks package
    CHECK(body["data"]["hitId"] == hit["id"]);
    CHECK(body["data"]["list"]["contentHash"] == v2_hash);
    CHECK(body.dump().find("Fuentes") == std::string::npos);
  }
  CHECK(found == 1);
}

TEST_CASE("aml: svc aml load and lists, through a running server's admin socket and on a stopped data directory") {
  Env env(false, {}, Sharing::kIsolated);
  const std::string data = env.server->data_dir();
  // A command on the data directory names the same blob store as the server.
  auto svc = [&](std::vector<std::string> args) {
    args.insert(args.end(), env.blob_flags.begin(), env.blob_flags.end());
    return testing::RunSvc(args);
  };
  // Running: the command goes through the admin socket and answers once the version screens.
  auto loaded = svc({"aml", "load", kSamples + "un_consolidated.xml", "--format", "un_consolidated_xml",
                                 "--data-dir", data});
  REQUIRE_MESSAGE(loaded.exit_code == 0, loaded.err);
  CHECK(core::ParseJsonOrDiscarded(loaded.out)["source"] == "un_consolidated");
  CHECK(Screened(env, env.test_key, {{"subjectType", "name"}, {"name", "Ernesto Salazar"}})["lists"].size() == 1);
  auto bad = svc({"aml", "load", kSamples + "sdn.csv", "--format", "ftm_json", "--data-dir", data});
  CHECK(bad.exit_code != 0);
  CHECK(bad.err.find("ftm_json") != std::string::npos);

  // Stopped: the command opens the data directory itself; the server screens with it on restart.
  env.server->Stop();
  auto offline = svc({"aml", "load", kSamples + "sdn.csv", kSamples + "alt.csv", "--format", "ofac_sdn_csv",
                                  "--data-dir", data});
  REQUIRE_MESSAGE(offline.exit_code == 0, offline.err);
  CHECK(core::ParseJsonOrDiscarded(offline.out)["entries"] == 5);
  auto lists = svc({"aml", "lists", "--data-dir", data});
  REQUIRE_MESSAGE(lists.exit_code == 0, lists.err);
  CHECK(core::ParseJsonOrDiscarded(lists.out)["lists"].size() == 2);
  env.server->Start();
  core::Json s = Screened(env, env.test_key, {{"subjectType", "name"}, {"name", "Rogelio Armando Villarreal Quintana"}});
  CHECK(s["lists"].size() == 2);
  REQUIRE(s["hits"].size() == 1);
  CHECK(s["hits"][0]["list"]["source"] == "ofac_sdn");
}

// Issue 31: an identifier equal to a listed entry's (an RFC, a CURP) is a hit by itself: the name
// may differ (a new name, a typo, an alias the list lacks).
TEST_CASE("aml: an RFC or CURP equal to a listed entry's identifier is a hit whatever the name") {
  Env env(false, {"--rate-reveals", "0"}, Sharing::kIsolated);
  REQUIRE(Load(env, "ofac_sdn_csv", {kSamples + "sdn.csv", kSamples + "alt.csv"}).status == 200);
  const std::string k = env.test_key;
  // A name query with idNumber, written with dashes and in lower case.
  core::Json s = Screened(env, k, {{"subjectType", "name"}, {"name", "Juan Pérez López"}, {"idNumber", "viqr-710314-hsllng06"}});
  REQUIRE(s["hits"].size() == 1);
  CHECK(s["hits"][0]["entry"]["id"] == "9001");
  CHECK(s["hits"][0]["score"] == 1.0);
  // The generic RFC identifies nobody; another CURP of the same kind is someone else.
  CHECK(Screened(env, k, {{"subjectType", "name"}, {"name", "Juan Pérez López"}, {"idNumber", "XAXX010101000"}})["hits"].empty());
  CHECK(Screened(env, k, {{"subjectType", "name"}, {"name", "Juan Pérez López"}, {"idNumber", "VIQR710314HSLLNG00"}})["hits"]
            .empty());
  // A person of the vault known by another name, with the listed CURP.
  auto person = env.Call(k, "POST", "/v1/persons", R"({"pii":{"fullName":"JUAN PEREZ LOPEZ","curp":"VIQR710314HSLLNG06"}})");
  REQUIRE_MESSAGE(person.status == 201, person.body);
  core::Json ps = Screened(env, k, {{"subjectType", "person"}, {"personId", Body(person)["id"]}});
  REQUIRE(ps["hits"].size() == 1);
  CHECK(ps["hits"][0]["entry"]["id"] == "9001");
  // A company with the listed RFC under another name.
  auto company = env.Call(k, "POST", "/v1/companies", R"({"legalName":"Servicios Distintos, S.A. de C.V.","rfc":"TLP-090211-7T1"})",
                          {{"Idempotency-Key", "aml-id-cmp"}});
  REQUIRE_MESSAGE(company.status == 201, company.body);
  core::Json cs = Screened(env, k, {{"subjectType", "company"}, {"companyId", Body(company)["id"]}});
  REQUIRE(cs["hits"].size() == 1);
  CHECK(cs["hits"][0]["entry"]["id"] == "9002");
}

}  // namespace integration_aml_test
