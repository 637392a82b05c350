// The review case aggregate, given / when / then (tests/support/decider_spec.h): the template
// for a new area's decider tests. Each case is one row of the aggregate's rules.
#include <doctest/doctest.h>

#include "commands/review/case_decider.h"
#include "tests/support/decider_spec.h"

using namespace svc;
using namespace svc::commands;
using namespace svc::commands::review;
using svc::testing::Data;
using svc::testing::DeciderSpec;
using svc::testing::Types;

namespace {

OpenCase Open(std::string session = "vrf_00000000000000000000000000000001") {
  OpenCase c;
  c.opened.session_id = std::move(session);
  c.opened.tracking_id = "trk_1";
  c.opened.reason = "document mismatch";
  c.opened.reason_codes = {"DOC_MISMATCH", "FACE_LOW"};
  c.opened.priority = "high";
  return c;
}

}  // namespace

TEST_CASE("review case: opening records the case with its session, reasons and priority") {
  DeciderSpec<CaseDecider> spec;
  auto d = spec.When(Open());
  REQUIRE(d.ok());
  CHECK(Types(*d) == std::vector<std::string>{"review.case_opened"});
  core::Json data = Data(d->events[0]);
  CHECK(data["sessionId"] == "vrf_00000000000000000000000000000001");
  CHECK(data["trackingId"] == "trk_1");
  CHECK(data["reasonCodes"] == core::Json::array({"DOC_MISMATCH", "FACE_LOW"}));
  CHECK(data["priority"] == "high");
  CHECK(spec.state.exists);
  CHECK(spec.state.status == "open");
  CHECK(spec.state.session_id == "vrf_00000000000000000000000000000001");
  spec.CheckSnapshot();
}

TEST_CASE("review case: opening again (a resumed pipeline) appends nothing") {
  DeciderSpec<CaseDecider> spec;
  REQUIRE(spec.When(Open()).ok());
  auto again = spec.When(Open("vrf_00000000000000000000000000000002"));
  REQUIRE(again.ok());
  CHECK(again->events.empty());
  CHECK(spec.state.session_id == "vrf_00000000000000000000000000000001");
  CHECK(spec.version == 1);
}

TEST_CASE("review case: its id is derived from the submission's tracking id") {
  CHECK(CaseIdForTracking("trk_1") == CaseIdForTracking("trk_1"));
  CHECK(CaseIdForTracking("trk_1") != CaseIdForTracking("trk_2"));
  CHECK(core::ValidateId(core::IdKind::kCase, CaseIdForTracking("trk_1")).ok());
}

TEST_CASE("review case: an event of another type is refused, an unreadable snapshot is data loss") {
  CaseState s;
  eventstore::EventEnvelope e;
  e.type = "review.something_else";
  e.data = "{}";
  CHECK_FALSE(CaseDecider::Evolve(s, e).ok());
  e.data = "not json";
  e.type = "review.case_opened";
  CHECK_FALSE(CaseDecider::Evolve(s, e).ok());
  CHECK(CaseDecider::FromJson("[]").status().code() == core::StatusCode::kDataLoss);
}
