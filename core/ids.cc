#include "core/ids.h"

#include <sodium.h>

#include <array>
#include <cctype>
#include <cstdio>

namespace svc::core {

std::string_view IdPrefix(IdKind kind) {
  switch (kind) {
    case IdKind::kTenant: return "ten";
    case IdKind::kApplication: return "app";
    case IdKind::kApiKey: return "key";
    case IdKind::kUser: return "usr";
    case IdKind::kPerson: return "per";
    case IdKind::kVerification: return "vrf";
    case IdKind::kEvent: return "evt";
    case IdKind::kClientToken: return "ctok";
    case IdKind::kCase: return "cas";
    case IdKind::kCompany: return "cmp";
    case IdKind::kMedia: return "med";
    case IdKind::kWebhook: return "whe";
    case IdKind::kDelivery: return "whd";
    case IdKind::kRequest: return "req";
    case IdKind::kFlow: return "flw";
    case IdKind::kTracking: return "trk";
    case IdKind::kLivenessChallenge: return "lch";
    case IdKind::kBreach: return "brc";
    case IdKind::kConsent: return "cns";
    case IdKind::kGrant: return "grt";
    case IdKind::kLegalHold: return "lgh";
    case IdKind::kConsolidation: return "csl";
    case IdKind::kImport: return "imp";
    case IdKind::kExport: return "exb";
    case IdKind::kCompanyMember: return "cmm";
    case IdKind::kCompanyDocument: return "cdc";
    case IdKind::kUboNode: return "ubo";
    case IdKind::kScreening: return "scr";
    case IdKind::kScreeningHit: return "hit";
    case IdKind::kPersonExport: return "pxb";
    case IdKind::kArcoRequest: return "arc";
    case IdKind::kOpposition: return "opp";
    case IdKind::kEfirmaChallenge: return "efc";
  }
  return "unk";
}

namespace {
bool IsLowerHex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }

bool LooksLikeUuid(std::string_view s) {
  if (s.size() != 36) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    bool dash = (i == 8 || i == 13 || i == 18 || i == 23);
    if (dash != (s[i] == '-')) return false;
    if (!dash && !std::isxdigit(static_cast<unsigned char>(s[i]))) return false;
  }
  return true;
}
}  // namespace

Status ValidateId(IdKind kind, std::string_view text) {
  std::string_view prefix = IdPrefix(kind);
  if (LooksLikeUuid(text)) {
    return InvalidArgument("a raw UUID is not an identifier here; expected " +
                               std::string(prefix) + "_<32 lowercase hex>",
                           "INVALID_ID");
  }
  if (text.size() != prefix.size() + 1 + 32 || text.substr(0, prefix.size()) != prefix ||
      text[prefix.size()] != '_') {
    return InvalidArgument("expected an identifier of the form " + std::string(prefix) +
                               "_<32 lowercase hex>",
                           "INVALID_ID");
  }
  for (char c : text.substr(prefix.size() + 1)) {
    if (!IsLowerHex(c)) {
      return InvalidArgument("expected an identifier of the form " + std::string(prefix) +
                                 "_<32 lowercase hex>",
                             "INVALID_ID");
    }
  }
  return Status::Ok();
}

std::string IdSource::NewIdString(IdKind kind) {
  std::string out(IdPrefix(kind));
  out += '_';
  out += NewHex128();
  return out;
}

std::string HexEncode(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.resize(bytes.size() * 2);
  for (size_t i = 0; i < bytes.size(); ++i) {
    auto b = static_cast<unsigned char>(bytes[i]);
    out[2 * i] = kDigits[b >> 4];
    out[2 * i + 1] = kDigits[b & 0xf];
  }
  return out;
}

Result<std::string> HexDecode(std::string_view hex) {
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  if (hex.size() % 2 != 0) return InvalidArgument("hex of an odd length");
  std::string out(hex.size() / 2, '\0');
  for (size_t i = 0; i < out.size(); ++i) {
    int hi = nibble(hex[2 * i]), lo = nibble(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return InvalidArgument("not hex");
    out[i] = static_cast<char>(hi << 4 | lo);
  }
  return out;
}

std::string RandomIdSource::NewHex128() {
  // Ids are drawn from the OS random source in blocks of 256 per thread: one getrandom call
  // per block instead of one per id (request ids alone are one per HTTP request).
  struct Pool {
    std::array<unsigned char, 16 * 256> bytes;
    size_t used = sizeof(bytes);
  };
  thread_local Pool pool;
  if (pool.used == pool.bytes.size()) {
    randombytes_buf(pool.bytes.data(), pool.bytes.size());
    pool.used = 0;
  }
  std::string out = HexEncode(
      std::string_view(reinterpret_cast<const char*>(pool.bytes.data() + pool.used), 16));
  sodium_memzero(pool.bytes.data() + pool.used, 16);  // an id handed out is not kept
  pool.used += 16;
  return out;
}

std::string SequentialIdSource::NewHex128() {
  uint64_t n;
  {
    std::lock_guard lock(mu_);
    n = next_++;
  }
  char buf[33];
  std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(seed_),
                static_cast<unsigned long long>(n));
  return std::string(buf, 32);
}

}  // namespace svc::core
