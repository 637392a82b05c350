#pragma once
// A bulk export of persons ("person_export", one aggregate per job, id exb_…): the request names
// which persons (a list, or every active person of the environment), which fields and why; the
// exporter (pipeline/persons/exporter.h) records one access event per person it will put in the
// dump — on this aggregate, in groups, before any value is opened — then writes the dump, sealed
// to the tenant's export key, and records it complete with the dump's size and hash. The dump
// expires (the file is deleted, persons.export_expired). No event holds a value: ids, field
// names, codes, sizes and hashes only.

#include <string>
#include <variant>
#include <vector>

#include "commands/command.h"
#include "commands/decider.h"
#include "commands/persons/access_events.h"
#include "core/json_fields.h"

namespace svc::commands::persons {

inline constexpr std::string_view kExportAggregate = "person_export";

struct ExportRequested {
  static constexpr std::string_view kType = "persons.export_requested";
  std::vector<std::string> person_ids;  // empty: every active person of the environment
  std::vector<std::string> fields;      // empty: every field the key may read
  std::string purpose;
  // The caller's words, sealed (pipeline/persons/vault_keys.h, SealExportReason); `reason` in
  // clear only in events written before it was sealed (null in new ones).
  std::string reason;
  std::string reason_sealed;
  std::string application_id;
  std::string actor_type;
  std::string actor_id;
  std::string recipient_key_id;      // the tenant's export key the dump is sealed to
  std::string recipient_public_key;  // base64url, 32 bytes (X25519)
  int64_t ttl_seconds = 0;           // how long the dump stays downloadable once ready
  static constexpr auto Fields() {
    using T = ExportRequested;
    return std::tuple{core::Field("personIds", &T::person_ids), core::Field("fields", &T::fields),
                      core::Field("purpose", &T::purpose, core::Empty::kNull),
                      core::Field("reason", &T::reason, core::Empty::kNull),
                      core::Field("applicationId", &T::application_id, core::Empty::kNull),
                      core::Field("actorType", &T::actor_type),
                      core::Field("actorId", &T::actor_id),
                      core::Field("recipientKeyId", &T::recipient_key_id),
                      core::Field("recipientPublicKey", &T::recipient_public_key),
                      core::Field("ttlSeconds", &T::ttl_seconds),
                      core::Field("reasonSealed", &T::reason_sealed, core::Empty::kOmit)};
  }
};

// A person of the request left out of the dump, and why (an error code of the reveal rules).
struct ExportSkip {
  std::string person_id;
  std::string code;
  static constexpr auto Fields() {
    return std::tuple{core::Field("personId", &ExportSkip::person_id),
                      core::Field("code", &ExportSkip::code)};
  }
};

struct ExportCompleted {
  static constexpr std::string_view kType = "persons.export_completed";
  int64_t person_count = 0;
  int64_t skipped_count = 0;
  std::vector<ExportSkip> skipped;  // the first kMaxListedSkips of them
  int64_t size_bytes = 0;
  std::string sha256;  // hex, of the dump file
  int64_t expires_at_micros = 0;
  static constexpr auto Fields() {
    using T = ExportCompleted;
    return std::tuple{core::Field("personCount", &T::person_count),
                      core::Field("skippedCount", &T::skipped_count),
                      core::Field("skipped", &T::skipped), core::Field("sizeBytes", &T::size_bytes),
                      core::Field("sha256", &T::sha256),
                      core::Field("expiresAtMicros", &T::expires_at_micros)};
  }
};
inline constexpr size_t kMaxListedSkips = 1000;

struct ExportFailed {
  static constexpr std::string_view kType = "persons.export_failed";
  std::string code;
  std::string message;  // never a value
  static constexpr auto Fields() {
    return std::tuple{core::Field("code", &ExportFailed::code),
                      core::Field("message", &ExportFailed::message)};
  }
};

struct ExportExpired {
  static constexpr std::string_view kType = "persons.export_expired";
  bool dump_deleted = true;
  static constexpr auto Fields() { return std::tuple{core::Field("dumpDeleted", &ExportExpired::dump_deleted)}; }
};

using ExportEvent = std::variant<ExportRequested, PiiAccessed, ExportCompleted, ExportFailed, ExportExpired>;
core::Result<ExportEvent> DecodeExport(const eventstore::EventEnvelope& envelope);

struct ExportState {
  std::string status;  // "" | queued | ready | failed | expired
  int64_t audited = 0;
  static constexpr auto Fields() {
    return std::tuple{core::Field("status", &ExportState::status),
                      core::Field("audited", &ExportState::audited)};
  }
};

struct RequestExport {
  ExportRequested request;  // its recipient key is filled by the reading Decide
  // The job's tenant: its export key (the tenant aggregate) is the dump's recipient.
  std::string tenant_id;
  static constexpr std::string_view kCommand = "RequestExport";
  static constexpr auto Fields() {
    using T = RequestExport;
    return std::tuple{core::Field("request", &T::request),
                      core::Field("tenantId", &T::tenant_id)};
  }
};
// One group of the job's access events (one per person), appended before any value is opened.
struct RecordExportAccesses {
  std::vector<PiiAccessed> accesses;
  static constexpr std::string_view kCommand = "RecordExportAccesses";
  static constexpr auto Fields() {
    using T = RecordExportAccesses;
    return std::tuple{core::Field("accesses", &T::accesses)};
  }
};
struct CompleteExport {
  ExportCompleted done;
  static constexpr std::string_view kCommand = "CompleteExport";
  static constexpr auto Fields() {
    using T = CompleteExport;
    return std::tuple{core::Field("done", &T::done)};
  }
};
struct FailExport {
  ExportFailed failed;
  static constexpr std::string_view kCommand = "FailExport";
  static constexpr auto Fields() {
    using T = FailExport;
    return std::tuple{core::Field("failed", &T::failed)};
  }
};
struct ExpireExport {
  static constexpr std::string_view kCommand = "ExpireExport";
  static constexpr auto Fields() { return std::tuple{}; }
};
using ExportCommand = std::variant<RequestExport, RecordExportAccesses, CompleteExport, FailExport, ExpireExport>;

struct ExportDecider : FieldSnapshots<ExportDecider, ExportState> {
  using CommandType = ExportCommand;
  static constexpr std::string_view kName = kExportAggregate;
  static core::Result<Decision> Decide(const ExportState& s, const ExportCommand& c, const CommandContext& ctx);
  // The same, reading the tenant (MakeReadingCommand): a request takes the tenant's export key in
  // force as the dump's recipient, EXPORT_KEY_NOT_CONFIGURED when none is set.
  static core::Result<Decision> Decide(const ExportState& s, const ExportCommand& c, const StateReader& read,
                                       const CommandContext& ctx);
  static core::Status Evolve(ExportState& s, const eventstore::EventEnvelope& e);
};

}  // namespace svc::commands::persons
