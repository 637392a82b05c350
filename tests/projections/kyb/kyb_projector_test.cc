// The KYB read model, events in and rows out (tests/support/projector_spec.h): a company's record
// (sealed names only), its lists, the RFC's holder, its members, and the company verifier's queue
// of runs in progress.
#include <doctest/doctest.h>

#include "commands/kyb/company_events.h"
#include "projections/kyb/kyb_projector.h"
#include "tests/support/projector_spec.h"

namespace projections_kyb_kyb_projector_test {

using namespace svc;
namespace kc = svc::commands::kyb;
using svc::projections::KybProjector;
using V = svc::projections::KybView;

namespace {

const std::string kCompany = "cmp_00000000000000000000000000000001";
const std::string kBlind = std::string(64, 'b');

struct Spec : svc::testing::ProjectorSpec<KybProjector> {
  std::string te() const { return projections::TenantEnv(tenant, environment); }
  template <typename E>
  void Feed(const E& e) {
    FeedTyped(std::string(kc::kCompanyAggregate), kCompany, e, [](const E& x) { return kc::EncodeData(kc::CompanyEvent(x)); });
  }
  core::Json Company() { return Row(V::Company(te(), kCompany)); }
};

kc::CompanyCreated Created() {
  kc::CompanyCreated c;
  c.legal_name_sealed = "c2VhbGVkIG5hbWU=";
  c.country = "MX";
  c.rfc_sealed = "c2VhbGVkIHJmYw==";
  c.rfc_blind = kBlind;
  c.rfc_kind = "moral";
  c.subject_kind = "legal_entity";
  return c;
}

}  // namespace

TEST_CASE("kyb projector: a company is stored sealed, listed, and names the RFC's holder") {
  Spec spec;
  spec.Feed(Created());
  core::Json c = spec.Company();
  CHECK(c["id"] == kCompany);
  CHECK(c["status"] == "draft");
  CHECK(c["claimStatus"] == "unclaimed");
  CHECK(c["legalNameSealed"] == "c2VhbGVkIG5hbWU=");
  CHECK(c.dump().find("legalName\"") == std::string::npos);  // never the name in clear
  CHECK(spec.Keys(V::Companies(spec.te())).size() == 1);
  CHECK(spec.Row(V::Rfc(spec.te(), kBlind)) == kCompany);
  spec.CheckRebuildIdentical();
}

TEST_CASE("kyb projector: members are added to the record; a run is queued for the verifier while in progress") {
  Spec spec;
  spec.Feed(Created());
  kc::MemberAdded m;
  m.member_id = "cmm_00000000000000000000000000000001";
  m.name_sealed = "c2VhbGVk";
  m.role = "director";
  spec.Feed(m);
  REQUIRE(spec.Company()["members"].size() == 1);
  CHECK(spec.Company()["members"][0]["id"] == m.member_id);
  CHECK(spec.Company()["members"][0]["role"] == "director");
  spec.Feed(kc::VerificationStarted{1});
  CHECK(spec.Company()["status"] == "verifying");
  core::Json due = spec.Row(V::Due(spec.te(), kCompany));
  CHECK(due["companyId"] == kCompany);
  CHECK(due["run"] == 1);
  spec.CheckRebuildIdentical();
}

}  // namespace projections_kyb_kyb_projector_test
