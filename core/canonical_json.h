#pragma once
// RFC 8785 JSON Canonicalization Scheme (JCS): object members sorted by the UTF-16 code units of
// their names, no whitespace, strings escaped minimally, numbers in ECMAScript's shortest
// round-trip form. Certificates hash and sign this form, so the same content always gives the same
// bytes.

#include <string>

#include "core/json.h"
#include "core/status.h"

namespace svc::core {

// Fails on NaN or infinity (not JSON) and on invalid UTF-8 in strings.
Result<std::string> CanonicalJson(const Json& value);
// ECMAScript Number::toString of a finite double (RFC 8785 section 3.2.2.3).
std::string EcmaScriptNumber(double d);

}  // namespace svc::core
