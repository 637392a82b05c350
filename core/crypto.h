#pragma once
// Cryptographic primitives. SHA-256 and HMAC-SHA256 use OpenSSL EVP (it uses the CPU's SHA
// instructions); AEAD, random bytes, constant-time comparison and zeroing use libsodium.
// Byte strings are std::string holding raw bytes unless a name says hex or base64.

#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>

#include "core/status.h"

namespace svc::core {

// Must be called once before any other function here (idempotent, thread-safe).
Status InitCrypto();

std::string Sha256(std::string_view data);                          // 32 raw bytes
std::string Sha256Hex(std::string_view data);                       // 64 hex chars
// SHA-256 of the parts one after the other, without joining them first; 32 raw bytes.
std::string Sha256Concat(std::initializer_list<std::string_view> parts);
// The same into `out` (32 bytes), allocating nothing: for loops that hash millions of entries.
void Sha256Into(std::initializer_list<std::string_view> parts, char* out);
std::string HmacSha256(std::string_view key, std::string_view data);  // 32 raw bytes

// SHA-256 of bytes that arrive in pieces (a streamed upload, a blob read front to back).
class Sha256Stream {
 public:
  Sha256Stream();
  ~Sha256Stream();
  Sha256Stream(const Sha256Stream&) = delete;
  Sha256Stream& operator=(const Sha256Stream&) = delete;
  void Update(std::string_view bytes);
  std::string FinalHex();  // 64 hex characters; the stream starts over after it

 private:
  void* ctx_;  // EVP_MD_CTX
};

// Constant-time equality; different lengths compare unequal (length is not secret).
bool ConstantTimeEquals(std::string_view a, std::string_view b);
std::string RandomBytes(size_t n);
void SecureZero(std::string& s);

// XChaCha20-Poly1305 (IETF). `key` is 32 bytes. The output of Seal is nonce || ciphertext+tag.
inline constexpr size_t kAeadKeyBytes = 32;
std::string AeadSeal(std::string_view key, std::string_view plaintext, std::string_view aad);
Result<std::string> AeadOpen(std::string_view key, std::string_view sealed, std::string_view aad);

// Derives a 32-byte subkey for `context` from a 32-byte master key (BLAKE2b keyed hash), so
// that one master key yields independent keys for independent purposes.
std::string DeriveSubkey(std::string_view master_key, std::string_view context);

// Ed25519 (libsodium). A key pair from a 32-byte seed (deterministic: the same seed, the same
// keys); `secret_key` is libsodium's 64-byte form, `public_key` 32 bytes, signatures 64 bytes.
struct Ed25519KeyPair {
  std::string public_key;
  std::string secret_key;
};
Ed25519KeyPair Ed25519FromSeed(std::string_view seed);
std::string Ed25519Sign(std::string_view secret_key, std::string_view message);
bool Ed25519Verify(std::string_view public_key, std::string_view message,
                   std::string_view signature);

// X25519 sealed boxes (libsodium crypto_box_seal): anyone with the recipient's 32-byte public key
// seals; only the holder of its secret key opens. The sealed form is 48 bytes longer.
struct X25519KeyPair {
  std::string public_key;  // 32 bytes
  std::string secret_key;  // 32 bytes
};
X25519KeyPair X25519Generate();
// The key pair of a 32-byte secret key (its public key computed from it).
Result<X25519KeyPair> X25519FromSecret(std::string_view secret_key);
inline constexpr size_t kX25519KeyBytes = 32;
std::string SealToRecipient(std::string_view recipient_public_key, std::string_view plaintext);
Result<std::string> OpenSealedBox(const X25519KeyPair& recipient, std::string_view sealed);

// A stream of authenticated chunks under one 32-byte key (libsodium secretstream,
// XChaCha20-Poly1305): chunks cannot be reordered, dropped or truncated unseen, the last one
// carries the final tag. Each sealed chunk is 17 bytes longer than its plaintext.
inline constexpr size_t kStreamHeaderBytes = 24;
inline constexpr size_t kStreamChunkOverhead = 17;
class StreamSealer {
 public:
  explicit StreamSealer(std::string_view key);  // writes header()
  const std::string& header() const { return header_; }
  // `ad`: additional data the chunk is bound to (not stored in it).
  std::string Push(std::string_view chunk, bool final, std::string_view ad = {});

 private:
  std::string state_;
  std::string header_;
};
class StreamOpener {
 public:
  static Result<StreamOpener> Start(std::string_view key, std::string_view header);
  // The chunk's plaintext; `*final` says it was the last one.
  Result<std::string> Pull(std::string_view sealed_chunk, bool* final, std::string_view ad = {});

 private:
  std::string state_;
};

// Base64: standard alphabet with padding, and URL-safe without padding.
std::string Base64Encode(std::string_view bytes);
std::string Base64UrlEncode(std::string_view bytes);
Result<std::string> Base64Decode(std::string_view text);
Result<std::string> Base64UrlDecode(std::string_view text);

}  // namespace svc::core
