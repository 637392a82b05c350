#include "pipeline/kyb/ownership.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>

namespace svc::pipeline::kyb {

namespace {

constexpr size_t kMaxPaths = 200000;
constexpr size_t kMaxDepth = 32;

// A cycle's nodes rotated to start at the smallest id (so one cycle is reported once).
std::vector<std::string> Canonical(std::vector<std::string> c) {
  auto smallest = std::min_element(c.begin(), c.end());
  std::rotate(c.begin(), smallest, c.end());
  return c;
}

}  // namespace

core::Result<OwnershipResult> AnalyzeOwnership(const std::string& root, const std::vector<OwnershipNode>& nodes,
                                               const std::vector<OwnershipEdge>& edges, double threshold_pct) {
  std::map<std::string, const OwnershipNode*> by_id;
  for (const auto& n : nodes) by_id[n.id] = &n;
  // owners[x]: who owns x, and how much.
  std::map<std::string, std::vector<std::pair<std::string, double>>> owners;
  std::map<std::string, double> declared;
  for (const auto& e : edges) {
    if (!(e.pct > 0) || e.pct > 100 || !std::isfinite(e.pct)) {
      return core::InvalidArgument("a holding of " + e.owner + " in " + e.owned + " is not in (0, 100]");
    }
    if (by_id.count(e.owner) == 0) return core::InvalidArgument("unknown owner " + e.owner);
    if (e.owned != root && by_id.count(e.owned) == 0) return core::InvalidArgument("unknown company " + e.owned);
    if (e.owned != root && by_id[e.owned]->kind != "company") {
      return core::InvalidArgument(e.owned + " is a person: only companies are owned");
    }
    owners[e.owned].emplace_back(e.owner, e.pct);
    declared[e.owned] += e.pct;
    if (declared[e.owned] > 100.0 + 1e-9) {
      return core::InvalidArgument("the declared owners of " + e.owned + " add up to more than 100%");
    }
  }
  for (auto& [k, v] : owners) std::sort(v.begin(), v.end());  // deterministic order

  OwnershipResult out;
  std::set<std::vector<std::string>> cycles;
  std::vector<std::string> path = {root};
  std::set<std::string> on_path = {root};
  size_t paths = 0;
  // Walks up from the root: `share` is the fraction of the root the current node holds along
  // this path.
  std::function<void(const std::string&, double)> up = [&](const std::string& node, double share) {
    auto it = owners.find(node);
    if (it == owners.end()) return;
    for (const auto& [owner, pct] : it->second) {
      if (++paths > kMaxPaths || path.size() > kMaxDepth) {
        out.truncated = true;
        return;
      }
      if (on_path.count(owner) > 0) {
        // A cross-holding: the cycle from `owner` back to it.
        auto from = std::find(path.begin(), path.end(), owner);
        cycles.insert(Canonical(std::vector<std::string>(from, path.end())));
        continue;
      }
      const double s = share * pct / 100.0;
      out.effective_pct[owner] += s * 100.0;
      const OwnershipNode* n = by_id[owner];
      if (n->kind == "person") {
        out.explained_pct += s * 100.0;
        continue;
      }
      path.push_back(owner);
      on_path.insert(owner);
      up(owner, s);
      on_path.erase(owner);
      path.pop_back();
    }
  };
  up(root, 1.0);
  out.cycles.assign(cycles.begin(), cycles.end());
  // Round away the float noise of long products (to a millionth of a percent).
  for (auto& [id, v] : out.effective_pct) v = std::round(v * 1e6) / 1e6;
  out.explained_pct = std::round(out.explained_pct * 1e6) / 1e6;
  out.unexplained_pct = std::max(0.0, std::round((100.0 - out.explained_pct) * 1e6) / 1e6);
  std::vector<std::pair<double, std::string>> ubo;
  for (const auto& n : nodes) {
    if (n.kind != "person") continue;
    auto it = out.effective_pct.find(n.id);
    const double pct = it == out.effective_pct.end() ? 0.0 : it->second;
    if (pct >= threshold_pct - 1e-9 || n.control) ubo.emplace_back(-pct, n.id);
  }
  std::sort(ubo.begin(), ubo.end());
  for (const auto& [neg, id] : ubo) out.beneficial_owners.push_back(id);
  return out;
}

}  // namespace svc::pipeline::kyb
