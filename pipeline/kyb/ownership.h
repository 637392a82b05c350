#pragma once
// The ownership analysis of a company (docs/kyb.md#ownership): effective ownership through chains
// of companies, cross-holdings, control, beneficial owners and the share left unexplained. A pure
// function over the declared graph (UBO nodes and their edges), deterministic.
//
// - Effective ownership of an owner in the company: the product of the percentages along a path of
//   holdings from the owner down to the company, summed over every path. Paths are simple (no
//   node twice): a cross-holding (A owns B, B owns A) is counted once along each path and never
//   looped, and every cycle met is reported (`cycles`) so a reviewer looks at it.
// - Beneficial owners (the Mexican "beneficiario controlador"): the persons whose effective
//   ownership is at or above the threshold, and the persons marked as holding control whatever
//   their share. The default threshold is 15%: CFF art. 32-B Quáter looks through to persons who
//   hold, directly or indirectly, more than 15% of the capital; the banking rules (the CNBV's
//   general provisions under LIC art. 115) use 25%. The threshold is a parameter.
// - Unexplained: 100% less the effective ownership that reaches persons. Ownership that stops at a
//   company with no declared owners, or at a company whose owners add up to less than 100%, is
//   unexplained: nobody is known behind it.

#include <map>
#include <string>
#include <vector>

#include "core/status.h"

namespace svc::pipeline::kyb {

struct OwnershipNode {
  std::string id;
  std::string kind;      // person | company
  bool control = false;  // holds control without (or beyond) its share: a director, a trustee
};

struct OwnershipEdge {
  std::string owner;  // node id
  std::string owned;  // node id, or the root company's id
  double pct = 0;     // 0 < pct <= 100
};

struct OwnershipResult {
  std::map<std::string, double> effective_pct;      // every node that reaches the root
  std::vector<std::string> beneficial_owners;       // persons, by effective share then id
  std::vector<std::vector<std::string>> cycles;     // each as the node ids around it, smallest id first
  double explained_pct = 0;
  double unexplained_pct = 100;
  bool truncated = false;  // more than the path budget: the figures are a lower bound
};

inline constexpr double kDefaultUboThresholdPct = 15.0;

// `root` is the company analysed; nodes and edges as declared. InvalidArgument for an edge with a
// percentage out of (0, 100], an unknown node, or a company whose declared owners add up to more
// than 100%.
core::Result<OwnershipResult> AnalyzeOwnership(const std::string& root, const std::vector<OwnershipNode>& nodes,
                                               const std::vector<OwnershipEdge>& edges,
                                               double threshold_pct = kDefaultUboThresholdPct);

}  // namespace svc::pipeline::kyb
