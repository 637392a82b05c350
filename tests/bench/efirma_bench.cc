// Benchmark (not a test): what an e.firma possession proof costs (issue 35, item 2). N checks of a
// FIEL of the tests' SAT-like CA (tests/efirma/sat_ca.py), one at a time: the certificate read, the
// challenge's RSA-2048 signature verified, the chain and the FIEL rules checked, then revocation
// asked of OpenSSL's own OCSP responder over HTTP on loopback (a process per request, as
// `openssl ocsp` answers a request file: the responder is most of the time); and the same without
// a responder (the checks alone). Prints p50, p99 and max of each.
//   svc_bench_efirma CHECKS
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/crypto.h"
#include "pipeline/adapters/efirma_http.h"
#include "tests/support/sat_ca_process.h"
#include "tests/support/temp_dir.h"

using namespace svc;

namespace {

std::string Quantiles(std::vector<double> v) {
  if (v.empty()) return "none";
  std::sort(v.begin(), v.end());
  auto at = [&](double q) { return v[std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())))]; };
  char buf[160];
  std::snprintf(buf, sizeof buf, "p50 %.2f ms, p99 %.2f ms, max %.2f ms (n=%zu)", at(0.5), at(0.99), v.back(), v.size());
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::max(1, std::atoi(argv[1])) : 200;
  if (!core::InitCrypto().ok()) return 1;
  testing::TempDir dir;
  testing::SatCaProcess ca(dir.Sub("ca"));
  core::SystemClock clock;
  const std::string cert = ca.read("fiel.cer");
  for (const bool ocsp : {false, true}) {
    pipeline::adapters::EfirmaVerifier::Options o;
    o.roots_pem = ca.read("sat_root.pem");
    o.ocsp_url = ocsp ? ca.ocsp_url() : "";
    o.clock = &clock;
    auto verifier = pipeline::adapters::EfirmaVerifier::Create(o);
    if (!verifier.ok()) {
      std::cerr << verifier.status().ToString() << "\n";
      return 1;
    }
    std::vector<double> ms;
    for (int i = 0; i < n; ++i) {
      const std::string challenge = "svc e.firma possession proof\nchallenge: efc_" + std::to_string(i) + "\n";
      const std::string sig = ca.Sign("fiel", challenge);
      const auto start = std::chrono::steady_clock::now();
      auto r = (*verifier)->Verify(cert, challenge, sig);
      ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
      if (!r.ok() || !r->passed()) {
        std::cerr << "efirma: a check failed: " << (r.ok() ? r->reasons.front() : r.status().ToString()) << "\n";
        return 1;
      }
    }
    std::cout << "efirma: " << (ocsp ? "chain + signature + OCSP (local openssl ocsp responder)" : "chain + signature")
              << ": " << Quantiles(ms) << "\n";
  }
  return 0;
}
