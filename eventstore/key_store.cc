#include "eventstore/key_store.h"

#include "core/executor.h"

#include <thread>
#include <vector>

#include "core/crypto.h"

namespace svc::eventstore {

namespace {
std::string Aad(std::string_view name) { return "svc/dek/v1|" + std::string(name); }
std::string Row(std::string_view name) { return "dek/" + std::string(name); }
constexpr std::string_view kRows = "dek/";
constexpr std::string_view kRotation = "rotation/kek";
constexpr std::string_view kRotationAad = "svc/kek-rotation/v1";
}  // namespace

KeyStore::KeyStore(KvStore* store, std::string kek)
    : store_(store), cf_(store->Cf("keystore")), kek_(std::move(kek)) {}

KeyStore::~KeyStore() {
  {
    std::lock_guard lock(gc_mu_);
    stop_drainer_ = true;
    gc_cv_.notify_all();
  }
  if (drainer_.joinable()) drainer_.join();
  for (auto& [name, key] : cache_) core::SecureZero(key);
  core::SecureZero(kek_);
  core::SecureZero(previous_kek_);
}

std::string KeyStore::SessionKeyName(std::string_view tenant, std::string_view env,
                                     std::string_view session_id) {
  return "session/" + std::string(tenant) + "/" + std::string(env) + "/" + std::string(session_id);
}

core::Result<std::optional<std::string>> KeyStore::Get(std::string_view name) const {
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
  {
    // Wrapped under the KEK current at the write: a rotation switches KEKs only between writes.
    std::shared_lock kl(kek_mu_);
    KvStore::Batch b;
    for (const auto& k : batch) b.Put(cf_, Row(k->name), core::AeadSeal(kek_, k->dek, Aad(k->name)));
    st = store_->Write(b, /*sync=*/true);
  }
  lock.lock();
  std::vector<std::pair<std::function<void(core::Result<std::string>)>, std::shared_ptr<PendingKey>>> calls;
  for (const auto& k : batch) {
    k->status = st;
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
  {
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
  {
    std::unique_lock lock(kek_mu_);
    if (!previous_kek_.empty()) return core::FailedPrecondition("a master-key rotation is already under way");
    if (core::ConstantTimeEquals(new_kek, kek_)) {
      return core::InvalidArgument("the new master key is the current one");
    }
    // Durably first: the old KEK, sealed under the new one, and the caller's new key check. From
    // here the store opens only with the new master key, and finishes the rotation if it stops.
    KvStore::Batch b;
    b.Put(cf_, std::string(kRotation), core::AeadSeal(new_kek, kek_, kRotationAad));
    if (extra) extra(b);
    SVC_RETURN_IF_ERROR(store_->Write(b, /*sync=*/true));
    previous_kek_ = std::move(kek_);
    kek_ = std::move(new_kek);
  }
  return RewrapAll();
}

core::Status KeyStore::LoadUnfinishedRotation() {
  SVC_ASSIGN_OR_RETURN(auto record, store_->Get(cf_, std::string(kRotation)));
  if (!record.has_value()) return core::Status::Ok();
  std::unique_lock lock(kek_mu_);
  auto old = core::AeadOpen(kek_, *record, kRotationAad);
  if (!old.ok()) return core::DataLoss("the record of an unfinished master-key rotation does not open");
  previous_kek_ = std::move(*old);
  return core::Status::Ok();
}

core::Result<bool> KeyStore::ResumeRotation() {
  std::lock_guard rotating(rotate_mu_);
  SVC_ASSIGN_OR_RETURN(auto record, store_->Get(cf_, std::string(kRotation)));
  if (!record.has_value()) return false;
  SVC_RETURN_IF_ERROR(LoadUnfinishedRotation());
  SVC_RETURN_IF_ERROR(RewrapAll().status());
  return true;
}

core::Result<std::string> KeyStore::PutIfAbsent(std::string_view name, std::string_view key) {
  SVC_ASSIGN_OR_RETURN(auto existing, Get(name));
  if (existing.has_value()) return std::move(*existing);
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
  SVC_RETURN_IF_ERROR(store_->Write(done, /*sync=*/true));
  std::unique_lock lock(kek_mu_);
  core::SecureZero(previous_kek_);
  previous_kek_.clear();
  return moved;
}

}  // namespace svc::eventstore
