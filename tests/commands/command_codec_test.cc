// Commands as data (commands/command_codec.h): what a writer on another node decodes and decides.
// Every decider's commands round-trip through DeciderSpec (tests/support/decider_spec.h checks
// each When); here the whole wire form through a real writer: the context and its idempotency
// key, a reading decision, the claims a holder's command checks, and what is refused.
#include <doctest/doctest.h>

#include "commands/claims/claim_decider.h"
#include "commands/command_codec.h"
#include "commands/kyb/company_decider.h"
#include "commands/tenancy/tenant_decider.h"
#include "commands/writer.h"
#include "tests/support/runtime_fixture.h"

namespace commands_command_codec_test {

using namespace svc;
using namespace svc::commands;

namespace {

// The command sent as text and decoded by the fixture's writer, as a remote writer would.
core::Result<Command> Across(testing::RuntimeFixture& f, const Command& c) {
  auto wire = EncodeCommand(c);
  if (!wire.ok()) return wire.status();
  const core::Json received = core::ParseJsonOrDiscarded(core::DumpJson(*wire));
  return DecodeCommand(received, [&f](std::string_view n) { return f.rt->writer().Type(n); }, &f.ids);
}

Command CreateCompany(testing::RuntimeFixture& f, const std::string& tenant, const std::string& id) {
  kyb::CompanyCreated c;
  c.legal_name_sealed = "sealed";
  c.country = "MX";
  c.subject_kind = "legal_entity";
  return MakeCommand<kyb::CompanyDecider>(tenant, id, kyb::CompanyCommand(kyb::CreateCompany{c}), f.Ctx());
}

}  // namespace

TEST_CASE("command codec: a command decided from its wire form is the command; its idempotency key holds across") {
  testing::RuntimeFixture f;
  f.Open();
  const std::string t = f.ids.NewIdString(core::IdKind::kTenant);
  const std::string app = f.ids.NewIdString(core::IdKind::kApplication);
  Command sent = MakeCommand<tenancy::TenantDecider>(t, t, tenancy::TenancyCommand(tenancy::CreateTenant{"Acme", app}),
                                                     f.Ctx("create-acme", std::string(64, 'f')));
  auto wire = EncodeCommand(sent);
  REQUIRE(wire.ok());
  CHECK((*wire)["aggregateType"] == "tenant");
  CHECK((*wire)["command"]["name"] == "CreateTenant");
  CHECK((*wire)["command"]["data"]["name"] == "Acme");
  CHECK((*wire)["context"]["idempotencyKey"] == "create-acme");
  CHECK((*wire)["context"]["actor"] == core::Json{{"type", "system"}, {"id", "test"}});
  CHECK((*wire)["reading"] == false);

  auto decoded = Across(f, sent);
  REQUIRE_MESSAGE(decoded.ok(), decoded.status().ToString());
  CHECK(decoded->context.request_id == sent.context.request_id);
  CHECK(decoded->context.now.micros == sent.context.now.micros);
  auto first = f.rt->writer().ExecuteAndWait(std::move(*decoded));
  REQUIRE_MESSAGE(first.ok(), first.status().ToString());
  CHECK_FALSE(first->replayed);
  // The same request again, this time as sent: the first outcome.
  auto again = f.rt->writer().ExecuteAndWait(std::move(sent));
  REQUIRE(again.ok());
  CHECK(again->replayed);
  CHECK(again->result == first->result);
  CHECK(again->positions.size() == first->positions.size());  // the first answer's, for read-your-writes
}

TEST_CASE("command codec: a claim taken and a holder's checked claims decide the same from the wire") {
  testing::RuntimeFixture f;
  f.Open();
  const std::string t = f.NewTenant();
  const std::string claim = claims::ClaimId("rfc", "test", std::string(64, 'c'));
  const std::string a = "cmp_" + std::string(31, '0') + "a", b = "cmp_" + std::string(31, '0') + "b";
  claims::TakeClaim take;
  take.holder = a;
  take.holder_type = std::string(kyb::CompanyDecider::kName);
  take.conflict_code = "RFC_CONFLICT";
  take.conflict_member = "conflictingCompanyId";
  take.holds.kind = claims::HoldsRule::kCompanyExists;
  auto taking = Across(f, MakeReadingCommand<claims::ClaimDecider>(t, claim, claims::ClaimCommand(take), f.Ctx()));
  REQUIRE_MESSAGE(taking.ok(), taking.status().ToString());
  REQUIRE(f.rt->writer().ExecuteAndWait(std::move(*taking)).ok());

  // b's create checks the claim: refused, naming a, with the catalogue's code.
  Command create_b = CreateCompany(f, t, b);
  claims::RequireClaims(create_b, {{claim, "RFC_CONFLICT", "conflictingCompanyId"}});
  auto wire = EncodeCommand(create_b);
  REQUIRE(wire.ok());
  CHECK((*wire)["reading"] == false);  // the base command; the claims are its own member
  CHECK((*wire)["requiredClaims"][0]["claimId"] == claim);
  auto refused = f.rt->writer().ExecuteAndWait(*Across(f, create_b));
  REQUIRE_FALSE(refused.ok());
  CHECK(std::string(refused.status().api_code()) == "RFC_CONFLICT");
  CHECK(refused.status().extensions() == std::vector<std::pair<std::string, std::string>>{{"conflictingCompanyId", a}});
  // a's create holds it: made.
  Command create_a = CreateCompany(f, t, a);
  claims::RequireClaims(create_a, {{claim, "RFC_CONFLICT", "conflictingCompanyId"}});
  auto made = f.rt->writer().ExecuteAndWait(*Across(f, create_a));
  REQUIRE_MESSAGE(made.ok(), made.status().ToString());
  CHECK(made->positions.size() == 1);

  // Taken again by b once a exists: a holds the value (the rule travelled), so refused.
  take.holder = b;
  auto retake = f.rt->writer().ExecuteAndWait(
      *Across(f, MakeReadingCommand<claims::ClaimDecider>(t, claim, claims::ClaimCommand(take), f.Ctx())));
  REQUIRE_FALSE(retake.ok());
  CHECK(std::string(retake.status().api_code()) == "RFC_CONFLICT");
}

TEST_CASE("command codec: what is not a command is refused, and a command bound by hand has no wire form") {
  testing::RuntimeFixture f;
  f.Open();
  const std::string t = f.NewTenant();
  auto types = [&f](std::string_view n) { return f.rt->writer().Type(n); };
  auto wire = EncodeCommand(CreateCompany(f, t, "cmp_" + std::string(32, '1')));
  REQUIRE(wire.ok());
  core::Json unknown_type = *wire;
  unknown_type["aggregateType"] = "spaceship";
  CHECK(DecodeCommand(unknown_type, types, &f.ids).status().code() == core::StatusCode::kInvalidArgument);
  core::Json unknown_name = *wire;
  unknown_name["command"]["name"] = "LaunchCompany";
  CHECK(DecodeCommand(unknown_name, types, &f.ids).status().code() == core::StatusCode::kInvalidArgument);
  // The tenant decider reads no other aggregate: a wire form that says it does is refused.
  auto tenant_wire = EncodeCommand(MakeCommand<tenancy::TenantDecider>(
      t, t, tenancy::TenancyCommand(tenancy::SetExportKey{"key"}), f.Ctx()));
  REQUIRE(tenant_wire.ok());
  (*tenant_wire)["reading"] = true;
  CHECK(DecodeCommand(*tenant_wire, types, &f.ids).status().code() == core::StatusCode::kInvalidArgument);
  CHECK(DecodeCommand(core::Json::array(), types, &f.ids).status().code() == core::StatusCode::kInvalidArgument);
  CHECK(DecodeCommand(core::Json{{"command", 1}}, types, &f.ids).status().code() == core::StatusCode::kInvalidArgument);
  Command by_hand;
  by_hand.tenant_id = t;
  by_hand.aggregate_type = "tenant";
  by_hand.decide = [](const std::any&, const CommandContext&) -> core::Result<Decision> { return Decision{}; };
  CHECK(EncodeCommand(by_hand).status().code() == core::StatusCode::kFailedPrecondition);
}

TEST_CASE("command codec: a writer's answer crosses as it was: the outcome, or the refusal with its code and extensions") {
  auto across = [](const core::Result<CommandOutcome>& r) {
    auto back = DecodeReply(core::ParseJsonOrDiscarded(core::DumpJson(EncodeReply(r))));
    REQUIRE(back.ok());
    return *back;
  };
  CommandOutcome o;
  o.aggregate_id = "per_0123";
  o.aggregate_version = 7;
  o.positions = {{2, 41}, {2, 42}};
  o.result = core::Json{{"id", "per_0123"}, {"n", 3}};
  o.replayed = true;
  auto ok = across(o);
  REQUIRE(ok.ok());
  CHECK(ok->aggregate_id == "per_0123");
  CHECK(ok->aggregate_version == 7);
  CHECK(ok->positions == o.positions);
  CHECK(ok->result == o.result);
  CHECK(ok->replayed);

  core::Status refused = core::FailedPrecondition("a person with this CURP exists", "CONFLICT");
  refused.WithExtension("conflictingId", "per_9");
  refused.WithJsonExtension("fields", R"(["curp"])");
  auto no = across(refused);
  REQUIRE_FALSE(no.ok());
  CHECK(no.status().code() == core::StatusCode::kFailedPrecondition);
  CHECK(no.status().api_code() == "CONFLICT");
  CHECK(no.status().message() == "a person with this CURP exists");
  CHECK(no.status().extensions() == refused.extensions());
  CHECK(no.status().json_extensions() == refused.json_extensions());

  // A code outside the catalogue, or no "ok", is not an answer.
  CHECK_FALSE(DecodeReply(core::Json{{"ok", false}, {"code", 4}, {"apiCode", "NOT_A_CODE"}}).ok());
  CHECK_FALSE(DecodeReply(core::Json{{"code", 4}}).ok());
  CHECK_FALSE(DecodeReply(core::Json{{"ok", true}, {"positions", core::Json::array({core::Json::array({1})})}}).ok());
}

}  // namespace commands_command_codec_test
