#pragma once
// The sealed dump of a bulk export (docs/persons.md#bulk-export): every exported person as one
// JSON line, sealed so that only the holder of the tenant's export secret key reads it.
//
//   "SVCEXB1\n"                         8 bytes
//   u32 H, the header (H bytes)          JSON, no personal data: job, tenant, environment, key id,
//                                        format; bound to every chunk (its SHA-256 is their AD)
//   u32 S, the sealed stream key         crypto_box_seal of a random 32-byte key to the export key
//   the stream header                    24 bytes (secretstream XChaCha20-Poly1305)
//   u32 L, chunk (L bytes), repeated     whole JSON lines, ≤ 64 KiB of plaintext each; the last
//                                        chunk carries the final tag (a cut dump does not open)
//
// Integers are big-endian. A dump is an object of the blob store (eventstore/blob_store.h),
// written through a spool file and stored under its SHA-256 (the one its job records) only once
// complete, so a dump that exists is whole; a crash leaves at most a spool file or an object no
// job names (the blob collector's). Dumps written before they went into the blob store (files in
// <data-dir>/exports) are moved into it at start (AdoptLegacyDumps).

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "core/crypto.h"
#include "core/json.h"
#include "core/status.h"
#include "eventstore/blob_store.h"

namespace svc::pipeline::persons {

inline constexpr std::string_view kDumpMagic = "SVCEXB1\n";

struct DumpSummary {
  int64_t size_bytes = 0;
  std::string sha256;  // hex, of the whole dump: its address in the blob store
  int64_t records = 0;
};

class DumpWriter {
 public:
  // A new object of `blobs`; `recipient_public_key` is 32 raw bytes.
  static core::Result<std::unique_ptr<DumpWriter>> Create(eventstore::BlobStore& blobs, const core::Json& header,
                                                          std::string_view recipient_public_key);
  ~DumpWriter();  // unfinished: nothing stays
  core::Status Add(const core::Json& record);
  // Seals the last chunk and stores the dump, durably.
  core::Result<DumpSummary> Finish();

 private:
  DumpWriter() = default;
  core::Status Write(std::string_view bytes);
  core::Status Flush(bool final);

  std::unique_ptr<eventstore::BlobWriter> out_;
  std::unique_ptr<core::StreamSealer> sealer_;
  std::string ad_;
  std::string pending_;
  int64_t records_ = 0;
};

// A stored dump read front to back in pieces, for a download. The last piece is held back until
// the whole object hashed to its address, so a dump altered in the store is cut off (DATA_LOSS,
// logged with the address) and never handed out whole.
class DumpReader {
 public:
  // NOT_FOUND when no such object is stored.
  static core::Result<std::unique_ptr<DumpReader>> Open(const eventstore::BlobStore& blobs, std::string_view address);
  // The next piece; "" at the end, once the dump was checked.
  core::Result<std::string> Next();
  uint64_t size() const { return in_->size(); }

 private:
  explicit DumpReader(std::unique_ptr<eventstore::BlobReader> in) : in_(std::move(in)) {}
  std::unique_ptr<eventstore::BlobReader> in_;
  std::string held_;
  bool done_ = false;
};

// Moves the dumps of a data directory from before they went into the blob store
// (<exports_dir>/<tenant>/<env>/<job>.svcx) into `blobs`, each under its SHA-256, which is the
// address its job records, and removes each file once its object is stored (and the .tmp files of
// dumps never finished). Idempotent, so a crash midway is mended by the next call. How many moved.
core::Result<size_t> AdoptLegacyDumps(const std::string& exports_dir, eventstore::BlobStore& blobs);

struct DumpContents {
  core::Json header;
  std::vector<core::Json> records;
};
// Opens a dump with the export key pair: the header and every record, or an error when the file
// is not a dump, was altered or cut, or was sealed to another key.
core::Result<DumpContents> OpenDump(std::string_view bytes, const core::X25519KeyPair& key);

}  // namespace svc::pipeline::persons
