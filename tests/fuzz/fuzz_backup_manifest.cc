// A backup's MANIFEST.json as `svc restore` reads it (eventstore/backup.h): the format, the digest,
// every file entry and its path, then the HMAC.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "eventstore/backup.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  auto manifest = svc::eventstore::ParseBackupManifest(in);
  if (manifest.ok()) (void)svc::eventstore::VerifyBackupMac(*manifest, std::string(32, 'k'));
  return 0;
}
