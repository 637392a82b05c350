#pragma once
// Personal data of the KYB area (docs/kyb.md#personal-data): a company's names and RFC, its
// members' and owners' names, a screened name, a reviewer's note on a hit. They travel in events
// and rest in the read model sealed (XChaCha20-Poly1305, base64) under the KYB key, derived from
// the runtime's seal key; the associated data binds each value to its tenant, environment, record
// and field, so a sealed value copied elsewhere does not open. RFCs are found by their blind
// index (HMAC-SHA-256 under a second derived key), never by their value.

#include <optional>
#include <string>
#include <string_view>

#include "core/json.h"
#include "core/status.h"
#include "eventstore/key_store.h"

namespace svc::pipeline::kyb {

struct KybKeys {
  std::string seal;   // 32 bytes
  std::string index;  // 32 bytes
  // Where members' and nodes' own data keys are (OpenSubjectName); null: only the KYB key.
  const eventstore::KeyStore* subject_keys = nullptr;
  static KybKeys From(std::string_view runtime_seal_key, const eventstore::KeyStore* subject_keys = nullptr);
};

// "<tenant>|<environment>|<record id>|<field>"
std::string KybAad(std::string_view tenant, std::string_view environment, std::string_view record,
                   std::string_view field);
std::string SealValue(const KybKeys& keys, std::string_view aad, std::string_view plaintext);
core::Result<std::string> OpenValue(const KybKeys& keys, std::string_view aad, std::string_view sealed_base64);

// A member's or ownership node's own data key (docs/kyb.md#erasure): its name is sealed under it,
// so an ARCO cancellation erases the name by destroying the key (key store name
// "kyb/<tenant>/<environment>/<company>/<record>").
std::string SubjectKeyName(std::string_view tenant, std::string_view environment, std::string_view company,
                           std::string_view record);
// The subject's name sealed under its key (made on first use); `sealed_with` is then "record".
core::Result<std::string> SealSubjectName(eventstore::KeyStore& keys, std::string_view tenant,
                                          std::string_view environment, std::string_view company,
                                          std::string_view record, std::string_view name);
// The name of a member or node row ({nameSealed, sealedWith}); nullopt when it was erased (its
// key destroyed, or the row forgotten). Rows without sealedWith are under the KYB key.
core::Result<std::optional<std::string>> OpenSubjectName(const KybKeys& kyb, std::string_view tenant,
                                                         std::string_view environment, std::string_view company,
                                                         std::string_view record, const core::Json& row);

// A hit's list entry names (HitFound's entryName and matchedName), sealed for the log: under the
// data key of the person screened ("person"), of the member or owner ("record": an ARCO
// cancellation of it erases them), else under the KYB key ("kyb": a company's, a screened name's,
// or a member's whose name predates its own key). Associated data KybAad(tenant, environment, hit
// id, "entryName" | "matchedName"). PERSON_FORGET_PENDING when a person's key is gone.
struct SealedHitNames {
  std::string entry_name;
  std::string matched_name;
  std::string sealed_with;  // person | record | kyb
};
core::Result<SealedHitNames> SealHitNames(const KybKeys& keys, std::string_view tenant, std::string_view environment,
                                          std::string_view subject_type, std::string_view subject_id,
                                          std::string_view company_id, std::string_view hit_id,
                                          std::string_view entry_name, std::string_view matched_name);
// A hit row as served: its sealed names ({entryNameSealed, matchedNameSealed, namesSealedWith})
// opened into entry.name and matchedName, null once the key that sealed them is destroyed (the
// person forgotten, the member's data cancelled). A row of an older event, names in clear, is
// returned as it is.
core::Json OpenHitNames(const KybKeys& keys, core::Json row);

// The blind index of a normalised RFC in a tenant and environment (hex).
std::string RfcBlind(const KybKeys& keys, std::string_view tenant, std::string_view environment,
                     std::string_view rfc);
// The blind key of a screened name's query (its canonical text), for the hit ids of a name.
std::string QueryBlind(const KybKeys& keys, std::string_view tenant, std::string_view environment,
                       std::string_view canonical_query);

}  // namespace svc::pipeline::kyb
