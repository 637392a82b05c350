#pragma once
// BlobStore: content-addressed files for media. The caller seals the bytes first (KeyStore's
// session key); the address is the SHA-256 (hex) of what is stored, so a blob is written once,
// never changes, and every read checks it. Files live in <dir>/<first two hex>/<address>; a
// write goes to a temporary file, is fsynced, renamed into place and the directory fsynced, so a
// blob named in an event is on disk before the event is appended.

#include <string>

#include "core/status.h"

namespace svc::eventstore {

class BlobStore {
 public:
  explicit BlobStore(std::string dir);
  // Stores `bytes` and returns their address (idempotent: the same bytes, the same address).
  core::Result<std::string> Put(std::string_view bytes);
  // The bytes at `address`; kNotFound when absent, kDataLoss when they do not hash to it.
  core::Result<std::string> Get(std::string_view address) const;
  // Removes the blob at `address` (durably: the directory is fsynced); true when it was there.
  // The retention sweeper calls it after the purge is recorded; a missing blob is not an error.
  core::Result<bool> Delete(std::string_view address);
  bool Exists(std::string_view address) const;
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
};

}  // namespace svc::eventstore
