// The review read model, events in and rows out (tests/support/projector_spec.h): a case through
// its status machine — the record, the queue and the open queue, the summary counters, the
// session's latest case, the change feed — and the outcome writer's queue of moves, which the
// session's review verdict ends.
#include <doctest/doctest.h>

#include "commands/review/case_decider.h"
#include "commands/review/case_events.h"
#include "commands/verification/session_events.h"
#include "projections/review/review_projector.h"
#include "tests/support/projector_spec.h"

namespace projections_review_review_projector_test {

using namespace svc;
namespace rv = svc::commands::review;
using svc::projections::ReviewProjector;
using V = svc::projections::ReviewView;

namespace {

const std::string kCase = "cas_00000000000000000000000000000001";
const std::string kSession = "vrf_00000000000000000000000000000001";
const rv::CaseActor kAna{"user", "usr_00000000000000000000000000000001"};

struct Spec : svc::testing::ProjectorSpec<ReviewProjector> {
  std::string te() const { return projections::TenantEnv(tenant, environment); }
  template <typename E>
  void Feed(const E& e) {
    FeedTyped(std::string(rv::CaseDecider::kName), kCase, e, [](const E& x) { return rv::EncodeData(rv::CaseEvent(x)); });
  }
  core::Json Case() { return Row(V::Case(te(), kCase)); }
  core::Json Summary() { return Row(V::Summary(te())); }
};

rv::CaseOpened Opened() {
  rv::CaseOpened o;
  o.session_id = kSession;
  o.tracking_id = "trk_1";
  o.reason = "document mismatch";
  o.reason_codes = {"DOC_MISMATCH"};
  o.priority = "high";
  return o;
}

}  // namespace

TEST_CASE("review projector: a case is listed in both queues, counted, found by its session and fed") {
  Spec spec;
  spec.Feed(Opened());
  core::Json c = spec.Case();
  CHECK(c["caseId"] == kCase);
  CHECK(c["status"] == "open");
  CHECK(c["priority"] == "high");
  CHECK(c["sessionId"] == kSession);
  CHECK(spec.Keys(V::Queue(spec.te())).size() == 1);
  CHECK(spec.Keys(V::OpenQueue(spec.te())).size() == 1);
  CHECK(spec.Summary()["open"] == 1);
  CHECK(spec.Summary()["total"] == 1);
  CHECK(*spec.RawRow(V::BySession(spec.te(), kSession)) == kCase);
  CHECK(spec.Keys(V::Feed(spec.te())).size() == 1);
  spec.CheckRebuildIdentical();
}

TEST_CASE("review projector: claim and final resolution move the case, its counters and the open queue; the verdict ends the move") {
  Spec spec;
  spec.Feed(Opened());
  spec.Feed(rv::CaseClaimed{kAna});
  CHECK(spec.Case()["status"] == "in_progress");
  CHECK(spec.Summary()["open"] == 0);
  CHECK(spec.Summary()["inProgress"] == 1);
  rv::CaseResolved resolved;
  resolved.action = "decline";
  resolved.reason_codes = {"DOC_FORGED"};
  resolved.by = kAna;
  resolved.approvers = {kAna};
  spec.Feed(resolved);
  CHECK(spec.Case()["status"] == "resolved");
  CHECK(spec.Summary()["inProgress"] == 0);
  CHECK(spec.Summary()["resolved"] == 1);
  CHECK(spec.Summary()["total"] == 1);
  // Finished: out of the open queue, still in the whole one.
  CHECK(spec.Keys(V::OpenQueue(spec.te())).empty());
  CHECK(spec.Keys(V::Queue(spec.te())).size() == 1);
  // The outcome writer's queue holds the session's move until the session records the verdict.
  core::Json move = spec.Row(V::Move(spec.te(), kCase));
  CHECK(move["sessionId"] == kSession);
  CHECK(move["action"] == "decline");
  CHECK(spec.Keys(V::Feed(spec.te())).size() == 3);
  // A verdict of the session that is not the review's leaves the move; the review's ends it.
  auto verdict = [&](const std::string& decided_by) {
    core::Json data = {{"trackingId", "trk_1"}, {"outcome", "declined"}, {"caseId", kCase},
                       {"decision", {{"decidedBy", decided_by}}}};
    auto st = spec.ProjectorSpec::Feed(
        spec.Event(std::string(commands::verification::kSessionAggregate), kSession, "verification.declined", data));
    REQUIRE(st.ok());
  };
  verdict("pipeline");
  CHECK(spec.Row(V::Move(spec.te(), kCase)).is_object());
  verdict("review");
  CHECK(spec.Row(V::Move(spec.te(), kCase)).is_null());
  spec.CheckRebuildIdentical();
}

}  // namespace projections_review_review_projector_test
