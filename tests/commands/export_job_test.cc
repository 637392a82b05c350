// The bulk export job, given / when / then (tests/support/decider_spec.h): requested once, access
// events only while queued, completion and failure idempotent, expiry only of a ready dump.
#include <doctest/doctest.h>

#include "commands/persons/export_job.h"
#include "commands/tenancy/tenant_decider.h"
#include "tests/support/decider_spec.h"

namespace commands_export_job_test {

using namespace svc;
using namespace svc::commands;
using namespace svc::commands::persons;
using svc::testing::Code;
using svc::testing::Data;
using svc::testing::DeciderSpec;
using svc::testing::Types;

namespace {

PiiAccessed Access(const std::string& person) {
  PiiAccessed a;
  a.person_id = person;
  a.actor_type = "api_key";
  a.actor_id = "key_00000000000000000000000000000001";
  a.channel = "export_bulk";
  a.fields = {"email"};
  a.purpose = "identity_verification";
  a.reason = "portability";
  a.redaction = "sealed";
  return a;
}

}  // namespace

TEST_CASE("export job: requested once; audited while queued; completed, failed and expired idempotently") {
  DeciderSpec<ExportDecider> spec;
  CHECK(Code(spec.When(RecordExportAccesses{{Access("per_1")}}).status()) == "EXPORT_JOB_NOT_FOUND");
  ExportRequested r;
  r.purpose = "identity_verification";
  r.reason = "portability";
  r.recipient_key_id = "xk_0123456789abcdef";
  r.ttl_seconds = 3600;
  auto d = spec.When(RequestExport{r, ""});
  REQUIRE(d.ok());
  CHECK(Types(*d) == std::vector<std::string>{"persons.export_requested"});
  CHECK(Data(d->events[0])["personIds"] == core::Json::array());
  CHECK(Code(spec.When(RequestExport{r, ""}).status()) == "CONFLICT");
  CHECK(Code(spec.When(ExpireExport{}).status()) == "INVALID_STATE_TRANSITION");  // not ready yet

  d = spec.When(RecordExportAccesses{{Access("per_1"), Access("per_2")}});
  REQUIRE(d.ok());
  CHECK(Types(*d) == std::vector<std::string>{"persons.pii_accessed", "persons.pii_accessed"});
  CHECK(Data(d->events[1])["channel"] == "export_bulk");
  CHECK(spec.state.audited == 2);

  ExportCompleted c{2, 0, {}, 1000, std::string(64, 'a'), 1};
  REQUIRE(spec.When(CompleteExport{c})->events.size() == 1);
  CHECK(spec.state.status == "ready");
  CHECK(spec.When(CompleteExport{c})->events.empty());  // the first completion stands
  CHECK(Code(spec.When(RecordExportAccesses{{Access("per_3")}}).status()) == "INVALID_STATE_TRANSITION");
  CHECK(Code(spec.When(FailExport{{"EXPORT_FAILED", "x"}}).status()) == "INVALID_STATE_TRANSITION");
  d = spec.When(ExpireExport{});
  REQUIRE(d.ok());
  CHECK(Types(*d) == std::vector<std::string>{"persons.export_expired"});
  CHECK(spec.When(ExpireExport{})->events.empty());
  CHECK(spec.state.status == "expired");
}

TEST_CASE("export job: a failed job records its failure once and takes no more access events") {
  DeciderSpec<ExportDecider> spec;
  REQUIRE(spec.When(RequestExport{ExportRequested{}, ""}).ok());
  REQUIRE(spec.When(FailExport{{"EXPORT_FAILED", "disk full"}})->events.size() == 1);
  CHECK(spec.When(FailExport{{"EXPORT_FAILED", "disk full"}})->events.empty());
  CHECK(spec.state.status == "failed");
  CHECK(Code(spec.When(RecordExportAccesses{{Access("per_1")}}).status()) == "INVALID_STATE_TRANSITION");
  CHECK(Code(spec.When(CompleteExport{ExportCompleted{}}).status()) == "INVALID_STATE_TRANSITION");
}

TEST_CASE("export job: the dump's recipient is the tenant's export key in force, read in the write model") {
  tenancy::TenantState tenant;
  tenant.exists = true;
  std::any held = tenant;
  StateReader read = [&](std::string_view type, std::string_view id) -> core::Result<AggregateView> {
    CHECK(type == tenancy::TenantDecider::kName);
    CHECK(id == "ten_1");
    return AggregateView{&held, 1};
  };
  DeciderSpec<ExportDecider> spec;
  ExportRequested r;
  r.purpose = "identity_verification";
  r.reason = "portability";
  r.recipient_key_id = "xk_from_the_caller";  // never trusted: the decision sets it
  auto none = ExportDecider::Decide(spec.state, ExportCommand(RequestExport{r, "ten_1"}), read, spec.ctx);
  CHECK(Code(none.status()) == "EXPORT_KEY_NOT_CONFIGURED");

  tenant.export_key_id = "xk_0123456789abcdef";
  tenant.export_public_key = "cHVibGljLWtleQ";
  held = tenant;
  auto d = ExportDecider::Decide(spec.state, ExportCommand(RequestExport{r, "ten_1"}), read, spec.ctx);
  REQUIRE(d.ok());
  CHECK(Data(d->events[0])["recipientKeyId"] == "xk_0123456789abcdef");
  CHECK(Data(d->events[0])["recipientPublicKey"] == "cHVibGljLWtleQ");
}

}  // namespace commands_export_job_test
