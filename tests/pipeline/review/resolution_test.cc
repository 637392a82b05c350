// A reviewer's resolution without HTTP (pipeline/review/resolution.h): the note sealed under the
// session's key, the resolution recorded by the case, and the answer read back
// (projections/review/review_queries.h).
#include <doctest/doctest.h>

#include <future>

#include "commands/review/case_decider.h"
#include "core/crypto.h"
#include "pipeline/review/resolution.h"
#include "projections/review/review_queries.h"
#include "tests/support/runtime_fixture.h"

namespace pipeline_review_resolution_test {

using namespace svc;
namespace rv = svc::commands::review;
namespace pr = svc::pipeline::review;

namespace {

struct ResolutionFixture : testing::RuntimeFixture {
  std::string tenant;
  ResolutionFixture() {
    Open();
    tenant = NewTenant();
    rt->StartProjections();
  }
  core::Result<commands::CommandOutcome> Exec(const std::string& case_id, rv::CaseCommand cmd) {
    return rt->writer().ExecuteAndWait(commands::MakeCommand<rv::CaseDecider>(tenant, case_id, std::move(cmd), Ctx()));
  }
  // An open case of `session`, held by the reviewer key; its id.
  std::string HeldCase(const std::string& session) {
    const std::string id = ids.NewIdString(core::IdKind::kCase);
    rv::OpenCase open;
    open.opened.session_id = session;
    open.opened.tracking_id = "trk_1";
    open.opened.reason = "document mismatch";
    open.opened.reason_codes = {"DOC_MISMATCH"};
    open.opened.priority = "medium";  // neutral: an approval needs no note
    REQUIRE(Exec(id, open).ok());
    REQUIRE(Exec(id, rv::ClaimCase{Reviewer()}).ok());
    return id;
  }
  static rv::CaseActor Reviewer() { return {"api_key", "key_reviewer"}; }
  core::Result<commands::CommandOutcome> Resolve(const std::string& case_id, const std::string& action) {
    rv::ResolveCase cmd;
    cmd.action = action;
    cmd.by = Reviewer();
    cmd.tenant_id = tenant;
    std::promise<core::Result<commands::CommandOutcome>> done;
    pr::ResolveCase({&rt->writer(), &rt->projections(), nullptr, nullptr}, "test", case_id, cmd, Ctx(),
                    [&](core::Result<commands::CommandOutcome> r) { done.set_value(std::move(r)); });
    return done.get_future().get();
  }
};

}  // namespace

TEST_CASE("resolution: a case note is sealed under its session's key, bound to the case") {
  ResolutionFixture f;
  const std::string session = f.ids.NewIdString(core::IdKind::kVerification);
  auto& keys = f.rt->key_store();
  CHECK(pr::SealCaseNote(keys, f.tenant, "test", "cas_1", "", "a note").status().api_code() == "CASE_HAS_NO_SESSION");
  CHECK(pr::SealCaseNote(keys, f.tenant, "test", "cas_1", session, "a note").status().api_code() == "CASE_CLOSED");
  CHECK(*pr::SealCaseNote(keys, f.tenant, "test", "cas_1", "", "") == "");  // no note, nothing to seal

  auto dek = keys.GetOrCreate(eventstore::KeyStore::SessionKeyName(f.tenant, "test", session));
  REQUIRE(dek.ok());
  auto sealed = pr::SealCaseNote(keys, f.tenant, "test", "cas_1", session, "called the applicant");
  REQUIRE(sealed.ok());
  CHECK(sealed->find("applicant") == std::string::npos);
  auto raw = core::Base64Decode(*sealed);
  REQUIRE(raw.ok());
  CHECK(*core::AeadOpen(*dek, *raw, pr::NoteAad("cas_1")) == "called the applicant");
  CHECK_FALSE(core::AeadOpen(*dek, *raw, pr::NoteAad("cas_2")).ok());  // another case's note it is not
}

TEST_CASE("resolution: recorded by the case, answered with the statuses the read models have") {
  ResolutionFixture f;
  const std::string session = f.ids.NewIdString(core::IdKind::kVerification);
  const std::string te = f.tenant + "/test";

  const std::string escalated = f.HeldCase(session);
  auto r = f.Resolve(escalated, "escalate");
  REQUIRE(r.ok());
  CHECK_FALSE(r->result.value("outcome", core::Json()).is_string());  // not final: no session move
  REQUIRE(f.rt->CatchUpProjections().ok());
  auto answer = projections::ResolutionAnswer(f.rt->store(), te, escalated, session, r->result);
  REQUIRE(answer.ok());
  CHECK((*answer)["caseStatus"] == "escalated");
  CHECK((*answer)["awaitingSecondApproval"] == false);
  CHECK((*answer)["sessionStatus"] == "");  // no session record in this test

  const std::string approved = f.HeldCase(session);
  r = f.Resolve(approved, "approve");
  REQUIRE(r.ok());
  CHECK(r->result["outcome"] == "approved");
  REQUIRE(f.rt->CatchUpProjections().ok());
  answer = projections::ResolutionAnswer(f.rt->store(), te, approved, session, r->result);
  REQUIRE(answer.ok());
  CHECK((*answer)["caseStatus"] == "resolved");
  CHECK((*answer)["outcome"] == "approved");

  // A case that does not exist is refused by the case itself; an unknown case is not readable.
  CHECK_FALSE(f.Resolve(f.ids.NewIdString(core::IdKind::kCase), "approve").ok());
  CHECK(projections::ResolutionAnswer(f.rt->store(), te, "cas_missing", "", core::Json::object()).status().code() ==
        core::StatusCode::kUnavailable);
}

}  // namespace pipeline_review_resolution_test
