// The list loaders (pipeline/kyb/list_loaders.h) on the sample files of docs/samples/lists/, which
// follow each published format exactly, and on malformed variants of them, each refused as a
// whole with the place at fault; and the matcher finding the samples' people and companies.
#include "pipeline/kyb/list_loaders.h"

#include <doctest/doctest.h>

#include <cstring>
#include <fstream>
#include <sstream>

#include "core/crypto.h"
#include "pipeline/kyb/name_match.h"
#include "pipeline/kyb/screening_index.h"

namespace svc::pipeline::kyb {
namespace pipeline_kyb_list_loaders_test {

std::string Sample(const std::string& name) {
  std::ifstream in(std::string(SVC_TEST_SOURCE_DIR) + "/../docs/samples/lists/" + name, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  REQUIRE_MESSAGE(!ss.str().empty(), name);
  return ss.str();
}

const ListEntry* Find(const LoadedList& l, const std::string& id) {
  for (const auto& e : l.entries) {
    if (e.entry_id == id) return &e;
  }
  return nullptr;
}

std::string Replace(std::string s, const std::string& from, const std::string& to) {
  auto at = s.find(from);
  REQUIRE(at != std::string::npos);
  return s.replace(at, from.size(), to);
}

TEST_CASE("list loaders: CSV") {
  auto rows = ParseCsv("a,\"b,c\",\"d \"\"q\"\"\"\r\n\"multi\nline\",,x\n");
  REQUIRE(rows.ok());
  REQUIRE(rows->size() == 2);
  CHECK((*rows)[0] == std::vector<std::string>{"a", "b,c", "d \"q\""});
  CHECK((*rows)[1] == std::vector<std::string>{"multi\nline", "", "x"});
  CHECK(ParseCsv("a,\"open").status().message().find("not closed") != std::string::npos);
  CHECK(ParseCsv("\"a\"b").status().message().find("after a closing quote") != std::string::npos);
  CHECK(ParseCsv("")->empty());
}

TEST_CASE("list loaders: OFAC SDN.CSV with ALT.CSV") {
  REQUIRE(core::InitCrypto().ok());
  auto l = LoadList("ofac_sdn_csv", {Sample("sdn.csv"), Sample("alt.csv")});
  REQUIRE_MESSAGE(l.ok(), l.status().ToString());
  CHECK(l->entries.size() == 5);
  CHECK(l->content_hash.size() == 64);
  const ListEntry* r = Find(*l, "9001");
  REQUIRE(r != nullptr);
  CHECK(r->kind == "person");
  CHECK(r->name == "VILLARREAL QUINTANA, Rogelio Armando");
  CHECK(r->aliases == std::vector<std::string>{"VILLARREAL, Rogelio", "EL INGENIERO"});
  CHECK(r->birth_dates == std::vector<std::string>{"1971-03-14"});
  CHECK(r->nationalities == std::vector<std::string>{"Mexico"});
  CHECK(r->id_numbers == std::vector<std::string>{"VIQR710314HSLLNG06", "VIQR710314AB4"});
  CHECK(r->programs == std::vector<std::string>{"SDNTK", "ILLICIT-DRUGS-EO14059"});
  CHECK(Find(*l, "9002")->kind == "company");
  CHECK(Find(*l, "9003")->birth_dates == std::vector<std::string>{"1968-11-02", "1969"});
  CHECK(Find(*l, "9004")->kind == "other");
  // SDN.CSV alone; the same bytes, the same version; another byte, another.
  auto alone = LoadList("ofac_sdn_csv", {Sample("sdn.csv")});
  REQUIRE(alone.ok());
  CHECK(Find(*alone, "9001")->aliases.empty());
  CHECK(alone->content_hash == core::Sha256Hex(Sample("sdn.csv")));
  CHECK(LoadList("ofac_sdn_csv", {Sample("sdn.csv"), Sample("alt.csv")})->content_hash == l->content_hash);
  CHECK(alone->content_hash != l->content_hash);
  // Malformed: a missing field, a bad ent_num, a repeated one, an alias of nobody.
  auto refused = [](const std::vector<std::string>& files) {
    auto got = LoadList("ofac_sdn_csv", files);
    REQUIRE_FALSE(got.ok());
    return std::string(got.status().message());
  };
  CHECK(refused({Replace(Sample("sdn.csv"), ",\"Havana, Cuba.\"", "")}) == "ofac_sdn_csv: SDN.CSV row 1: has 11 fields, not 12");
  CHECK(refused({Replace(Sample("sdn.csv"), "9002,", "90x2,")}) == "ofac_sdn_csv: SDN.CSV row 3: ent_num is not a number");
  CHECK(refused({Replace(Sample("sdn.csv"), "9002,", "9001,")}) == "ofac_sdn_csv: SDN.CSV row 3: ent_num 9001 repeats");
  CHECK(refused({Sample("sdn.csv"), Replace(Sample("alt.csv"), "9003,", "7777,")}) ==
        "ofac_sdn_csv: ALT.CSV row 3: alias of an unknown ent_num 7777");
  CHECK(refused({"", ""}).find("holds no entry") != std::string::npos);
}

TEST_CASE("list loaders: the UN consolidated list (XML)") {
  REQUIRE(core::InitCrypto().ok());
  auto l = LoadList("un_consolidated_xml", {Sample("un_consolidated.xml")});
  REQUIRE_MESSAGE(l.ok(), l.status().ToString());
  REQUIRE(l->entries.size() == 2);
  const ListEntry& p = l->entries[0];
  CHECK(p.entry_id == "SBi.001");
  CHECK(p.kind == "person");
  CHECK(p.name == "ERNESTO SALAZAR MONTOYA");
  CHECK(p.aliases == std::vector<std::string>{"Ernesto Salazar", "El Contador"});
  CHECK(p.birth_dates == std::vector<std::string>{"1975-07-21"});
  CHECK(p.nationalities == std::vector<std::string>{"Mexico"});
  CHECK(p.id_numbers == std::vector<std::string>{"G12345678"});
  const ListEntry& e = l->entries[1];
  CHECK(e.kind == "company");
  CHECK(e.name == "FUNDACI\xC3\x93N ESPERANZA DEL NORTE");  // &#211; is Ó
  CHECK(e.aliases == std::vector<std::string>{"Esperanza del Norte A.C."});
  auto refused = [](const std::string& text) {
    auto r = LoadList("un_consolidated_xml", {text});
    REQUIRE_FALSE(r.ok());
    return std::string(r.status().message());
  };
  const std::string x = Sample("un_consolidated.xml");
  CHECK(refused(Replace(x, "</THIRD_NAME>", "</THIRD>")).find("</THIRD> closes <THIRD_NAME>") != std::string::npos);
  CHECK(refused(Replace(x, "&apos;", "&nbsp;")).find("unknown entity &nbsp;") != std::string::npos);
  CHECK(refused(x.substr(0, x.size() / 2)).find("is not closed") != std::string::npos);
  CHECK(refused(Replace(Replace(x, "<REFERENCE_NUMBER>SBi.001</REFERENCE_NUMBER>", ""), "<DATAID>990001</DATAID>", ""))
            .find("has neither REFERENCE_NUMBER nor DATAID") != std::string::npos);
  CHECK(refused("<OTHER_LIST/>") == "un_consolidated_xml: root: <OTHER_LIST> is not <CONSOLIDATED_LIST>");
  CHECK(refused(Replace(x, "<FIRST_NAME>ERNESTO</FIRST_NAME>\n      <SECOND_NAME>SALAZAR</SECOND_NAME>\n      <THIRD_NAME>MONTOYA</THIRD_NAME>", ""))
            .find("has no name") != std::string::npos);
}

TEST_CASE("list loaders: OpenSanctions targets.simple.csv and FollowTheMoney JSON") {
  REQUIRE(core::InitCrypto().ok());
  auto os = LoadList("opensanctions_csv", {Sample("targets.simple.csv")});
  REQUIRE_MESSAGE(os.ok(), os.status().ToString());
  REQUIRE(os->entries.size() == 2);
  CHECK(os->entries[0].kind == "person");
  CHECK(os->entries[0].aliases == std::vector<std::string>{"Adriana Cordova", "Adriana B. Córdova"});
  CHECK(os->entries[0].id_numbers == std::vector<std::string>{"CORA720930MDFRNG01"});
  CHECK(os->entries[1].kind == "company");
  CHECK(os->entries[1].programs == std::vector<std::string>{"Sandbox sanctions list - designated 2025"});
  auto ftm = LoadList("ftm_json", {Sample("entities.ftm.json")});
  REQUIRE_MESSAGE(ftm.ok(), ftm.status().ToString());
  REQUIRE(ftm->entries.size() == 2);
  CHECK(ftm->entries[0].name == "Julián Andrés Ferreira Ochoa");
  CHECK(ftm->entries[0].nationalities == std::vector<std::string>{"co"});
  CHECK(ftm->entries[1].id_numbers == std::vector<std::string>{"CBA150320QW8"});
  CHECK(ftm->entries[1].nationalities == std::vector<std::string>{"mx"});
  // Malformed.
  const std::string csv = Sample("targets.simple.csv");
  CHECK(LoadList("opensanctions_csv", {Replace(csv, "id,schema,name,aliases", "id,schema,title,aliases")}).status().message() ==
        "opensanctions_csv: header: has no column name");
  CHECK(LoadList("opensanctions_csv", {csv + "x,Person\n"}).status().message() ==
        "opensanctions_csv: row 4: has 2 fields, the header 15");
  // A file whose only entity has no name holds no entry (the unnamed entity is skipped, counted).
  CHECK(LoadList("ftm_json", {"{\"id\": \"a\", \"schema\": \"Person\", \"properties\": {}}\n"}).status().message() ==
        "ftm_json: the file holds no entry");
  CHECK(LoadList("ftm_json", {Sample("entities.ftm.json") + "not json\n"}).status().message() ==
        "ftm_json: line 3: is not a JSON object");
  CHECK(LoadList("xlsx", {"x"}).status().message().find("unknown list format xlsx") != std::string::npos);
}

// Issue 31: an OpenSanctions entities.ftm.json holds, beside its targets, the entities that describe
// them: families, occupancies, positions, addresses, sanctions, identity documents, and relatives
// who are not targets. Those were refused (no name) or would have become entries.
TEST_CASE("list loaders: an OpenSanctions FollowTheMoney export keeps only its screenable targets") {
  const std::string ds = R"("datasets": ["mx_sandbox"], "first_seen": "2025-01-01T00:00:00", "last_seen": "2026-11-01T00:00:00")";
  const std::string file =
      R"({"id": "NK-p1", "caption": "Ramiro Ochoa Lugo", "schema": "Person", "target": true, "properties": {"name": ["Ramiro Ochoa Lugo"], "alias": ["El Güero"], "birthDate": ["1970-02-03"], "nationality": ["mx"], "topics": ["sanction"]}, "referents": [], )" + ds + "}\n" +
      R"({"id": "NK-p2", "caption": "Lucía Ochoa", "schema": "Person", "target": false, "properties": {"name": ["Lucía Ochoa"]}, )" + ds + "}\n" +
      R"({"id": "NK-f1", "caption": "Family", "schema": "Family", "target": false, "properties": {"person": ["NK-p1"], "relative": ["NK-p2"], "relationship": ["daughter"]}, )" + ds + "}\n" +
      R"({"id": "NK-o1", "caption": "Occupancy", "schema": "Occupancy", "target": false, "properties": {"holder": ["NK-p1"], "post": ["NK-pos1"]}, )" + ds + "}\n" +
      R"({"id": "NK-pos1", "caption": "Presidente Municipal", "schema": "Position", "target": false, "properties": {"name": ["Presidente Municipal de Culiacán"], "country": ["mx"]}, )" + ds + "}\n" +
      R"({"id": "NK-a1", "caption": "Address", "schema": "Address", "properties": {"full": ["Calle 5, Culiacán"]}, )" + ds + "}\n" +
      R"({"id": "NK-i1", "caption": "CURP", "schema": "Identification", "properties": {"holder": ["NK-p1"], "number": ["OOLR700203HSLCGM05"], "type": ["CURP"]}, )" + ds + "}\n" +
      R"({"id": "NK-s1", "caption": "Sanction", "schema": "Sanction", "properties": {"entity": ["NK-p1"], "program": ["SANDBOX-NARCO"], "authority": ["UIF"]}, )" + ds + "}\n" +
      R"({"id": "NK-c1", "caption": "Ochoa Transportes", "schema": "Company", "target": true, "properties": {"name": ["Ochoa Transportes SA de CV"], "taxNumber": ["OTR150320AB1"]}, )" + ds + "}\n" +
      R"({"id": "NK-c2", "schema": "Company", "target": true, "properties": {"jurisdiction": ["mx"]}, )" + ds + "}\n";
  auto l = LoadList("ftm_json", {file});
  REQUIRE_MESSAGE(l.ok(), l.status().ToString());
  REQUIRE(l->entries.size() == 2);
  const ListEntry& p = *Find(*l, "NK-p1");
  CHECK(p.kind == "person");
  CHECK(p.aliases == std::vector<std::string>{"El Güero"});
  CHECK(p.id_numbers == std::vector<std::string>{"OOLR700203HSLCGM05"});  // from the Identification
  CHECK(p.programs == std::vector<std::string>{"sanction", "SANDBOX-NARCO"});  // topics, then the Sanction
  CHECK(Find(*l, "NK-c1")->kind == "company");
  CHECK(Find(*l, "NK-p2") == nullptr);    // a relative, not a target
  CHECK(Find(*l, "NK-pos1") == nullptr);  // a position has a name but is not screened
  CHECK(l->skipped == std::map<std::string, int64_t>{{"not_target:Person", 1},
                                                     {"schema:Address", 1},
                                                     {"schema:Family", 1},
                                                     {"schema:Identification", 1},
                                                     {"schema:Occupancy", 1},
                                                     {"schema:Position", 1},
                                                     {"schema:Sanction", 1},
                                                     {"unnamed:Company", 1}});
}

// The SAT's own lists (issue 35, item 4): the published column layout, title lines above the
// header, Windows-1252 accents, as the SAT publishes them.
TEST_CASE("list loaders: the SAT's 69-B list, in its published layout and encoding") {
  REQUIRE(core::InitCrypto().ok());
  const std::string bytes = Sample("sat_69b.csv");
  CHECK(bytes.find("\xD1") != std::string::npos);  // the sample is Windows-1252, as the SAT's is
  auto l = LoadList("sat_69b_csv", {bytes});
  REQUIRE_MESSAGE(l.ok(), l.status().ToString());
  CHECK(l->content_hash == core::Sha256Hex(bytes));
  REQUIRE(l->entries.size() == 3);  // Definitivo and Presunto; the cleared ones are not screened
  CHECK(l->skipped == std::map<std::string, int64_t>{{"cleared:desvirtuado", 1}, {"cleared:sentencia favorable", 1}});
  const ListEntry* a = Find(*l, "CAÑ150312Q78");  // Ñ read from its Windows-1252 byte
  REQUIRE(a != nullptr);
  CHECK(a->kind == "company");  // persona moral: 12 characters
  CHECK(a->name == "COMERCIALIZADORA AÑIL DEL NORTE, S.A. DE C.V.");
  CHECK(a->id_numbers == std::vector<std::string>{"CAÑ150312Q78"});
  CHECK(a->programs == std::vector<std::string>{std::string(kSat69BDefinitivo)});
  CHECK(SatListing(a->programs) == "69b_definitivo");
  const ListEntry* p = Find(*l, "SIP180704KM7");
  REQUIRE(p != nullptr);
  CHECK(SatListing(p->programs) == "69b_presunto");
  const ListEntry* person = Find(*l, "GOAJ800101H56");
  REQUIRE(person != nullptr);
  CHECK(person->kind == "person");  // persona física: 13
  CHECK(person->name == "GÓMEZ ÁLVAREZ JOSÉ ÁNGEL");
  CHECK(Find(*l, "TRD170220AB1") == nullptr);

  // The same list saved as UTF-8 (with a byte-order mark) reads the same names.
  std::string utf8 = "\xEF\xBB\xBF";
  for (unsigned char c : bytes) {
    if (c < 0x80) {
      utf8.push_back(static_cast<char>(c));
    } else {
      utf8.push_back(static_cast<char>(0xC0 | (c >> 6)));
      utf8.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    }
  }
  auto u = LoadList("sat_69b_csv", {utf8});
  REQUIRE_MESSAGE(u.ok(), u.status().ToString());
  CHECK(Find(*u, "CAÑ150312Q78")->name == a->name);
  CHECK(u->content_hash != l->content_hash);  // another file, another version

  // Refused as a whole, with the place at fault.
  auto refused = [&](const std::string& m, const std::string& why) {
    auto r = LoadList("sat_69b_csv", {m});
    REQUIRE_FALSE(r.ok());
    CAPTURE(r.status().message());
    CHECK(r.status().message().find(why) != std::string::npos);
  };
  refused(Replace(bytes, ",RFC,", ",Clave,"), "no header row with an RFC column");
  refused(Replace(bytes, "Situaci\xF3n del contribuyente", "Estado"), "has no column situacion del contribuyente");
  refused(Replace(bytes, "SIP180704KM7", "SIP18070"), "row 5: \"SIP18070\" is not an RFC");
  refused(Replace(bytes, ",Presunto,", ",Suspendido,"), "row 5: situaci\xC3\xB3n \"Suspendido\" is none of");
  refused(Replace(bytes, ",Presunto,", ",Presunto,extra,"), "row 5: has 17 fields, the header 16");
  refused(Replace(bytes, "\"SERVICIOS INTEGRALES PE\xD1" "ASCO, S.A. DE C.V.\"", ""), "row 5: the taxpayer's name is empty");
  CHECK_FALSE(LoadList("sat_69b_csv", {}).ok());
  CHECK(LoadList("sat_69b_csv", {bytes.substr(0, bytes.find("\r\n1,"))}).status().message().find("holds no entry") !=
        std::string::npos);
}

TEST_CASE("list loaders: the SAT's art. 69 lists, several supuestos as one version") {
  REQUIRE(core::InitCrypto().ok());
  const std::string firmes = Sample("sat_69_firmes.csv"), no_localizados = Sample("sat_69_no_localizados.csv");
  auto l = LoadList("sat_69_csv", {firmes, no_localizados});
  REQUIRE_MESSAGE(l.ok(), l.status().ToString());
  REQUIRE(l->entries.size() == 3);
  const ListEntry* a = Find(*l, "ALR160810JG9");  // on both lists: one entry, both supuestos
  REQUIRE(a != nullptr);
  CHECK(a->name == "ABARROTES LA RIVEREÑA, S.A. DE C.V.");
  CHECK(a->programs == std::vector<std::string>{"CFF 69: FIRMES", "CFF 69: NO LOCALIZADOS"});
  CHECK(SatListing(a->programs) == "69");
  CHECK(Find(*l, "ZUMA7510233P0")->kind == "person");
  CHECK(Find(*l, "ZUMA7510233P0")->name == "ZÚÑIGA MARTÍNEZ ANA");
  CHECK(LoadList("sat_69_csv", {firmes})->entries.size() == 2);
  auto bad = LoadList("sat_69_csv", {firmes, Replace(no_localizados, "SUPUESTO", "MOTIVO")});
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().message().find("file 2 header: has no column supuesto") != std::string::npos);
  bad = LoadList("sat_69_csv", {Replace(firmes, "ZUMA7510233P0", "XAXX010101000")});
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().message().find("file 1 row 3") != std::string::npos);  // the generic RFC names nobody
}

TEST_CASE("list loaders: a SAT entry is a hit by its RFC alone, and by its name") {
  REQUIRE(core::InitCrypto().ok());
  auto l = LoadList("sat_69b_csv", {Sample("sat_69b.csv")});
  REQUIRE(l.ok());
  ScreeningIndex index({*l});
  ScreeningQuery by_rfc;
  by_rfc.name = "Grupo Totalmente Distinto SA de CV";
  by_rfc.kind = "company";
  by_rfc.identifiers = {"CAÑ-150312-Q78"};
  auto hits = index.Screen(by_rfc);
  REQUIRE(hits.size() == 1);
  CHECK(hits[0].entry_id == "CAÑ150312Q78");
  CHECK(hits[0].score == 1.0);
  CHECK(hits[0].reasons == std::vector<std::string>{"id_number_equal"});
  CHECK(hits[0].programs == std::vector<std::string>{std::string(kSat69BDefinitivo)});
  ScreeningQuery by_name;
  by_name.name = "Comercializadora Añil del Norte SA de CV";
  by_name.kind = "company";
  hits = index.Screen(by_name);
  REQUIRE(hits.size() == 1);
  CHECK(hits[0].entry_id == "CAÑ150312Q78");
  CHECK(hits[0].score >= kHitThreshold);
}

TEST_CASE("list loaders: the matcher finds the samples' names as a compliance officer would search them") {
  REQUIRE(core::InitCrypto().ok());
  auto l = LoadList("ofac_sdn_csv", {Sample("sdn.csv"), Sample("alt.csv")});
  REQUIRE(l.ok());
  const ListEntry& r = *Find(*l, "9001");
  // A director written the Mexican way, accents and all, with the same CURP.
  CHECK(MatchNames("Rogelio Armando Villarreal Quintana", {}, r.name, {}).score >= kHitThreshold);
  CHECK(MatchNames("Rogelio Villareal Quintana", {}, r.name, {}).score >= kHitThreshold);
  CHECK(MatchNames("Rogelio Armando Villarreal Quintana", {"", "", "VIQR710314HSLLNG06"}, r.name,
                   {r.birth_dates[0], "Mexico", r.id_numbers[0]})
            .score == 1.0);
  CHECK(MatchNames("Rogelio Armando Villarreal Quintana", {"1990-01-01", "", ""}, r.name, {r.birth_dates[0], "", ""}).eliminated);
  CHECK(MatchNames("Transportes y Logística del Pacífico Norte SA de CV", {}, Find(*l, "9002")->name, {}).score >= kHitThreshold);
  CHECK(MatchNames("Transportes del Pacífico Sur SA de CV", {}, Find(*l, "9002")->name, {}).score < kHitThreshold);
}

}  // namespace pipeline_kyb_list_loaders_test
}  // namespace svc::pipeline::kyb

namespace svc::pipeline::kyb {
namespace pipeline_kyb_list_loaders_test {

// Bad input never crashes: every sample, mangled thousands of ways (bytes flipped, cut, doubled),
// is read or refused — under the sanitizers, any out-of-bounds read or leak fails the test.
TEST_CASE("list loaders: mangled files are read or refused, never a crash") {
  REQUIRE(core::InitCrypto().ok());
  uint64_t seed = 0x9E3779B97F4A7C15ull;
  auto next = [&seed] {
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    return seed;
  };
  const char* specials = "<>&;\"',\n\r#x\xC3\xFF\x1A";
  for (auto [format, file] : std::vector<std::pair<std::string, std::string>>{{"ofac_sdn_csv", "sdn.csv"},
                                                                             {"un_consolidated_xml", "un_consolidated.xml"},
                                                                             {"opensanctions_csv", "targets.simple.csv"},
                                                                             {"ftm_json", "entities.ftm.json"},
                                                                             {"sat_69b_csv", "sat_69b.csv"},
                                                                             {"sat_69_csv", "sat_69_firmes.csv"}}) {
    const std::string original = Sample(file);
    size_t refused = 0;
    for (int i = 0; i < 1500; ++i) {
      std::string m = original;
      const int edits = 1 + static_cast<int>(next() % 4);
      for (int e = 0; e < edits && !m.empty(); ++e) {
        const size_t at = next() % m.size();
        switch (next() % 4) {
          case 0: m[at] = specials[next() % std::strlen(specials)]; break;
          case 1: m.resize(at); break;
          case 2: m.insert(at, m.substr(at, std::min<size_t>(m.size() - at, next() % 40))); break;
          default: m.erase(at, std::min<size_t>(m.size() - at, next() % 20)); break;
        }
      }
      auto r = LoadList(format, {m});
      if (!r.ok()) {
        ++refused;
        CHECK(r.status().message().rfind(format, 0) == 0);  // the error names the format
      }
    }
    MESSAGE(format << ": " << refused << " of 1500 mangled files refused, the rest read");
  }
}

}  // namespace pipeline_kyb_list_loaders_test
}  // namespace svc::pipeline::kyb
