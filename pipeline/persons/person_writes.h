#pragma once
// Writing personal data into the vault, for the person routes and the verification process
// manager alike: a create or a revision of plaintext (already normalised, pii.h) becomes a
// command whose values are sealed under the person's data key for the very piiVersion the
// aggregate gives them. The sealing runs inside the command's decide step, on the state the
// writer loaded under the aggregate's lock, so two concurrent revisions cannot both seal for the
// same version: the second is sealed for the version after the first. The blind-index keys are
// computed before, with the tenant's index key (they do not depend on the version).

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "commands/command.h"
#include "commands/persons/person_events.h"
#include "core/json.h"
#include "commands/writer.h"
#include "core/ids.h"
#include "eventstore/key_store.h"

namespace svc::pipeline::persons {

struct PiiWrite {
  std::map<std::string, std::string> values;  // normalised plaintext, by field name
  std::vector<std::string> cleared;           // fields whose value is removed (revisions only)
  // The integrator's metadata: absent = unchanged; a null or empty object clears it.
  std::optional<core::Json> metadata;
  commands::persons::PiiSource source;
  std::string arco_request_id;  // a revision that fulfils an ARCO rectification request ("" none)
};

struct PersonRef {
  std::string tenant;
  std::string environment;
  std::string person;
};

// A new person (piiVersion 1) of `application_id` with `external_ref` ("" none).
core::Result<commands::Command> CreatePersonCommand(eventstore::KeyStore& keys, const PersonRef& who,
                                                    const std::string& application_id,
                                                    const std::string& external_ref,
                                                    const PiiWrite& write,
                                                    commands::CommandContext ctx);
// The same without waiting for the new person's key to be durable on the calling thread: `done`
// gets the command once it is (request paths: no I/O thread waits for an fsync). `fresh`:
// `who.person` is an id minted just now (the key store is not asked whether its key exists).
void CreatePersonCommandAsync(eventstore::KeyStore& keys, const PersonRef& who, const std::string& application_id,
                              const std::string& external_ref, const PiiWrite& write, commands::CommandContext ctx,
                              std::function<void(core::Result<commands::Command>)> done, bool fresh = true);
// A revision of an existing person. Decided where it is made, it seals for the version the
// writer finds. With `known_version` (the version the read model shows) it can also travel to the
// writer of the person's partition on another node: sealed then for the next version, and
// refused with 409 CONFLICT if the person moved on meanwhile.
core::Result<commands::Command> RevisePersonCommand(eventstore::KeyStore& keys, const PersonRef& who,
                                                    const PiiWrite& write,
                                                    commands::CommandContext ctx,
                                                    std::optional<int64_t> known_version = std::nullopt);

// A consolidation's absorption of one source into the survivor `who`: of the source's values
// (plaintext, opened by the consolidator), the survivor takes each field resolved to this source,
// and each field nobody resolved that the survivor does not hold yet (decided on the survivor's
// state, under its lock). Sealed for the survivor; recorded once per consolidation and source.
core::Result<commands::Command> AbsorbSourceCommand(eventstore::KeyStore& keys, const PersonRef& who,
                                                    const std::string& consolidation_id,
                                                    const std::string& source_id,
                                                    const std::map<std::string, std::string>& source_values,
                                                    const std::map<std::string, std::string>& resolutions,
                                                    commands::CommandContext ctx);

// The person write use case (POST /v1/persons and its upsert, PATCH, each row of a bulk import,
// the data of an approved verification), HTTP-free: the claims first, then the person's command,
// which checks in its own decision that it holds them (docs/write-side.md#claims).
//  - a new person with an externalRef takes the application's externalRef claim; when another
//    holds it (and still has the reference), that person is revised instead (the upsert); when
//    its holder is still being made, 409 CONFLICT;
//  - a CURP being set takes the CURP claim for the person written: another active holder is
//    409 CURP_CONFLICT naming it (or, as asked: its holder is the person written, or the CURP is
//    left out);
//  - a claim taken for a person whose command then failed is released.
// With an Idempotency-Key, each claim's command gets a key of its own derived from it, so a
// replayed request finds the same person as the original.
struct PersonWriteDeps {
  commands::Writer* writer = nullptr;
  eventstore::KeyStore* keys = nullptr;
  core::IdSource* ids = nullptr;
  // The person's PII version as the read model shows it (nullopt: unknown), so that a revision
  // made on a node that does not write the person's partition can travel (a cluster). Optional.
  std::function<std::optional<int64_t>(const PersonRef&)> pii_version;
  // Runs a task after a delay (core::DelayQueue): an externalRef upsert that finds the reference's
  // holder still being made by another request waits for it, for up to two seconds, and updates
  // it (issue 67). Optional: without it that upsert answers 409 CONFLICT at once.
  std::function<void(std::chrono::milliseconds, std::function<void()>)> after;
};
enum class CurpClash {
  kRefuse,        // 409 CURP_CONFLICT naming the holder (the API)
  kWriteHolder,   // a new person's data goes to the CURP's holder instead (verified data, no person)
  kLeaveOut,      // the CURP is not written, the rest is (verified data of a given person)
};
struct PersonWriteInput {
  PersonRef who;                // who.person "" = a new person, or the externalRef's holder
  std::string application_id;   // a new person's application
  std::string external_ref;     // a new person's reference ("" none)
  PiiWrite write;
  commands::CommandContext ctx;
  CurpClash curp_clash = CurpClash::kRefuse;
};
struct PersonWriteResult {
  std::string person_id;
  bool created = false;              // a new person (on a replay: the original made it)
  commands::CommandOutcome outcome;  // the person's command
};
void WritePerson(const PersonWriteDeps& deps, PersonWriteInput input,
                 std::function<void(core::Result<PersonWriteResult>)> done);

// A consent of the person `who` (its id, purpose, mechanism, policy and expiry set), with its
// `evidence` (an object, or null) sealed under the person's key: write-only, erased with the
// person, never listed. PERSON_PURGED when the person's key is gone.
core::Result<commands::Command> GrantConsentCommand(eventstore::KeyStore& keys, const PersonRef& who,
                                                   commands::persons::ConsentGranted consent,
                                                   const core::Json* evidence, commands::CommandContext ctx);

// The person's consents (ConsentItem, newest first) with their evidence opened (`evidence`,
// null when none was given): for the person's own access export. PERSON_PURGED when the key is gone.
core::Result<core::Json> ConsentsWithEvidence(const eventstore::KvStore& views, eventstore::KeyStore& keys,
                                              const PersonRef& who);

// The blind-index keys of a normalised value of `field` under the tenant's index key.
std::vector<std::string> BlindKeys(std::string_view index_key, std::string_view field,
                                   std::string_view normalised);

// The metadata's associated data and sealing (under the person's data key: it is erased with
// the person; it may hold anything the integrator sent).
std::string MetadataAad(const PersonRef& who);
std::string SealMetadata(std::string_view person_key, const PersonRef& who, const core::Json& metadata);
core::Result<core::Json> OpenMetadata(std::string_view person_key, const PersonRef& who,
                                      std::string_view sealed);

}  // namespace svc::pipeline::persons
