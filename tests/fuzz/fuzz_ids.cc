// Ids, hex and base64 as callers send them in paths and bodies; the query string and the cursors
// of list pages (an altered cursor must be 400 INVALID_CURSOR, never a crash or a wrong page).
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "api/http/pagination.h"
#include "core/crypto.h"
#include "core/ids.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  for (int k = 0; k <= static_cast<int>(svc::core::IdKind::kArcoRequest); ++k) {
    (void)svc::core::ValidateId(static_cast<svc::core::IdKind>(k), in);
  }
  (void)svc::core::HexDecode(in);
  (void)svc::core::Base64Decode(in);
  (void)svc::core::Base64UrlDecode(in);
  auto query = svc::api::ParseQuery(in);
  (void)svc::api::UrlDecode(in);
  (void)svc::api::ParsePageRequest(query, {"status"}, "cursor-key-for-fuzzing", "scope|t|e|list", 20, 100);
  std::map<std::string, std::string> q{{"startingAfter", std::string(in)}};
  (void)svc::api::ParsePageRequest(q, {}, "cursor-key-for-fuzzing", "scope|t|e|list", 20, 100);
  return 0;
}
