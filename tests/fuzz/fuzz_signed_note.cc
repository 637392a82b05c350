// Signed notes and checkpoints as a verifier of our audit log reads them (C2SP signed-note,
// tlog-checkpoint): the note's text and signature lines, the checkpoint body, and the verifier
// key's text (the input's first line).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/crypto.h"
#include "core/signed_note.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace note = svc::core::note;
  static const std::string verifier = [] {
    (void)svc::core::InitCrypto();
    auto kp = svc::core::Ed25519FromSeed(std::string(32, 'k'));
    return note::VerifierKey("audit.example.mx", kp.public_key);
  }();
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  (void)note::Open(in, verifier);
  (void)note::ParseCheckpoint(in);
  const size_t nl = in.find('\n');
  if (nl != std::string_view::npos) (void)note::Open(in.substr(nl + 1), in.substr(0, nl));
  return 0;
}
