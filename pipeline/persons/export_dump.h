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
// Integers are big-endian. The file is written to a temporary name, fsynced and renamed, so a
// dump that exists is complete.

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "core/crypto.h"
#include "core/json.h"
#include "core/status.h"

namespace svc::pipeline::persons {

inline constexpr std::string_view kDumpMagic = "SVCEXB1\n";

struct DumpSummary {
  int64_t size_bytes = 0;
  std::string sha256;  // hex, of the whole file
  int64_t records = 0;
};

class DumpWriter {
 public:
  // Opens `final_path`.tmp for writing; `recipient_public_key` is 32 raw bytes.
  static core::Result<std::unique_ptr<DumpWriter>> Create(const std::string& final_path, const core::Json& header,
                                                          std::string_view recipient_public_key);
  ~DumpWriter();
  core::Status Add(const core::Json& record);
  // Seals the last chunk, fsyncs, renames into place.
  core::Result<DumpSummary> Finish();

 private:
  DumpWriter() = default;
  core::Status Write(std::string_view bytes);
  core::Status Flush(bool final);

  std::string final_path_, tmp_path_;
  std::FILE* file_ = nullptr;
  std::unique_ptr<core::StreamSealer> sealer_;
  std::string ad_;
  std::string pending_;
  int64_t size_ = 0;
  int64_t records_ = 0;
  void* sha_ = nullptr;  // EVP_MD_CTX
};

struct DumpContents {
  core::Json header;
  std::vector<core::Json> records;
};
// Opens a dump with the export key pair: the header and every record, or an error when the file
// is not a dump, was altered or cut, or was sealed to another key.
core::Result<DumpContents> OpenDump(std::string_view bytes, const core::X25519KeyPair& key);

}  // namespace svc::pipeline::persons
