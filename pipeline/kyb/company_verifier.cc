#include "pipeline/kyb/company_verifier.h"

#include <cmath>
#include <cstdio>
#include <set>

#include "commands/kyb/company_decider.h"
#include "commands/writer.h"
#include "core/crypto.h"
#include "core/log.h"
#include "pipeline/kyb/list_loaders.h"
#include "pipeline/kyb/name_match.h"
#include "pipeline/kyb/ownership.h"
#include "pipeline/kyb/risk.h"
#include "pipeline/kyb/screening_run.h"
#include "projections/projector.h"
#include "projections/runner.h"
#include "projections/view_rows.h"

namespace svc::pipeline::kyb {

namespace kc = commands::kyb;
using KV = projections::KybView;

namespace {

std::string Pct(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", std::round(v * 100) / 100);
  return buf;
}

std::string WaiterKey(const std::string& te, const std::string& company) { return te + "/" + company; }

// The check of `stage` recorded for `run`, or null.
const core::Json* CheckOf(const core::Json& row, const std::string& stage, int64_t run) {
  for (const auto& c : row["checks"]) {
    if (core::StringOr(c, "type") == stage && c.value("run", int64_t{0}) == run) return &c;
  }
  return nullptr;
}

}  // namespace

core::Json OwnershipStage(const std::string& company_id, const core::Json& nodes,
                          const std::map<std::string, std::string>& names, double threshold_pct) {
  // Each node stands for a party (see the header); the graph is between parties.
  std::map<std::string, std::string> party_of;           // node id -> party
  std::map<std::string, std::string> first_node;         // party -> its first node
  std::map<std::string, OwnershipNode> parties;
  for (const auto& n : nodes) {
    const std::string id = core::StringOr(n, "id");
    const std::string type = core::StringOr(n, "nodeType");
    std::string party;
    if (!core::StringOr(n, "personId").empty()) party = "p:" + core::StringOr(n, "personId");
    else if (!core::StringOr(n, "relatedCompanyId").empty()) party = "c:" + core::StringOr(n, "relatedCompanyId");
    else {
      auto nm = names.find(id);
      party = (type == "person" ? "pn:" : "cn:") + FoldName(nm == names.end() ? id : nm->second);
    }
    party_of[id] = party;
    first_node.emplace(party, id);
    auto& p = parties[party];
    p.id = party;
    p.kind = type == "person" ? "person" : "company";
    p.control = p.control || n.value("isControlPerson", false);
  }
  const std::string root = "root:" + company_id;
  std::map<std::pair<std::string, std::string>, double> holdings;
  for (const auto& n : nodes) {
    const std::string pct_text = core::StringOr(n, "ownershipPct");
    if (pct_text.empty()) continue;
    const std::string parent = core::StringOr(n, "parentNodeId");
    const std::string owned = parent.empty() ? root : party_of[parent];
    holdings[{party_of[core::StringOr(n, "id")], owned}] += std::atof(pct_text.c_str());
  }
  std::vector<OwnershipNode> graph_nodes;
  for (const auto& [id, p] : parties) graph_nodes.push_back(p);
  std::vector<OwnershipEdge> edges;
  for (const auto& [k, pct] : holdings) {
    if (k.first == k.second) continue;  // a party declared as its own owner: no holding
    edges.push_back({k.first, k.second, pct});
  }
  core::Json out = {{"thresholdPct", threshold_pct}, {"parties", static_cast<int64_t>(parties.size())}};
  auto analysis = AnalyzeOwnership(root, graph_nodes, edges, threshold_pct);
  if (!analysis.ok()) {
    out["refused"] = analysis.status().message();
    out["effective"] = core::Json::object();
    out["beneficialOwners"] = core::Json::array();
    out["cycles"] = core::Json::array();
    out["explainedPct"] = nullptr;
    out["unexplainedPct"] = "100.00";
    out["truncated"] = false;
    return out;
  }
  core::Json effective = core::Json::object();
  for (const auto& [node, party] : party_of) {
    auto e = analysis->effective_pct.find(party);
    if (e != analysis->effective_pct.end()) effective[node] = Pct(e->second);
  }
  core::Json owners = core::Json::array();
  for (const auto& party : analysis->beneficial_owners) owners.push_back(first_node[party]);
  core::Json cycles = core::Json::array();
  for (const auto& cycle : analysis->cycles) {
    core::Json c = core::Json::array();
    for (const auto& party : cycle) c.push_back(first_node.count(party) ? first_node[party] : company_id);
    cycles.push_back(c);
  }
  out["refused"] = nullptr;
  out["effective"] = effective;
  out["beneficialOwners"] = owners;
  out["cycles"] = cycles;
  out["explainedPct"] = Pct(analysis->explained_pct);
  out["unexplainedPct"] = Pct(analysis->unexplained_pct);
  out["truncated"] = analysis->truncated;
  return out;
}

CompanyVerifier::CompanyVerifier(Options options)
    : QueueManager("svc-kyb-verify", options.projector), options_(std::move(options)) {}

CompanyVerifier::~CompanyVerifier() { Stop(); }

void CompanyVerifier::Stop() {
  QueueManager::Stop();
  std::vector<Waiter> left;
  {
    std::lock_guard l(waiters_mu_);
    left.swap(waiters_);
  }
  for (auto& w : left) w.done(false);
}


void CompanyVerifier::WhenDone(const std::string& tenant, const std::string& environment, const std::string& company,
                               int64_t run, std::chrono::milliseconds timeout, std::function<void(bool)> done) {
  {
    std::lock_guard l(waiters_mu_);
    waiters_.push_back({WaiterKey(projections::TenantEnv(tenant, environment), company), run,
                        std::chrono::steady_clock::now() + timeout, std::move(done)});
  }
  Wake();
}

void CompanyVerifier::FireWaiters() {
  std::vector<std::pair<std::function<void(bool)>, bool>> fire;
  {
    std::lock_guard l(waiters_mu_);
    const auto now = std::chrono::steady_clock::now();
    const int cf = options_.store->Cf(projections::kViewsCf);
    for (auto it = waiters_.begin(); it != waiters_.end();) {
      const size_t slash = it->key.rfind('/');
      const std::string te = it->key.substr(0, slash), company = it->key.substr(slash + 1);
      auto row = options_.store->Get(cf, KV::Abs(KV::Company(te, company)));
      bool ended = false;
      if (row.ok() && row->has_value()) {
        core::Json r = core::ParseJsonOrDiscarded(**row);
        ended = r.value("run", int64_t{0}) > it->run ||
                (r.value("run", int64_t{0}) == it->run && core::StringOr(r, "status") != "verifying");
      }
      if (ended || now >= it->deadline) {
        fire.emplace_back(std::move(it->done), ended);
        it = waiters_.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (auto& [fn, ok] : fire) fn(ok);
}

core::Result<std::vector<CompanyVerifier::Due>> CompanyVerifier::Pending() const {
  SVC_ASSIGN_OR_RETURN(auto rows, projections::ScanRows(*options_.store, KV::Abs(KV::DuePrefix())));
  std::vector<Due> out;
  for (auto& row : rows) {
    if (!options_.Owns(core::StringOr(row, "tenantId"))) continue;  // another node's partition
    out.push_back({core::StringOr(row, "tenantId"), core::StringOr(row, "environment"), core::StringOr(row, "companyId"),
                   row.value("run", int64_t{0})});
  }
  return out;
}

bool CompanyVerifier::NothingDue() {
  auto due = Pending();
  if (!due.ok() || !due->empty()) return false;
  std::lock_guard l(waiters_mu_);
  return waiters_.empty();
}

void CompanyVerifier::Pass() {
  auto due = Pending();
  if (!due.ok()) {
    core::LogWarn("kyb verifier: cannot read the queue", {{"error", due.status().ToString()}});
  } else {
    for (const auto& d : *due) {
      if (Stopping()) return;
      if (auto st = Process(d); !st.ok()) {
        core::LogWarn("kyb verifier: the run stopped; it is retried", {{"companyId", d.company}, {"error", st.ToString()}});
      }
    }
  }
  FireWaiters();
}

core::Status CompanyVerifier::Process(const Due& d) {
  const std::string te = projections::TenantEnv(d.tenant, d.environment);
  const int cf = options_.store->Cf(projections::kViewsCf);
  auto read_row = [&]() -> core::Result<core::Json> {
    SVC_ASSIGN_OR_RETURN(auto text, options_.store->Get(cf, KV::Abs(KV::Company(te, d.company))));
    if (!text.has_value()) return core::NotFound("no company row");
    return core::ParseJsonOrDiscarded(*text);
  };
  SVC_ASSIGN_OR_RETURN(core::Json row, read_row());
  if (row.value("run", int64_t{0}) != d.run || core::StringOr(row, "status") != "verifying") return core::Status::Ok();
  auto context = [&] {
    return commands::SystemContext(options_.clock->Now(), options_.ids, "kyb-verifier", d.environment);
  };
  auto open = [&](const std::string& record, const std::string& field, const core::Json& sealed) -> std::string {
    if (!sealed.is_string()) return "";
    auto v = OpenValue(options_.keys, KybAad(d.tenant, d.environment, record, field), sealed.get<std::string>());
    return v.ok() ? *v : "";
  };
  auto record_stage = [&](const std::string& stage, const std::string& status, core::Json result) -> core::Status {
    kc::StageCompleted s{d.run, stage, status, std::move(result)};
    SVC_ASSIGN_OR_RETURN(auto o, options_.writer->ExecuteAndWait(commands::MakeCommand<kc::CompanyDecider>(
                                     d.tenant, d.company, kc::CompanyCommand(kc::CompleteStage{s}), context())));
    if (!o.positions.empty()) options_.projections->WaitApplied(o.positions, std::chrono::seconds(30));
    return core::Status::Ok();
  };
  const std::string legal_name = open(d.company, "legalName", row["legalNameSealed"]);
  const std::string rfc = open(d.company, "rfc", row["rfcSealed"]);
  const std::string country = core::StringOr(row, "country");

  // 1. The registry.
  // Right before each outside call: a pass that began before this node lost the tenant's
  // partition stops here; the new owner verifies the company from its due row (issue 67).
  if (!options_.Owns(d.tenant)) return core::Status::Ok();
  if (CheckOf(row, "registry", d.run) == nullptr) {
    RegistryRecord rec = options_.registry->Lookup({country, rfc, legal_name, core::mx::CivilDateOfMicros(options_.clock->Now().micros)});
    bool name_matches = true;
    if (rec.outcome == "found" && !rec.legal_name.empty()) {
      name_matches = NameSimilarity(NameTokens(legal_name), NameTokens(rec.legal_name)) >= kHitThreshold;
    }
    auto or_null = [](const std::string& s) { return s.empty() ? core::Json(nullptr) : core::Json(s); };
    core::Json result = {{"gateway", options_.registry->Name()},
                         {"outcome", rec.outcome},
                         {"nameMatches", name_matches},
                         {"errorCode", or_null(rec.error_code)}};
    if (rec.outcome == "found") {
      result["registryAuthority"] = or_null(rec.authority);
      result["registryId"] = or_null(rec.registry_id);
      result["registryStatus"] = or_null(rec.status);
      result["legalForm"] = or_null(rec.legal_form);
      result["activity"] = or_null(rec.activity);
      result["industryCode"] = or_null(rec.industry_code);
      result["incorporationDate"] = or_null(rec.incorporation_date);
    }
    const std::string status = rec.outcome == "found" ? (rec.status == "active" && name_matches ? "passed" : "failed")
                               : rec.outcome == "not_found" ? "failed"
                                                            : "needs_review";
    SVC_RETURN_IF_ERROR(record_stage("registry", status, result));
  }

  // 2. Ownership.
  if (CheckOf(row, "ownership", d.run) == nullptr) {
    std::map<std::string, std::string> names;
    for (const auto& n : row["uboNodes"]) {
      auto name = OpenSubjectName(options_.keys, d.tenant, d.environment, d.company, core::StringOr(n, "id"), n);
      if (name.ok() && name->has_value()) names[core::StringOr(n, "id")] = **name;
    }
    core::Json result = OwnershipStage(d.company, row["uboNodes"], names, options_.ubo_threshold_pct);
    const bool refused = !result["refused"].is_null();
    const std::string status = refused || result.value("truncated", false) ? "needs_review"
                               : result["cycles"].empty() ? "passed"
                                                          : "needs_review";
    SVC_RETURN_IF_ERROR(record_stage("ownership", status, result));
  }

  // 3. Screening.
  if (!options_.Owns(d.tenant)) return core::Status::Ok();
  if (CheckOf(row, "screening", d.run) == nullptr) {
    auto lists = options_.lists->Current();
    std::vector<ScreenedName> names = CompanyScreenedNames(options_.keys, row);
    const std::string screening_id =
        "scr_" + core::Sha256Hex("svc/kyb-screening/v1|" + te + "|" + d.company + "|" + std::to_string(d.run)).substr(0, 32);
    auto found = ScreenNames(*lists, names, d.tenant, d.environment);
    kc::ScreeningCompleted completed;
    completed.subject_type = "company";
    completed.subject_id = d.company;
    completed.subject_key = "company:" + d.company;
    completed.origin = "company_verification";
    SVC_ASSIGN_OR_RETURN(auto recorded, RecordScreening(*options_.writer, context, options_.keys, d.tenant, d.environment, screening_id, completed,
                                                        *lists, names, found));
    if (!recorded.positions.empty()) options_.projections->WaitApplied(recorded.positions, std::chrono::seconds(30));
    core::Json result = {{"screeningId", screening_id},
                         {"lists", lists->lists},
                         {"namesScreened", static_cast<int64_t>(names.size())},
                         {"hits", recorded.hits}};
    const std::string status = lists->index == nullptr ? "not_run" : found.empty() ? "passed" : "needs_review";
    SVC_RETURN_IF_ERROR(record_stage("screening", status, result));
  }

  // 4. Risk, over the stages as recorded and the company's hits as reviewed now.
  SVC_ASSIGN_OR_RETURN(row, read_row());
  RiskInputs in;
  in.country = core::StringOr(row, "country");
  in.industry_code = core::StringOr(row, "industryCode");
  in.activity = core::StringOr(row, "activity");
  if (const core::Json* reg = CheckOf(row, "registry", d.run)) {
    in.registry_outcome = core::StringOr((*reg)["result"], "outcome");
    in.registry_status = core::StringOr((*reg)["result"], "registryStatus");
    in.registry_name_matches = (*reg)["result"].value("nameMatches", true);
  }
  if (const core::Json* own = CheckOf(row, "ownership", d.run)) {
    const core::Json& r = (*own)["result"];
    in.ownership_inconsistent = !r.value("refused", core::Json(nullptr)).is_null();
    in.unexplained_pct = std::atof(core::StringOr(r, "unexplainedPct").c_str());
    if (core::StringOr(r, "unexplainedPct").empty()) in.unexplained_pct = 100;
    in.cross_holding = !r.value("cycles", core::Json::array()).empty();
  }
  if (const core::Json* scr = CheckOf(row, "screening", d.run)) in.screened = core::StringOr(*scr, "status") != "not_run";
  const std::string hits_prefix = KV::Abs(KV::HitsOfCompany(te, d.company));
  auto it = options_.store->NewIterator(cf, hits_prefix, eventstore::PrefixEnd(hits_prefix));
  for (it->Seek(hits_prefix); it->Valid(); it->Next()) {
    const std::string hit = std::string(it->key().substr(hits_prefix.size()));
    SVC_ASSIGN_OR_RETURN(auto h, options_.store->Get(cf, KV::Abs(KV::Hit(te, hit))));
    if (!h.has_value()) continue;
    core::Json hr = core::ParseJsonOrDiscarded(*h);
    std::vector<std::string> programs;
    for (const auto& p : hr["entry"].value("programs", core::Json::array())) programs.push_back(p.get<std::string>());
    in.hits.push_back({hr.value("score", 0.0), PepOnly(programs), core::StringOr(hr, "status"), SatListing(programs)});
  }
  SVC_RETURN_IF_ERROR(it->status());
  RiskResult risk = AssessRisk(in);
  kc::RiskAssessed assessed{d.run, risk.score, risk.level, risk.status, risk.factors, std::string(kRiskFormula)};
  SVC_ASSIGN_OR_RETURN(auto o, options_.writer->ExecuteAndWait(commands::MakeCommand<kc::CompanyDecider>(
                                   d.tenant, d.company, kc::CompanyCommand(kc::AssessRisk{assessed}), context())));
  if (!o.positions.empty()) options_.projections->WaitApplied(o.positions, std::chrono::seconds(30));
  return core::Status::Ok();
}

}  // namespace svc::pipeline::kyb
