#pragma once
// RFC 8785 JSON Canonicalization Scheme (JCS): object members sorted by the UTF-16 code units of
// their names, no whitespace, strings escaped minimally, numbers in ECMAScript's shortest
// round-trip form. Certificates hash and sign this form, so the same content always gives the same
// bytes.

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
bool Utf16Less(std::string_view a, std::string_view b);

}  // namespace svc::core
