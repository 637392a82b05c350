// The widget's reads (projections/embedded/embedded_queries.h).
#include <doctest/doctest.h>

#include "projections/embedded/embedded_queries.h"
#include "projections/projector.h"
#include "projections/sessions_view.h"
#include "tests/support/views_fixture.h"

namespace projections_embedded_embedded_queries_test {

using namespace svc;
using SV = projections::SessionsView;

TEST_CASE("embedded queries: the init answer joins the embedded session and its verification session") {
  testing::ViewsFixture views;
  const core::Json embedded = {{"tenantId", "ten_1"},     {"environment", "test"},
                               {"sessionId", "vrf_1"},    {"allowedOrigins", {"https://shop.example.mx"}},
                               {"steps", {"document", "selfie"}}, {"livenessMode", "active"}};
  CHECK(projections::MountAnswer(views.store(), embedded, "ems_1", "atok_x", [](core::Json&) {}).status().code() ==
        core::StatusCode::kUnavailable);  // the session record not projected yet

  views.Put({{SV::Abs(SV::Record("ten_1/test", "vrf_1")),
              R"({"status":"created","expiresAt":"2026-12-01T00:00:00Z","locale":"en-US","flowId":"flw_1"})"}});
  auto answer = projections::MountAnswer(views.store(), embedded, "ems_1", "atok_x", [](core::Json&) {});
  REQUIRE(answer.ok());
  CHECK((*answer)["sessionId"] == "ems_1");
  CHECK((*answer)["verificationSessionId"] == "vrf_1");
  CHECK((*answer)["applicantToken"] == "atok_x");
  CHECK((*answer)["status"] == "mounted");
  CHECK((*answer)["verificationStatus"] == "created");
  CHECK((*answer)["locale"] == "en-US");
  CHECK((*answer)["flow"]["id"] == "flw_1");
  CHECK((*answer)["flow"]["livenessMode"] == "active");
  CHECK((*answer)["allowedOrigins"] == core::Json::array({"https://shop.example.mx"}));
}

}  // namespace projections_embedded_embedded_queries_test
