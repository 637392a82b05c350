// The company, list and hit aggregates, given / when / then (tests/support/decider_spec.h): one
// case per rule of commands/kyb/company_decider.h and commands/kyb/screening.h.
#include <doctest/doctest.h>

#include "commands/kyb/company_decider.h"
#include "commands/kyb/screening.h"
#include "commands/persons/person_decider.h"
#include "tests/support/decider_spec.h"

namespace commands_kyb_deciders_test {

using namespace svc;
using namespace svc::commands;
using namespace svc::commands::kyb;
using svc::testing::Code;
using svc::testing::DeciderSpec;
using svc::testing::Types;

namespace {

CreateCompany Create() {
  CreateCompany c;
  c.created.legal_name_sealed = "c2VhbGVk";
  c.created.country = "MX";
  c.created.subject_kind = "legal_entity";
  return c;
}

AddUboNode Node(std::string id, std::string type, std::string pct, std::string parent = "") {
  AddUboNode n;
  n.node.node_id = std::move(id);
  n.node.name_sealed = "bmFtZQ";
  n.node.node_type = std::move(type);
  n.node.ownership_pct = std::move(pct);
  n.node.parent_node_id = std::move(parent);
  return n;
}

const char* kA = "ubo_00000000000000000000000000000001";
const char* kB = "ubo_00000000000000000000000000000002";

}  // namespace

TEST_CASE("company: created as a draft, once; nothing else before it exists") {
  DeciderSpec<CompanyDecider> spec;
  CHECK(Code(spec.When(AddMember{{"cmm_1", "bmFtZQ", "", "", ""}}).status()) == "COMPANY_NOT_FOUND");
  CHECK(Code(spec.When(StartVerification{}).status()) == "COMPANY_NOT_FOUND");
  auto d = spec.When(Create());
  REQUIRE(d.ok());
  CHECK(Types(*d) == std::vector<std::string>{"kyb.company_created"});
  CHECK(spec.state.status == "draft");
  CHECK(Code(spec.When(Create()).status()) == "CONFLICT");
  spec.CheckSnapshot();
}

TEST_CASE("company: ownership nodes need a company parent of the company, and no party owned above 100%") {
  DeciderSpec<CompanyDecider> spec;
  REQUIRE(spec.When(Create()).ok());
  REQUIRE(spec.When(Node(kA, "company", "60")).ok());
  CHECK(Code(spec.When(Node(kB, "person", "10", "ubo_00000000000000000000000000000009")).status()) == "UBO_NODE_NOT_FOUND");
  REQUIRE(spec.When(Node(kB, "person", "100", kA)).ok());
  CHECK(Code(spec.When(Node("ubo_3", "person", "1", kB)).status()) == "VALIDATION_ERROR");  // a person owns nothing
  CHECK(Code(spec.When(Node("ubo_3", "person", "0.5", kA)).status()) == "VALIDATION_ERROR");  // A: 100 + 0.5
  CHECK(Code(spec.When(Node("ubo_3", "person", "40.0001")).status()) == "VALIDATION_ERROR");  // the company: 60 + 40.0001
  REQUIRE(spec.When(Node("ubo_3", "person", "40")).ok());
  REQUIRE(spec.When(Node("ubo_4", "person", "")).ok());  // control only: no share
  CHECK(spec.state.held.at("") == doctest::Approx(100));
  spec.CheckSnapshot();
}

TEST_CASE("company: a run starts once, records each stage once, ends with the risk; a change returns it to draft") {
  DeciderSpec<CompanyDecider> spec;
  REQUIRE(spec.When(Create()).ok());
  auto start = spec.When(StartVerification{});
  REQUIRE(start.ok());
  CHECK(start->result["run"] == 1);
  CHECK(spec.state.status == "verifying");
  auto again = spec.When(StartVerification{});  // the run in progress: the same one
  REQUIRE(again.ok());
  CHECK(again->events.empty());
  CHECK(again->result["started"] == false);
  StageCompleted registry{1, "registry", "passed", {{"outcome", "found"}}};
  CHECK(spec.When(CompleteStage{registry})->events.size() == 1);
  CHECK(spec.When(CompleteStage{registry})->events.empty());  // a resumed verifier repeats nothing
  CHECK(spec.When(CompleteStage{StageCompleted{2, "ownership", "passed", {}}})->events.empty());  // another run's
  CHECK(spec.When(AssessRisk{RiskAssessed{2, 10, "low", "verified", {}, "risk/v1"}})->events.empty());
  REQUIRE(spec.When(AssessRisk{RiskAssessed{1, 10, "low", "verified", {}, "risk/v1"}})->events.size() == 1);
  CHECK(spec.state.status == "verified");
  CHECK(spec.When(CompleteStage{registry})->events.empty());  // the run ended
  REQUIRE(spec.When(AddDocument{{"cdc_1", "acta", "", "s3://x", ""}}).ok());
  CHECK(spec.state.status == "draft");
  CHECK(spec.When(StartVerification{})->result["run"] == 2);
  spec.CheckSnapshot();
}

TEST_CASE("company: members and documents are bounded") {
  DeciderSpec<CompanyDecider> spec;
  REQUIRE(spec.When(Create()).ok());
  for (size_t i = 0; i < kMaxMembers; ++i) REQUIRE(spec.When(AddMember{{"cmm_" + std::to_string(i), "bg", "", "", ""}}).ok());
  CHECK(Code(spec.When(AddMember{{"cmm_x", "bg", "", "", ""}}).status()) == "VALIDATION_ERROR");
}

TEST_CASE("aml list: a version already in force records nothing; a new one does") {
  DeciderSpec<AmlListDecider> spec;
  ListLoaded l{"ofac_sdn", "ofac_sdn_csv", std::string(64, 'a'), {std::string(64, 'b')}, 5, 3, 1};
  auto first = spec.When(LoadList{l});
  REQUIRE(first.ok());
  CHECK(first->result == core::Json({{"unchanged", false}, {"version", 1}}));
  auto same = spec.When(LoadList{l});
  CHECK(same->events.empty());
  CHECK(same->result == core::Json({{"unchanged", true}, {"version", 1}}));
  l.content_hash = std::string(64, 'c');
  CHECK(spec.When(LoadList{l})->result["version"] == 2);
  spec.CheckSnapshot();
}

TEST_CASE("screening hit: found once; reviewed after, any number of times; never before") {
  DeciderSpec<HitDecider> spec;
  HitReviewed confirm{"confirmed", "true_match", "", "api_key", "key_1"};
  CHECK(Code(spec.When(ReviewHit{confirm}).status()) == "SCREENING_NOT_FOUND");
  HitFound f;
  f.screening_id = "scr_1";
  f.subject_type = "name";
  f.entry_id = "9001";
  auto first = spec.When(FindHit{f});
  CHECK(first->result["new"] == true);
  CHECK(first->events.size() == 1);
  auto again = spec.When(FindHit{f});
  CHECK(again->result["new"] == false);
  CHECK(again->events.empty());
  REQUIRE(spec.When(ReviewHit{confirm}).ok());
  CHECK(spec.state.status == "confirmed");
  REQUIRE(spec.When(ReviewHit{{"dismissed", "false_positive", "", "user", "usr_1"}}).ok());
  CHECK(spec.state.status == "dismissed");
  CHECK(Code(spec.When(ReviewHit{{"maybe", "other", "", "user", "usr_1"}}).status()) == "VALIDATION_ERROR");
  spec.CheckSnapshot();
}

TEST_CASE("screening hit: its id derives from the subject and the entry, scoped to the tenant and environment") {
  const std::string a = HitIdFor("ten_1", "test", "member:cmm_1", "ofac_sdn", "9001");
  CHECK(a.rfind("hit_", 0) == 0);
  CHECK(a.size() == 36);
  CHECK(a == HitIdFor("ten_1", "test", "member:cmm_1", "ofac_sdn", "9001"));
  CHECK(a != HitIdFor("ten_1", "live", "member:cmm_1", "ofac_sdn", "9001"));
  CHECK(a != HitIdFor("ten_2", "test", "member:cmm_1", "ofac_sdn", "9001"));
  CHECK(a != HitIdFor("ten_1", "test", "member:cmm_2", "ofac_sdn", "9001"));
  CHECK(a != HitIdFor("ten_1", "test", "member:cmm_1", "ofac_sdn", "9002"));
}

TEST_CASE("company: a member's or node's person and a node's related company are read in the write model") {
  DeciderSpec<CompanyDecider> spec;
  REQUIRE(spec.When(Create()).ok());
  CHECK(spec.state.environment == "test");
  std::map<std::string, std::any> others;
  std::vector<std::unique_ptr<std::any>> initial;
  StateReader read = [&](std::string_view type, std::string_view id) -> core::Result<AggregateView> {
    if (auto it = others.find(std::string(id)); it != others.end()) return AggregateView{&it->second, 1};
    initial.push_back(std::make_unique<std::any>(type == CompanyDecider::kName ? std::any(CompanyState{})
                                                                                : std::any(persons::PersonState{})));
    return AggregateView{initial.back().get(), 0};
  };
  auto decide = [&](const CompanyCommand& c) { return CompanyDecider::Decide(spec.state, c, read, spec.ctx); };
  const std::string person = "per_00000000000000000000000000000001", company = "cmp_00000000000000000000000000000002";

  CHECK(Code(decide(AddMember{{"cmm_1", "bmFtZQ", person, "", ""}}).status()) == "PERSON_NOT_FOUND");
  persons::PersonState p;
  p.exists = true;
  p.environment = "live";
  others[person] = p;
  CHECK(Code(decide(AddMember{{"cmm_1", "bmFtZQ", person, "", ""}}).status()) == "PERSON_NOT_FOUND");  // another environment's
  p.environment = "test";
  others[person] = p;
  CHECK(decide(AddMember{{"cmm_1", "bmFtZQ", person, "", ""}}).ok());
  CHECK(decide(AddMember{{"cmm_2", "bmFtZQ", "", "", ""}}).ok());  // no person named: nothing read

  AddUboNode node = Node(kA, "company", "30");
  node.node.related_company_id = company;
  CHECK(Code(decide(node).status()) == "COMPANY_NOT_FOUND");
  CompanyState other;
  other.exists = true;
  other.environment = "live";
  others[company] = other;
  CHECK(Code(decide(node).status()) == "COMPANY_NOT_FOUND");
  other.environment = "test";
  others[company] = other;
  CHECK(decide(node).ok());
}

TEST_CASE("company: a member's or node's erasure — own key needed, once, then its keys' destruction, once") {
  DeciderSpec<CompanyDecider> spec;
  REQUIRE(spec.When(Create()).ok());
  REQUIRE(spec.When(AddMember{{"cmm_1", "bmFtZQ", "", "", "record"}}).ok());
  REQUIRE(spec.When(AddMember{{"cmm_old", "bmFtZQ", "", "", ""}}).ok());  // sealed under the KYB key
  auto node = Node(kA, "person", "10");
  node.node.sealed_with = "record";
  REQUIRE(spec.When(node).ok());
  REQUIRE(spec.When(Node(kB, "person", "10")).ok());  // a node of before
  auto forget = [](std::string type, std::string id) { return ForgetSubject{{std::move(type), std::move(id), "ticket 9", ""}}; };
  CHECK(Code(spec.When(forget("member", "cmm_nope")).status()) == "COMPANY_MEMBER_NOT_FOUND");
  CHECK(Code(spec.When(forget("member", "cmm_old")).status()) == "COMPANY_MEMBER_NOT_FOUND");  // the routes say CONFLICT
  CHECK(Code(spec.When(forget("ubo_node", kB)).status()) == "CONFLICT");
  CHECK(Code(spec.When(forget("ubo_node", "ubo_x")).status()) == "UBO_NODE_NOT_FOUND");
  CHECK(Code(spec.When(forget("member", kA)).status()) == "COMPANY_MEMBER_NOT_FOUND");  // a node is no member
  CHECK(Code(spec.When(ConfirmSubjectKeysDestroyed{{"member", "cmm_1", {"k"}}}).status()) == "INVALID_STATE_TRANSITION");
  auto d = spec.When(forget("member", "cmm_1"));
  REQUIRE(d.ok());
  CHECK(Types(*d) == std::vector<std::string>{"kyb.subject_forgotten"});
  auto again = spec.When(forget("member", "cmm_1"));
  REQUIRE(again.ok());
  CHECK(again->events.empty());
  auto k = spec.When(ConfirmSubjectKeysDestroyed{{"member", "cmm_1", {"kyb/t/e/c/cmm_1"}}});
  REQUIRE(k.ok());
  CHECK(Types(*k) == std::vector<std::string>{"kyb.subject_keys_destroyed"});
  CHECK(spec.When(ConfirmSubjectKeysDestroyed{{"member", "cmm_1", {"kyb/t/e/c/cmm_1"}}})->events.empty());
  CHECK(spec.When(forget("member", "cmm_1"))->result["keysDestroyed"] == true);
  REQUIRE(spec.When(forget("ubo_node", kA)).ok());
  spec.CheckSnapshot();
}

}  // namespace commands_kyb_deciders_test
