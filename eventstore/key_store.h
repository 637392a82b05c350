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
// A cluster (eventstore/key_topic.h): the local rows become a copy of a compacted Kafka topic that
// every node applies in order (SetReplica). Creates, destroys and rotations are published there and
// return once this node has applied them back; for a name the first key published wins (two nodes
// creating one name at once agree on the first), compared by the key itself, so a rewrap under a
// new master key replaces the wrapped form and keeps the key. A miss reads the topic to its end
// before answering "no key".
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

// A record of a cluster's keys topic: a key's name and its wrapped form, or a tombstone.
struct KeyRecord {
  std::string name;
  std::optional<std::string> wrapped;
};

// Where the key stores of a cluster meet (eventstore/key_topic.h).
class KeyReplica {
 public:
  virtual ~KeyReplica() = default;
  // Appends `records` in order; returns once this node's store has applied them.
  virtual core::Status Publish(const std::vector<KeyRecord>& records) = 0;
  // Returns once this node's store has applied everything the topic held when called.
  virtual core::Status CatchUp() = 0;
  // Stops applying (before the store goes away). Idempotent.
  virtual void Stop() = 0;
};

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

  // ---- A cluster's key store (eventstore/key_topic.h) ----
  // From now on keys are created, destroyed and rewrapped through `replica`, which the store owns
  // and stops first when it is destroyed.
  void SetReplica(std::unique_ptr<KeyReplica> replica);
  bool replicated() const { return replica_ != nullptr; }
  // The replica's apply: `records` in topic order, with the offset after them, in one batch. A put
  // whose key differs from the one the name already holds lost (first wins): its name and the
  // kept row go to `reassert`, to be published again so that compaction keeps the winner.
  core::Status ApplyReplicated(const std::vector<KeyRecord>& records, int64_t next_offset,
                               std::vector<KeyRecord>* reassert);
  // Brings the local rows in line with the topic's whole content (`records`, read from its start,
  // `next_offset` after them). A name both hold with different keys is refused (the directory
  // belongs to another cluster or master key); a name only the directory holds goes to `publish`
  // when `adopt_local` (a first attach), else it is deleted (the topic dropped it: a rebuild).
  core::Status Reconcile(const std::vector<KeyRecord>& records, int64_t next_offset, bool adopt_local,
                         std::vector<KeyRecord>* publish, int64_t now_micros);
  struct ReplicaState {
    int64_t next_offset = 0;  // the topic offset after the last record applied
    int64_t seen_micros = 0;  // when the node last knew itself caught up with the topic
  };
  core::Result<std::optional<ReplicaState>> LoadReplicaState() const;
  core::Status MarkReplicaSeen(int64_t now_micros);
  // True when a master-key rotation made on another node of the cluster is recorded here and opens
  // under this store's KEK: the data directory's key check may move to the new master key.
  bool RotatedTo() const;
  // The record name of a rotation on the keys topic.
  static constexpr std::string_view kRotationRecord = "!rotation";

 private:
  core::Result<int64_t> RewrapAll();
  core::Result<std::optional<std::string>> GetLocal(std::string_view name) const;
  std::optional<std::string> OpenAny(std::string_view name, std::string_view wrapped) const;  // kek_mu_ held
  enum class Outcome { kPut, kKeep, kLost };
  Outcome Decide(std::string_view name, const std::optional<std::string>& row, const std::string& wrapped) const;
  void ApplyRotation(const KeyRecord& record, KvStore::Batch& b);  // create_mu_ held
  core::Status PublishChunks(const std::vector<KeyRecord>& records);
  KvStore* store_;
  std::unique_ptr<KeyReplica> replica_;
  int cf_;
  mutable std::shared_mutex kek_mu_;
  std::string kek_;
  std::string previous_kek_;  // during a rotation: the KEK rows not yet rewrapped are under
  std::string master_kek_;    // the KEK of the master key this process was given (or rotated to)
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
