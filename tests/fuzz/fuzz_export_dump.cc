// A bulk export's sealed dump as `svc export-bulk open` reads it (pipeline/persons/export_dump.h).
// The first byte picks how the rest is used:
//   even  the dump's bytes as they are: the magic, the framing, the header, the sealed key and the
//         chunks (a mutation inside the sealed parts stops at their authentication);
//   odd   what a dump carries, sealed here to the harness's export key so that the opener reaches
//         it: the header up to the first newline, then the chunks' plaintexts separated by 0x1e
//         (the last one final). Bit 1 of the first byte appends a stray byte after the final
//         chunk; bit 2 leaves the final chunk out.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/crypto.h"
#include "pipeline/persons/export_dump.h"

namespace {

std::string U32(size_t n) {
  std::string s(4, '\0');
  for (int i = 3; i >= 0; --i) {
    s[static_cast<size_t>(i)] = static_cast<char>(n & 0xff);
    n >>= 8;
  }
  return s;
}

const svc::core::X25519KeyPair& Key() {
  static const svc::core::X25519KeyPair key = *svc::core::X25519FromSecret(std::string(32, '\x07'));
  return key;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t mode = data[0];
  std::string_view in(reinterpret_cast<const char*>(data) + 1, size - 1);
  if ((mode & 1) == 0) {
    (void)svc::pipeline::persons::OpenDump(in, Key());
    return 0;
  }
  const size_t nl = in.find('\n');
  const std::string_view head = in.substr(0, nl);
  std::string_view rest = nl == std::string_view::npos ? std::string_view() : in.substr(nl + 1);
  const std::string stream_key(svc::core::kAeadKeyBytes, '\x2a');
  svc::core::StreamSealer sealer(stream_key);
  const std::string ad = svc::core::Sha256(head);
  std::string dump(svc::pipeline::persons::kDumpMagic);
  dump += U32(head.size()) + std::string(head);
  const std::string sealed_key = svc::core::SealToRecipient(Key().public_key, stream_key);
  dump += U32(sealed_key.size()) + sealed_key;
  dump += sealer.header();
  for (;;) {
    const size_t sep = rest.find('\x1e');
    const bool last = sep == std::string_view::npos;
    const std::string_view chunk = rest.substr(0, sep);
    if (last && (mode & 4) != 0) break;
    const std::string sealed = sealer.Push(chunk, last, ad);
    dump += U32(sealed.size()) + sealed;
    if (last) break;
    rest.remove_prefix(sep + 1);
  }
  if ((mode & 2) != 0) dump.push_back('\0');
  (void)svc::pipeline::persons::OpenDump(dump, Key());
  return 0;
}
