#include <doctest/doctest.h>

#include "eventstore/envelope.h"

namespace eventstore_envelope_test {

using namespace svc;
using namespace svc::eventstore;

namespace {
EventEnvelope Sample() {
  EventEnvelope e;
  e.id = "evt_0123456789abcdef0123456789abcdef";
  e.type = "tenancy.api_key_created";
  e.schema_version = 2;
  e.tenant_id = "ten_0123456789abcdef0123456789abcdef";
  e.environment = "test";
  e.aggregate_type = "tenant";
  e.aggregate_id = e.tenant_id;
  e.aggregate_version = 42;
  e.occurred_at = core::Timestamp{1767225600123456};
  e.actor = {"api_key", "key_0123456789abcdef0123456789abcdef"};
  e.request_id = "req_1";
  e.correlation_id = "req_1";
  e.causation_id = "evt_x";
  e.idempotency_key = "idem-\"quoted\"-ü";
  e.request_fingerprint = "ab12";
  e.data = R"({"keyId":"key_1","scopes":["a","b"],"nested":{"n":1.5,"t":true,"z":null}})";
  return e;
}
}  // namespace

TEST_CASE("envelope codec round trip") {
  EventEnvelope e = Sample();
  std::string json = EncodeEnvelope(e);
  auto back = DecodeEnvelope(json);
  REQUIRE(back.ok());
  CHECK(*back == e);
  CHECK(EncodeEnvelope(*back) == json);  // stable bytes
  CHECK(json.find("\"occurredAt\":\"2026-01-01T00:00:00.123456Z\"") != std::string::npos);
}

TEST_CASE("envelope without idempotency metadata omits it") {
  EventEnvelope e = Sample();
  e.idempotency_key.clear();
  e.request_fingerprint.clear();
  std::string json = EncodeEnvelope(e);
  CHECK(json.find("idempotencyKey") == std::string::npos);
  CHECK(*DecodeEnvelope(json) == e);
}

TEST_CASE("decoder ignores unknown members and refuses broken input") {
  std::string json = EncodeEnvelope(Sample());
  json.insert(1, R"("futureMember":{"x":[1,2]},)");
  CHECK(DecodeEnvelope(json).ok());
  for (const char* bad : {"", "[]", "{", "{\"id\":1}", "not json",
                          R"({"id":"evt_1","type":"t","tenantId":"ten_1"})"}) {
    auto r = DecodeEnvelope(bad);
    CHECK_MESSAGE(!r.ok(), bad);
    if (!r.ok()) CHECK(r.status().code() == core::StatusCode::kDataLoss);
  }
}

TEST_CASE("tenant partitioning is stable") {
  CHECK(PartitionForTenant("ten_0123456789abcdef0123456789abcdef", 4) ==
        PartitionForTenant("ten_0123456789abcdef0123456789abcdef", 4));
  CHECK(PartitionForTenant("anything", 1) == 0);
  // Pinned: the function places data and must never change.
  CHECK(PartitionForTenant("ten_0123456789abcdef0123456789abcdef", 1024) == 527);
  CHECK(PartitionForTenant("ten_0123456789abcdef0123456789abcdef", 4) == 3);
}

}  // namespace eventstore_envelope_test
