#include <doctest/doctest.h>

#include "core/ids.h"

namespace core_ids_test {

using namespace svc::core;

TEST_CASE("ids: prefix, 32 lowercase hex, nothing else") {
  CHECK(ParseId<IdKind::kPerson>("per_0123456789abcdef0123456789abcdef").ok());
  CHECK(ParseId<IdKind::kTenant>("ten_0123456789abcdef0123456789abcdef").ok());

  SUBCASE("a raw UUID is rejected with INVALID_ID") {
    auto r = ParseId<IdKind::kPerson>("123e4567-e89b-12d3-a456-426614174000");
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().api_code() == "INVALID_ID");
    CHECK(r.status().message().find("UUID") != std::string::npos);
  }
  SUBCASE("wrong prefix, case, length and alphabet are rejected") {
    for (const char* bad : {"vrf_0123456789abcdef0123456789abcdef",  // another kind
                            "per_0123456789ABCDEF0123456789ABCDEF",  // upper case
                            "per_0123456789abcdef0123456789abcde",   // 31
                            "per_0123456789abcdef0123456789abcdef0", // 33
                            "per-0123456789abcdef0123456789abcdef",  // separator
                            "per_0123456789abcdef0123456789abcdeg",  // not hex
                            "", "per_"}) {
      auto r = ParseId<IdKind::kPerson>(bad);
      CHECK_MESSAGE(!r.ok(), bad);
      CHECK(r.status().api_code() == "INVALID_ID");
    }
  }
}

TEST_CASE("id sources: random ids parse; sequential ids are deterministic") {
  RandomIdSource random;
  auto a = random.New<IdKind::kEvent>();
  auto b = random.New<IdKind::kEvent>();
  CHECK(ValidateId(IdKind::kEvent, a.str()).ok());
  CHECK(a != b);
  SequentialIdSource s1(7), s2(7);
  CHECK(s1.NewIdString(IdKind::kTenant) == s2.NewIdString(IdKind::kTenant));
  CHECK(s1.NewIdString(IdKind::kTenant) == "ten_00000000000000070000000000000002");
}

}  // namespace core_ids_test
