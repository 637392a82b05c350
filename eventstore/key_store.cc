#include "eventstore/key_store.h"

#include "core/crypto.h"

namespace svc::eventstore {

namespace {
std::string Aad(std::string_view name) { return "svc/dek/v1|" + std::string(name); }
std::string Row(std::string_view name) { return "dek/" + std::string(name); }
}  // namespace

KeyStore::KeyStore(KvStore* store, std::string kek)
    : store_(store), cf_(store->Cf("keystore")), kek_(std::move(kek)) {}

KeyStore::~KeyStore() { core::SecureZero(kek_); }

std::string KeyStore::SessionKeyName(std::string_view tenant, std::string_view env,
                                     std::string_view session_id) {
  return "session/" + std::string(tenant) + "/" + std::string(env) + "/" + std::string(session_id);
}

core::Result<std::optional<std::string>> KeyStore::Get(std::string_view name) const {
  if (cf_ < 0) return core::Internal("the store has no keystore column family");
  SVC_ASSIGN_OR_RETURN(auto wrapped, store_->Get(cf_, Row(name)));
  if (!wrapped.has_value()) return std::optional<std::string>();
  auto dek = core::AeadOpen(kek_, *wrapped, Aad(name));
  if (!dek.ok()) return core::DataLoss("a wrapped data key does not open under the master key");
  return std::optional<std::string>(std::move(dek).value());
}

core::Result<std::string> KeyStore::GetOrCreate(std::string_view name) {
  SVC_ASSIGN_OR_RETURN(auto existing, Get(name));
  if (existing.has_value()) return std::move(*existing);
  std::lock_guard lock(create_mu_);
  SVC_ASSIGN_OR_RETURN(auto again, Get(name));
  if (again.has_value()) return std::move(*again);
  std::string dek = core::RandomBytes(32);
  KvStore::Batch b;
  b.Put(cf_, Row(name), core::AeadSeal(kek_, dek, Aad(name)));
  SVC_RETURN_IF_ERROR(store_->Write(b, /*sync=*/true));
  return dek;
}

core::Status KeyStore::Destroy(std::string_view name) {
  KvStore::Batch b;
  b.Delete(cf_, Row(name));
  return store_->Write(b, /*sync=*/true);
}

}  // namespace svc::eventstore
