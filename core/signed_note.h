#pragma once
// C2SP signed notes with Ed25519 (https://c2sp.org/signed-note), and the tlog-checkpoint body they
// carry for a transparency log (https://c2sp.org/tlog-checkpoint). The access log's checkpoints
// are such notes, so any tool of that ecosystem (Go's golang.org/x/mod/sumdb/note, sigsum,
// transparency-dev) checks them.
//
//   note     = text ("\n"-terminated lines) "\n" one or more signature lines
//   sig line = "— " <key name> " " base64(key id (4 bytes) || Ed25519 signature of text)
//   key id   = SHA-256(key name || "\n" || 0x01 || public key)[0:4]
//   verifier = <key name> "+" hex(key id) "+" base64(0x01 || public key)

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/status.h"

namespace svc::core::note {

// The 4-byte key id of an Ed25519 key named `name`.
std::string KeyId(std::string_view name, std::string_view public_key);
// The verifier key text a verifier is given.
std::string VerifierKey(std::string_view name, std::string_view public_key);

// `text` signed by the key named `name` (libsodium's 64-byte secret key). InvalidArgument when
// the name or text is not one a note allows (a name with spaces or "+", a text that is empty,
// not "\n"-terminated, or holds a blank line or a control character).
Result<std::string> Sign(std::string_view text, std::string_view name, std::string_view secret_key);

// The text of `note` when it carries a valid signature of the key `verifier_key` describes;
// an error otherwise (malformed note or key, no signature of that key, a bad signature).
Result<std::string> Open(std::string_view note, std::string_view verifier_key);

// A tlog-checkpoint body: origin, tree size, root hash (32 bytes), each on its line.
std::string CheckpointText(std::string_view origin, uint64_t size, std::string_view root_hash);
struct Checkpoint {
  std::string origin;
  uint64_t size = 0;
  std::string root_hash;  // 32 bytes
};
Result<Checkpoint> ParseCheckpoint(std::string_view text);

}  // namespace svc::core::note
