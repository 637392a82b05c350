// Reads of the webhooks read model combined for one answer (projections/webhooks_queries.h).
#include <doctest/doctest.h>

#include "projections/webhooks_queries.h"
#include "projections/webhooks_view.h"
#include "tests/support/views_fixture.h"

namespace projections_webhooks_queries_test {

using namespace svc;
using WV = projections::WebhooksView;

TEST_CASE("webhooks queries: a retry needs the delivery and its endpoint, active") {
  testing::ViewsFixture views;
  const std::string te = "ten_1/test";
  views.Put({{WV::Abs(WV::Delivery(te, "whd_active")), R"({"id":"whd_active","endpointId":"whe_on"})"},
             {WV::Abs(WV::Delivery(te, "whd_inactive")), R"({"id":"whd_inactive","endpointId":"whe_off"})"},
             {WV::Abs(WV::Delivery(te, "whd_deleted")), R"({"id":"whd_deleted","endpointId":"whe_gone"})"},
             {WV::Abs(WV::Endpoint(te, "whe_on")), R"({"id":"whe_on","isActive":true})"},
             {WV::Abs(WV::Endpoint(te, "whe_off")), R"({"id":"whe_off","isActive":false})"}});

  auto ok = projections::RetryEndpoint(views.store(), te, "whd_active");
  REQUIRE(ok.ok());
  CHECK(*ok == "whe_on");
  auto code = [&](std::string_view scope, std::string_view delivery) {
    return std::string(projections::RetryEndpoint(views.store(), scope, delivery).status().api_code());
  };
  CHECK(code(te, "whd_inactive") == "WEBHOOK_ENDPOINT_INACTIVE");
  CHECK(code(te, "whd_deleted") == "WEBHOOK_NOT_FOUND");
  CHECK(code(te, "whd_none") == "WEBHOOK_DELIVERY_NOT_FOUND");
  CHECK(code("ten_1/live", "whd_active") == "WEBHOOK_DELIVERY_NOT_FOUND");  // another environment's
}

}  // namespace projections_webhooks_queries_test
