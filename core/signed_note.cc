#include "core/signed_note.h"

#include <vector>

#include "core/crypto.h"
#include "core/ids.h"

namespace svc::core::note {

namespace {

constexpr std::string_view kDash = "\xE2\x80\x94 ";  // U+2014 EM DASH, then a space
constexpr char kEd25519 = 0x01;

bool ValidName(std::string_view name) {
  if (name.empty()) return false;
  for (unsigned char c : name) {
    if (c <= 0x20 || c == '+' || c == 0x7f) return false;
  }
  return true;
}

bool ValidText(std::string_view text) {
  if (text.empty() || text.back() != '\n') return false;
  if (text.find("\n\n") != std::string_view::npos) return false;
  for (unsigned char c : text) {
    if (c < 0x20 && c != '\n') return false;
  }
  return true;
}

}  // namespace

std::string KeyId(std::string_view name, std::string_view public_key) {
  std::string in(name);
  in.push_back('\n');
  in.push_back(kEd25519);
  in.append(public_key);
  return Sha256(in).substr(0, 4);
}

std::string VerifierKey(std::string_view name, std::string_view public_key) {
  std::string typed(1, kEd25519);
  typed.append(public_key);
  return std::string(name) + "+" + HexEncode(KeyId(name, public_key)) + "+" + Base64Encode(typed);
}

Result<std::string> Sign(std::string_view text, std::string_view name, std::string_view secret_key) {
  if (!ValidName(name)) return InvalidArgument("a note key name is non-empty, without spaces or '+'");
  if (!ValidText(text)) return InvalidArgument("a note's text is lines ending in '\\n', without blank lines");
  if (secret_key.size() != 64) return InvalidArgument("an Ed25519 secret key is 64 bytes");
  std::string public_key(secret_key.substr(32));
  std::string sig = KeyId(name, public_key) + Ed25519Sign(secret_key, text);
  std::string out(text);
  out += "\n";
  out += kDash;
  out.append(name).append(" ").append(Base64Encode(sig)).append("\n");
  return out;
}

Result<std::string> Open(std::string_view note, std::string_view verifier_key) {
  // The verifier key: name+hexid+base64(0x01 || key).
  size_t p1 = verifier_key.find('+');
  size_t p2 = p1 == std::string_view::npos ? p1 : verifier_key.find('+', p1 + 1);
  if (p2 == std::string_view::npos) return InvalidArgument("malformed verifier key");
  std::string_view name = verifier_key.substr(0, p1);
  auto id = HexDecode(verifier_key.substr(p1 + 1, p2 - p1 - 1));
  auto typed = Base64Decode(verifier_key.substr(p2 + 1));
  if (!ValidName(name) || !id.ok() || id->size() != 4 || !typed.ok() || typed->size() != 33 ||
      (*typed)[0] != kEd25519) {
    return InvalidArgument("malformed verifier key");
  }
  const std::string public_key = typed->substr(1);
  if (KeyId(name, public_key) != *id) return InvalidArgument("the verifier key's id does not match its key");

  // The text ends at the last blank line; signature lines follow.
  size_t split = note.rfind("\n\n");
  if (split == std::string_view::npos) return InvalidArgument("malformed note: no signature block");
  std::string_view text = note.substr(0, split + 1);
  std::string_view sigs = note.substr(split + 2);
  if (!ValidText(text) || sigs.empty() || sigs.back() != '\n') return InvalidArgument("malformed note");
  int lines = 0;
  for (size_t at = 0; at < sigs.size();) {
    size_t end = sigs.find('\n', at);
    std::string_view line = sigs.substr(at, end - at);
    at = end + 1;
    if (++lines > 100) return InvalidArgument("malformed note: too many signatures");
    if (line.substr(0, kDash.size()) != kDash) return InvalidArgument("malformed note: a signature line");
    line.remove_prefix(kDash.size());
    size_t space = line.find(' ');
    if (space == std::string_view::npos) return InvalidArgument("malformed note: a signature line");
    auto raw = Base64Decode(line.substr(space + 1));
    if (!raw.ok() || raw->size() < 5) return InvalidArgument("malformed note: a signature");
    if (line.substr(0, space) != name || raw->substr(0, 4) != *id) continue;  // another key's
    if (raw->size() != 4 + 64 || !Ed25519Verify(public_key, text, raw->substr(4))) {
      return PermissionDenied("the note's signature does not verify");
    }
    return std::string(text);
  }
  return NotFound("the note carries no signature of this key");
}

std::string CheckpointText(std::string_view origin, uint64_t size, std::string_view root_hash) {
  return std::string(origin) + "\n" + std::to_string(size) + "\n" + Base64Encode(root_hash) + "\n";
}

Result<Checkpoint> ParseCheckpoint(std::string_view text) {
  std::vector<std::string_view> lines;
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) return InvalidArgument("a checkpoint's lines end in '\\n'");
    lines.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  if (lines.size() < 3 || lines[0].empty()) return InvalidArgument("a checkpoint has an origin, a size and a hash");
  Checkpoint c;
  c.origin = std::string(lines[0]);
  if (lines[1].empty() || lines[1].size() > 20 || (lines[1].size() > 1 && lines[1][0] == '0')) {
    return InvalidArgument("a checkpoint's size is a decimal number");
  }
  for (char ch : lines[1]) {
    if (ch < '0' || ch > '9') return InvalidArgument("a checkpoint's size is a decimal number");
    c.size = c.size * 10 + static_cast<uint64_t>(ch - '0');
  }
  auto root = Base64Decode(lines[2]);
  if (!root.ok() || root->size() != 32) return InvalidArgument("a checkpoint's root hash is 32 bytes, base64");
  c.root_hash = std::move(*root);
  return c;
}

}  // namespace svc::core::note
