#include "pipeline/adapters/efirma_http.h"

namespace svc::pipeline::adapters {

core::Result<std::unique_ptr<EfirmaVerifier>> EfirmaVerifier::Create(Options options) {
  if (options.clock == nullptr) return core::InvalidArgument("the e.firma verifier needs a clock");
  auto trust = efirma::Trust::FromPem(options.roots_pem);
  if (!trust.ok()) return core::InvalidArgument("--efirma-roots: " + trust.status().message());
  auto v = std::unique_ptr<EfirmaVerifier>(new EfirmaVerifier(std::move(options)));
  v->trust_ = std::move(*trust);
  if (!v->options_.ocsp_url.empty()) {
    SVC_ASSIGN_OR_RETURN(v->client_, GatewayClient::Create("--efirma-ocsp-url", v->options_.ocsp_url, "",
                                                           v->options_.timeout, v->options_.ocsp_ca_file));
  }
  return v;
}

core::Result<EfirmaVerifier::Result> EfirmaVerifier::Verify(std::string_view certificate, std::string_view message,
                                                            std::string_view signature) {
  const auto start = std::chrono::steady_clock::now();
  Result out;
  SVC_ASSIGN_OR_RETURN(out.certificate, efirma::ParseCertificate(certificate));
  const core::Timestamp now = options_.clock->Now();
  efirma::Check check = efirma::CheckEfirma(*trust_, out.certificate, message, signature, now);
  out.reasons = check.reasons;
  if (client_ == nullptr) {
    out.ocsp = "not_checked";
  } else if (check.issuer_der.empty()) {
    out.ocsp = "skipped";  // no chain to the SAT: nobody to ask
  } else {
    auto request = efirma::MakeOcspRequest(out.certificate, check.issuer_der);
    net::SendResult r;
    if (request.ok()) r = client_->Call("POST", "", request->der, {"application/ocsp-request", "application/ocsp-response"});
    auto status = request.ok() && r.status == 200 ? efirma::CheckOcspResponse(r.body, *request, *trust_, now)
                                                  : core::Result<efirma::OcspStatus>(core::Unavailable("no answer"));
    if (!status.ok()) {
      out.ocsp = "unavailable";
      out.reasons.push_back("EFIRMA_OCSP_UNAVAILABLE");
    } else {
      out.ocsp = status->status;
      if (status->status == "revoked") out.reasons.push_back("EFIRMA_REVOKED");
      if (status->status == "unknown") out.reasons.push_back("EFIRMA_OCSP_UNKNOWN");
    }
  }
  out.latency_ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace svc::pipeline::adapters
