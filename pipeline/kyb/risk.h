#pragma once
// The KYB risk formula, risk/v1 (docs/kyb.md#risk): a deterministic sum of named factors, each
// worth points, capped at 100; the level is low under 30, medium from 30 to 59, high from 60.
// Every factor is listed in the company's `risk` check, with the figures it came from.
//
//   registry_not_found      50  the registry has no such company (the company is rejected)
//   registry_dissolved      60  dissolved (rejected)
//   registry_suspended      40
//   registry_unavailable    20  the registry did not answer (needs review)
//   registry_not_run        10  no registry for the country (needs review)
//   registry_name_mismatch  15  the registry's legal name is not the one declared
//   screening_not_run       10  no sanctions list was loaded: nobody was screened (needs review)
//   sanctions_hit_strong    60  a hit scoring 0.95 or more on the company, a member or an owner
//   sanctions_hit           35  each other hit (at most 60 together)
//   pep_hit                 20  a hit on a PEP dataset only (once)
//   sat_69b_definitivo      60  on the SAT's CFF art. 69-B list as Definitivo: its invoices are
//                               deemed simulated operations (alone, the level is high)
//   sat_69b_presunto        35  on the 69-B list as Presunto (the SAT presumes it; not yet final)
//   sat_69_incumplido       20  on an art. 69 list of non-compliant taxpayers (firm or enforceable
//                               debts, not located, cancelled, …)
//   unexplained_ownership   0.3 × the share of ownership nobody is known behind (0 to 30)
//   ownership_inconsistent  25  the declared owners add up to more than 100% somewhere
//   cross_holding           10  the ownership graph has a cycle
//   high_risk_jurisdiction  25  the company's country is on the FATF call for action (KP, IR, MM)
//   vulnerable_activity     15  an activity of LFPIORPI art. 17 (gambling, precious metals and
//                               jewellery, real estate, vehicles, virtual assets, armouring)
//
// A confirmed hit counts as strong; a dismissed one does not count. A hit on a SAT list counts
// by its listing (the factors above), not as a sanctions hit.

#include <string>
#include <vector>

#include "core/json.h"

namespace svc::pipeline::kyb {

inline constexpr std::string_view kRiskFormula = "risk/v1";

struct RiskHit {
  double score = 0;
  bool pep_only = false;  // every list of the entry is a PEP dataset
  std::string status;     // open | confirmed | dismissed
  std::string sat_listing;  // SatListing of the entry's programmes: "69b_definitivo", "69b_presunto", "69", ""
};

struct RiskInputs {
  std::string registry_outcome;  // found | not_found | unavailable | not_run
  std::string registry_status;   // active | suspended | dissolved
  bool registry_name_matches = true;
  bool screened = true;  // false: no list was in force, nobody was screened
  std::vector<RiskHit> hits;
  double unexplained_pct = 100;
  bool ownership_inconsistent = false;
  bool cross_holding = false;
  std::string country;
  std::string industry_code;
  std::string activity;
};

struct RiskResult {
  int64_t score = 0;
  std::string level;   // low | medium | high
  std::string status;  // verified | needs_review | rejected
  core::Json factors = core::Json::array();  // [{code, points, detail}]
};

RiskResult AssessRisk(const RiskInputs& in);
std::string RiskLevelOf(int64_t score);

}  // namespace svc::pipeline::kyb
