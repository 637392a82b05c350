#include "projections/audit/audit_projector.h"
#include "projections/audit/audit_reads.h"

#include <doctest/doctest.h>

#include "core/canonical_json.h"
#include "core/crypto.h"
#include "core/ids.h"
#include "core/merkle.h"

#include <functional>
#include "tests/support/projector_spec.h"

namespace projections_audit_audit_projector_test {

using svc::core::Json;
using svc::projections::AuditProjector;
using svc::projections::AuditView;
using svc::testing::ProjectorSpec;

namespace {

const char* kPerson = "per_00000000000000000000000000000001";
const char* kKey = "key_00000000000000000000000000000001";

Json Access(const std::string& person, const std::string& channel) {
  return {{"personId", person},
          {"applicationId", "app_00000000000000000000000000000001"},
          {"actorType", "api_key"},
          {"actorId", kKey},
          {"channel", channel},
          {"fields", {"curp", "email"}},
          {"purpose", "identity_verification"},
          {"reason", "onboarding check"},
          {"redaction", "plain"}};
}

svc::eventstore::EventEnvelope AccessEvent(ProjectorSpec<AuditProjector>& spec, const Json& data) {
  auto e = spec.Event("reveal_budget", "test-20260101", "persons.pii_accessed", data);
  e.request_id = "req_" + std::to_string(e.aggregate_version);
  return e;
}

// What an auditor recomputes: SHA-256(previous hash || JCS(entry without prevHash and hash)).
std::string Recompute(const Json& row) {
  Json entry = row;
  entry.erase("prevHash");
  entry.erase("hash");
  auto prev = svc::core::HexDecode(row["prevHash"].get<std::string>());
  REQUIRE(prev.ok());
  auto canonical = svc::core::CanonicalJson(entry);
  REQUIRE(canonical.ok());
  return svc::core::Sha256Hex(*prev + *canonical);
}

}  // namespace

TEST_CASE("audit: each access event is the next entry of its tenant's chain") {
  ProjectorSpec<AuditProjector> spec;
  const std::string te = spec.tenant + "/test";
  REQUIRE(spec.Feed(AccessEvent(spec, Access(kPerson, "decrypt"))).ok());
  REQUIRE(spec.Feed(AccessEvent(spec, Access("per_00000000000000000000000000000002", "export"))).ok());
  // Other events are not audit entries.
  REQUIRE(spec.Feed(spec.Event("person", kPerson, "persons.person_created", Json::object())).ok());

  Json first = spec.Row(AuditView::Entry(te, 1));
  CHECK(first["id"] == 1);
  CHECK(first["object"] == "audit_log_entry");
  CHECK(first["personId"] == kPerson);
  CHECK(first["actorType"] == "api_key");
  CHECK(first["actorId"] == kKey);
  CHECK(first["channel"] == "decrypt");
  CHECK(first["fields"] == Json::array({"curp", "email"}));
  CHECK(first["purpose"] == "identity_verification");
  CHECK(first["reason"] == "onboarding check");
  CHECK(first["requestId"] == "req_1");
  CHECK(first["createdAt"] == "2026-01-01T00:00:01.000Z");
  CHECK(first["personCount"].is_null());
  CHECK(first["prevHash"] == std::string(64, '0'));
  CHECK(first["hash"] == Recompute(first));
  // Pinned: Python's json.dumps(sort_keys, compact) is RFC 8785 for this ASCII entry, and
  // hashlib.sha256(b"\0" * 32 + that) gives this hash.
  CHECK(first["eventId"] == "evt_00000000000000000000000000000001");
  CHECK(first["hash"] == "fc506ecb36b36701563d798c0d0dcd1682577827fa6516a03372536733a6affe");

  Json second = spec.Row(AuditView::Entry(te, 2));
  CHECK(second["id"] == 2);
  CHECK(second["channel"] == "export");
  CHECK(second["prevHash"] == first["hash"]);
  CHECK(second["hash"] == Recompute(second));
  CHECK(spec.RawRow(AuditView::Head(te)) == "2|" + second["hash"].get<std::string>());
  CHECK(spec.Keys(AuditView::Entries(te)).size() == 2);
  CHECK(spec.Keys(AuditView::ByPerson(te, kPerson)) ==
        std::vector<std::string>{AuditView::ByPerson(te, kPerson) + AuditView::IdKey(1)});
  CHECK(spec.Keys(AuditView::ByActor(te, kKey)).size() == 2);
  spec.CheckRebuildIdentical();
}

TEST_CASE("audit: ids count per tenant and environment") {
  ProjectorSpec<AuditProjector> spec;
  REQUIRE(spec.Feed(AccessEvent(spec, Access(kPerson, "decrypt"))).ok());
  spec.environment = "live";
  REQUIRE(spec.Feed(AccessEvent(spec, Access(kPerson, "decrypt"))).ok());
  spec.tenant = "ten_00000000000000000000000000000002";
  REQUIRE(spec.Feed(AccessEvent(spec, Access(kPerson, "decrypt"))).ok());
  CHECK(spec.Row(AuditView::Entry("ten_00000000000000000000000000000001/test", 1))["id"] == 1);
  CHECK(spec.Row(AuditView::Entry("ten_00000000000000000000000000000001/live", 1))["id"] == 1);
  CHECK(spec.Row(AuditView::Entry("ten_00000000000000000000000000000002/live", 1))["id"] == 1);
  CHECK(spec.Row(AuditView::Entry("ten_00000000000000000000000000000001/test", 2)).is_null());
  spec.CheckRebuildIdentical();
}

TEST_CASE("audit: a head row that does not parse stops the projector") {
  CHECK_FALSE(AuditView::ParseHead("").has_value());
  CHECK_FALSE(AuditView::ParseHead("1|abc").has_value());
  CHECK_FALSE(AuditView::ParseHead("x|" + std::string(64, '0')).has_value());
  CHECK_FALSE(AuditView::ParseHead("1|" + std::string(63, '0') + "G").has_value());
  auto h = AuditView::ParseHead("42|" + std::string(62, '0') + "ff");
  REQUIRE(h.has_value());
  CHECK(h->id == 42);
  CHECK(h->hash == std::string(31, '\0') + "\xff");
}

TEST_CASE("audit: the entries are the leaves of a Merkle tree whose complete subtrees are kept") {
  ProjectorSpec<AuditProjector> spec;
  const std::string te = spec.tenant + "/test";
  const int n = 13;
  for (int i = 0; i < n; ++i) REQUIRE(spec.Feed(AccessEvent(spec, Access(kPerson, "decrypt"))).ok());
  namespace mk = svc::core::merkle;
  mk::NodeSource stored = [&](int level, uint64_t index) -> svc::core::Result<std::string> {
    auto row = spec.RawRow(AuditView::TreeNode(te, level, index));
    if (!row.has_value()) return svc::core::NotFound("no node");
    return *row;
  };
  // The leaves, from the entries as listed: RFC 9162 leaf hash of each entry's chain hash.
  std::vector<std::string> leaves;
  for (int id = 1; id <= n; ++id) {
    Json entry = spec.Row(AuditView::Entry(te, id));
    auto hash = svc::core::HexDecode(entry["hash"].get<std::string>());
    REQUIRE(hash.ok());
    leaves.push_back(mk::LeafHash(*hash));
  }
  mk::NodeSource from_leaves = [&](int level, uint64_t index) -> svc::core::Result<std::string> {
    std::function<std::string(int, uint64_t)> perfect = [&](int l, uint64_t i) {
      return l == 0 ? leaves.at(i) : mk::NodeHash(perfect(l - 1, 2 * i), perfect(l - 1, 2 * i + 1));
    };
    return perfect(level, index);
  };
  for (uint64_t size = 1; size <= n; ++size) {
    auto a = mk::Root(size, stored);
    auto b = mk::Root(size, from_leaves);
    REQUIRE((a.ok() && b.ok()));
    CHECK(*a == *b);
  }
  auto root = mk::Root(n, stored);
  auto proof = mk::InclusionProof(6, n, stored);
  REQUIRE((root.ok() && proof.ok()));
  CHECK(mk::VerifyInclusion(leaves[6], 6, n, *proof, *root));
  // Only complete subtrees are kept: 13 leaves, 6 pairs, 3 quads, 1 eight.
  CHECK(spec.Keys(svc::projections::ScopedKey("t/", te, "")).size() == 13 + 6 + 3 + 1);
  spec.CheckRebuildIdentical();
}

// Issue 31: GET /v1/audit-logs/verify recomputed the whole chain on every call (4.4 s at 1M
// entries). The incremental verifier walks only what was added since its last call, and walks
// everything again when the entry at its mark changed.
TEST_CASE("audit: the chain is verified from where the last verification stopped") {
  ProjectorSpec<AuditProjector> spec;
  const std::string te = spec.tenant + "/test";
  for (int i = 0; i < 5; ++i) REQUIRE(spec.Feed(AccessEvent(spec, Access(kPerson, "decrypt"))).ok());
  svc::projections::IncrementalChainVerifier verifier;
  auto first = verifier.Verify(spec.store(), te);
  REQUIRE(first.ok());
  CHECK(first->count == 5);
  CHECK_FALSE(first->broken_at.has_value());
  CHECK(first->walked == 5);
  auto none_new = verifier.Verify(spec.store(), te);
  REQUIRE(none_new.ok());
  CHECK(none_new->count == 5);
  CHECK(none_new->walked == 0);
  for (int i = 0; i < 3; ++i) REQUIRE(spec.Feed(AccessEvent(spec, Access(kPerson, "export"))).ok());
  auto more = verifier.Verify(spec.store(), te);
  REQUIRE(more.ok());
  CHECK(more->count == 8);
  CHECK(more->walked == 3);
  CHECK_FALSE(more->broken_at.has_value());
  // The same answer as the full walk.
  auto full = svc::projections::VerifyStoredChain(spec.store(), te);
  REQUIRE(full.ok());
  CHECK(full->count == 8);
  CHECK(full->walked == 8);

  // An entry at or before the mark altered: the mark's own entry is read again, so altering it
  // sends the verifier back to entry 1, where it finds the first that does not follow.
  auto put = [&](int64_t id, Json row) {
    svc::eventstore::KvStore::Batch b;
    b.Put(spec.store().Cf(svc::projections::kViewsCf), AuditView::Abs(AuditView::Entry(te, id)), row.dump());
    REQUIRE(spec.store().Write(b, false).ok());
  };
  Json third = spec.Row(AuditView::Entry(te, 3));
  third["reason"] = "rewritten";
  put(3, third);
  Json eighth = spec.Row(AuditView::Entry(te, 8));
  eighth["purpose"] = "marketing";
  put(8, eighth);
  auto tampered = verifier.Verify(spec.store(), te);
  REQUIRE(tampered.ok());
  CHECK(tampered->walked == 8);
  CHECK(tampered->broken_at == 3);
  CHECK(tampered->count == 8);
}

}  // namespace projections_audit_audit_projector_test
