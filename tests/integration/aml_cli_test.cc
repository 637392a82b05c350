// `svc aml check` and `svc aml screen`, the binary itself, on the sample lists of
// docs/samples/lists/ (docs/screening.md#lists): what was read, its content hash, the hits, and a
// malformed or mismatched file refused with the place at fault and a non-zero exit.
#include <doctest/doctest.h>

#include <fstream>

#include "core/crypto.h"
#include "core/json.h"
#include "tests/support/svc_process.h"
#include "tests/support/temp_dir.h"

namespace integration_aml_cli_test {

using namespace svc;

namespace {

std::string SampleList(const std::string& name) { return std::string(SVC_TEST_SOURCE_DIR) + "/../docs/samples/lists/" + name; }

}  // namespace

TEST_CASE("aml cli: check reads each sample list, screen finds its names, a bad file is refused") {
  struct Case {
    std::string format;
    std::vector<std::string> files;
    size_t entries;
  };
  for (const auto& c : std::vector<Case>{{"ofac_sdn_csv", {"sdn.csv", "alt.csv"}, 5},
                                         {"un_consolidated_xml", {"un_consolidated.xml"}, 2},
                                         {"opensanctions_csv", {"targets.simple.csv"}, 2},
                                         {"ftm_json", {"entities.ftm.json"}, 2}}) {
    CAPTURE(c.format);
    std::vector<std::string> args = {"aml", "check"};
    for (const auto& f : c.files) args.push_back(SampleList(f));
    args.insert(args.end(), {"--format", c.format});
    auto r = testing::RunSvc(args);
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    core::Json out = core::ParseJsonOrDiscarded(r.out);
    CHECK(out["entries"] == c.entries);
    CHECK(out["contentHash"].get<std::string>().size() == 64);
  }
  auto screened = testing::RunSvc({"aml", "screen", SampleList("sdn.csv"), SampleList("alt.csv"), "--format", "ofac_sdn_csv",
                                   "--name", "Rogelio Armando Villarreal Quintana", "--kind", "person", "--id-number",
                                   "VIQR710314HSLLNG06"});
  REQUIRE_MESSAGE(screened.exit_code == 0, screened.err);
  core::Json hits = core::ParseJsonOrDiscarded(screened.out)["hits"];
  REQUIRE(hits.size() == 1);
  CHECK(hits[0]["entry"]["id"] == "9001");
  CHECK(hits[0]["score"] == 1.0);
  CHECK(hits[0]["reasons"] == core::Json::array({"id_number_equal"}));
  CHECK(hits[0]["algorithm"] == "name-match/v1");
  auto none = testing::RunSvc({"aml", "screen", SampleList("sdn.csv"), "--format", "ofac_sdn_csv", "--name", "Juan Pérez López"});
  REQUIRE(none.exit_code == 0);
  CHECK(core::ParseJsonOrDiscarded(none.out)["hits"].empty());
  // Refusals: the wrong format for the file, an unknown format, a malformed file, no name.
  auto wrong = testing::RunSvc({"aml", "check", SampleList("sdn.csv"), "--format", "ftm_json"});
  CHECK(wrong.exit_code != 0);
  CHECK(wrong.err.find("ftm_json: line 1: is not a JSON object") != std::string::npos);
  auto unknown = testing::RunSvc({"aml", "check", SampleList("sdn.csv"), "--format", "xlsx"});
  CHECK(unknown.exit_code != 0);
  CHECK(unknown.err.find("unknown list format xlsx") != std::string::npos);
  testing::TempDir dir;
  const std::string bad = dir.Sub("bad.xml");
  { std::ofstream(bad) << "<CONSOLIDATED_LIST><INDIVIDUALS><INDIVIDUAL></INDIVIDUALS></CONSOLIDATED_LIST>"; }
  auto malformed = testing::RunSvc({"aml", "check", bad, "--format", "un_consolidated_xml"});
  CHECK(malformed.exit_code != 0);
  CHECK(malformed.err.find("</INDIVIDUALS> closes <INDIVIDUAL>") != std::string::npos);
  CHECK(testing::RunSvc({"aml", "screen", SampleList("sdn.csv"), "--format", "ofac_sdn_csv"}).exit_code != 0);
  CHECK(testing::RunSvc({"aml", "bless"}).exit_code == 2);
}

}  // namespace integration_aml_cli_test
