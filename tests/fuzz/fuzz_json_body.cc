// A request body as every JSON route reads it: simdjson's parse into a Json value (depth,
// duplicate members), then the validator's accessors over whatever members came.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "api/http/json_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  auto body = svc::api::ParseJsonObject(in);
  if (!body.ok()) return 0;
  svc::api::Validator v(*body);
  for (const char* name : {"name", "url", "channel", "kind", "status", "createdAt", "limit", "accepted", "id"}) {
    (void)v.String(name, false, 64);
    (void)v.Enum(name, false, {"api", "link", "embedded"});
    (void)v.Bool(name, false);
    (void)v.Integer(name, false, -5, 1000);
    (void)v.Url(name, false);
    (void)v.DateTime(name, false);
    (void)v.OpaqueId(name, "vrf", false);
  }
  return 0;
}
