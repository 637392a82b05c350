#pragma once
// RFC 8785 JSON Canonicalization Scheme (JCS): object members sorted by the UTF-16 code units of
// their names, no whitespace, strings escaped minimally, numbers in ECMAScript's shortest
// round-trip form. Certificates hash and sign this form, so the same content always gives the same
// bytes.

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "core/json.h"
#include "core/status.h"

namespace svc::core {

// Fails on NaN or infinity (not JSON) and on invalid UTF-8 in strings.
Result<std::string> CanonicalJson(const Json& value);
// ECMAScript Number::toString of a finite double (RFC 8785 section 3.2.2.3).
std::string EcmaScriptNumber(double d);
// The pieces both writers (this one and canonical_json_dom.h) share: a string escaped minimally
// (RFC 8785 section 3.2.2.2), and member names compared by their UTF-16 code units (3.2.3);
// both take valid UTF-8.
void AppendCanonicalString(std::string& out, std::string_view s);
// How many bytes `s` starts with that a string writes as they are (none below 0x20, no '"', no
// '\\'), found eight at a time (inline: it runs for every string of every entry a verifier reads).
inline size_t PlainPrefix(std::string_view s) {
  constexpr uint64_t kOnes = 0x0101010101010101ULL, kHighs = 0x8080808080808080ULL;
  for (size_t i = 0;;) {
    const size_t n = s.size() - i < 8 ? s.size() - i : 8;
    if (n == 0) return i;
    uint64_t word = 0x2020202020202020ULL;  // a short tail is padded with spaces, which never match
    std::memcpy(&word, s.data() + i, n);
    // The high bit of each byte below 0x20, '"' or '\\'. A borrow can flag a byte above a real
    // match, never below one: the lowest flag is a real match (little-endian: the first byte).
    auto zero = [](uint64_t v) { return (v - kOnes) & ~v; };
    const uint64_t m = (((word - kOnes * 0x20) & ~word) | zero(word ^ (kOnes * '"')) | zero(word ^ (kOnes * '\\'))) & kHighs;
    if (m != 0) return i + (static_cast<size_t>(std::countr_zero(m)) >> 3);
    if (n < 8) return i + n;
    i += 8;
  }
}
bool Utf16Less(std::string_view a, std::string_view b);

}  // namespace svc::core
