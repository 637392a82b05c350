// An e.firma certificate (.cer DER or PEM) as a session's e.firma step reads it, and the
// operator's SAT certificates (--efirma-roots, PEM) as the start reads them
// (pipeline/adapters/efirma.h).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "pipeline/adapters/efirma.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  auto cert = svc::pipeline::efirma::ParseCertificate(in);
  auto trust = svc::pipeline::efirma::Trust::FromPem(in);
  if (cert.ok() && trust.ok()) {
    // Its own trust anchor: the chain and usage checks run on whatever the input says.
    (void)svc::pipeline::efirma::CheckEfirma(**trust, *cert, "challenge", "signature",
                                             svc::core::Timestamp{1764633600000000});
  }
  return 0;
}
