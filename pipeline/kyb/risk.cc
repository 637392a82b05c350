#include "pipeline/kyb/risk.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "pipeline/kyb/name_match.h"

namespace svc::pipeline::kyb {

std::string RiskLevelOf(int64_t score) {
  if (score >= 60) return "high";
  if (score >= 30) return "medium";
  return "low";
}

namespace {

bool VulnerableActivity(const std::string& industry_code, const std::string& activity) {
  // SCIAN codes of the activities LFPIORPI art. 17 names, and their words.
  static const std::array<const char*, 7> kCodes = {"7132", "4651", "5313", "5311", "4681", "5239", "3363"};
  for (const char* c : kCodes) {
    if (industry_code.rfind(c, 0) == 0) return true;
  }
  const std::string folded = " " + FoldName(activity) + " ";
  static const std::array<const char*, 8> kWords = {"casino", "apuesta", "sorteo", "joyeria", "metales preciosos",
                                                   "inmobiliari", "activos virtuales", "blindaje"};
  for (const char* w : kWords) {
    if (folded.find(w) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

RiskResult AssessRisk(const RiskInputs& in) {
  RiskResult r;
  int64_t total = 0;
  bool rejected = false, review = false;
  auto add = [&](const char* code, int64_t points, core::Json detail) {
    if (points <= 0) return;
    total += points;
    r.factors.push_back({{"code", code}, {"points", points}, {"detail", std::move(detail)}});
  };
  if (in.registry_outcome == "not_found") {
    add("registry_not_found", 50, {{"outcome", "not_found"}});
    rejected = true;
  } else if (in.registry_outcome == "unavailable") {
    add("registry_unavailable", 20, {{"outcome", "unavailable"}});
    review = true;
  } else if (in.registry_outcome == "not_run") {
    add("registry_not_run", 10, {{"country", in.country}});
    review = true;
  } else if (in.registry_status == "dissolved") {
    add("registry_dissolved", 60, {{"registryStatus", "dissolved"}});
    rejected = true;
  } else if (in.registry_status == "suspended") {
    add("registry_suspended", 40, {{"registryStatus", "suspended"}});
    review = true;
  }
  if (in.registry_outcome == "found" && !in.registry_name_matches) {
    add("registry_name_mismatch", 15, core::Json::object());
    review = true;
  }
  if (!in.screened) {
    add("screening_not_run", 10, {{"reason", "no list loaded"}});
    review = true;
  }
  int64_t strong = 0, other = 0, pep = 0, definitivo = 0, presunto = 0, incumplido = 0;
  for (const auto& h : in.hits) {
    if (h.status == "dismissed") continue;
    if (h.status == "open") review = true;
    if (h.sat_listing == "69b_definitivo") {
      ++definitivo;
    } else if (h.sat_listing == "69b_presunto") {
      ++presunto;
    } else if (h.sat_listing == "69") {
      ++incumplido;
    } else if (h.pep_only) {
      ++pep;
    } else if (h.score >= 0.95 || h.status == "confirmed") {
      ++strong;
    } else {
      ++other;
    }
  }
  if (strong > 0) add("sanctions_hit_strong", 60, {{"hits", strong}});
  if (other > 0) add("sanctions_hit", std::min<int64_t>(60, 35 * other), {{"hits", other}});
  if (pep > 0) add("pep_hit", 20, {{"hits", pep}});
  // The SAT's own lists, the first a Mexican compliance team checks (docs/kyb.md#risk).
  if (definitivo > 0) {
    add("sat_69b_definitivo", 60,
        {{"hits", definitivo}, {"list", "SAT, CFF art. 69-B"}, {"situacion", "Definitivo"},
         {"why", "the SAT deems its invoices simulated operations: they have no tax effect"}});
  }
  if (presunto > 0) {
    add("sat_69b_presunto", 35,
        {{"hits", presunto}, {"list", "SAT, CFF art. 69-B"}, {"situacion", "Presunto"},
         {"why", "the SAT presumes its operations simulated; it may still disprove it"}});
  }
  if (incumplido > 0) {
    add("sat_69_incumplido", 20, {{"hits", incumplido}, {"list", "SAT, CFF art. 69"},
                                  {"why", "a non-compliant taxpayer published by the SAT"}});
  }
  const double unexplained = std::clamp(in.unexplained_pct, 0.0, 100.0);
  add("unexplained_ownership", static_cast<int64_t>(std::lround(unexplained * 0.3)),
      {{"unexplainedPct", std::round(unexplained * 100) / 100}});
  if (in.ownership_inconsistent) {
    add("ownership_inconsistent", 25, core::Json::object());
    review = true;
  }
  if (in.cross_holding) add("cross_holding", 10, core::Json::object());
  if (in.country == "KP" || in.country == "IR" || in.country == "MM") {
    add("high_risk_jurisdiction", 25, {{"country", in.country}});
  }
  if (VulnerableActivity(in.industry_code, in.activity)) {
    add("vulnerable_activity", 15, {{"industryCode", in.industry_code}});
  }
  r.score = std::min<int64_t>(100, total);
  r.level = RiskLevelOf(r.score);
  r.status = rejected ? "rejected" : review ? "needs_review" : "verified";
  return r;
}

}  // namespace svc::pipeline::kyb
