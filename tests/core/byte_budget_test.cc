// core/byte_budget.h: a budget refuses what does not fit and gets back what holders give; held
// bytes come out of it a block at a time, read back whole, and go back when cleared.
#include "core/byte_budget.h"

#include <doctest/doctest.h>

#include <string>

namespace core_byte_budget_test {

using svc::core::ByteBudget;
using svc::core::Gauge;
using svc::core::HeldBytes;

TEST_CASE("byte budget: takes what fits, refuses the rest, holders give back what they took") {
  Gauge shown;
  ByteBudget budget(100, &shown);
  {
    ByteBudget::Hold a(&budget), b(&budget);
    CHECK(a.Grow(60));
    CHECK(!b.Grow(41));  // nothing taken
    CHECK(budget.used() == 60);
    CHECK(b.Grow(40));
    CHECK(!b.Grow(1));
    CHECK(shown.Value() == 100);
    a.Release();
    CHECK(budget.used() == 40);
  }
  CHECK(budget.used() == 0);
  CHECK(shown.Value() == 0);
  ByteBudget::Hold unlimited(nullptr);
  CHECK(unlimited.Grow(size_t{1} << 40));
}

TEST_CASE("held bytes: 1 MiB blocks out of the budget, read back whole, given back when cleared") {
  ByteBudget budget(3 * HeldBytes::kBlock);
  std::string data;
  for (size_t i = 0; i < 2 * HeldBytes::kBlock + 12345; ++i) data.push_back(static_cast<char>('a' + i % 26));
  {
    HeldBytes held(&budget);
    for (size_t at = 0; at < data.size(); at += 65536) REQUIRE(held.Append(std::string_view(data).substr(at, 65536)));
    CHECK(held.size() == data.size());
    CHECK(budget.used() == 3 * HeldBytes::kBlock);
    // A fourth block does not fit, in this holder or another.
    CHECK(!held.Append(std::string(HeldBytes::kBlock, 'x')));
    HeldBytes other(&budget);
    CHECK(!other.Append("y"));
    CHECK(other.size() == 0);
    held.Clear();
    CHECK(budget.used() == 0);
    for (size_t at = 0; at < data.size(); at += 65536) REQUIRE(held.Append(std::string_view(data).substr(at, 65536)));
    CHECK(held.Whole() == data);
    CHECK(held.Whole() == data);  // read again: the same mapping
    CHECK(budget.used() == 3 * HeldBytes::kBlock);
  }
  CHECK(budget.used() == 0);
  HeldBytes small(&budget);
  REQUIRE(small.Append("one block"));
  CHECK(small.Whole() == "one block");
  HeldBytes none(&budget);
  CHECK(none.Whole().empty());
}

}  // namespace core_byte_budget_test
