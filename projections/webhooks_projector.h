#pragma once
// Read model of webhook endpoints (prefix "webhooks/"):
//
//   ep/<ten>/<env>/<whe>                          WebhookEndpointResponse, as served
//   sec/<ten>/<env>/<whe>                         the sealed secrets (never served)
//   idx/<ten>/<env>/<inverted created 8B BE><whe> newest first, for the list
//
// Deliveries and attempts join this read model with the delivery issue's next step.

#include "projections/projector.h"

namespace svc::projections {

class WebhooksProjector final : public Projector {
 public:
  static constexpr std::string_view kName = "webhooks";
  std::string_view Name() const override { return kName; }
  int Version() const override { return 1; }
  core::Status Apply(const eventstore::RecordedEvent& event, ViewWriter& view) override;
};

}  // namespace svc::projections
