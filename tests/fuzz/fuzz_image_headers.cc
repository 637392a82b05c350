// An uploaded image's header before any decoder sees it (pipeline/verification/engines.h): the
// magic number of the declared type and the width and height read from JPEG, PNG and WebP
// headers. The first byte picks the declared type.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "pipeline/verification/engines.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  static constexpr std::string_view kTypes[] = {"image/jpeg", "image/png", "image/webp", "video/webm", "video/mp4"};
  const std::string_view mime = kTypes[data[0] % 5];
  const std::string_view in(reinterpret_cast<const char*>(data) + 1, size - 1);
  (void)svc::pipeline::verification::MagicMatches(mime, in);
  (void)svc::pipeline::verification::ImageDimensions(mime, in);
  return 0;
}
