#pragma once
// BlobStore: content-addressed objects for captures and list files. The caller seals
// the bytes first (KeyStore's keys): no plaintext reaches a store. The address is the SHA-256
// (hex) of what is stored, so an object is written once, never changes, and every read checks it
// (a mismatch is DATA_LOSS, logged with the address, and no byte is handed out). Put returns only
// once the object is durable, so an object named in an event is stored before the event is
// appended; a crash between the two leaves at most an unreferenced object.
//
// Two backends: LocalBlobStore (a directory, the default) and the S3 API
// (pipeline/adapters/s3_blob_store.h: AWS S3 or any S3-compatible service).

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "core/crypto.h"
#include "core/status.h"

namespace svc::eventstore {

// Reads an object front to back in pieces, so that a large one is never whole in memory. The
// bytes are hashed as they pass and the end is reported (an empty piece) only once all of them
// hashed to the address: a mismatch is DATA_LOSS, logged with the address. A reader that holds
// back its last piece until the end is reported (pipeline/verification/sealed_media.h does)
// never hands out a byte of an object that is not the one named.
class BlobReader {
 public:
  BlobReader(std::string address, uint64_t size) : address_(std::move(address)), size_(size) {}
  virtual ~BlobReader() = default;
  uint64_t size() const { return size_; }
  // The next at most `max` bytes (max > 0); "" once the whole object was read and checked.
  core::Result<std::string> Read(size_t max);

 protected:
  // Exactly min(max, size - offset) bytes from `offset` (the backend's ranged read).
  virtual core::Result<std::string> ReadAt(uint64_t offset, size_t max) = 0;

 private:
  std::string address_;
  uint64_t size_;
  uint64_t offset_ = 0;
  core::Sha256Stream hash_;
  bool checked_ = false;
};

// Writes an object as it is produced: the (already sealed) bytes go to a spool file on local disk
// and are hashed as they pass; Commit stores the object under its address, durably, and returns
// it. A writer dropped without Commit leaves nothing behind. A crash leaves a spool file, which
// the next start removes (BlobSpool::Sweep).
class BlobWriter {
 public:
  virtual ~BlobWriter() = default;
  virtual core::Status Write(std::string_view bytes) = 0;
  virtual core::Result<std::string> Commit() = 0;
  virtual uint64_t size() const = 0;
};

// A spool file: <dir>/<random>.spool, created 0600, hashed as written.
class BlobSpool {
 public:
  static core::Result<std::unique_ptr<BlobSpool>> Create(const std::string& dir);
  ~BlobSpool();  // removes the file unless it was handed on (Release)
  core::Status Write(std::string_view bytes);
  core::Status Sync();                 // fsync
  std::string FinishHash() { return hash_.FinalHex(); }
  const std::string& path() const { return path_; }
  uint64_t size() const { return size_; }
  void Release() { path_.clear(); }    // the file was renamed away
  // Removes the spool files a crash left in `dir`; how many.
  static size_t Sweep(const std::string& dir);

 private:
  BlobSpool(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  std::string path_;
  int fd_;
  uint64_t size_ = 0;
  core::Sha256Stream hash_;
};

// An object as a listing shows it.
struct BlobInfo {
  std::string address;
  uint64_t size = 0;
  int64_t modified_unix = 0;  // when it was written (seconds, wall clock)
};

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
  // The object at `address` for reading in pieces; NOT_FOUND when absent.
  virtual core::Result<std::unique_ptr<BlobReader>> Open(std::string_view address) const = 0;
  // A new object, written in pieces (BlobWriter).
  virtual core::Result<std::unique_ptr<BlobWriter>> Create() = 0;
  // Every object of the store, in no promised order (the garbage collector); `each` stops the
  // listing by failing. What is not named by an address (spool files, other keys) is skipped.
  virtual core::Status List(const std::function<core::Status(const BlobInfo&)>& each) const = 0;
  // Where the objects are, for logs and `svc blobs`: "local:/var/lib/svc/media",
  // "s3://bucket/prefix". Never a credential.
  virtual std::string Describe() const = 0;
};

// Addresses are 64 lower-case hex characters.
bool ValidBlobAddress(std::string_view address);

// Files in <dir>/<first two hex>/<address>; a write goes to a temporary file, is fsynced, renamed
// into place and the directory fsynced. Spool files (Create) are in <dir>/spool.
class LocalBlobStore final : public BlobStore {
 public:
  explicit LocalBlobStore(std::string dir);
  core::Result<std::string> Put(std::string_view bytes) override;
  core::Result<std::string> Get(std::string_view address) const override;
  core::Result<bool> Delete(std::string_view address) override;
  core::Result<bool> Exists(std::string_view address) const override;
  core::Result<std::unique_ptr<BlobReader>> Open(std::string_view address) const override;
  core::Result<std::unique_ptr<BlobWriter>> Create() override;
  core::Status List(const std::function<core::Status(const BlobInfo&)>& each) const override;
  std::string Describe() const override { return "local:" + dir_; }
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
};

}  // namespace svc::eventstore
