// An endpoint's secrets at rest (pipeline/webhooks/endpoint_secrets.h): sealed under the
// endpoint's own key, bound to the endpoint, unreadable once the key is gone.
#include <doctest/doctest.h>

#include "pipeline/webhooks/endpoint_secrets.h"
#include "tests/support/key_store_fixture.h"

namespace pipeline_webhooks_endpoint_secrets_test {

using namespace svc;
namespace pw = svc::pipeline::webhooks;

TEST_CASE("endpoint secrets: sealed per endpoint, opened only as that endpoint's") {
  testing::KeyStoreFixture ks;
  auto sealed = pw::SealEndpointSecret(*ks.keys, "ten_1", "test", "whk_1", "whsec_abc");
  REQUIRE(sealed.ok());
  CHECK(sealed->find("whsec_abc") == std::string::npos);
  auto opened = pw::OpenEndpointSecret(*ks.keys, "ten_1", "test", "whk_1", *sealed);
  REQUIRE(opened.ok());
  CHECK(*opened == "whsec_abc");
  // Another endpoint (no key of its own yet) or another environment's: not readable.
  CHECK(pw::OpenEndpointSecret(*ks.keys, "ten_1", "test", "whk_2", *sealed).status().code() == core::StatusCode::kDataLoss);
  CHECK_FALSE(pw::OpenEndpointSecret(*ks.keys, "ten_1", "live", "whk_1", *sealed).ok());
  // A second secret of the endpoint uses the same key; both open.
  auto second = pw::SealEndpointSecret(*ks.keys, "ten_1", "test", "whk_1", "whsec_def");
  REQUIRE(second.ok());
  CHECK(*pw::OpenEndpointSecret(*ks.keys, "ten_1", "test", "whk_1", *second) == "whsec_def");
}

}  // namespace pipeline_webhooks_endpoint_secrets_test
