#include "commands/embedded/flow_graph.h"

#include <algorithm>
#include <map>
#include <set>

namespace svc::commands::embedded {

namespace {

const std::set<std::string> kTypes = {"consent", "document_front", "document_back", "selfie", "liveness", "efirma",
                                      "submit"};
const std::set<std::string> kChecks = {"document", "faceMatch", "governmentLookup", "liveness", "livenessMode",
                                       "amlScreening", "efirma", "proofOfAddress"};

bool On(const core::Json& checks, const char* name, bool fallback) {
  if (!checks.is_object() || !checks.contains(name)) return fallback;
  return checks[name].is_boolean() ? checks[name].get<bool>() : fallback;
}

}  // namespace

core::Json IssuesJson(const std::vector<FlowIssue>& issues) {
  core::Json out = core::Json::array();
  for (const auto& i : issues) out.push_back({{"code", i.code}, {"path", i.path}, {"message", i.message}});
  return out;
}

std::vector<std::string> StepTypesInOrder(const core::Json& definition) {
  if (!ValidateFlow(definition).empty()) return {};
  const core::Json& steps = definition["steps"];
  std::map<std::string, const core::Json*> by_id;
  std::set<std::string> named;
  for (const auto& s : steps) {
    by_id[s["id"].get<std::string>()] = &s;
    if (s.contains("next") && s["next"].is_string()) named.insert(s["next"].get<std::string>());
  }
  std::string at;
  for (const auto& [id, s] : by_id) {
    if (named.count(id) == 0) at = id;
  }
  std::vector<std::string> out;
  while (!at.empty()) {
    const core::Json& s = *by_id[at];
    out.push_back(s["type"].get<std::string>());
    at = s.contains("next") && s["next"].is_string() ? s["next"].get<std::string>() : "";
  }
  return out;
}

std::vector<FlowIssue> ValidateFlow(const core::Json& d) {
  std::vector<FlowIssue> issues;
  auto add = [&](std::string code, std::string path, std::string message) {
    issues.push_back({std::move(code), std::move(path), std::move(message)});
  };
  if (!d.is_object()) {
    add("definition_not_object", "", "a flow definition is a JSON object");
    return issues;
  }
  for (auto it = d.begin(); it != d.end(); ++it) {
    if (it.key() != "steps" && it.key() != "checks" && it.key() != "policy") {
      add("member_unknown", "/" + it.key(), "a definition holds steps, checks and policy");
    }
  }
  const core::Json steps = d.value("steps", core::Json());
  if (!steps.is_array() || steps.empty()) {
    add("steps_missing", "/steps", "steps is a non-empty array");
    return issues;
  }
  if (steps.size() > 20) add("steps_too_many", "/steps", "a flow has at most 20 steps");
  std::map<std::string, size_t> index;
  std::map<std::string, std::string> type_of, next_of;
  for (size_t i = 0; i < steps.size(); ++i) {
    const std::string p = "/steps/" + std::to_string(i);
    const core::Json& s = steps[i];
    if (!s.is_object() || !s.contains("id") || !s["id"].is_string() || s["id"].get<std::string>().empty()) {
      add("step_id_missing", p + "/id", "every step has a non-empty string id");
      continue;
    }
    const std::string id = s["id"].get<std::string>();
    if (index.count(id) != 0) add("step_id_duplicate", p + "/id", "step id " + id + " is used twice");
    index[id] = i;
    const std::string type = s.value("type", "");
    if (kTypes.count(type) == 0) {
      add("step_type_unknown", p + "/type",
          "type is one of consent, document_front, document_back, selfie, liveness, efirma, submit");
    }
    type_of[id] = type;
    if (type == "liveness") {
      const std::string mode = s.value("mode", "passive");
      if (mode != "passive" && mode != "active") add("liveness_mode_unknown", p + "/mode", "mode is passive or active");
      if (s.contains("allowFile")) {
        if (!s["allowFile"].is_boolean()) {
          add("liveness_allow_file_invalid", p + "/allowFile", "allowFile is true or false");
        } else if (s["allowFile"] == true && mode != "passive") {
          // An active challenge is answered live; a chosen file cannot have seen its actions.
          add("liveness_file_needs_passive", p + "/allowFile", "a file may be chosen for passive liveness only");
        }
      }
    }
    if (s.contains("next") && !s["next"].is_null()) {
      if (!s["next"].is_string()) add("step_next_invalid", p + "/next", "next is a step id");
      else next_of[id] = s["next"].get<std::string>();
    }
  }
  // The graph is judged on well-formed steps only; checks and policy are judged regardless, so
  // the list holds every issue at once.
  std::map<std::string, int> types;
  for (const auto& [id, type] : type_of) ++types[type];
  if (issues.empty()) {
    for (const auto& [id, next] : next_of) {
      if (index.count(next) == 0) {
        add("step_next_unknown", "/steps/" + std::to_string(index[id]) + "/next", "next names no step: " + next);
      }
    }
    for (const auto& [type, n] : types) {
      if (n > 1) add("step_type_repeated", "/steps", "a flow has one " + type + " step");
    }
    // One start, a path through every step, no cycle.
    std::map<std::string, int> incoming;
    for (const auto& [id, next] : next_of) ++incoming[next];
    for (const auto& [id, n] : incoming) {
      if (n > 1) add("graph_merge", "/steps/" + std::to_string(index[id]), "two steps lead to " + id);
    }
    std::vector<std::string> starts;
    for (const auto& [id, i] : index) {
      if (incoming.count(id) == 0) starts.push_back(id);
    }
    if (starts.size() != 1) {
      add("graph_start", "/steps", starts.empty() ? "every step is named by another: the graph is a cycle"
                                                  : "the graph has " + std::to_string(starts.size()) + " starts");
    }
    std::vector<std::string> order;
    if (starts.size() == 1) {
      std::set<std::string> seen;
      std::string at = starts[0];
      while (!at.empty() && index.count(at) != 0) {
        if (!seen.insert(at).second) {
          add("graph_cycle", "/steps/" + std::to_string(index[at]), "the steps loop back to " + at);
          break;
        }
        order.push_back(type_of[at]);
        auto n = next_of.find(at);
        at = n == next_of.end() ? "" : n->second;
      }
      if (seen.size() != index.size() && issues.empty()) {
        add("graph_unreachable", "/steps", "some steps are not on the path from the start");
      }
    }
    if (!order.empty()) {
      if (order.front() != "consent") add("graph_start_not_consent", "/steps", "a flow starts with consent");
      if (order.back() != "submit") add("graph_end_not_submit", "/steps", "a flow ends with submit");
      auto pos = [&](const char* t) {
        auto it = std::find(order.begin(), order.end(), t);
        return it == order.end() ? -1 : static_cast<int>(it - order.begin());
      };
      if (pos("efirma") >= 0 && pos("efirma") != static_cast<int>(order.size()) - 2) {
        add("step_order", "/steps", "the efirma step comes right before submit (the signature is the last thing asked)");
      }
      if (pos("document_back") >= 0 && pos("document_back") < pos("document_front")) {
        add("step_order", "/steps", "document_back comes after document_front");
      }
      if (pos("selfie") >= 0 && pos("document_front") >= 0 && pos("selfie") < pos("document_front")) {
        add("step_order", "/steps", "the selfie comes after document_front (it is matched against the document)");
      }
    }
  }
  // Checks and the steps that feed them.
  const core::Json checks = d.value("checks", core::Json::object());
  if (!checks.is_object()) {
    add("checks_invalid", "/checks", "checks is an object");
  } else {
    for (auto it = checks.begin(); it != checks.end(); ++it) {
      const std::string p = "/checks/" + it.key();
      if (kChecks.count(it.key()) == 0) {
        add("check_unknown", p, "unknown check " + it.key());
      } else if (it.key() == "livenessMode") {
        if (*it != "passive" && *it != "active") add("check_invalid", p, "livenessMode is passive or active");
      } else if (!it->is_boolean()) {
        add("check_invalid", p, it.key() + " is true or false");
      } else if (it.key() == "proofOfAddress" && it->get<bool>()) {
        add("check_unsupported", p, it.key() + " is not run by this service yet");
      } else if (it.key() == "amlScreening" && it->get<bool>()) {
        add("check_unsupported", p, "amlScreening is not run inside a verification session: screen the person with POST /v1/screenings");
      }
    }
    auto has = [&](const char* t) { return types.count(t) != 0; };
    const bool document = On(checks, "document", true), face = On(checks, "faceMatch", true),
               gov = On(checks, "governmentLookup", true), liveness = On(checks, "liveness", true);
    if ((document || face || gov) && !has("document_front")) {
      add("check_needs_step", "/checks", "document, faceMatch and governmentLookup need a document_front step");
    }
    if (face && !has("selfie")) add("check_needs_step", "/checks/faceMatch", "faceMatch needs a selfie step");
    if (liveness && !has("liveness")) add("check_needs_step", "/checks/liveness", "liveness needs a liveness step");
    if (checks.value("livenessMode", "passive") == "active" && has("liveness")) {
      for (const auto& s : steps) {
        if (s.value("type", "") == "liveness" && s.value("mode", "passive") != "active") {
          add("check_needs_step", "/checks/livenessMode", "livenessMode active needs the liveness step in mode active");
        }
      }
    }
    const bool efirma = On(checks, "efirma", false);
    if (efirma && !has("efirma")) add("check_needs_step", "/checks/efirma", "efirma needs an efirma step");
    if (has("efirma") && !efirma) add("step_unused", "/steps", "the efirma step feeds the efirma check, which is off");
    if (has("selfie") && !face) add("step_unused", "/steps", "the selfie feeds faceMatch, which is off");
    if (has("liveness") && !liveness) add("step_unused", "/steps", "the liveness step feeds liveness, which is off");
    if (has("document_back") && !document && !gov) {
      add("step_unused", "/steps", "document_back feeds document and governmentLookup, both off");
    }
  }
  if (d.contains("policy")) {
    const core::Json& p = d["policy"];
    if (!p.is_object()) {
      add("policy_invalid", "/policy", "policy is an object");
    } else {
      // The decision policy's thresholds, applied as a session's policy override is
      // (pipeline/verification/policy.h); a session's own override wins key by key.
      for (auto it = p.begin(); it != p.end(); ++it) {
        const bool threshold = it.key() == "faceMatchThreshold" || it.key() == "livenessThreshold" ||
                               it.key() == "imageQualityThreshold" || it.key() == "deepfakeThreshold";
        if (it.key() == "requireGovernmentLookup") {
          if (!it->is_boolean()) add("policy_invalid", "/policy/" + it.key(), it.key() + " is a boolean");
        } else if (!threshold) {
          add("policy_invalid", "/policy/" + it.key(),
              "policy holds faceMatchThreshold, livenessThreshold, imageQualityThreshold, deepfakeThreshold and "
              "requireGovernmentLookup");
        } else if (!it->is_number() || it->get<double>() < 0 || it->get<double>() > 1) {
          add("policy_invalid", "/policy/" + it.key(), it.key() + " is a number from 0 to 1");
        }
      }
    }
  }
  return issues;
}

FlowSessionSettings SessionSettingsOf(const core::Json& definition) {
  FlowSessionSettings out;
  const core::Json checks = definition.value("checks", core::Json::object());
  out.checks = core::Json::object();
  for (const char* c : {"document", "faceMatch", "governmentLookup", "liveness"}) out.checks[c] = On(checks, c, true);
  out.checks["livenessMode"] = checks.is_object() ? checks.value("livenessMode", "passive") : "passive";
  if (On(checks, "efirma", false)) out.checks["efirma"] = true;
  for (const auto& s : definition.value("steps", core::Json::array())) {
    if (s.is_object() && s.value("type", "") == "liveness" && s.value("allowFile", false) == true) {
      out.checks["livenessFileAllowed"] = true;
    }
  }
  out.policy = definition.value("policy", core::Json::object());
  for (const auto& t : StepTypesInOrder(definition)) {
    if (t == "document_front" || t == "document_back" || t == "selfie") out.captures.push_back(t);
    if (t == "liveness") out.captures.push_back("liveness_video");
  }
  out.steps = StepTypesInOrder(definition);
  return out;
}

std::vector<std::string> WidgetSteps(const core::Json& checks, const std::vector<std::string>& flow_captures) {
  std::vector<std::string> steps = {"consent"};
  if (!flow_captures.empty()) {
    for (const auto& k : flow_captures) steps.push_back(k == "liveness_video" ? "liveness" : k);
  } else {
    auto on = [&](const char* k) { return !checks.is_object() || checks.value(k, true); };
    if (on("document") || on("faceMatch") || on("governmentLookup")) steps.push_back("document_front");
    if (on("document") || on("governmentLookup")) steps.push_back("document_back");
    if (on("faceMatch")) steps.push_back("selfie");
    if (on("liveness")) steps.push_back("liveness");
  }
  // The e.firma signature is the last thing asked (a flow puts its efirma step right before submit).
  if (checks.is_object() && checks.value("efirma", false) == true) steps.push_back("efirma");
  steps.push_back("submit");
  return steps;
}

}  // namespace svc::commands::embedded
