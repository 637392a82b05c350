#pragma once
// The event envelope: the one record type of the log. Every fact the service keeps is one of
// these. It carries no plaintext personal data: PII inside `data` is ciphertext under a
// per-person key, and downstream consumers see only field presence.

#include <any>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "core/status.h"

namespace svc::eventstore {

struct Actor {
  std::string type;  // "api_key", "service", "system", "admin_cli", "user"
  std::string id;    // key_…, usr_…, or a component name for "system"
  friend bool operator==(const Actor&, const Actor&) = default;
};

struct EventEnvelope {
  std::string id;    // evt_<32 hex>
  std::string type;  // stable, never renamed: "tenancy.tenant_created"
  int schema_version = 1;
  std::string tenant_id;    // ten_…; also the partition key
  std::string environment;  // "live", "test", or "" for tenant-level facts
  std::string aggregate_type;
  std::string aggregate_id;
  int64_t aggregate_version = 0;  // 1 for the first event of an aggregate
  core::Timestamp occurred_at;
  Actor actor;
  std::string request_id;
  std::string correlation_id;
  std::string causation_id;
  // Idempotency metadata of the command that produced this event (empty when none): the
  // write side derives its idempotency records from these.
  std::string idempotency_key;
  std::string request_fingerprint;
  // In a cluster, for a command that reached its writer through the commands topic: the command's
  // offset there (decimal; its partition is this event's). The writer resumes the topic after the
  // highest one its partition's events hold, so a command is decided once (docs/decisions.md).
  std::string command_ref;
  std::string data = "{}";  // a JSON object, as serialised text

  friend bool operator==(const EventEnvelope&, const EventEnvelope&) = default;
};

// Where an event sits in the log. `offset` is contiguous per partition from 0 on every backend
// (on Kafka it is the writer-assigned sequence, carried in a record header), so "has every
// consumer applied position P" is a comparison of two integers.
struct LogPosition {
  uint32_t partition = 0;
  uint64_t offset = 0;
  friend auto operator<=>(const LogPosition&, const LogPosition&) = default;
};

struct RecordedEvent {
  LogPosition position;
  // Backend-specific resume point after this event (Kafka: next record offset; embedded: -1).
  int64_t backend_cursor = -1;
  uint64_t backend_epoch = 0;  // see PartitionCheckpoint
  EventEnvelope event;
  // A typed form of `event.data` that a consumer decoded, kept for the next consumer of the same
  // batch (one projection runner feeds several projectors): decode once, not once each.
  mutable std::any decoded;
};

// JSON codec (camelCase, as in the architecture doc). Decoding uses simdjson and ignores
// unknown members, so older readers survive newer writers.
std::string EncodeEnvelope(const EventEnvelope& e);
core::Result<EventEnvelope> DecodeEnvelope(std::string_view json);
// Decodes into `out` (which is reset first); lets callers decode in place.
core::Status DecodeEnvelopeInto(std::string_view json, EventEnvelope& out);

// The partition of a tenant: a stable hash of the tenant id, identical on every backend.
uint32_t PartitionForTenant(std::string_view tenant_id, uint32_t partition_count);

}  // namespace svc::eventstore
