// The review case aggregate, given / when / then (tests/support/decider_spec.h): the template
// for a new area's decider tests. Each case is one row of the aggregate's rules.
#include <doctest/doctest.h>

#include "commands/review/case_decider.h"
#include "commands/review/case_status.h"
#include "commands/review/reason_codes.h"
#include "commands/tenancy/tenant_decider.h"
#include "commands/verification/session_decider.h"
#include "commands/verification/session_status.h"
#include "tests/support/decider_spec.h"

namespace commands_case_decider_test {

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

namespace {

const CaseActor kAna{"user", "usr_00000000000000000000000000000001"};
const CaseActor kBeto{"user", "usr_00000000000000000000000000000002"};
const CaseActor kBot{"api_key", "key_00000000000000000000000000000001"};

std::string Code(const core::Result<Decision>& r) { return std::string(r.status().api_code()); }

ResolveCase Resolve(std::string action, CaseActor by, bool double_approval = false) {
  ResolveCase r;
  r.action = std::move(action);
  r.by = std::move(by);
  r.note_sealed = "c2VhbGVk";  // a note: the fixture's case is high priority, an approval overrides the engine
  r.double_approval = double_approval;
  return r;
}

}  // namespace

TEST_CASE("review case: one claim at a time; release and reassign move it; the claim gates resolving") {
  DeciderSpec<CaseDecider> spec;
  CHECK(Code(spec.When(ClaimCase{kAna})) == "CASE_NOT_FOUND");
  REQUIRE(spec.When(Open()).ok());
  CHECK(spec.state.priority == "high");
  CHECK(Types(*spec.When(ClaimCase{kAna})) == std::vector<std::string>{"review.case_claimed"});
  CHECK(spec.state.status == "in_progress");
  CHECK(spec.When(ClaimCase{kAna})->events.empty());  // the holder claims again: nothing new
  CHECK(Code(spec.When(ClaimCase{kBeto})) == "CASE_ALREADY_CLAIMED");
  CHECK(Code(spec.When(ReleaseCase{kBeto})) == "CASE_CLAIM_REQUIRED");
  CHECK(Code(spec.When(Resolve("approve", kBeto))) == "CASE_CLAIM_REQUIRED");
  // Notes need no claim.
  CHECK(Types(*spec.When(AddCaseNote{kBeto, "c2VhbGVk"})) == std::vector<std::string>{"review.note_added"});
  REQUIRE(spec.When(ReleaseCase{kAna}).ok());
  CHECK(spec.state.status == "open");
  CHECK(spec.state.assignee.type.empty());
  CHECK(Code(spec.When(ReassignCase{kBeto.id, false, kBot})) == "NOT_A_REVIEWER");
  CHECK(Types(*spec.When(ReassignCase{kBeto.id, true, kBot})) == std::vector<std::string>{"review.case_reassigned"});
  CHECK(spec.state.assignee == kBeto);
  CHECK(spec.state.status == "in_progress");
  CHECK(Code(spec.When(ClaimCase{kAna})) == "CASE_ALREADY_CLAIMED");
  auto done = spec.When(Resolve("decline", kBeto));
  REQUIRE(done.ok());
  CHECK(Types(*done) == std::vector<std::string>{"review.case_resolved"});
  CHECK(done->result["outcome"] == "declined");
  CHECK(Data(done->events[0])["approvers"].size() == 1);
  CHECK(spec.state.status == "resolved");
  CHECK(Code(spec.When(ClaimCase{kAna})) == "CASE_CLOSED");
  CHECK(Code(spec.When(Resolve("approve", kBeto))) == "CASE_CLOSED");
  CHECK(Code(spec.When(ReassignCase{kAna.id, true, kBot})) == "CASE_CLOSED");
  CHECK(spec.When(AddCaseNote{kAna, "c2VhbGVk"})->events.size() == 1);  // a finished case takes notes
  spec.CheckSnapshot();
}

TEST_CASE("review case: double approval needs a second, different reviewer with the same resolution") {
  DeciderSpec<CaseDecider> spec;
  REQUIRE(spec.When(Open()).ok());
  REQUIRE(spec.When(ClaimCase{kAna}).ok());
  auto first = spec.When(Resolve("decline", kAna, true));
  REQUIRE(first.ok());
  CHECK(Types(*first) == std::vector<std::string>{"review.resolution_proposed"});
  CHECK(first->result["awaitingSecondApproval"] == true);
  CHECK(spec.state.status == "open");  // back in the queue for the second reviewer
  CHECK(spec.state.pending_action == "decline");
  // The first reviewer cannot be the second.
  REQUIRE(spec.When(ClaimCase{kAna}).ok());
  CHECK(Code(spec.When(Resolve("decline", kAna, true))) == "SECOND_APPROVAL_REQUIRED");
  REQUIRE(spec.When(ReleaseCase{kAna}).ok());
  REQUIRE(spec.When(ClaimCase{kBeto}).ok());
  auto second = spec.When(Resolve("decline", kBeto, true));
  REQUIRE(second.ok());
  CHECK(Types(*second) == std::vector<std::string>{"review.case_resolved"});
  CHECK(second->result["awaitingSecondApproval"] == false);
  CHECK(Data(second->events[0])["approvers"] ==
        core::Json::array({{{"type", "user"}, {"id", kAna.id}}, {{"type", "user"}, {"id", kBeto.id}}}));
  CHECK(spec.state.status == "resolved");
  spec.CheckSnapshot();
}

TEST_CASE("review case: a second reviewer who disagrees makes a new proposal; request_more_info closes") {
  DeciderSpec<CaseDecider> spec;
  REQUIRE(spec.When(Open()).ok());
  REQUIRE(spec.When(ClaimCase{kAna}).ok());
  REQUIRE(spec.When(Resolve("approve", kAna, true)).ok());
  REQUIRE(spec.When(ClaimCase{kBeto}).ok());
  auto other = spec.When(Resolve("request_more_info", kBeto, true));
  REQUIRE(other.ok());
  CHECK(Types(*other) == std::vector<std::string>{"review.resolution_proposed"});
  CHECK(spec.state.pending_by == kBeto);
  REQUIRE(spec.When(ClaimCase{kAna}).ok());
  auto done = spec.When(Resolve("request_more_info", kAna, true));
  REQUIRE(done.ok());
  CHECK(done->result["outcome"] == "awaiting_input");
  CHECK(spec.state.status == "closed");
}

TEST_CASE("review case: the words for the applicant go with request_more_info only, and a confirmation keeps the proposal's") {
  DeciderSpec<CaseDecider> spec;
  REQUIRE(spec.When(Open()).ok());
  REQUIRE(spec.When(ClaimCase{kAna}).ok());
  auto approve = Resolve("approve", kAna);
  approve.applicant_message_sealed = "c2VhbGVk";
  CHECK(Code(spec.When(approve)) == "VALIDATION_ERROR");
  auto ask = Resolve("request_more_info", kAna, true);
  ask.applicant_message_sealed = "c2VhbGVk";
  auto proposed = spec.When(ask);
  REQUIRE(proposed.ok());
  CHECK(Data(proposed->events[0])["applicantMessageSealed"] == "c2VhbGVk");
  REQUIRE(spec.When(ClaimCase{kBeto}).ok());
  auto done = spec.When(Resolve("request_more_info", kBeto, true));  // confirms without words of its own
  REQUIRE(done.ok());
  CHECK(Types(*done) == std::vector<std::string>{"review.case_resolved"});
  CHECK(Data(done->events[0])["applicantMessageSealed"] == "c2VhbGVk");
  CHECK(spec.state.pending_applicant_message.empty());
  spec.CheckSnapshot();
}

TEST_CASE("review case: escalation raises the priority and returns the case to the queue") {
  DeciderSpec<CaseDecider> spec;
  REQUIRE(spec.When(Open()).ok());
  REQUIRE(spec.When(ClaimCase{kBot}).ok());
  auto up = spec.When(Resolve("escalate", kBot));
  REQUIRE(up.ok());
  CHECK(Types(*up) == std::vector<std::string>{"review.case_escalated"});
  CHECK(Data(up->events[0])["priority"] == "critical");
  CHECK(Data(up->events[0])["level"] == 1);
  CHECK(spec.state.status == "escalated");
  CHECK(spec.state.assignee.type.empty());
  // A note through resolve needs the claim; assign is a claim — a supervisor's, once escalated
  // (issue 69, item 9: it went back to any reviewer).
  CHECK(Code(spec.When(Resolve("note", kAna))) == "CASE_CLAIM_REQUIRED");
  CHECK(Code(spec.When(Resolve("assign", kAna))) == "PERMISSION_DENIED");
  CHECK(Code(spec.When(ClaimCase{kAna})) == "PERMISSION_DENIED");
  auto assign = Resolve("assign", kAna);
  assign.by_supervisor = true;
  CHECK(Types(*spec.When(assign)) == std::vector<std::string>{"review.case_claimed"});
  REQUIRE(spec.When(ReleaseCase{kAna}).ok());
  CHECK(spec.state.status == "escalated");  // still escalated until someone takes it
  REQUIRE(spec.When(ClaimCase{kAna, true}).ok());
  CHECK(Code(spec.When(Resolve("bless", kAna))) == "VALIDATION_ERROR");
  spec.CheckSnapshot();
}

TEST_CASE("review case: a case without a session cannot be approved, declined or sent back") {
  DeciderSpec<CaseDecider> spec;
  REQUIRE(spec.When(Open("")).ok());
  REQUIRE(spec.When(ClaimCase{kAna}).ok());
  CHECK(Code(spec.When(Resolve("approve", kAna))) == "CASE_HAS_NO_SESSION");
  CHECK(spec.When(Resolve("escalate", kAna)).ok());
}

TEST_CASE("review case: the priority policy, from the verdict's reason codes") {
  CHECK(CasePriorityFor({"GOV_CURP_DECEASED", "IMAGE_QUALITY_LOW"}) == "critical");
  CHECK(CasePriorityFor({"FACE_MISMATCH"}) == "high");
  CHECK(CasePriorityFor({"GOV_LOOKUP_UNAVAILABLE", "IMAGE_QUALITY_LOW"}) == "low");
  CHECK(CasePriorityFor({"FACE_MATCH_INCONCLUSIVE"}) == "medium");
  // A suspected attack opens at high priority (issue 69, item 9: it opened at medium, 24 h).
  CHECK(CasePriorityFor({"DEEPFAKE_SUSPECTED", "VIRTUAL_CAMERA"}) == "high");
  CHECK(CasePriorityFor({"CONTAINER_REENCODED"}) == "high");
  CHECK(CasePriorityFor({}) == "medium");
  CHECK(RaisedPriority("low") == "medium");
  CHECK(RaisedPriority("critical") == "critical");
  CHECK(CanonicalPriority("normal") == "medium");
}

// The status machine in one place (commands/review/case_status.h): what each event leaves.
TEST_CASE("review case status: every event's status, escalated cases back to escalated") {
  using svc::commands::review::CaseStatusAfter;
  namespace r = svc::commands::review;
  CHECK(CaseStatusAfter(r::CaseOpened{}, 0) == "open");
  CHECK(CaseStatusAfter(r::CaseClaimed{}, 0) == "in_progress");
  CHECK(CaseStatusAfter(r::CaseReassigned{}, 1) == "in_progress");
  CHECK(CaseStatusAfter(r::CaseReleased{}, 0) == "open");
  CHECK(CaseStatusAfter(r::CaseReleased{}, 1) == "escalated");
  CHECK(CaseStatusAfter(r::ResolutionProposed{}, 0) == "open");
  CHECK(CaseStatusAfter(r::ResolutionProposed{}, 2) == "escalated");
  CHECK(CaseStatusAfter(r::CaseEscalated{}, 0) == "escalated");
  r::CaseResolved resolved;
  resolved.action = "approve";
  CHECK(CaseStatusAfter(resolved, 0) == "resolved");
  resolved.action = "request_more_info";
  CHECK(CaseStatusAfter(resolved, 0) == "closed");
  CHECK_FALSE(CaseStatusAfter(r::CaseNoteAdded{}, 0).has_value());
  CHECK(r::IsFinishedCaseStatus("closed"));
  CHECK_FALSE(r::IsFinishedCaseStatus("escalated"));
  CHECK(r::CaseStatuses().size() == 5);
}

// The policy is the write side's: the reading Decide takes the tenant's review policy from the
// tenant aggregate and the trust score of the session's latest verdict from the session aggregate.
TEST_CASE("review case: the double-approval policy is read from the tenant and the session in the strand") {
  CHECK(NeedsSecondApproval("all", 0, "request_more_info", nullptr));
  CHECK_FALSE(NeedsSecondApproval("all", 0, "escalate", nullptr));
  CHECK(NeedsSecondApproval("declines", 0, "decline", nullptr));
  CHECK_FALSE(NeedsSecondApproval("declines", 0, "approve", nullptr));
  CHECK(NeedsSecondApproval("none", 0.7, "approve", 0.5));
  CHECK_FALSE(NeedsSecondApproval("none", 0.7, "approve", 0.8));
  CHECK_FALSE(NeedsSecondApproval("none", 0.7, "approve", nullptr));  // no score: no doubt
  CHECK_FALSE(NeedsSecondApproval("none", 0, "approve", 0.1));

  tenancy::TenantState tenant;
  tenant.exists = true;
  tenant.review_double_approval = "none";
  tenant.review_trust_below = 0.7;
  verification::SessionState session;
  session.exists = true;
  session.trust_score = 0.5;
  std::any tenant_any = tenant, session_any = session;
  StateReader read = [&](std::string_view type, std::string_view) -> core::Result<AggregateView> {
    if (type == tenancy::TenantDecider::kName) return AggregateView{&tenant_any, 1};
    return AggregateView{&session_any, 1};
  };
  DeciderSpec<CaseDecider> spec;
  REQUIRE(spec.When(Open()).ok());
  REQUIRE(spec.When(ClaimCase{kAna}).ok());
  ResolveCase r = Resolve("approve", kAna);
  r.tenant_id = "ten_1";
  auto first = CaseDecider::Decide(spec.state, CaseCommand(r), read, spec.ctx);
  REQUIRE(first.ok());
  CHECK(first->result["awaitingSecondApproval"] == true);
  // A session above the line: one approval decides.
  session_any = [&] { auto s = session; s.trust_score = 0.9; return s; }();
  auto single = CaseDecider::Decide(spec.state, CaseCommand(r), read, spec.ctx);
  REQUIRE(single.ok());
  CHECK(single->result["outcome"] == "approved");
}

TEST_CASE("review case: reasons come from the catalogue; none records the action's own, never the engine's") {
  DeciderSpec<CaseDecider> spec;
  REQUIRE(spec.When(Open()).ok());
  REQUIRE(spec.When(ClaimCase{kAna}).ok());
  ResolveCase bad = Resolve("approve", kAna);
  bad.reason_codes = {"FACE_MISMATCH"};  // a reason to decline, not to approve
  CHECK(Code(spec.When(bad)) == "VALIDATION_ERROR");
  bad.reason_codes = {"DOC_OK"};  // not in the catalogue at all
  CHECK(Code(spec.When(bad)) == "VALIDATION_ERROR");
  CHECK(spec.state.status == "in_progress");
  auto done = spec.When(Resolve("approve", kAna));
  REQUIRE(done.ok());
  CHECK(Data(done->events[0])["reasonCodes"] == core::Json::array({"REVIEW_APPROVED"}));
  // Every code of the catalogue is found for its action, and each action has its default.
  for (const auto& r : ReasonCatalogue()) {
    // A retake code names the capture the session asks for again (one mapping for both).
    if (!r.capture.empty()) {
      CHECK(svc::commands::verification::RequestedCaptures({std::string(r.code)}) ==
            std::vector<std::string>{std::string(r.capture)});
    }
    CHECK(FindReason(r.action, r.code) != nullptr);
    CHECK(FindReason(r.action, DefaultReason(r.action)) != nullptr);
    CHECK(!r.label_es.empty());
    CHECK(!r.label_en.empty());
  }
}

TEST_CASE("review case: an override of the engine needs a note") {
  CHECK(EngineLean("critical") == "against");
  CHECK(EngineLean("high") == "against");
  CHECK(EngineLean("medium") == "neutral");
  CHECK(EngineLean("low") == "for");
  {  // The engine opened it for a signal against the applicant: approving overrides it.
    DeciderSpec<CaseDecider> spec;
    REQUIRE(spec.When(Open()).ok());  // high priority
    REQUIRE(spec.When(ClaimCase{kAna}).ok());
    ResolveCase approve = Resolve("approve", kAna);
    approve.note_sealed.clear();
    CHECK(Code(spec.When(approve)) == "VALIDATION_ERROR");
    ResolveCase decline = Resolve("decline", kAna);
    decline.note_sealed.clear();
    decline.reason_codes = {"FACE_MISMATCH"};
    auto done = spec.When(decline);  // agrees with the engine: no note needed
    REQUIRE(done.ok());
    CHECK(Data(done->events[0])["reasonCodes"] == core::Json::array({"FACE_MISMATCH"}));
  }
  {  // Opened only because a source was unavailable: declining overrides it.
    DeciderSpec<CaseDecider> spec;
    OpenCase low = Open();
    low.opened.priority = "low";
    REQUIRE(spec.When(low).ok());
    REQUIRE(spec.When(ClaimCase{kAna}).ok());
    ResolveCase decline = Resolve("decline", kAna);
    decline.note_sealed.clear();
    CHECK(Code(spec.When(decline)) == "VALIDATION_ERROR");
    ResolveCase approve = Resolve("approve", kAna);
    approve.note_sealed.clear();
    CHECK(spec.When(approve).ok());
  }
}

TEST_CASE("review case: a case another reviewer holds is reassigned by a supervisor only") {
  DeciderSpec<CaseDecider> spec;
  REQUIRE(spec.When(Open()).ok());
  REQUIRE(spec.When(ClaimCase{kAna}).ok());
  CHECK(Code(spec.When(ReassignCase{kBeto.id, true, kBeto})) == "PERMISSION_DENIED");
  CHECK(spec.state.assignee == kAna);
  ReassignCase by_supervisor{kBeto.id, true, kBot, true};
  CHECK(Types(*spec.When(by_supervisor)) == std::vector<std::string>{"review.case_reassigned"});
  CHECK(spec.state.assignee == kBeto);
  // The holder hands it on themselves.
  CHECK(spec.When(ReassignCase{kAna.id, true, kBeto}).ok());
  CHECK(spec.state.assignee == kAna);
  spec.CheckSnapshot();
}

}  // namespace commands_case_decider_test
