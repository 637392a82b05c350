#include "projections/audit/audit_chain.h"

#include <cstring>

#include "core/canonical_json_dom.h"
#include "core/crypto.h"
#include "core/merkle.h"
#include "projections/audit/audit_chain_dom.h"

namespace svc::projections {

namespace {

// 64 lowercase hex characters -> 32 bytes; empty otherwise (the form the log writes, nothing else).
std::string StrictHash(std::string_view hex) {
  if (hex.size() != 64) return {};
  std::string out(32, '\0');
  for (size_t i = 0; i < 32; ++i) {
    int v = 0;
    for (char c : {hex[2 * i], hex[2 * i + 1]}) {
      int n = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
      if (n < 0) return {};
      v = v * 16 + n;
    }
    out[i] = static_cast<char>(v);
  }
  return out;
}

void Copy32(std::array<char, 32>& to, std::string_view from) {
  if (from.size() == 32) std::memcpy(to.data(), from.data(), 32);
}

}  // namespace

ChainLink ReadLink(simdjson::dom::element entry) {
  ChainLink link;
  simdjson::dom::object o;
  if (entry.get_object().get(o) != simdjson::SUCCESS) {
    if (!core::AppendCanonical(entry, link.canonical).ok()) link.canonical.clear();
    return link;
  }
  int64_t id = 0;
  if (o["id"].get_int64().get(id) == simdjson::SUCCESS) link.id = id;
  std::string_view hex;
  if (o["prevHash"].get_string().get(hex) == simdjson::SUCCESS) link.prev_hash = StrictHash(hex);
  if (o["hash"].get_string().get(hex) == simdjson::SUCCESS) link.hash = StrictHash(hex);
  link.object = core::AppendCanonicalObject(o, link.canonical, {"prevHash", "hash"}).ok();
  if (!link.object) link.canonical.clear();
  return link;
}

ChainLink ReadLink(std::string_view text) {
  static thread_local simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (parser.parse(text.data(), text.size(), true).get(root) != simdjson::SUCCESS) return {};
  return ReadLink(root);
}

LinkDigest Digest(const ChainLink& link) {
  LinkDigest d;
  d.id = link.id;
  d.readable = link.object && link.prev_hash.size() == 32 && link.hash.size() == 32;
  d.recomputes = d.readable && core::Sha256Concat({link.prev_hash, link.canonical}) == link.hash;
  Copy32(d.prev_hash, link.prev_hash);
  Copy32(d.hash, link.hash);
  Copy32(d.leaf, core::merkle::LeafHash(link.canonical));
  return d;
}

void ChainWalk::Add(const LinkDigest& link) {
  ++count_;
  if (broken_at_.has_value()) return;
  const int64_t expected = count_;  // every entry so far followed
  if (!link.readable || link.id != expected || link.prev_hash != prev_ || !link.recomputes) {
    broken_at_ = expected;
    return;
  }
  prev_ = link.hash;
}

}  // namespace svc::projections
