// The screening index (pipeline/kyb/screening_index.h) over the sample lists of every format: hits
// carry the list, its version, the entry and the algorithm; kinds filter; facts decide; the
// blocking never loses a match of the labelled evaluation set; the same query, the same hits.
#include "pipeline/kyb/screening_index.h"

#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "core/crypto.h"

namespace svc::pipeline::kyb {
namespace pipeline_kyb_screening_index_test {

std::string Read(const std::string& path) {
  std::ifstream in(std::string(SVC_TEST_SOURCE_DIR) + "/" + path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  REQUIRE_MESSAGE(!ss.str().empty(), path);
  return ss.str();
}

std::vector<LoadedList> SampleLists() {
  REQUIRE(core::InitCrypto().ok());
  const std::string d = "../docs/samples/lists/";
  std::vector<LoadedList> out;
  for (auto [format, files] : std::vector<std::pair<std::string, std::vector<std::string>>>{
           {"ofac_sdn_csv", {Read(d + "sdn.csv"), Read(d + "alt.csv")}},
           {"un_consolidated_xml", {Read(d + "un_consolidated.xml")}},
           {"opensanctions_csv", {Read(d + "targets.simple.csv")}},
           {"ftm_json", {Read(d + "entities.ftm.json")}}}) {
    auto l = LoadList(format, files);
    REQUIRE_MESSAGE(l.ok(), l.status().ToString());
    out.push_back(std::move(*l));
  }
  return out;
}

TEST_CASE("screening index: hits on every sample list, explained and reproducible") {
  ScreeningIndex index(SampleLists());
  CHECK(index.Entries() == 11);
  auto hits = index.Screen({"Rogelio Armando Villarreal Quintana", "person", {}, {}});
  REQUIRE(hits.size() == 1);
  CHECK(hits[0].list_format == "ofac_sdn_csv");
  CHECK(hits[0].list_hash == index.Lists()[0].content_hash);
  CHECK(hits[0].entry_id == "9001");
  CHECK(hits[0].entry_name == "VILLARREAL QUINTANA, Rogelio Armando");
  CHECK(hits[0].score == 1.0);
  CHECK(hits[0].algorithm == "name-match/v1");
  // An alias; the UN list; OpenSanctions with accents folded; FollowTheMoney; a company.
  CHECK(index.Screen({"El Ingeniero", "", {}, {}})[0].matched_name == "EL INGENIERO");
  CHECK(index.Screen({"Ernesto Salazar Montoya", "person", {}, {}})[0].entry_id == "SBi.001");
  CHECK(index.Screen({"ADRIANA BELEN CORDOVA RANGEL", "person", {}, {}})[0].entry_id == "sbx-pep-0001");
  CHECK(index.Screen({"Julian Andres Ferreira Ochoa", "", {}, {}})[0].list_format == "ftm_json");
  CHECK(index.Screen({"Transportes y Logística del Pacífico Norte SA de CV", "company", {}, {}})[0].entry_id == "9002");
  CHECK(index.Screen({"Fundación Esperanza del Norte", "company", {}, {}})[0].entry_id == "SBe.001");
  // The kind filters; nobody else is found.
  CHECK(index.Screen({"Transportes y Logística del Pacífico Norte SA de CV", "person", {}, {}}).empty());
  CHECK(index.Screen({"Juan Pérez López", "", {}, {}}).empty());
  CHECK(index.Screen({"", "", {}, {}}).empty());
  // Facts: the same CURP is certain; another birth year rules the entry out.
  auto sure = index.Screen({"Rogelio Villarreal", "person", {"", "", "VIQR710314HSLLNG06"}, {}});
  REQUIRE(sure.size() == 1);
  CHECK(sure[0].score == 1.0);
  CHECK(sure[0].reasons == std::vector<std::string>{"id_number_equal"});
  CHECK(index.Screen({"Rogelio Armando Villarreal Quintana", "person", {"1990-05-05", "", ""}, {}}).empty());
  CHECK(index.Screen({"Rogelio Armando Villarreal Quintana", "person", {"", "", "VIQR710314HSLLNG00"}, {}}).empty());
  // Issue 31: an identifier equal to an entry's is a hit by itself, whatever the names say, with
  // the name comparison shown beside it; written with dashes and in lower case all the same. A
  // generic RFC or a different identifier finds nothing.
  auto by_id = index.Screen({"Juan Pérez López", "person", {"", "", "viqr-710314-hsllng06"}, {}});
  REQUIRE(by_id.size() == 1);
  CHECK(by_id[0].entry_id == "9001");
  CHECK(by_id[0].score == 1.0);
  CHECK(by_id[0].name_score < kHitThreshold);
  CHECK(by_id[0].reasons == std::vector<std::string>{"id_number_equal"});
  ScreeningQuery company{"Grupo Distinto SA", "company", {}, {"CBA150320QW8"}};
  auto by_rfc = index.Screen(company);
  REQUIRE(by_rfc.size() == 1);
  CHECK(by_rfc[0].entry_id == "sbx-ftm-0002");
  ScreeningQuery nameless{"", "", {}, {"CBA-150320-QW8"}};
  CHECK(index.Screen(nameless).size() == 1);
  CHECK(index.Screen({"Juan Pérez López", "person", {"", "", "XAXX010101000"}, {}}).empty());
  CHECK(index.Screen({"Juan Pérez López", "person", {"", "", "VIQR710314HSLLNG00"}, {}}).empty());
  // Reproducible: the same query, the same hits.
  auto again = index.Screen({"Rogelio Armando Villarreal Quintana", "person", {}, {}});
  CHECK(again[0].score == hits[0].score);
  CHECK(again[0].matched_name == hits[0].matched_name);
}

TEST_CASE("screening index: the blocking keeps every match of the labelled sets") {
  REQUIRE(core::InitCrypto().ok());
  for (std::string file : {"pipeline/kyb/screening_eval.tsv", "pipeline/kyb/screening_holdout.tsv"}) {
    CAPTURE(file);
    std::istringstream in(Read(file));
    LoadedList list;
    list.format = "eval";
    std::vector<std::pair<std::string, std::string>> matches;  // query, entry id
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      const size_t a = line.find('\t'), b = line.find('\t', a + 1);
      ListEntry e;
      e.entry_id = std::to_string(list.entries.size());
      e.kind = "person";
      e.name = line.substr(b + 1);
      if (line[0] == '1') matches.emplace_back(line.substr(a + 1, b - a - 1), e.entry_id);
      list.entries.push_back(std::move(e));
    }
    ScreeningIndex index({list});
    for (const auto& [query, id] : matches) {
      CAPTURE(query);
      bool found = false;
      for (const auto& h : index.Screen({query, "", {}, {}})) found |= h.entry_id == id;
      CHECK(found);
    }
  }
}

}  // namespace pipeline_kyb_screening_index_test
}  // namespace svc::pipeline::kyb
