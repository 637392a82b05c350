#pragma once
// Small helpers for tests that read HTTP answers.

#include <strings.h>

#include <string>

#include "api/http/http.h"
#include "core/json.h"

namespace svc::testing {

inline std::string HeaderOf(const api::HttpResponse& r, const std::string& name) {
  for (const auto& [k, v] : r.headers) {
    if (strcasecmp(k.c_str(), name.c_str()) == 0) return v;
  }
  return "";
}

inline core::Json Body(const api::HttpResponse& r) { return core::ParseJsonOrDiscarded(r.body); }

}  // namespace svc::testing
