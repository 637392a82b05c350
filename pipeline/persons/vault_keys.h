#pragma once
// The vault's key material and sealing, one place for the routes and the process managers.
//
// - Each person has a data key in the key store, named "person/<tenant>/<env>/<per_…>"; destroying
//   it crypto-shreds every value sealed under it (events, read models and blobs keep ciphertext).
// - Each value is sealed with XChaCha20-Poly1305 under that key, with associated data
//   "pii|<tenant>|<env>|<person>|<field>|<piiVersion>": a sealed value cannot be replayed as
//   another person's, another field's, or another revision's.
// - The blind index of a tenant and environment is keyed by its own random key, kept wrapped in
//   the key store ("persons-index/<tenant>/<env>") like a data key: a master-key rotation only
//   re-wraps it, so the index stays valid (a key derived from the master key would change with it
//   and orphan every index entry).

#include <optional>
#include <string>
#include <string_view>

#include "core/json.h"
#include "core/status.h"
#include "eventstore/key_store.h"

namespace svc::pipeline::persons {

std::string PersonKeyName(std::string_view tenant, std::string_view env, std::string_view person);

std::string PiiAad(std::string_view tenant, std::string_view env, std::string_view person,
                   std::string_view field, int pii_version);

// Seals one normalised value (base64 of the sealed bytes).
std::string SealPii(std::string_view person_key, std::string_view tenant, std::string_view env,
                    std::string_view person, std::string_view field, int pii_version,
                    std::string_view value);
// Opens a value sealed by SealPii with the same names and version; DataLoss when it does not
// open (tampered, moved, or another version's).
core::Result<std::string> OpenPii(std::string_view person_key, std::string_view tenant,
                                  std::string_view env, std::string_view person,
                                  std::string_view field, int pii_version, std::string_view sealed);

// Free text written about a person (a legal hold's reason and legal basis, an opposition's or a
// forget's reason): personal data like their fields, sealed under their data key (associated
// data "text|<tenant>|<env>|<person>|<what>"), so it leaves with the key. "" seals to "".
// PERSON_FORGET_PENDING when the key is gone.
core::Result<std::string> SealPersonText(eventstore::KeyStore& keys, std::string_view tenant, std::string_view env,
                                         std::string_view person, std::string_view what, std::string_view text);
// One value sealed by SealPersonText (base64), opened; nullopt when the person's key is gone
// (forgotten) or it does not open.
core::Result<std::optional<std::string>> OpenPersonText(eventstore::KeyStore& keys, std::string_view tenant,
                                                        std::string_view env, std::string_view person,
                                                        std::string_view what, std::string_view sealed);
// A stored row (JSON object) served: each member "<what>Sealed" replaced by "<what>", its text, or
// null when the person's key is gone (forgotten) or it does not open. A row without one is
// returned as it is.
core::Result<std::string> OpenPersonTextRow(eventstore::KeyStore& keys, std::string_view tenant, std::string_view env,
                                            std::string_view person, std::string stored);

// A reveal's reason (an access event's, the caller's words), made to leave with the person's key
// and still be checked against the access log's chain: a random 32-byte commitment key k; the
// commitment HMAC-SHA-256(k, reason) in hex; k || reason sealed under the person's data key like
// SealPersonText (what "accessReason"). The entry records `reasonSealed` and `reasonCommitment`.
// nullopt when the person has no key (no person, or one whose data is erased, as a history replay
// may name): the reason is then recorded as given.
struct SealedAccessReason {
  std::string sealed;      // base64
  std::string commitment;  // 64 hex
};
core::Result<std::optional<SealedAccessReason>> SealAccessReason(eventstore::KeyStore& keys, std::string_view tenant,
                                                                 std::string_view env, std::string_view person,
                                                                 std::string_view reason);
// An access-log entry as served: `reason` and `reasonKey` (k, hex) opened from `reasonSealed`
// (both null once the person is forgotten, or when it does not open); `reasonSealed` and
// `reasonCommitment` kept, since the chain hashes them. An entry without `reasonSealed` is
// returned as it is.
core::Json OpenAccessReason(eventstore::KeyStore& keys, std::string_view tenant, std::string_view env,
                            core::Json entry);

// A bulk export's reason (the caller's words about many persons at once, no one person's key to
// seal them under): sealed under a subkey of the runtime's event-seal key ("svc/export-reason/v1"),
// associated data "export-reason|<tenant>|<env>|<job>", so the log and the job's row keep only
// ciphertext and a sealed reason copied to another job does not open. The job's accesses seal it
// again, per person, like any reveal's reason (SealAccessReason).
std::string SealExportReason(std::string_view event_seal_key, std::string_view tenant, std::string_view env,
                             std::string_view job, std::string_view reason);
// DataLoss when it does not open (tampered, or another job's).
core::Result<std::string> OpenExportReason(std::string_view event_seal_key, std::string_view tenant, std::string_view env,
                                           std::string_view job, std::string_view sealed);

// The blind-index key of a tenant and environment (created on first use).
std::string IndexKeyName(std::string_view tenant, std::string_view env);
core::Result<std::string> IndexKey(eventstore::KeyStore& keys, std::string_view tenant,
                                   std::string_view env);

}  // namespace svc::pipeline::persons
