#include "eventstore/key_store.h"

#include "core/executor.h"

#include <thread>
#include <vector>

#include "core/crypto.h"
#include "core/log.h"

namespace svc::eventstore {

namespace {
std::string Aad(std::string_view name) { return "svc/dek/v1|" + std::string(name); }
std::string Row(std::string_view name) { return "dek/" + std::string(name); }
constexpr std::string_view kRows = "dek/";
constexpr std::string_view kRotation = "rotation/kek";
constexpr std::string_view kRotationAad = "svc/kek-rotation/v1";
// A cluster's rotation also records the new KEK sealed under the old one, so that a node still
// started with the old master key reads (and writes) under the new KEK until it is restarted.
constexpr std::string_view kRotationNext = "rotation/next";
constexpr std::string_view kRotationNextAad = "svc/kek-rotation-next/v1";
constexpr std::string_view kReplicaOffset = "replica/offset";
constexpr std::string_view kReplicaSeen = "replica/seen";
constexpr size_t kPublishChunk = 256;

// The topic's rotation record: the new KEK sealed under the old, then the old under the new.
std::string EncodeRotation(const std::string& next_under_old, const std::string& old_under_next) {
  std::string out;
  const uint32_t n = static_cast<uint32_t>(next_under_old.size());
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((n >> (8 * i)) & 0xff));
  return out + next_under_old + old_under_next;
}
bool DecodeRotation(std::string_view in, std::string* next_under_old, std::string* old_under_next) {
  if (in.size() < 4) return false;
  uint32_t n = 0;
  for (int i = 0; i < 4; ++i) n |= static_cast<uint32_t>(static_cast<unsigned char>(in[i])) << (8 * i);
  if (in.size() - 4 < n) return false;
  *next_under_old = std::string(in.substr(4, n));
  *old_under_next = std::string(in.substr(4 + n));
  return true;
}
}  // namespace

KeyStore::KeyStore(KvStore* store, std::string kek)
    : store_(store), cf_(store->Cf("keystore")), kek_(std::move(kek)), master_kek_(kek_) {}

KeyStore::~KeyStore() {
  if (replica_ != nullptr) {
    replica_->Stop();
    replica_.reset();
  }
  {
    std::lock_guard lock(gc_mu_);
    stop_drainer_ = true;
    gc_cv_.notify_all();
  }
  if (drainer_.joinable()) drainer_.join();
  for (auto& [name, key] : cache_) core::SecureZero(key);
  core::SecureZero(kek_);
  core::SecureZero(previous_kek_);
  core::SecureZero(master_kek_);
}

std::string KeyStore::SessionKeyName(std::string_view tenant, std::string_view env,
                                     std::string_view session_id) {
  return "session/" + std::string(tenant) + "/" + std::string(env) + "/" + std::string(session_id);
}

core::Result<std::optional<std::string>> KeyStore::Get(std::string_view name) const {
  SVC_ASSIGN_OR_RETURN(auto local, GetLocal(name));
  if (local.has_value() || replica_ == nullptr) return local;
  // A key another node created may not have reached this one yet: read the topic to its end.
  SVC_RETURN_IF_ERROR(replica_->CatchUp());
  return GetLocal(name);
}

core::Result<std::optional<std::string>> KeyStore::GetLocal(std::string_view name) const {
  if (cf_ < 0) return core::Internal("the store has no keystore column family");
  SVC_ASSIGN_OR_RETURN(auto wrapped, store_->Get(cf_, Row(name)));
  if (!wrapped.has_value()) return std::optional<std::string>();
  std::shared_lock lock(kek_mu_);
  auto dek = core::AeadOpen(kek_, *wrapped, Aad(name));
  if (!dek.ok() && !previous_kek_.empty()) dek = core::AeadOpen(previous_kek_, *wrapped, Aad(name));
  if (!dek.ok()) return core::DataLoss("a wrapped data key does not open under the master key");
  return std::optional<std::string>(std::move(dek).value());
}

// Group commit of new keys: they queue, and one drainer at a time writes every queued key in one
// synced batch (many creates share one fsync). A name queued or being written is answered with the
// key it is getting, so two first uses of one name never make two keys. The drainer is a
// synchronous caller waiting for its own key, or the background thread that serves asynchronous
// callers (so an I/O thread never waits for an fsync).
std::shared_ptr<KeyStore::PendingKey> KeyStore::Enqueue(std::string_view name, core::Status* error, bool fresh) {
  // Called with gc_mu_ held. Not pending: it is either in the store already (committed, then
  // unqueued) or new.
  if (auto it = pending_.find(std::string(name)); it != pending_.end()) return it->second;
  auto again = fresh ? core::Result<std::optional<std::string>>(std::optional<std::string>()) : Get(name);
  if (!again.ok()) {
    *error = again.status();
    return nullptr;
  }
  auto p = std::make_shared<PendingKey>();
  p->name = std::string(name);
  if (again->has_value()) {
    p->dek = std::move(**again);
    p->done = true;
    return p;
  }
  p->dek = core::RandomBytes(32);
  pending_[p->name] = p;
  queue_.push_back(p);
  return p;
}

void KeyStore::DrainOnce(std::unique_lock<std::mutex>& lock) {
  writing_ = true;
  std::vector<std::shared_ptr<PendingKey>> batch;
  batch.swap(queue_);
  lock.unlock();
  core::Status st;
  if (replica_ != nullptr) {
    // A cluster: published, applied back, and the key the topic kept is the one used (first wins).
    std::vector<KeyRecord> records;
    std::string sealed_under;
    {
      std::shared_lock kl(kek_mu_);
      sealed_under = kek_;
      for (const auto& k : batch) records.push_back({k->name, core::AeadSeal(kek_, k->dek, Aad(k->name))});
    }
    st = replica_->Publish(records);
    // A rotation's record applied meanwhile: these keys are published again under the new KEK
    // (the same keys: the row is replaced, first wins holds).
    bool kek_moved;
    {
      std::shared_lock kl(kek_mu_);
      kek_moved = !core::ConstantTimeEquals(sealed_under, kek_);
    }
    core::SecureZero(sealed_under);
    records.clear();
    if (st.ok() && kek_moved) {
      for (const auto& k : batch) {
        auto kept = GetLocal(k->name);
        if (!kept.ok() || !kept->has_value()) continue;
        std::shared_lock kl(kek_mu_);
        records.push_back({k->name, core::AeadSeal(kek_, **kept, Aad(k->name))});
        core::SecureZero(**kept);
      }
    }
    if (st.ok() && !records.empty()) st = replica_->Publish(records);
    for (const auto& k : batch) {
      if (!st.ok()) break;
      auto kept = GetLocal(k->name);
      if (!kept.ok()) {
        k->status = kept.status();
      } else if (!kept->has_value()) {
        k->status = core::Unavailable("the data key was destroyed as it was created; retry");
      } else if (!core::ConstantTimeEquals(**kept, k->dek)) {
        core::SecureZero(k->dek);
        k->dek = std::move(**kept);
      }
    }
  } else {
    // Wrapped under the KEK current at the write: a rotation switches KEKs only between writes.
    std::shared_lock kl(kek_mu_);
    KvStore::Batch b;
    for (const auto& k : batch) b.Put(cf_, Row(k->name), core::AeadSeal(kek_, k->dek, Aad(k->name)));
    st = store_->Write(b, /*sync=*/true);
  }
  lock.lock();
  std::vector<std::pair<std::function<void(core::Result<std::string>)>, std::shared_ptr<PendingKey>>> calls;
  for (const auto& k : batch) {
    if (k->status.ok()) k->status = st;
    k->done = true;
    pending_.erase(k->name);
    for (auto& cb : k->callbacks) calls.emplace_back(std::move(cb), k);
    k->callbacks.clear();
  }
  writing_ = false;
  gc_cv_.notify_all();
  lock.unlock();
  for (auto& [cb, k] : calls) {
    if (k->status.ok()) cb(k->dek);
    else cb(k->status);
  }
  lock.lock();
}

core::Result<std::string> KeyStore::GetOrCreate(std::string_view name) {
  SVC_ASSIGN_OR_RETURN(auto existing, Get(name));
  if (existing.has_value()) return std::move(*existing);
  std::unique_lock lock(gc_mu_);
  core::Status error;
  auto mine = Enqueue(name, &error);
  if (mine == nullptr) return error;
  while (!mine->done) {
    if (!writing_ && !queue_.empty()) {
      DrainOnce(lock);
    } else {
      gc_cv_.wait(lock);
    }
  }
  SVC_RETURN_IF_ERROR(mine->status);
  return mine->dek;
}

void KeyStore::GetOrCreateAsync(std::string_view name, std::function<void(core::Result<std::string>)> done,
                                bool fresh) {
  if (!fresh) {
    auto existing = Get(name);
    if (!existing.ok()) return done(existing.status());
    if (existing->has_value()) return done(std::move(**existing));
  }
  std::unique_lock lock(gc_mu_);
  core::Status error;
  auto p = Enqueue(name, &error, fresh);
  if (p == nullptr) {
    lock.unlock();
    return done(error);
  }
  if (p->done) {  // committed meanwhile
    lock.unlock();
    if (p->status.ok()) return done(p->dek);
    return done(p->status);
  }
  p->callbacks.push_back(std::move(done));
  if (!drainer_.joinable()) {
    drainer_ = std::thread([this] {
      core::SetThreadName("svc-keys");
      std::unique_lock l(gc_mu_);
      while (!stop_drainer_) {
        gc_cv_.wait(l, [&] { return stop_drainer_ || (!writing_ && !queue_.empty()); });
        if (stop_drainer_) break;
        DrainOnce(l);
      }
    });
  }
  gc_cv_.notify_all();
}

core::Result<std::string> KeyStore::GetOrCreateCached(std::string_view name) {
  {
    std::lock_guard lock(cache_mu_);
    if (auto it = cache_.find(name); it != cache_.end()) return it->second;
  }
  SVC_ASSIGN_OR_RETURN(std::string key, GetOrCreate(name));
  std::lock_guard lock(cache_mu_);
  if (cache_.size() > 100000) cache_.clear();
  cache_.emplace(std::string(name), key);
  return key;
}

core::Status KeyStore::Destroy(std::string_view name) {
  {
    std::lock_guard cl(cache_mu_);
    if (auto it = cache_.find(name); it != cache_.end()) {
      core::SecureZero(it->second);
      cache_.erase(it);
    }
  }
  if (replica_ != nullptr) return replica_->Publish({KeyRecord{std::string(name), std::nullopt}});
  std::lock_guard lock(create_mu_);
  KvStore::Batch b;
  b.Delete(cf_, Row(name));
  return store_->Write(b, /*sync=*/true);
}

core::Status KeyStore::DestroyForGood(const std::vector<std::string>& names) {
  {
    std::lock_guard cl(cache_mu_);
    for (const auto& name : names) {
      if (auto it = cache_.find(name); it != cache_.end()) {
        core::SecureZero(it->second);
        cache_.erase(it);
      }
    }
  }
  if (replica_ != nullptr) {
    // Tombstones on the topic; every node deletes its copy as it applies them (and the topic's
    // compaction drops the wrapped keys: docs/operations.md#keys-on-a-cluster).
    std::vector<KeyRecord> tombstones;
    for (const auto& name : names) tombstones.push_back({name, std::nullopt});
    SVC_RETURN_IF_ERROR(PublishChunks(tombstones));
  } else {
    std::lock_guard lock(create_mu_);
    KvStore::Batch b;
    for (const auto& name : names) b.Delete(cf_, Row(name));
    SVC_RETURN_IF_ERROR(store_->Write(b, /*sync=*/true));
  }
  return store_->CompactAll(cf_);
}

core::Result<int64_t> KeyStore::Count() const {
  int64_t n = 0;
  const std::string prefix(kRows);
  auto it = store_->NewIterator(cf_, prefix, PrefixEnd(prefix));
  for (it->Seek(prefix); it->Valid(); it->Next()) ++n;
  SVC_RETURN_IF_ERROR(it->status());
  return n;
}

core::Result<int64_t> KeyStore::Rewrap(std::string new_kek, const std::function<void(KvStore::Batch&)>& extra) {
  std::lock_guard rotating(rotate_mu_);
  std::string rotation_record;
  {
    std::unique_lock lock(kek_mu_);
    if (!previous_kek_.empty()) return core::FailedPrecondition("a master-key rotation is already under way");
    if (core::ConstantTimeEquals(new_kek, kek_)) {
      return core::InvalidArgument("the new master key is the current one");
    }
    // Durably first: the old KEK, sealed under the new one, and the caller's new key check. From
    // here the store opens only with the new master key, and finishes the rotation if it stops.
    KvStore::Batch b;
    const std::string old_under_new = core::AeadSeal(new_kek, kek_, kRotationAad);
    const std::string new_under_old = core::AeadSeal(kek_, new_kek, kRotationNextAad);
    b.Put(cf_, std::string(kRotation), old_under_new);
    if (extra) extra(b);
    SVC_RETURN_IF_ERROR(store_->Write(b, /*sync=*/true));
    previous_kek_ = std::move(kek_);
    kek_ = std::move(new_kek);
    master_kek_ = kek_;
    if (replica_ != nullptr) rotation_record = EncodeRotation(new_under_old, old_under_new);
  }
  // A cluster: every node learns the new KEK before any key is wrapped under it.
  if (!rotation_record.empty()) {
    SVC_RETURN_IF_ERROR(replica_->Publish({KeyRecord{std::string(kRotationRecord), rotation_record}}));
  }
  return RewrapAll();
}

core::Status KeyStore::LoadUnfinishedRotation() {
  SVC_ASSIGN_OR_RETURN(auto record, store_->Get(cf_, std::string(kRotation)));
  if (!record.has_value()) return core::Status::Ok();
  std::unique_lock lock(kek_mu_);
  auto old = core::AeadOpen(kek_, *record, kRotationAad);
  if (old.ok()) {
    previous_kek_ = std::move(*old);
    return core::Status::Ok();
  }
  // A cluster's rotation made on another node while this one ran with the old master key: read and
  // write under the new KEK (the old one still opens what is not rewrapped yet).
  SVC_ASSIGN_OR_RETURN(auto next_record, store_->Get(cf_, std::string(kRotationNext)));
  if (next_record.has_value()) {
    auto next = core::AeadOpen(kek_, *next_record, kRotationNextAad);
    if (next.ok()) {
      previous_kek_ = std::move(kek_);
      kek_ = std::move(*next);
      core::LogWarn("the cluster's master key was rotated on another node: restart this node with the new master key");
      return core::Status::Ok();
    }
  }
  return core::DataLoss("the record of an unfinished master-key rotation does not open");
}

core::Result<bool> KeyStore::ResumeRotation() {
  std::lock_guard rotating(rotate_mu_);
  SVC_ASSIGN_OR_RETURN(auto record, store_->Get(cf_, std::string(kRotation)));
  if (!record.has_value()) return false;
  SVC_RETURN_IF_ERROR(LoadUnfinishedRotation());
  {
    // Started with the old master key after another node rotated: that node (or one restarted
    // with the new key) finishes the rotation; this one only reads under both.
    std::shared_lock kl(kek_mu_);
    if (!core::ConstantTimeEquals(kek_, master_kek_)) return false;
  }
  SVC_RETURN_IF_ERROR(RewrapAll().status());
  return true;
}

core::Result<std::string> KeyStore::PutIfAbsent(std::string_view name, std::string_view key) {
  SVC_ASSIGN_OR_RETURN(auto existing, Get(name));
  if (existing.has_value()) return std::move(*existing);
  if (replica_ != nullptr) {
    std::string wrapped;
    {
      std::shared_lock kl(kek_mu_);
      wrapped = core::AeadSeal(kek_, key, Aad(name));
    }
    SVC_RETURN_IF_ERROR(replica_->Publish({KeyRecord{std::string(name), std::move(wrapped)}}));
    SVC_ASSIGN_OR_RETURN(auto kept, GetLocal(name));
    if (!kept.has_value()) return core::Unavailable("the key was destroyed as it was created; retry");
    return std::move(*kept);
  }
  std::lock_guard lock(create_mu_);
  SVC_ASSIGN_OR_RETURN(auto again, Get(name));
  if (again.has_value()) return std::move(*again);
  KvStore::Batch b;
  {
    std::shared_lock kl(kek_mu_);
    b.Put(cf_, Row(name), core::AeadSeal(kek_, key, Aad(name)));
  }
  SVC_RETURN_IF_ERROR(store_->Write(b, /*sync=*/true));
  return std::string(key);
}

core::Result<int64_t> KeyStore::RewrapAll() {
  // Names first (the iteration must not hold the rows it rewrites), then one row at a time under
  // create_mu_: a key created meanwhile is already under the new KEK, one destroyed meanwhile is
  // skipped.
  std::vector<std::string> names;
  {
    const std::string prefix(kRows);
    auto it = store_->NewIterator(cf_, prefix, PrefixEnd(prefix));
    for (it->Seek(prefix); it->Valid(); it->Next()) names.emplace_back(it->key().substr(prefix.size()));
    SVC_RETURN_IF_ERROR(it->status());
  }
  int64_t moved = 0;
  if (replica_ != nullptr) {
    // A cluster: the rewrapped rows are published (each node replaces its copy: same key, newer
    // wrap), then the rotation's tombstone; every node then forgets the old KEK (a node still on
    // the old master key keeps both until it is restarted with the new one).
    std::vector<KeyRecord> records;
    for (const auto& name : names) {
      SVC_ASSIGN_OR_RETURN(auto wrapped, store_->Get(cf_, Row(name)));
      if (!wrapped.has_value()) continue;
      std::shared_lock kl(kek_mu_);
      if (core::AeadOpen(kek_, *wrapped, Aad(name)).ok()) continue;
      auto dek = core::AeadOpen(previous_kek_, *wrapped, Aad(name));
      if (!dek.ok()) return core::DataLoss("a data key opens under neither master key");
      records.push_back({name, core::AeadSeal(kek_, *dek, Aad(name))});
      core::SecureZero(*dek);
    }
    SVC_RETURN_IF_ERROR(PublishChunks(records));
    moved = static_cast<int64_t>(records.size());
    SVC_RETURN_IF_ERROR(replica_->Publish({KeyRecord{std::string(kRotationRecord), std::nullopt}}));
    names.clear();
  }
  for (const auto& name : names) {
    std::lock_guard lock(create_mu_);
    SVC_ASSIGN_OR_RETURN(auto wrapped, store_->Get(cf_, Row(name)));
    if (!wrapped.has_value()) continue;
    std::shared_lock kl(kek_mu_);
    if (core::AeadOpen(kek_, *wrapped, Aad(name)).ok()) continue;  // already under the new KEK
    auto dek = core::AeadOpen(previous_kek_, *wrapped, Aad(name));
    if (!dek.ok()) return core::DataLoss("the data key " + name + " opens under neither master key");
    KvStore::Batch one;
    one.Put(cf_, Row(name), core::AeadSeal(kek_, *dek, Aad(name)));
    core::SecureZero(*dek);
    // Written at once (not batched) so that a destroy after this point is not undone.
    SVC_RETURN_IF_ERROR(store_->Write(one, /*sync=*/false));
    ++moved;
  }
  // Every row is under the new KEK: make that durable, then forget the old one.
  KvStore::Batch done;
  done.Delete(cf_, std::string(kRotation));
  done.Delete(cf_, std::string(kRotationNext));
  SVC_RETURN_IF_ERROR(store_->Write(done, /*sync=*/true));
  std::unique_lock lock(kek_mu_);
  core::SecureZero(previous_kek_);
  previous_kek_.clear();
  return moved;
}

// ---- A cluster's key store ----

void KeyStore::SetReplica(std::unique_ptr<KeyReplica> replica) { replica_ = std::move(replica); }

core::Status KeyStore::PublishChunks(const std::vector<KeyRecord>& records) {
  for (size_t i = 0; i < records.size(); i += kPublishChunk) {
    std::vector<KeyRecord> chunk(records.begin() + static_cast<std::ptrdiff_t>(i),
                                 records.begin() + static_cast<std::ptrdiff_t>(std::min(records.size(), i + kPublishChunk)));
    SVC_RETURN_IF_ERROR(replica_->Publish(chunk));
  }
  return core::Status::Ok();
}

std::optional<std::string> KeyStore::OpenAny(std::string_view name, std::string_view wrapped) const {
  auto dek = core::AeadOpen(kek_, wrapped, Aad(name));
  if (!dek.ok() && !previous_kek_.empty()) dek = core::AeadOpen(previous_kek_, wrapped, Aad(name));
  if (!dek.ok()) return std::nullopt;
  return std::move(dek).value();
}

// First wins, by the key itself: a record holding the key the row holds replaces the row when it
// is wrapped under the current KEK (a rotation's rewrap); one holding another key lost.
KeyStore::Outcome KeyStore::Decide(std::string_view name, const std::optional<std::string>& row,
                                   const std::string& wrapped) const {
  if (!row.has_value()) return Outcome::kPut;
  std::shared_lock kl(kek_mu_);
  auto incoming = OpenAny(name, wrapped);
  if (!incoming.has_value()) {
    core::LogError("a key on the cluster's keys topic opens under no master key this node knows",
                   {{"hint", "every node of a cluster starts with the same master key"}});
    return Outcome::kKeep;
  }
  auto current = OpenAny(name, *row);
  Outcome out;
  if (!current.has_value()) {
    out = Outcome::kPut;  // the local copy does not open: the topic's is the key
  } else if (core::ConstantTimeEquals(*current, *incoming)) {
    out = core::AeadOpen(kek_, wrapped, Aad(name)).ok() ? Outcome::kPut : Outcome::kKeep;
  } else {
    out = Outcome::kLost;
  }
  core::SecureZero(*incoming);
  if (current.has_value()) core::SecureZero(*current);
  return out;
}

void KeyStore::ApplyRotation(const KeyRecord& record, KvStore::Batch& b) {
  std::unique_lock kl(kek_mu_);
  if (!record.wrapped.has_value()) {
    // The rotation finished: every key on the topic is under the new KEK.
    if (core::ConstantTimeEquals(kek_, master_kek_)) {
      core::SecureZero(previous_kek_);
      previous_kek_.clear();
      b.Delete(cf_, std::string(kRotation));
      b.Delete(cf_, std::string(kRotationNext));
    } else {
      core::LogWarn("the cluster's master-key rotation finished: restart this node with the new master key");
    }
    return;
  }
  std::string next_under_old, old_under_next;
  if (!DecodeRotation(*record.wrapped, &next_under_old, &old_under_next)) {
    core::LogError("a malformed rotation record on the cluster's keys topic");
    return;
  }
  if (auto next = core::AeadOpen(kek_, next_under_old, kRotationNextAad); next.ok()) {
    // This node runs with the old master key: it learns the new KEK and writes under it.
    previous_kek_ = std::move(kek_);
    kek_ = std::move(*next);
    core::LogWarn("the cluster's master key was rotated on another node: restart this node with the new master key");
  } else if (auto old = core::AeadOpen(kek_, old_under_next, kRotationAad); old.ok()) {
    if (previous_kek_.empty()) previous_kek_ = std::move(*old);  // already on the new KEK
  } else {
    core::LogError("a rotation record on the cluster's keys topic opens under neither master key");
    return;
  }
  b.Put(cf_, std::string(kRotation), old_under_next);
  b.Put(cf_, std::string(kRotationNext), next_under_old);
}

core::Status KeyStore::ApplyReplicated(const std::vector<KeyRecord>& records, int64_t next_offset,
                                       std::vector<KeyRecord>* reassert) {
  std::lock_guard lock(create_mu_);
  KvStore::Batch b;
  std::map<std::string, std::optional<std::string>, std::less<>> written;  // rows this batch changed
  auto row = [&](const std::string& name) -> core::Result<std::optional<std::string>> {
    if (auto it = written.find(name); it != written.end()) return it->second;
    return store_->Get(cf_, Row(name));
  };
  for (const auto& r : records) {
    if (r.name == kRotationRecord) {
      ApplyRotation(r, b);
      continue;
    }
    if (!r.wrapped.has_value()) {
      b.Delete(cf_, Row(r.name));
      written[r.name] = std::nullopt;
      std::lock_guard cl(cache_mu_);
      if (auto it = cache_.find(r.name); it != cache_.end()) {
        core::SecureZero(it->second);
        cache_.erase(it);
      }
      continue;
    }
    SVC_ASSIGN_OR_RETURN(auto current, row(r.name));
    switch (Decide(r.name, current, *r.wrapped)) {
      case Outcome::kPut: {
        b.Put(cf_, Row(r.name), *r.wrapped);
        written[r.name] = *r.wrapped;
        // During a rotation a node on the new master key wraps again what another node wrapped
        // under the old KEK (it had not applied the rotation record yet), so that nothing stays
        // under the old KEK once the rotation's tombstone makes every node forget it.
        std::shared_lock kl(kek_mu_);
        if (reassert != nullptr && !previous_kek_.empty() && core::ConstantTimeEquals(kek_, master_kek_) &&
            !core::AeadOpen(kek_, *r.wrapped, Aad(r.name)).ok()) {
          if (auto dek = core::AeadOpen(previous_kek_, *r.wrapped, Aad(r.name)); dek.ok()) {
            reassert->push_back({r.name, core::AeadSeal(kek_, *dek, Aad(r.name))});
            core::SecureZero(*dek);
          }
        }
        break;
      }
      case Outcome::kLost:
        if (reassert != nullptr) reassert->push_back({r.name, *current});
        break;
      case Outcome::kKeep:
        break;
    }
  }
  b.Put(cf_, std::string(kReplicaOffset), std::to_string(next_offset));
  // Not synced: the topic is the durable copy, and a batch lost to a crash is read again from
  // the offset kept with it.
  return store_->Write(b, /*sync=*/false);
}

core::Status KeyStore::Reconcile(const std::vector<KeyRecord>& records, int64_t next_offset, bool adopt_local,
                                 std::vector<KeyRecord>* publish, int64_t now_micros) {
  std::lock_guard lock(create_mu_);
  KvStore::Batch b;
  // The topic's content, folded in order as ApplyReplicated would.
  std::map<std::string, std::string> topic;
  for (const auto& r : records) {
    if (r.name == kRotationRecord) {
      ApplyRotation(r, b);
      continue;
    }
    if (!r.wrapped.has_value()) {
      topic.erase(r.name);
      continue;
    }
    auto it = topic.find(r.name);
    std::optional<std::string> current;
    if (it != topic.end()) current = it->second;
    if (Decide(r.name, current, *r.wrapped) == Outcome::kPut) topic[r.name] = *r.wrapped;
  }
  // The directory's rows against it.
  std::vector<std::pair<std::string, std::string>> local;
  {
    const std::string prefix(kRows);
    auto it = store_->NewIterator(cf_, prefix, PrefixEnd(prefix));
    for (it->Seek(prefix); it->Valid(); it->Next()) {
      local.emplace_back(std::string(it->key().substr(prefix.size())), std::string(it->value()));
    }
    SVC_RETURN_IF_ERROR(it->status());
  }
  int64_t adopted = 0, dropped = 0;
  for (const auto& [name, wrapped] : local) {
    auto t = topic.find(name);
    if (t == topic.end()) {
      if (adopt_local) {
        publish->push_back({name, wrapped});
        ++adopted;
      } else {
        b.Delete(cf_, Row(name));
        ++dropped;
      }
      continue;
    }
    {
      std::shared_lock kl(kek_mu_);
      auto mine = OpenAny(name, wrapped), theirs = OpenAny(name, t->second);
      const bool same = mine.has_value() && theirs.has_value() && core::ConstantTimeEquals(*mine, *theirs);
      if (mine.has_value()) core::SecureZero(*mine);
      if (theirs.has_value()) core::SecureZero(*theirs);
      if (!same && mine.has_value()) {
        return core::FailedPrecondition(
            "this data directory holds a key (" + name +
            ") that differs from the one on the cluster's keys topic: a data directory belongs to one "
            "cluster and one master key (join a cluster with an empty --data-dir; docs/operations.md#keys-on-a-cluster)");
      }
    }
    if (t->second != wrapped) b.Put(cf_, Row(name), t->second);
    topic.erase(t);
  }
  for (const auto& [name, wrapped] : topic) b.Put(cf_, Row(name), wrapped);
  b.Put(cf_, std::string(kReplicaOffset), std::to_string(next_offset));
  b.Put(cf_, std::string(kReplicaSeen), std::to_string(now_micros));
  SVC_RETURN_IF_ERROR(store_->Write(b, /*sync=*/true));
  core::LogInfo("key store in line with the cluster's keys topic",
                {{"records", static_cast<int64_t>(records.size())},
                 {"fromTopic", static_cast<int64_t>(topic.size())},
                 {"published", adopted},
                 {"dropped", dropped}});
  return core::Status::Ok();
}

core::Result<std::optional<KeyStore::ReplicaState>> KeyStore::LoadReplicaState() const {
  SVC_ASSIGN_OR_RETURN(auto offset, store_->Get(cf_, std::string(kReplicaOffset)));
  if (!offset.has_value()) return std::optional<ReplicaState>();
  SVC_ASSIGN_OR_RETURN(auto seen, store_->Get(cf_, std::string(kReplicaSeen)));
  ReplicaState st;
  try {
    st.next_offset = std::stoll(*offset);
    st.seen_micros = seen.has_value() ? std::stoll(*seen) : 0;
  } catch (...) {
    return core::DataLoss("the key store's replica offset is malformed");
  }
  return std::optional<ReplicaState>(st);
}

core::Status KeyStore::MarkReplicaSeen(int64_t now_micros) {
  KvStore::Batch b;
  b.Put(cf_, std::string(kReplicaSeen), std::to_string(now_micros));
  return store_->Write(b, /*sync=*/false);
}

bool KeyStore::RotatedTo() const {
  auto record = store_->Get(cf_, std::string(kRotation));
  if (!record.ok() || !record->has_value()) return false;
  std::shared_lock kl(kek_mu_);
  auto old = core::AeadOpen(master_kek_, **record, kRotationAad);
  if (!old.ok()) return false;
  core::SecureZero(*old);
  return true;
}

}  // namespace svc::eventstore
