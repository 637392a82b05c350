// The persons read model, events in and rows out (tests/support/projector_spec.h): presence,
// provenance, sealed values, the blind index and the externalRef key; never a value.
#include <doctest/doctest.h>

#include "commands/persons/person_events.h"
#include "projections/persons/persons_projector.h"
#include "tests/support/projector_spec.h"

namespace projections_persons_persons_projector_test {

using namespace svc;
namespace ps = svc::commands::persons;
using svc::projections::PersonsProjector;
using V = svc::projections::PersonsView;

namespace {

const std::string kId = "per_00000000000000000000000000000001";
const std::string kApp = "app_00000000000000000000000000000001";
const std::string kCurpKey = std::string(64, 'a');
const std::string kEmailKey = std::string(64, 'e');

struct Spec : svc::testing::ProjectorSpec<PersonsProjector> {
  std::string te() const { return projections::TenantEnv(tenant, environment); }
  core::Status Feed(const ps::PersonEvent& e) {
    return ProjectorSpec::Feed(Event("person", kId, std::string(ps::TypeOf(e)),
                                     core::ParseJsonOrDiscarded(ps::EncodeData(e))));
  }
  core::Json Record() { return Row(V::Record(te(), kId)); }
  std::vector<std::string> Indexed(const std::string& key) { return Keys(V::BlindIndexed(te(), key)); }
};

ps::PersonCreated Created() {
  ps::PersonCreated c;
  c.application_id = kApp;
  c.external_ref = "user-42";
  c.metadata_sealed = "bWV0YQ==";
  c.pii = {{"curp", {"c2VhbGVkLWN1cnA=", {kCurpKey}}}, {"address", {"c2VhbGVkLWFkZHI=", {}}}};
  c.source = {"api", "", ""};
  return c;
}

}  // namespace

TEST_CASE("persons projector: a created person is masked, listed, indexed and found by externalRef") {
  Spec spec;
  REQUIRE(spec.Feed(Created()).ok());
  core::Json r = spec.Record();
  CHECK(r["object"] == "person");
  CHECK(r["piiVersion"] == 1);
  CHECK(r["curpProvided"] == true);
  CHECK(r["addressProvided"] == true);
  CHECK(r["emailProvided"] == false);
  int provided = 0;
  for (auto it = r.begin(); it != r.end(); ++it) provided += it.key().size() > 8 && it.key().ends_with("Provided");
  CHECK(provided == 17);
  CHECK(r["externalRefs"][0]["externalRef"] == "user-42");
  CHECK(spec.RawRow(V::ExternalRef(spec.te(), kApp, "user-42")) == std::optional<std::string>(kId));
  CHECK(spec.Row(V::Provenance(spec.te(), kId))["curp"]["source"] == "api");
  CHECK(spec.Row(V::Sealed(spec.te(), kId))["curp"]["sealed"] == "c2VhbGVkLWN1cnA=");
  CHECK(spec.Indexed(kCurpKey).size() == 1);
  CHECK(spec.Keys(V::Index(spec.te(), V::All())).size() == 1);
  CHECK(spec.Keys(V::Index(spec.te(), V::ByApplication(kApp))).size() == 1);
  CHECK(spec.RawRow(V::Metadata(spec.te(), kId)) == std::optional<std::string>("bWV0YQ=="));
  spec.CheckRebuildIdentical();
}

TEST_CASE("persons projector: revisions move the blind index and the provenance with the value") {
  Spec spec;
  REQUIRE(spec.Feed(Created()).ok());
  ps::PersonRevised rv;
  rv.pii_version = 2;
  rv.set = {{"curp", {"bmV3LWN1cnA=", {std::string(64, 'b')}}}, {"email", {"ZW1haWw=", {kEmailKey}}}};
  rv.cleared = {"address"};
  rv.metadata_changed = true;  // cleared
  rv.source = {"verification", "vrf_00000000000000000000000000000001", "renapo"};
  REQUIRE(spec.Feed(rv).ok());
  core::Json r = spec.Record();
  CHECK(r["piiVersion"] == 2);
  CHECK(r["addressProvided"] == false);
  CHECK(r["emailProvided"] == true);
  CHECK(spec.Indexed(kCurpKey).empty());  // the old CURP no longer finds this person
  CHECK(spec.Indexed(std::string(64, 'b')).size() == 1);
  CHECK(spec.Indexed(kEmailKey).size() == 1);
  CHECK_FALSE(spec.Row(V::Sealed(spec.te(), kId)).contains("address"));
  CHECK_FALSE(spec.RawRow(V::Metadata(spec.te(), kId)).has_value());
  core::Json prov = spec.Row(V::Provenance(spec.te(), kId));
  CHECK(prov["curp"]["version"] == 2);
  CHECK(prov["curp"]["sessionId"] == "vrf_00000000000000000000000000000001");
  CHECK_FALSE(prov.contains("address"));
  spec.CheckRebuildIdentical();
}

TEST_CASE("persons projector: a revision before the creation is data loss") {
  Spec spec;
  CHECK(spec.Feed(ps::PersonRevised{}).code() == core::StatusCode::kDataLoss);
}

}  // namespace projections_persons_persons_projector_test
