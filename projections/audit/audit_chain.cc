#include "projections/audit/audit_chain.h"

#include <simdjson.h>

#include <string.h>

#include <cstring>

#include "core/canonical_json.h"
#include "core/canonical_json_dom.h"
#include "core/crypto.h"
#include "core/merkle.h"

namespace svc::projections {

namespace {

// 64 lowercase hex characters -> 32 bytes in `out`; false otherwise (the form the log writes,
// nothing else).
bool StrictHashInto(std::string_view hex, char* out) {
  static constexpr auto kNibble = [] {
    std::array<int8_t, 256> t{};
    t.fill(-1);
    for (int c = '0'; c <= '9'; ++c) t[static_cast<size_t>(c)] = static_cast<int8_t>(c - '0');
    for (int c = 'a'; c <= 'f'; ++c) t[static_cast<size_t>(c)] = static_cast<int8_t>(c - 'a' + 10);
    return t;
  }();
  if (hex.size() != 64) return false;
  int bad = 0;
  for (size_t i = 0; i < 32; ++i) {
    const int hi = kNibble[static_cast<unsigned char>(hex[2 * i])], lo = kNibble[static_cast<unsigned char>(hex[2 * i + 1])];
    bad |= hi | lo;  // any -1 sets the sign bit
    out[i] = static_cast<char>((hi << 4) | (lo & 0xf));
  }
  return bad >= 0;
}

std::string StrictHash(std::string_view hex) {
  std::string out(32, '\0');
  return StrictHashInto(hex, out.data()) ? out : std::string();
}

void Copy32(std::array<char, 32>& to, std::string_view from) {
  if (from.size() == 32) std::memcpy(to.data(), from.data(), 32);
}

// A served entry's `reason` (opened from `reasonSealed`) against its `reasonCommitment`:
// HMAC-SHA-256 under `reasonKey` (64 hex). No reason shown (absent or null: the person forgotten,
// or the stored form) has nothing to check.
bool ReasonMatchesCommitment(simdjson::dom::object o) {
  simdjson::dom::element reason;
  if (o.at_key("reason").get(reason) != simdjson::SUCCESS || reason.is_null()) return true;
  std::string_view text, key_hex, commitment_hex;
  if (reason.get_string().get(text) != simdjson::SUCCESS) return false;
  if (o.at_key("reasonKey").get_string().get(key_hex) != simdjson::SUCCESS) return false;
  if (o.at_key("reasonCommitment").get_string().get(commitment_hex) != simdjson::SUCCESS) return false;
  const std::string key = StrictHash(key_hex), commitment = StrictHash(commitment_hex);
  return key.size() == 32 && commitment.size() == 32 && core::HmacSha256(key, text) == commitment;
}

ChainLink ReadLinkDom(simdjson::dom::element entry) {
  ChainLink link;
  simdjson::dom::object o;
  if (entry.get_object().get(o) != simdjson::SUCCESS) {
    if (!core::AppendCanonical(entry, link.canonical).ok()) link.canonical.clear();
    return link;
  }
  // One pass; with a duplicate name the last one counts, as JSON readers (and the canonical form) take it.
  for (auto field : o) {
    if (field.key == "id") {
      int64_t id = 0;
      link.id = field.value.get_int64().get(id) == simdjson::SUCCESS ? std::optional<int64_t>(id) : std::nullopt;
    } else if (field.key == "prevHash" || field.key == "hash") {
      std::string_view hex;
      std::string raw = field.value.get_string().get(hex) == simdjson::SUCCESS ? StrictHash(hex) : std::string();
      (field.key == "hash" ? link.hash : link.prev_hash) = std::move(raw);
    }
  }
  link.canonical.reserve(1024);
  link.canonical.clear();
  // An entry whose reason is sealed was hashed without `reason` and `reasonKey` (the served entry
  // adds them opened); a reason shown must be the one committed to.
  simdjson::dom::element sealed_reason;
  const bool sealed = o.at_key("reasonSealed").get(sealed_reason) == simdjson::SUCCESS;
  if (sealed) link.reason_checks = ReasonMatchesCommitment(o);
  link.object = (sealed ? core::AppendCanonicalObject(o, link.canonical, {"prevHash", "hash", "reason", "reasonKey"})
                        : core::AppendCanonicalObject(o, link.canonical, {"prevHash", "hash"}))
                    .ok();
  if (!link.object) link.canonical.clear();
  return link;
}

}  // namespace

ChainLink ReadLink(std::string_view text) {
  // A parser and a padded copy per thread: simdjson reads a little past the text's end.
  static thread_local simdjson::dom::parser parser;
  static thread_local std::string padded;
  padded.assign(text);
  padded.append(simdjson::SIMDJSON_PADDING, '\0');
  simdjson::dom::element root;
  if (parser.parse(padded.data(), text.size(), false).get(root) != simdjson::SUCCESS) return {};
  return ReadLinkDom(root);
}

LinkDigest Digest(const ChainLink& link) {
  LinkDigest d;
  d.id = link.id;
  d.readable = link.object && link.prev_hash.size() == 32 && link.hash.size() == 32;
  d.recomputes = d.readable && link.reason_checks && core::Sha256Concat({link.prev_hash, link.canonical}) == link.hash;
  Copy32(d.prev_hash, link.prev_hash);
  Copy32(d.hash, link.hash);
  Copy32(d.leaf, core::merkle::LeafHash(link.hash));
  return d;
}

namespace {

// A scanner that accepts exactly text in RFC 8785 form, in the subset an access-log entry uses
// (objects, arrays, strings, integers of up to 18 digits, true, false, null; no floats, no escaped
// member names, depth at most 16) and finds the top level's "id", "prevHash" and "hash". It answers
// "not sure" for anything else, and the caller parses: so it may refuse what is canonical, never
// accept what is not.
class CanonicalScan {
 public:
  struct Member {
    size_t begin = 0, end = 0;  // the member's text, [begin, end)
    size_t value_begin = 0, value_end = 0;
  };
  explicit CanonicalScan(std::string_view text) : t_(text) {}

  bool Run() {
    if (!simdjson::validate_utf8(t_.data(), t_.size())) return false;
    return Value(0) && i_ == t_.size();
  }
  std::optional<Member> id, prev_hash, hash;

 private:
  bool Value(int depth) {
    if (i_ >= t_.size() || depth > 16) return false;
    switch (t_[i_]) {
      case '{': return Object(depth);
      case '[': return Array(depth);
      case '"': return String(nullptr);
      case 't': return Literal("true");
      case 'f': return Literal("false");
      case 'n': return Literal("null");
      default: return Integer();
    }
  }
  bool Literal(std::string_view word) {
    if (t_.substr(i_, word.size()) != word) return false;
    i_ += word.size();
    return true;
  }
  bool Integer() {
    size_t start = i_;
    if (i_ < t_.size() && t_[i_] == '-') ++i_;
    size_t digits = i_;
    while (i_ < t_.size() && t_[i_] >= '0' && t_[i_] <= '9') ++i_;
    const size_t n = i_ - digits;
    if (n == 0 || n > 18 || (n > 1 && t_[digits] == '0')) return false;
    if (n == 1 && t_[digits] == '0' && digits != start) return false;  // -0 is written 0
    if (i_ < t_.size() && (t_[i_] == '.' || t_[i_] == 'e' || t_[i_] == 'E')) return false;  // not an integer
    return true;
  }
  // A string in its minimal escaping; `plain` (when given) is set to whether it has no escape.
  bool String(bool* plain) {
    ++i_;  // the opening quote
    bool escaped = false;
    while (i_ < t_.size()) {
      i_ += core::PlainPrefix(t_.substr(i_));
      if (i_ >= t_.size()) return false;
      unsigned char c = static_cast<unsigned char>(t_[i_]);
      if (c == '"') {
        ++i_;
        if (plain != nullptr) *plain = !escaped;
        return true;
      }
      if (c < 0x20) return false;
      if (c != '\\') {
        ++i_;
        continue;
      }
      escaped = true;
      if (i_ + 1 >= t_.size()) return false;
      char e = t_[i_ + 1];
      if (e == '"' || e == '\\' || e == 'b' || e == 'f' || e == 'n' || e == 'r' || e == 't') {
        i_ += 2;
        continue;
      }
      // \u00XX, lowercase, only for the control characters without a short form.
      if (e != 'u' || i_ + 6 > t_.size() || t_[i_ + 2] != '0' || t_[i_ + 3] != '0') return false;
      auto hex = [](char h) { return h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10 : -1; };
      int hi = hex(t_[i_ + 4]), lo = hex(t_[i_ + 5]);
      if (hi < 0 || lo < 0) return false;
      int code = hi * 16 + lo;
      if (code >= 0x20 || code == '\b' || code == '\f' || code == '\n' || code == '\r' || code == '\t') return false;
      i_ += 6;
    }
    return false;
  }
  bool Array(int depth) {
    ++i_;
    if (i_ < t_.size() && t_[i_] == ']') {
      ++i_;
      return true;
    }
    for (;;) {
      if (!Value(depth + 1)) return false;
      if (i_ >= t_.size()) return false;
      if (t_[i_] == ']') {
        ++i_;
        return true;
      }
      if (t_[i_] != ',') return false;
      ++i_;
    }
  }
  bool Object(int depth) {
    ++i_;
    if (i_ < t_.size() && t_[i_] == '}') {
      ++i_;
      return true;
    }
    std::string_view last_name;
    bool first = true;
    for (;;) {
      const size_t member_begin = i_;
      if (i_ >= t_.size() || t_[i_] != '"') return false;
      bool plain = false;
      if (!String(&plain) || !plain) return false;  // an escaped name: leave it to the parser
      std::string_view name = t_.substr(member_begin + 1, i_ - member_begin - 2);
      if (!first && !Utf16Less(last_name, name)) return false;  // sorted, each name once
      first = false;
      last_name = name;
      if (i_ >= t_.size() || t_[i_] != ':') return false;
      ++i_;
      const size_t value_begin = i_;
      if (!Value(depth + 1)) return false;
      if (depth == 0) {
        Member m{member_begin, i_, value_begin, i_};
        if (name == "id") id = m;
        if (name == "prevHash") prev_hash = m;
        if (name == "hash") hash = m;
      }
      if (i_ >= t_.size()) return false;
      if (t_[i_] == '}') {
        ++i_;
        return true;
      }
      if (t_[i_] != ',') return false;
      ++i_;
    }
  }
  static bool Utf16Less(std::string_view a, std::string_view b) { return core::Utf16Less(a, b); }

  std::string_view t_;
  size_t i_ = 0;
};

// `text` (canonical) without the members a and b (a before b), each with the comma that separates
// it from its neighbour: what RFC 8785 writes for the object without them.
void CutMembers(std::string_view text, CanonicalScan::Member a, CanonicalScan::Member b, std::string& out) {
  auto span = [&](const CanonicalScan::Member& m) {
    // With the comma before it, or (the object's first member) the one after it, if any.
    if (text[m.begin - 1] == ',') return std::pair{m.begin - 1, m.end};
    return std::pair{m.begin, text[m.end] == ',' ? m.end + 1 : m.end};
  };
  auto [a0, a1] = span(a);
  auto [b0, b1] = span(b);
  if (b0 < a1) b0 = a1;  // both claimed the comma between them (a first, b right after)
  out.assign(text.substr(0, a0));
  out.append(text.substr(a1, b0 - a1));
  out.append(text.substr(b1));
}

}  // namespace

LinkDigest DigestText(std::string_view text) {
  CanonicalScan scan(text);
  if (scan.Run() && scan.hash && scan.prev_hash && text.front() == '{') {
    const auto& h = *scan.hash;
    const auto& p = *scan.prev_hash;
    LinkDigest d;
    const std::string_view h_value = text.substr(h.value_begin, h.value_end - h.value_begin);
    const std::string_view p_value = text.substr(p.value_begin, p.value_end - p.value_begin);
    // Both 64-hex strings (as "…", with their quotes), else the parser decides.
    if (h_value.size() == 66 && p_value.size() == 66 && StrictHashInto(h_value.substr(1, 64), d.hash.data()) &&
        StrictHashInto(p_value.substr(1, 64), d.prev_hash.data())) {
      thread_local std::string cut;
      if (h.begin < p.begin) {
        CutMembers(text, h, p, cut);
      } else {
        CutMembers(text, p, h, cut);
      }
      if (scan.id) {
        const std::string_view v = text.substr(scan.id->value_begin, scan.id->value_end - scan.id->value_begin);
        if (v.front() != '-' && v.front() != '"' && v.front() != '{' && v.front() != '[' && v.front() != 't' &&
            v.front() != 'f' && v.front() != 'n') {
          int64_t id = 0;
          for (char c : v) id = id * 10 + (c - '0');
          d.id = id;
        } else if (v.front() == '-') {
          int64_t id = 0;
          for (char c : v.substr(1)) id = id * 10 + (c - '0');
          d.id = -id;
        }
      }
      d.readable = true;
      std::array<char, 32> recomputed;
      core::Sha256Into({std::string_view(d.prev_hash.data(), 32), cut}, recomputed.data());
      d.recomputes = recomputed == d.hash;
      core::Sha256Into({std::string_view("\x00", 1), std::string_view(d.hash.data(), 32)}, d.leaf.data());
      // A mismatch is parsed: a served entry with a sealed reason carries `reason` and `reasonKey`
      // opened, which the hash leaves out.
      if (d.recomputes) return d;
    }
  }
  return Digest(ReadLink(text));
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
