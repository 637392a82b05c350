#pragma once
// JSON writing. We write JSON with nlohmann::json (ordered, so the bytes we produce follow the
// order we insert, which keeps events and read models byte-for-byte reproducible) and read it with
// simdjson in the codecs. nlohmann is a vocabulary type here, like std::string; see
// docs/decisions.md ("JSON: nlohmann to write, simdjson to read").

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

// nlohmann's members are compiled once, in core/json.cc (issue 70: each of the 336 files that
// include this header compiled its own copies, about a tenth of their time under the sanitizers).
// An optimising build still inlines them where it chooses.
extern template class nlohmann::basic_json<nlohmann::ordered_map>;

namespace svc::core {

using Json = nlohmann::ordered_json;

// Compact serialisation; invalid UTF-8 is replaced rather than thrown on.
std::string DumpJson(const Json& j);

// Null-safe member reads: the fallback when the member is absent, null or of another type
// (nlohmann's value() throws on null).
std::string StringOr(const Json& j, std::string_view key, std::string fallback = "");
int64_t IntOr(const Json& j, std::string_view key, int64_t fallback = 0);
bool BoolOr(const Json& j, std::string_view key, bool fallback = false);
// The string, or null when it is empty (a row's or a body's optional string member).
Json StringOrNull(const std::string& s);

// Parses with nlohmann (for small, non-hot inputs: config, CLI). Hot paths use simdjson.
// Returns a discarded value on error.
Json ParseJsonOrDiscarded(std::string_view text);

}  // namespace svc::core
