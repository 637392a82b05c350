// The embedded channel's read model, events in and rows out (tests/support/projector_spec.h): a
// flow's record through draft, publish and archive, and each published version kept as sessions
// of that version walk it.
#include <doctest/doctest.h>

#include "commands/embedded/flow_events.h"
#include "commands/event_codec.h"
#include "projections/embedded/embedded_projector.h"
#include "tests/support/projector_spec.h"

namespace projections_embedded_embedded_projector_test {

using namespace svc;
namespace ce = svc::commands::embedded;
using svc::projections::EmbeddedProjector;
using V = svc::projections::EmbeddedView;

namespace {

const std::string kFlow = "flw_00000000000000000000000000000001";

struct Spec : svc::testing::ProjectorSpec<EmbeddedProjector> {
  template <typename E>
  void Feed(const E& e) {
    FeedTyped(std::string(ce::kFlowAggregate), kFlow, e, [](const E& x) { return commands::EncodeEventData(ce::FlowEvent(x)); });
  }
  core::Json Flow() { return Row(V::Flow(tenant, kFlow)); }
};

}  // namespace

TEST_CASE("embedded projector: a flow goes draft, published (each version kept), archived") {
  Spec spec;
  const core::Json first = {{"steps", core::Json::array({"consent", "document"})}};
  spec.Feed(ce::FlowCreated{"onboarding", "Onboarding", first});
  CHECK(spec.Flow()["status"] == "draft");
  CHECK(spec.Flow()["version"] == 0);
  CHECK(spec.Flow()["draft"] == first);
  CHECK(spec.Flow()["publishedAt"].is_null());
  spec.Feed(ce::FlowPublished{1, first, std::string(64, 'a')});
  CHECK(spec.Flow()["status"] == "published");
  CHECK(spec.Flow()["version"] == 1);
  const core::Json second = {{"steps", core::Json::array({"consent", "document", "selfie"})}};
  spec.Feed(ce::FlowDraftUpdated{second});
  spec.Feed(ce::FlowPublished{2, second, std::string(64, 'b')});
  CHECK(spec.Keys(V::FlowVersions(spec.tenant, kFlow)).size() == 2);
  // A session of version 1 still walks version 1.
  core::Json v1 = spec.Row(V::FlowVersion(spec.tenant, kFlow, 1));
  CHECK(v1["definition"] == first);
  CHECK(v1["key"] == "onboarding");
  CHECK(spec.Row(V::FlowVersion(spec.tenant, kFlow, 2))["definitionHash"] == std::string(64, 'b'));
  spec.Feed(ce::FlowArchived{});
  CHECK(spec.Flow()["status"] == "archived");
  CHECK(spec.Flow()["archivedAt"].is_string());
  spec.CheckRebuildIdentical();
}

}  // namespace projections_embedded_embedded_projector_test
