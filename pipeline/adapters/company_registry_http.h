#pragma once
// The company registry over HTTP (docs/kyb.md#registry): lookups of a Mexican company by RFC
// through a registry gateway — the Registro Público de Comercio (SE-SIGER) and the SAT's RFC
// register are reached by authorised integrators through such gateways. Base URL and bearer
// token are configuration (--kyb-registry-url, SVC_KYB_REGISTRY_TOKEN). The wire protocol:
//
//   GET {base}/companies/{RFC}   200 {rfc, razonSocial, estatus (ACTIVA | SUSPENDIDA | DISUELTA |
//                                     CANCELADA | EN_LIQUIDACION), folioMercantil, autoridad,
//                                     fechaConstitucion (YYYY-MM-DD), regimenSocietario,
//                                     actividad, scian} | 404
//
// Any transport error, timeout, 5xx, 401, 403 or 429 is `unavailable` (the company goes to
// review); an answer that does not follow the protocol is `unavailable` too, never a pass.

#include <chrono>
#include <memory>

#include "pipeline/adapters/gateway_client.h"
#include "pipeline/kyb/company_registry.h"

namespace svc::pipeline::adapters {

class HttpCompanyRegistry final : public pipeline::kyb::CompanyRegistry {
 public:
  static core::Result<std::unique_ptr<HttpCompanyRegistry>> Create(const std::string& base_url, std::string token,
                                                                    std::chrono::milliseconds timeout,
                                                                    std::string ca_file = "");
  std::string Name() const override { return "gateway"; }
  pipeline::kyb::RegistryRecord Lookup(const pipeline::kyb::RegistryQuery& q) override;

 private:
  HttpCompanyRegistry() = default;
  std::unique_ptr<GatewayClient> client_;
};

}  // namespace svc::pipeline::adapters
