// A reviewer's console token (HS256 JWT) as the console's routes read it.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/clock.h"
#include "core/jwt.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  (void)svc::core::LooksLikeJwt(in);
  (void)svc::core::JwtVerifyHs256("a-reviewer-session-key-of-32-bytes!", in, svc::core::Timestamp{1764633600000000});
  return 0;
}
