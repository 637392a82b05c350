#pragma once
// KeyStore: data keys (DEKs) for personal data and media, kept apart from the event log (the
// "keystore" column family), each wrapped (XChaCha20-Poly1305) under a key-encryption key derived
// from the master key, with the key's name as associated data so a wrapped key cannot be moved to
// another name. Destroying a key makes everything sealed under it unreadable (crypto-shredding):
// events and blobs keep only ciphertext.
//
// Names: "session/<tenant>/<env>/<vrf_…>" (a verification session's captures and extracted data),
// "person/<tenant>/<env>/<per_…>" (a person's vault values: pipeline/persons/vault_keys.h).
//
// Thread-safety: all methods may be called from any thread.

#include <mutex>
#include <optional>
#include <string>

#include "core/status.h"
#include "eventstore/kv_store.h"

namespace svc::eventstore {

class KeyStore {
 public:
  KeyStore(KvStore* store, std::string kek);
  ~KeyStore();

  // The 32-byte key named `name`, created (and durably stored) on first use.
  core::Result<std::string> GetOrCreate(std::string_view name);
  // The key, or nullopt when it never existed or was destroyed.
  core::Result<std::optional<std::string>> Get(std::string_view name) const;
  // Deletes the key for good (sync write).
  core::Status Destroy(std::string_view name);

  static std::string SessionKeyName(std::string_view tenant, std::string_view env,
                                    std::string_view session_id);

 private:
  KvStore* store_;
  int cf_;
  std::string kek_;
  std::mutex create_mu_;  // two first uses of one name must not create two keys
};

}  // namespace svc::eventstore
