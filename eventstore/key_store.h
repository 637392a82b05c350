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
// Master-key rotation: Rewrap() moves every wrapped key from the current KEK to a new one while
// the store stays in use. It first records the old KEK sealed under the new one ("rotation/kek"),
// then serves reads under either KEK and rewraps row by row (each under the lock that creation
// and destruction take, so a key destroyed meanwhile stays destroyed), then drops the record. A
// store opened with the new KEK while a record exists (a rotation that stopped midway) resumes
// it: ResumeRotation().
//
// Thread-safety: all methods may be called from any thread.

#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <vector>
#include <mutex>
#include <shared_mutex>
#include <thread>
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
  // GetOrCreate without waiting: `done` runs once the key is durable (on the thread that wrote it,
  // or at once when it exists). For request paths, so that no I/O thread waits for an fsync.
  // `fresh`: the name holds an id the caller minted just now from the random id source, so no key
  // can exist under it and the store is not read.
  void GetOrCreateAsync(std::string_view name, std::function<void(core::Result<std::string>)> done,
                        bool fresh = false);
  // GetOrCreate, kept unwrapped in memory after the first use (for the few long-lived keys every
  // request needs, such as a tenant's blind-index key); Destroy forgets it.
  core::Result<std::string> GetOrCreateCached(std::string_view name);
  // The key, or nullopt when it never existed or was destroyed.
  core::Result<std::optional<std::string>> Get(std::string_view name) const;
  // Deletes the key for good (sync write).
  core::Status Destroy(std::string_view name);
  // Deletes every named key in one synced batch, then compacts the key store so the wrapped keys
  // leave the disk too (crypto-shredding: a forget's purge).
  core::Status DestroyForGood(const std::vector<std::string>& names);

  static std::string SessionKeyName(std::string_view tenant, std::string_view env,
                                    std::string_view session_id);

  // Moves every key to `new_kek`; `extra` is written (synced) in the same batch that starts the
  // rotation (the caller's new key check). Returns how many keys were rewrapped.
  core::Result<int64_t> Rewrap(std::string new_kek, const std::function<void(KvStore::Batch&)>& extra = {});
  // True when a rotation stopped midway and the current KEK is the new one: finishes it.
  core::Result<bool> ResumeRotation();
  // Reads under both KEKs when a rotation stopped midway, without writing (read-only opens).
  core::Status LoadUnfinishedRotation();
  // Stores `key` under `name` unless a key of that name exists; returns the key kept.
  core::Result<std::string> PutIfAbsent(std::string_view name, std::string_view key);
  // The number of keys held.
  core::Result<int64_t> Count() const;

 private:
  core::Result<int64_t> RewrapAll();
  KvStore* store_;
  int cf_;
  mutable std::shared_mutex kek_mu_;
  std::string kek_;
  std::string previous_kek_;  // during a rotation: the KEK rows not yet rewrapped are under
  std::mutex create_mu_;  // two first uses of one name must not create two keys; a rewrap and a
                          // destroy of one name do not interleave
  std::mutex rotate_mu_;  // one rotation at a time
  // Group commit of new keys (GetOrCreate).
  struct PendingKey {
    std::string name;
    std::string dek;
    bool done = false;
    core::Status status;
    std::vector<std::function<void(core::Result<std::string>)>> callbacks;
  };
  std::shared_ptr<PendingKey> Enqueue(std::string_view name, core::Status* error, bool fresh = false);
  void DrainOnce(std::unique_lock<std::mutex>& lock);
  std::mutex cache_mu_;
  std::map<std::string, std::string, std::less<>> cache_;
  std::mutex gc_mu_;
  std::condition_variable gc_cv_;
  std::map<std::string, std::shared_ptr<PendingKey>> pending_;
  std::vector<std::shared_ptr<PendingKey>> queue_;
  bool writing_ = false;
  bool stop_drainer_ = false;
  std::thread drainer_;  // started by the first GetOrCreateAsync
};

}  // namespace svc::eventstore
