// The pure parts of a company's verification (docs/kyb.md): the risk formula risk/v1, factor by
// factor; the ownership stage over declared nodes (parties, the chain, the diamond, the
// cross-holding, an inconsistent declaration); the sandbox registry's deterministic outcomes.
#include <doctest/doctest.h>

#include "pipeline/documents/checks.h"
#include "pipeline/kyb/company_registry.h"
#include "pipeline/kyb/company_verifier.h"
#include "pipeline/kyb/risk.h"
#include "pipeline/kyb/screening_run.h"

namespace pipeline_kyb_company_pipeline_test {

using namespace svc;
using namespace svc::pipeline::kyb;

namespace {

const core::mx::CivilDate kToday{2026, 11, 26};

RiskInputs Clean() {
  RiskInputs in;
  in.registry_outcome = "found";
  in.registry_status = "active";
  in.unexplained_pct = 0;
  in.country = "MX";
  return in;
}

int64_t Points(const RiskResult& r, const std::string& code) {
  for (const auto& f : r.factors) {
    if (f["code"] == code) return f["points"].get<int64_t>();
  }
  return 0;
}

core::Json N(const std::string& id, const std::string& type, const std::string& pct, const std::string& parent = "",
             const std::string& person = "") {
  return {{"id", id},
          {"nodeType", type},
          {"ownershipPct", pct.empty() ? core::Json(nullptr) : core::Json(pct)},
          {"parentNodeId", parent.empty() ? core::Json(nullptr) : core::Json(parent)},
          {"personId", person.empty() ? core::Json(nullptr) : core::Json(person)},
          {"relatedCompanyId", nullptr},
          {"isControlPerson", false}};
}

std::string Rfc(const std::string& first) { return first + core::mx::RfcCheckDigit(first); }

}  // namespace

TEST_CASE("risk/v1: a clean company is low and verified; each factor adds its documented points") {
  RiskResult clean = AssessRisk(Clean());
  CHECK(clean.score == 0);
  CHECK(clean.level == "low");
  CHECK(clean.status == "verified");
  CHECK(clean.factors.empty());

  RiskInputs in = Clean();
  in.hits = {{0.97, false, "open", ""}};
  RiskResult strong = AssessRisk(in);
  CHECK(Points(strong, "sanctions_hit_strong") == 60);
  CHECK(strong.level == "high");  // a strong hit alone
  CHECK(strong.status == "needs_review");  // open: a person decides
  in.hits = {{0.88, false, "open", ""}, {0.9, false, "open", ""}};
  CHECK(Points(AssessRisk(in), "sanctions_hit") == 60);  // 35 each, at most 60
  in.hits = {{0.88, false, "confirmed", ""}};
  CHECK(Points(AssessRisk(in), "sanctions_hit_strong") == 60);  // confirmed weighs as strong
  CHECK(AssessRisk(in).status == "verified");
  in.hits = {{0.99, false, "dismissed", ""}};
  CHECK(AssessRisk(in).score == 0);  // dismissed: no weight
  in.hits = {{0.99, true, "open", ""}};
  CHECK(Points(AssessRisk(in), "pep_hit") == 20);

  in = Clean();
  in.unexplained_pct = 100;
  CHECK(Points(AssessRisk(in), "unexplained_ownership") == 30);
  in.unexplained_pct = 36;
  CHECK(Points(AssessRisk(in), "unexplained_ownership") == 11);
  in = Clean();
  in.cross_holding = true;
  in.ownership_inconsistent = true;
  RiskResult own = AssessRisk(in);
  CHECK(Points(own, "cross_holding") == 10);
  CHECK(Points(own, "ownership_inconsistent") == 25);
  CHECK(own.status == "needs_review");
  in = Clean();
  in.screened = false;
  RiskResult unscreened = AssessRisk(in);
  CHECK(Points(unscreened, "screening_not_run") == 10);
  CHECK(unscreened.status == "needs_review");  // never verified without a screening
  in = Clean();
  in.country = "KP";
  in.industry_code = "713210";
  RiskResult place = AssessRisk(in);
  CHECK(Points(place, "high_risk_jurisdiction") == 25);
  CHECK(Points(place, "vulnerable_activity") == 15);
  CHECK(place.level == "medium");
}

TEST_CASE("risk/v1: the registry decides rejection and review") {
  struct Row {
    std::string outcome, status, code, want_status;
    int64_t points;
  };
  for (const auto& r : std::vector<Row>{{"not_found", "", "registry_not_found", "rejected", 50},
                                        {"found", "dissolved", "registry_dissolved", "rejected", 60},
                                        {"found", "suspended", "registry_suspended", "needs_review", 40},
                                        {"unavailable", "", "registry_unavailable", "needs_review", 20},
                                        {"not_run", "", "registry_not_run", "needs_review", 10}}) {
    CAPTURE(r.code);
    RiskInputs in = Clean();
    in.registry_outcome = r.outcome;
    in.registry_status = r.status;
    RiskResult res = AssessRisk(in);
    CHECK(Points(res, r.code) == r.points);
    CHECK(res.status == r.want_status);
  }
  RiskInputs in = Clean();
  in.registry_name_matches = false;
  CHECK(Points(AssessRisk(in), "registry_name_mismatch") == 15);
  in = Clean();
  in.country = "KP";
  in.unexplained_pct = 100;
  in.hits = {{0.99, false, "open", ""}, {0.9, false, "open", ""}};
  CHECK(AssessRisk(in).score == 100);  // capped
  CHECK(RiskLevelOf(29) == "low");
  CHECK(RiskLevelOf(30) == "medium");
  CHECK(RiskLevelOf(59) == "medium");
  CHECK(RiskLevelOf(60) == "high");
}

TEST_CASE("risk/v1: the SAT's 69-B Definitivo drives the risk to high, with its reason") {
  RiskInputs in;
  in.registry_outcome = "found";
  in.registry_status = "active";
  in.unexplained_pct = 0;
  in.country = "MX";
  in.hits = {{1.0, false, "confirmed", "69b_definitivo"}};
  RiskResult r = AssessRisk(in);
  CHECK(r.level == "high");
  CHECK(r.score == 60);
  REQUIRE(r.factors.size() == 1);
  CHECK(r.factors[0]["code"] == "sat_69b_definitivo");
  CHECK(r.factors[0]["detail"]["situacion"] == "Definitivo");
  CHECK(r.factors[0]["detail"]["why"].get<std::string>().find("simulated") != std::string::npos);
  in.hits = {{1.0, false, "open", "69b_presunto"}, {0.9, false, "open", "69"}};
  r = AssessRisk(in);
  CHECK(r.score == 55);
  CHECK(r.level == "medium");
  CHECK(r.status == "needs_review");
  in.hits = {{1.0, false, "dismissed", "69b_definitivo"}};  // a reviewer found it is someone else
  CHECK(AssessRisk(in).level == "low");
}

TEST_CASE("ownership stage: nodes are parties; a chain, a diamond and a cross-holding") {
  std::map<std::string, std::string> names = {{"a", "Alfa"}, {"b", "Beta"}, {"ana", "Ana"}, {"c1", "Carla Ruiz"},
                                              {"c2", "CARLA RUÍZ"}, {"x", "Xochi"}, {"y", "Yax"}, {"x2", "Xochi"},
                                              {"p", "Pedro"}};
  core::Json chain = core::Json::array({N("a", "company", "60"), N("b", "company", "50", "a"), N("ana", "person", "80", "b")});
  core::Json r = OwnershipStage("cmp_1", chain, names, 15);
  CHECK(r["effective"]["ana"] == "24.00");
  CHECK(r["unexplainedPct"] == "76.00");
  CHECK(r["beneficialOwners"] == core::Json::array({"ana"}));

  // Carla twice, spelled twice: one party (folded names agree), 50 + 15.
  core::Json diamond = core::Json::array({N("a", "company", "50"), N("b", "company", "50"), N("c1", "person", "100", "a"),
                                          N("c2", "person", "30", "b")});
  r = OwnershipStage("cmp_1", diamond, names, 15);
  CHECK(r["effective"]["c1"] == "65.00");
  CHECK(r["effective"]["c2"] == "65.00");
  CHECK(r["unexplainedPct"] == "35.00");

  core::Json cycle = core::Json::array({N("x", "company", "100"), N("y", "company", "50", "x"),
                                        N("x2", "company", "40", "y"), N("p", "person", "50", "x")});
  r = OwnershipStage("cmp_1", cycle, names, 15);
  CHECK(r["refused"].is_null());
  CHECK(r["effective"]["p"] == "50.00");
  CHECK(r["effective"]["x2"] == "100.00");  // the same party as x
  REQUIRE(r["cycles"].size() == 1);

  // The same person by personId under different names is one party too.
  core::Json by_id = core::Json::array({N("a", "company", "50"), N("c1", "person", "100", "a", "per_1"),
                                        N("ana", "person", "20", "", "per_1")});
  r = OwnershipStage("cmp_1", by_id, names, 15);
  CHECK(r["effective"]["ana"] == "70.00");
}

TEST_CASE("sandbox registry: deterministic outcomes by RFC, the RFC's date, the legal form and activity") {
  SandboxCompanyRegistry reg;
  RegistryRecord r = reg.Lookup({"MX", Rfc("ACM010203AB"), "Acme Comercial, S.A. de C.V.", kToday});
  CHECK(r.outcome == "found");
  CHECK(r.status == "active");
  CHECK(r.incorporation_date == "2001-02-03");
  CHECK(r.legal_form == "sociedad anónima de capital variable");
  CHECK(r.registry_id == reg.Lookup({"MX", Rfc("ACM010203AB"), "x", kToday}).registry_id);
  CHECK(reg.Lookup({"MX", Rfc("DIS010101AB"), "x", kToday}).status == "dissolved");
  CHECK(reg.Lookup({"MX", Rfc("SUS010101AB"), "x", kToday}).status == "suspended");
  CHECK(reg.Lookup({"MX", Rfc("NEX010101AB"), "x", kToday}).outcome == "not_found");
  CHECK(reg.Lookup({"MX", Rfc("UNA010101AB"), "x", kToday}).outcome == "unavailable");
  CHECK(reg.Lookup({"MX", "", "x", kToday}).outcome == "not_found");
  CHECK(reg.Lookup({"US", "", "x", kToday}).outcome == "not_run");
  CHECK(reg.Lookup({"MX", Rfc("JOY010101AB"), "Joyería Fina SA", kToday}).industry_code == "465112");
  CHECK(LegalFormOf("Servicios Beta, S. de R.L. de C.V.") == "sociedad de responsabilidad limitada de capital variable");
  CHECK(LegalFormOf("Fundación Uno, A.C.") == "asociación civil");
  CHECK(LegalFormOf("Tienda") == "");
}

TEST_CASE("screening: PEP-only hits are told from sanctions") {
  CHECK(PepOnly({"Sandbox PEP list"}));
  CHECK(PepOnly({"Every politically exposed person"}));
  CHECK_FALSE(PepOnly({"SDNTK"}));
  CHECK_FALSE(PepOnly({"Sandbox PEP list", "SDGT"}));
  CHECK_FALSE(PepOnly({}));
}

}  // namespace pipeline_kyb_company_pipeline_test
