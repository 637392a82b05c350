// Flows (issue 19, first part): the publish rules of a flow's definition, issue by issue
// (commands/embedded/flow_graph.h), and the flow aggregate, given / when / then.
#include <doctest/doctest.h>

#include "commands/embedded/flow_decider.h"
#include "commands/embedded/flow_graph.h"
#include "tests/support/decider_spec.h"

namespace commands_flow_test {

using namespace svc;
using namespace svc::commands;
using namespace svc::commands::embedded;
using svc::testing::Code;
using svc::testing::DeciderSpec;
using svc::testing::Types;

namespace {

core::Json Step(const std::string& id, const std::string& type, const std::string& next = "") {
  core::Json s = {{"id", id}, {"type", type}};
  if (!next.empty()) s["next"] = next;
  return s;
}

core::Json Basic() {
  return {{"steps", core::Json::array({Step("consent", "consent", "front"), Step("front", "document_front", "back"),
                                       Step("back", "document_back", "selfie"), Step("selfie", "selfie", "live"),
                                       Step("live", "liveness", "submit"), Step("submit", "submit")})},
          {"checks", {{"document", true}, {"faceMatch", true}, {"governmentLookup", true}, {"liveness", true},
                      {"livenessMode", "passive"}}},
          {"policy", {{"faceMatchThreshold", 0.8}, {"livenessThreshold", 0.75}}}};
}

std::vector<std::string> Codes(const core::Json& d) {
  std::vector<std::string> out;
  for (const auto& i : ValidateFlow(d)) out.push_back(i.code);
  return out;
}

bool Has(const core::Json& d, const std::string& code) {
  auto c = Codes(d);
  return std::find(c.begin(), c.end(), code) != c.end();
}

}  // namespace

TEST_CASE("flow graph: a complete flow validates and walks in order") {
  CHECK(ValidateFlow(Basic()).empty());
  CHECK(StepTypesInOrder(Basic()) ==
        std::vector<std::string>{"consent", "document_front", "document_back", "selfie", "liveness", "submit"});
  // Steps may be listed in any order: the graph decides.
  core::Json shuffled = Basic();
  std::reverse(shuffled["steps"].begin(), shuffled["steps"].end());
  CHECK(ValidateFlow(shuffled).empty());
  CHECK(StepTypesInOrder(shuffled).front() == "consent");
  // A document-only flow: the checks that need a selfie and a liveness step are off.
  core::Json doc = {{"steps", core::Json::array({Step("c", "consent", "f"), Step("f", "document_front", "s"),
                                                 Step("s", "submit")})},
                    {"checks", {{"faceMatch", false}, {"liveness", false}}}};
  CHECK(ValidateFlow(doc).empty());
}

TEST_CASE("flow graph: every problem is listed, with where it is") {
  core::Json d = Basic();
  d["steps"][0]["type"] = "dance";
  auto issues = ValidateFlow(d);
  REQUIRE(issues.size() == 1);
  CHECK(issues[0].code == "step_type_unknown");
  CHECK(issues[0].path == "/steps/0/type");

  d = Basic();
  d["steps"][5]["next"] = "consent";  // submit loops back: no start
  CHECK(Has(d, "graph_start"));
  d = Basic();
  d["steps"][2]["next"] = "nowhere";
  CHECK(Has(d, "step_next_unknown"));
  d = Basic();
  d["steps"][4].erase("next");  // liveness stops the path: submit is unreachable (a second start)
  CHECK(Has(d, "graph_start"));
  d = Basic();
  d["steps"][1]["next"] = "selfie";  // front -> selfie; back is left without a predecessor
  CHECK(Has(d, "graph_start"));
  d = Basic();
  d["steps"][1]["id"] = "consent";
  CHECK(Has(d, "step_id_duplicate"));

  // Order: consent first, submit last, the back after the front, the selfie after the front.
  core::Json swapped = {{"steps", core::Json::array({Step("c", "consent", "b"), Step("b", "document_back", "f"),
                                                     Step("f", "document_front", "s"), Step("s", "selfie", "l"),
                                                     Step("l", "liveness", "x"), Step("x", "submit")})}};
  CHECK(Has(swapped, "step_order"));
  core::Json late_consent = {{"steps", core::Json::array({Step("f", "document_front", "c"), Step("c", "consent", "s"),
                                                          Step("s", "selfie", "l"), Step("l", "liveness", "x"),
                                                          Step("x", "submit")})}};
  CHECK(Has(late_consent, "graph_start_not_consent"));

  // Checks need their steps; steps need their checks.
  d = Basic();
  d["steps"] = core::Json::array({Step("c", "consent", "f"), Step("f", "document_front", "x"), Step("x", "submit")});
  CHECK(Has(d, "check_needs_step"));  // faceMatch and liveness are on
  d = Basic();
  d["checks"]["faceMatch"] = false;
  CHECK(Has(d, "step_unused"));  // the selfie feeds nothing
  d = Basic();
  d["checks"]["livenessMode"] = "active";
  CHECK(Has(d, "check_needs_step"));  // the liveness step is passive
  d["steps"][4]["mode"] = "active";
  CHECK(ValidateFlow(d).empty());
  d = Basic();
  d["checks"]["proofOfAddress"] = true;
  CHECK(Has(d, "check_unsupported"));
  // e.firma: the check needs its step, the step its check, and it is asked right before submit.
  d = Basic();
  d["checks"]["efirma"] = true;
  CHECK(Has(d, "check_needs_step"));
  CHECK_FALSE(Has(d, "check_unsupported"));
  d["steps"][4]["next"] = "sign";
  d["steps"].push_back(Step("sign", "efirma", "submit"));
  CHECK(ValidateFlow(d).empty());
  d["steps"][4]["next"] = "submit";  // the efirma step elsewhere: first after consent
  d["steps"][0]["next"] = "sign";
  d["steps"][6]["next"] = "front";
  CHECK(Has(d, "step_order"));
  d["steps"][0]["next"] = "front";
  d["steps"][4]["next"] = "sign";
  d["steps"][6]["next"] = "submit";
  CHECK(ValidateFlow(d).empty());
  CHECK(SessionSettingsOf(d).checks["efirma"] == true);
  CHECK(SessionSettingsOf(d).steps[SessionSettingsOf(d).steps.size() - 2] == "efirma");
  d["checks"]["efirma"] = false;
  CHECK(Has(d, "step_unused"));
  d = Basic();
  d["checks"]["colour"] = true;
  CHECK(Has(d, "check_unknown"));
  d = Basic();
  d["policy"]["faceMatchThreshold"] = 1.5;
  CHECK(Has(d, "policy_invalid"));
  d = Basic();
  d["policy"]["approveAtOrAbove"] = 0.9;
  CHECK(Has(d, "policy_invalid"));
  d = Basic();
  d["policy"]["requireGovernmentLookup"] = "yes";
  CHECK(Has(d, "policy_invalid"));
  CHECK(Has(core::Json::object(), "steps_missing"));
  CHECK(Has(core::Json::array(), "definition_not_object"));
  CHECK(StepTypesInOrder(core::Json::object()).empty());
  CHECK(IssuesJson(ValidateFlow(swapped))[0]["code"] == "step_order");
}

TEST_CASE("flow graph: a passive liveness step may allow a file; the session is told") {
  core::Json d = Basic();
  CHECK_FALSE(SessionSettingsOf(d).checks.contains("livenessFileAllowed"));
  d["steps"][4]["allowFile"] = true;
  CHECK(ValidateFlow(d).empty());
  CHECK(SessionSettingsOf(d).checks["livenessFileAllowed"] == true);
  d["steps"][4]["allowFile"] = false;
  CHECK(ValidateFlow(d).empty());
  CHECK_FALSE(SessionSettingsOf(d).checks.contains("livenessFileAllowed"));
  d["steps"][4]["allowFile"] = "yes";
  CHECK(Has(d, "liveness_allow_file_invalid"));
  // Active liveness answers a challenge live: no file.
  d = Basic();
  d["checks"]["livenessMode"] = "active";
  d["steps"][4]["mode"] = "active";
  CHECK(ValidateFlow(d).empty());
  d["steps"][4]["allowFile"] = true;
  CHECK(Has(d, "liveness_file_needs_passive"));
}

TEST_CASE("flow: created as a draft, published when it validates, versioned, archived for good") {
  DeciderSpec<FlowDecider> spec;
  CHECK(Code(spec.When(PublishFlow{}).status()) == "FLOW_NOT_FOUND");
  CHECK(Code(spec.When(CreateFlow{{"Bad Key", "x", Basic()}}).status()) == "VALIDATION_ERROR");
  core::Json broken = Basic();
  broken["steps"][0]["type"] = "dance";
  REQUIRE(spec.When(CreateFlow{{"kyc-basic", "KYC basic", broken}}).ok());
  CHECK(spec.state.status == "draft");
  auto refused = spec.When(PublishFlow{});
  CHECK(Code(refused.status()) == "FLOW_VALIDATION_FAILED");
  REQUIRE(refused.status().json_extensions().size() == 1);
  CHECK(refused.status().json_extensions()[0].first == "issues");
  CHECK(core::ParseJsonOrDiscarded(refused.status().json_extensions()[0].second)[0]["code"] == "step_type_unknown");
  REQUIRE(spec.When(UpdateFlowDraft{Basic()}).ok());
  auto first = spec.When(PublishFlow{});
  REQUIRE(first.ok());
  CHECK(Types(*first) == std::vector<std::string>{"flow.published"});
  CHECK(first->result["version"] == 1);
  CHECK(spec.When(PublishFlow{})->events.empty());  // nothing changed: the same version
  core::Json changed = Basic();
  changed["policy"]["faceMatchThreshold"] = 0.9;
  REQUIRE(spec.When(UpdateFlowDraft{changed}).ok());
  CHECK(spec.state.status == "published");  // version 1 stays in force while the draft changes
  CHECK(spec.When(PublishFlow{})->result["version"] == 2);
  REQUIRE(spec.When(ArchiveFlow{}).ok());
  CHECK(spec.When(ArchiveFlow{})->events.empty());
  CHECK(Code(spec.When(PublishFlow{}).status()) == "FLOW_NOT_PUBLISHABLE");
  CHECK(Code(spec.When(UpdateFlowDraft{Basic()}).status()) == "FLOW_NOT_PUBLISHABLE");
  spec.CheckSnapshot();
  CHECK(ValidFlowKey("kyc-basic_2"));
  CHECK_FALSE(ValidFlowKey("-x"));
  CHECK_FALSE(ValidFlowKey(""));
  CHECK_FALSE(ValidFlowKey(std::string(65, 'a')));
}

}  // namespace commands_flow_test
