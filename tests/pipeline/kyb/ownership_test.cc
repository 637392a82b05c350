// The ownership analysis (pipeline/kyb/ownership.h): a chain, a diamond and a cross-holding give
// the documented effective percentages; beneficial owners by threshold and by control; the share
// left unexplained; refusals.
#include "pipeline/kyb/ownership.h"

#include <doctest/doctest.h>

namespace svc::pipeline::kyb {
namespace pipeline_kyb_ownership_test {

OwnershipNode P(const std::string& id, bool control = false) { return {id, "person", control}; }
OwnershipNode C(const std::string& id) { return {id, "company", false}; }

TEST_CASE("ownership: a chain multiplies along the path") {
  // root <- 60% A <- 50% B <- 80% ana;  root <- 40% beto.
  auto r = AnalyzeOwnership("root", {C("A"), C("B"), P("ana"), P("beto")},
                            {{"A", "root", 60}, {"B", "A", 50}, {"ana", "B", 80}, {"beto", "root", 40}});
  REQUIRE(r.ok());
  CHECK(r->effective_pct["A"] == doctest::Approx(60));
  CHECK(r->effective_pct["B"] == doctest::Approx(30));
  CHECK(r->effective_pct["ana"] == doctest::Approx(24));
  CHECK(r->effective_pct["beto"] == doctest::Approx(40));
  CHECK(r->beneficial_owners == std::vector<std::string>{"beto", "ana"});
  // 20% of B and 50% of A are held by nobody declared: 100 - 24 - 40 = 36% unexplained.
  CHECK(r->explained_pct == doctest::Approx(64));
  CHECK(r->unexplained_pct == doctest::Approx(36));
  CHECK(r->cycles.empty());
  // At the banks' 25%, ana (24%) is no longer a beneficial owner.
  CHECK(AnalyzeOwnership("root", {C("A"), C("B"), P("ana"), P("beto")},
                         {{"A", "root", 60}, {"B", "A", 50}, {"ana", "B", 80}, {"beto", "root", 40}}, 25)
            ->beneficial_owners == std::vector<std::string>{"beto"});
}

TEST_CASE("ownership: a diamond sums the paths") {
  // root <- 50% A, root <- 50% B; A <- 100% carla, B <- 30% carla, B <- 70% dora.
  auto r = AnalyzeOwnership("root", {C("A"), C("B"), P("carla"), P("dora")},
                            {{"A", "root", 50}, {"B", "root", 50}, {"carla", "A", 100}, {"carla", "B", 30},
                             {"dora", "B", 70}});
  REQUIRE(r.ok());
  CHECK(r->effective_pct["carla"] == doctest::Approx(65));  // 50 + 15
  CHECK(r->effective_pct["dora"] == doctest::Approx(35));
  CHECK(r->unexplained_pct == doctest::Approx(0));
  CHECK(r->beneficial_owners == std::vector<std::string>{"carla", "dora"});
}

TEST_CASE("ownership: a cross-holding is counted once along each path, flagged, never looped") {
  // root <- 70% A; A <- 40% B; B <- 50% A (cross-holding); B <- 50% eva; A <- 60% fer.
  auto r = AnalyzeOwnership("root", {C("A"), C("B"), P("eva"), P("fer", false), P("gil", true)},
                            {{"A", "root", 70}, {"B", "A", 40}, {"A", "B", 50}, {"eva", "B", 50}, {"fer", "A", 60},
                             {"gil", "root", 5}});
  REQUIRE(r.ok());
  CHECK(r->effective_pct["A"] == doctest::Approx(70));
  CHECK(r->effective_pct["B"] == doctest::Approx(28));
  CHECK(r->effective_pct["eva"] == doctest::Approx(14));
  CHECK(r->effective_pct["fer"] == doctest::Approx(42));
  CHECK(r->effective_pct["gil"] == doctest::Approx(5));
  REQUIRE(r->cycles.size() == 1);
  CHECK(r->cycles[0] == std::vector<std::string>{"A", "B"});
  // fer 42%, eva 14% (under 15%), gil 5% but holds control.
  CHECK(r->beneficial_owners == std::vector<std::string>{"fer", "gil"});
  CHECK(r->unexplained_pct == doctest::Approx(100 - 42 - 14 - 5));
  CHECK_FALSE(r->truncated);
}

TEST_CASE("ownership: refusals, and an empty graph is all unexplained") {
  CHECK(AnalyzeOwnership("root", {P("a")}, {{"a", "root", 0}}).status().message().find("(0, 100]") != std::string::npos);
  CHECK(AnalyzeOwnership("root", {P("a")}, {{"a", "root", 101}}).status().message().find("(0, 100]") != std::string::npos);
  CHECK(AnalyzeOwnership("root", {P("a")}, {{"x", "root", 10}}).status().message() == "unknown owner x");
  CHECK(AnalyzeOwnership("root", {P("a"), P("b")}, {{"a", "b", 10}}).status().message() ==
        "b is a person: only companies are owned");
  CHECK(AnalyzeOwnership("root", {P("a"), P("b")}, {{"a", "root", 60}, {"b", "root", 50}}).status().message() ==
        "the declared owners of root add up to more than 100%");
  auto empty = AnalyzeOwnership("root", {}, {});
  REQUIRE(empty.ok());
  CHECK(empty->unexplained_pct == 100);
  CHECK(empty->beneficial_owners.empty());
}

}  // namespace pipeline_kyb_ownership_test
}  // namespace svc::pipeline::kyb
