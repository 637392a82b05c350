// The captureFacts part of an upload (pipeline/verification/injection.h), and the signals judged
// from what it parses to.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <variant>

#include "pipeline/verification/injection.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace pv = svc::pipeline::verification;
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  auto facts = pv::ParseCaptureFacts(in);
  if (auto* f = std::get_if<pv::CaptureFacts>(&facts)) {
    for (const char* kind : {"selfie", "liveness_video"}) (void)pv::InjectionJson(pv::EvaluateCaptureFacts(*f, kind, "camera"));
    (void)pv::CaptureFactsJson(*f);
  }
  return 0;
}
