// A video's container headers (WebM's EBML, MP4's boxes) read for the injection signals before
// any decoding: bounded work and no read past the input on any bytes.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "pipeline/verification/injection.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace pv = svc::pipeline::verification;
  // A copy of exactly `size` bytes: ASan sees any read past the end.
  const std::string copy(reinterpret_cast<const char*>(data), size);
  auto c = pv::ReadContainerFacts(copy);
  (void)pv::EvaluateContainer(c, "camera");
  (void)pv::EvaluateContainer(c, "");
  return 0;
}
