#pragma once
// BlobStore: content-addressed objects for media, export dumps and list files. The caller seals
// the bytes first (KeyStore's keys): no plaintext reaches a store. The address is the SHA-256
// (hex) of what is stored, so an object is written once, never changes, and every read checks it
// (a mismatch is DATA_LOSS, logged with the address, and no byte is handed out). Put returns only
// once the object is durable, so an object named in an event is stored before the event is
// appended; a crash between the two leaves at most an unreferenced object.
//
// Two backends: LocalBlobStore (a directory, the default) and the S3 API
// (pipeline/adapters/s3_blob_store.h: AWS S3 or any S3-compatible service).

#include <memory>
#include <string>
#include <string_view>

#include "core/status.h"

namespace svc::eventstore {

class BlobStore {
 public:
  virtual ~BlobStore() = default;
  // Stores `bytes` and returns their address (idempotent: the same bytes, the same address).
  // UNAVAILABLE when the store cannot be reached or refuses (after the backend's retries).
  virtual core::Result<std::string> Put(std::string_view bytes) = 0;
  // The bytes at `address`; NOT_FOUND when absent, DATA_LOSS when they do not hash to it,
  // INVALID_ARGUMENT for a string that is not an address.
  virtual core::Result<std::string> Get(std::string_view address) const = 0;
  // Removes the object at `address` durably; true when it was there. The retention sweeper and
  // the purger call it after the release is recorded; a missing object is not an error.
  virtual core::Result<bool> Delete(std::string_view address) = 0;
  virtual core::Result<bool> Exists(std::string_view address) const = 0;
  // Where the objects are, for logs and `svc blobs`: "local:/var/lib/svc/media",
  // "s3://bucket/prefix". Never a credential.
  virtual std::string Describe() const = 0;
};

// Addresses are 64 lower-case hex characters.
bool ValidBlobAddress(std::string_view address);

// Files in <dir>/<first two hex>/<address>; a write goes to a temporary file, is fsynced, renamed
// into place and the directory fsynced.
class LocalBlobStore final : public BlobStore {
 public:
  explicit LocalBlobStore(std::string dir);
  core::Result<std::string> Put(std::string_view bytes) override;
  core::Result<std::string> Get(std::string_view address) const override;
  core::Result<bool> Delete(std::string_view address) override;
  core::Result<bool> Exists(std::string_view address) const override;
  std::string Describe() const override { return "local:" + dir_; }
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
};

}  // namespace svc::eventstore
