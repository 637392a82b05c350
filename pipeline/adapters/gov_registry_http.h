#pragma once
// The government registry adapter over HTTP: CURP lookups (RENAPO) and INE voter-list checks
// through a registry gateway, the way authorised integrators reach them (RENAPO's consultation
// service and the INE's credential verification service are only open to registered entities,
// usually through a gateway). Base URL and bearer token are configuration
// (--gov-registry-url, SVC_GOV_REGISTRY_TOKEN). The wire protocol is in docs/verification-pipeline.md:
//
//   GET  {base}/curp/{CURP}          200 {curp, statusCurp, fechaNacimiento (DD/MM/YYYY), sexo,
//                                         primerApellido, segundoApellido, nombres} | 404
//   POST {base}/ine/validate         {cic, identificadorCiudadano} ->
//                                    200 {valid: bool, reason: string|null} | 404
//
// Names are used only to derive the CURP's four name letters for the consistency check and are
// dropped at once. Any transport error, timeout or 5xx is `unavailable` (the verdict goes to
// review). https (certificate verification on; --gov-registry-ca-file adds a private CA) or
// http on a private link; one timeout covers connect and exchange; connections are kept and
// reused across lookups (the outbound client of api/webhook_sender.h).

#include <chrono>
#include <memory>
#include <mutex>
#include <vector>

#include "pipeline/adapters/gateway_client.h"
#include "pipeline/verification/engines.h"

namespace svc::pipeline::adapters {

class HttpGovRegistry final : public pipeline::verification::GovRegistry {
 public:
  static core::Result<std::unique_ptr<HttpGovRegistry>> Create(const std::string& base_url,
                                                               std::string token,
                                                               std::chrono::milliseconds timeout,
                                                               std::string ca_file = "");
  ~HttpGovRegistry() override;
  std::string Name() const override { return "gateway"; }
  pipeline::verification::CurpLookup LookupCurp(const std::string& curp) override;
  pipeline::verification::IneLookup LookupIne(const pipeline::verification::IneQuery& q) override;

 private:
  HttpGovRegistry() = default;
  std::unique_ptr<GatewayClient> client_;
};

}  // namespace svc::pipeline::adapters
