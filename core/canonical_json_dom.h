#pragma once
// RFC 8785 (JCS) straight from simdjson's DOM: the same bytes CanonicalJson (canonical_json.h)
// writes for the same JSON, without building an nlohmann tree first. The access log's verifiers
// canonicalise every entry they check (a million in well under a second), so this is their path;
// canonical_json.h stays the writer for values built in code.

#include <simdjson.h>

#include <initializer_list>
#include <string>
#include <string_view>

#include "core/status.h"

namespace svc::core {

// Appends the canonical form of `e` to `out`. Fails on a number simdjson cannot represent
// exactly as it was written (big integers beyond 64 bits are refused by the parser already).
Status AppendCanonical(simdjson::dom::element e, std::string& out);
// Appends the canonical form of the object `o` without the members named in `skip`.
Status AppendCanonicalObject(simdjson::dom::object o, std::string& out,
                             std::initializer_list<std::string_view> skip = {});

}  // namespace svc::core
