// The sessions read model, events in and rows out (tests/support/projector_spec.h): the record
// through the status machine, the list indexes and counters that follow it, and the expiry index
// the timer reads.
#include <doctest/doctest.h>

#include "commands/verification/session_events.h"
#include "projections/sessions_projector.h"
#include "tests/support/projector_spec.h"

namespace projections_sessions_projector_test {

using namespace svc;
namespace vs = svc::commands::verification;
using svc::projections::SessionsProjector;
using V = svc::projections::SessionsView;

namespace {

const std::string kId = "vrf_00000000000000000000000000000001";
const std::string kApp = "app_00000000000000000000000000000001";

struct Spec : svc::testing::ProjectorSpec<SessionsProjector> {
  std::string te() const { return projections::TenantEnv(tenant, environment); }
  void Feed(const vs::SessionEvent& e) {
    auto env = Event("verification_session", kId, std::string(vs::TypeOf(e)), core::ParseJsonOrDiscarded(vs::EncodeData(e)));
    auto st = ProjectorSpec::Feed(env);
    REQUIRE_MESSAGE(st.ok(), st.ToString());
  }
  core::Json Record() { return Row(V::Record(te(), kId)); }
  int64_t Count(const std::string& filter) {
    auto c = RawRow(V::Counter(te(), filter));
    return c ? std::stoll(*c) : 0;
  }
  size_t Indexed(const std::string& filter) { return Keys(V::Index(te(), filter)).size(); }
  // The unfiltered list's one entry holds the record, byte for byte (a covering index).
  void CheckListed() {
    auto keys = Keys(V::Index(te(), V::All()));
    REQUIRE(keys.size() == 1);
    CHECK(RawRow(keys[0]) == RawRow(V::Record(te(), kId)));
  }
};

vs::SessionCreated Created() {
  vs::SessionCreated c;
  c.public_id = "VS-ABCDEFGHJK";
  c.channel = "api";
  c.application_id = kApp;
  c.client_reference = "order-42";
  c.country = "MX";
  c.locale = "es-MX";
  c.expires_at_micros = 1767312000000000;
  return c;
}

vs::VerdictReached Verdict(const std::string& outcome, double score) {
  vs::VerdictReached v;
  v.type = outcome == "approved" ? "verification.approved" : "verification.more_info_requested";
  v.tracking_id = "trk_1";
  v.outcome = outcome;
  v.trust_score = score;
  return v;
}

}  // namespace

TEST_CASE("sessions projector: created sessions are listed, counted and wait for expiry") {
  Spec spec;
  spec.Feed(Created());
  core::Json r = spec.Record();
  CHECK(r["id"] == kId);
  CHECK(r["status"] == "pending");
  CHECK(r["currentStep"] == "consent");
  CHECK(r["clientReference"] == "order-42");
  CHECK(r["flowId"].is_null());
  CHECK(r["createdAt"] == "2026-01-01T00:00:01.000Z");
  CHECK(r["expiresAt"] == "2026-01-02T00:00:00.000Z");
  core::Json created = spec.Row(V::Created(spec.te(), kId));
  CHECK(created["requiresApp"] == false);
  CHECK(created["status"] == "pending");
  for (const auto& f : {V::All(), V::ByStatus("pending"), V::ByApplication(kApp)}) {
    CHECK(spec.Indexed(f) == 1);
    CHECK(spec.Count(f) == 1);
  }
  CHECK(spec.Keys(V::ExpiryPrefix()).size() == 1);
  spec.CheckListed();
  spec.CheckRebuildIdentical();
}

TEST_CASE("sessions projector: the record, indexes and counters follow the status machine") {
  Spec spec;
  spec.Feed(Created());
  vs::ConsentRecorded consent;
  consent.accepted = true;
  consent.consented_at_micros = 1767225600000000;
  spec.Feed(consent);
  CHECK(spec.Record()["status"] == "in_progress");
  CHECK(spec.Record()["startedAt"].is_string());
  CHECK(spec.Row(V::Consent(spec.te(), kId))["policyVersion"].is_null());
  CHECK(spec.Indexed(V::ByStatus("pending")) == 0);
  CHECK(spec.Count(V::ByStatus("pending")) == 0);
  CHECK(spec.Count(V::ByStatus("in_progress")) == 1);
  spec.CheckListed();

  vs::SessionSubmitted sub;
  sub.tracking_id = "trk_1";
  sub.submission = 1;
  spec.Feed(sub);
  CHECK(spec.Record()["currentStep"] == "processing");
  CHECK(spec.Keys(V::ExpiryPrefix()).empty());  // no expiry while the pipeline runs

  auto more = Verdict("more_info", 0.4);
  more.reason_codes = {"REVIEW_MORE_INFO", "DOCUMENT_UNREADABLE"};
  more.applicant_message_sealed = "c2VhbGVkIHdvcmRz";
  spec.Feed(more);
  CHECK(spec.Record()["status"] == "awaiting_input");
  CHECK(spec.Record()["trustScore"] == 40);
  CHECK(spec.Keys(V::ExpiryPrefix()).size() == 1);  // open again: it can expire again
  // What is asked of the applicant: the codes, the captures they name, the words kept sealed.
  const core::Json asked = spec.Record()["requestedInput"];
  CHECK(asked["reasonCodes"] == core::Json::array({"REVIEW_MORE_INFO", "DOCUMENT_UNREADABLE"}));
  CHECK(asked["captures"] == core::Json::array({"document_front", "document_back"}));
  CHECK(asked["message"].is_null());
  CHECK(asked["messageSealed"] == "c2VhbGVkIHdvcmRz");
  CHECK(asked["requestedAt"] == spec.Record()["updatedAt"]);
  spec.CheckListed();

  spec.Feed(sub);
  CHECK(!spec.Record().contains("requestedInput"));  // submitted again: nothing asked any more
  spec.Feed(Verdict("approved", 0.912));
  core::Json r = spec.Record();
  CHECK(r["status"] == "approved");
  CHECK(r["currentStep"].is_null());
  CHECK(r["trustScore"] == 91);
  CHECK(r["decidedAt"] == r["completedAt"]);
  CHECK(spec.Count(V::All()) == 1);
  CHECK(spec.Count(V::ByStatus("approved")) == 1);
  CHECK(spec.Count(V::ByStatus("in_progress")) == 0);
  CHECK(spec.Count(V::ByStatus("awaiting_input")) == 0);
  CHECK(spec.Indexed(V::ByStatus("approved")) == 1);
  spec.CheckListed();
  CHECK(spec.Keys(V::ExpiryPrefix()).empty());
  spec.CheckRebuildIdentical();
}

TEST_CASE("sessions projector: refused consent abandons; expiry closes; events before creation are data loss") {
  Spec spec;
  spec.Feed(Created());
  vs::ConsentRecorded refused;
  spec.Feed(refused);
  CHECK(spec.Record()["status"] == "abandoned");
  CHECK(spec.Record()["completedAt"].is_string());
  CHECK(spec.Keys(V::ExpiryPrefix()).empty());

  Spec other;
  other.Feed(Created());
  other.Feed(vs::SessionExpired{});
  CHECK(other.Record()["status"] == "expired");
  CHECK(other.Count(V::ByStatus("expired")) == 1);

  Spec empty;
  auto orphan = empty.Event("verification_session", kId, "verification.session_expired", core::Json::object());
  CHECK(empty.ProjectorSpec::Feed(orphan).code() == core::StatusCode::kDataLoss);
}

}  // namespace projections_sessions_projector_test
