#pragma once
// Flow events (aggregate "flow", id flw_…, issue 19): a versioned verification flow of a tenant.
// Created as a draft under a key unique in the tenant and environment (FLOW_KEY_TAKEN, the
// routes' check), edited as a draft, published as version n (the definition frozen with its
// hash: sessions name the version they walk), archived (no new session uses it; the versions
// stay, as sessions refer to them). The definition holds no personal data.

#include <string>
#include <variant>

#include "core/json.h"
#include "core/json_fields.h"
#include "core/status.h"
#include "eventstore/envelope.h"

namespace svc::commands::embedded {

inline constexpr std::string_view kFlowAggregate = "flow";

struct FlowCreated {
  static constexpr std::string_view kType = "flow.created";
  std::string key;
  std::string name;
  core::Json definition = core::Json::object();
  static constexpr auto Fields() {
    using T = FlowCreated;
    return std::tuple{core::Field("key", &T::key), core::Field("name", &T::name),
                      core::Field("definition", &T::definition)};
  }
};

struct FlowDraftUpdated {
  static constexpr std::string_view kType = "flow.draft_updated";
  core::Json definition = core::Json::object();
  static constexpr auto Fields() { return std::tuple{core::Field("definition", &FlowDraftUpdated::definition)}; }
};

struct FlowPublished {
  static constexpr std::string_view kType = "flow.published";
  int64_t version = 0;
  core::Json definition = core::Json::object();
  std::string definition_hash;  // SHA-256 hex of the definition's RFC 8785 form
  static constexpr auto Fields() {
    using T = FlowPublished;
    return std::tuple{core::Field("version", &T::version),
                      core::Field("definition", &T::definition),
                      core::Field("definitionHash", &T::definition_hash)};
  }
};

struct FlowArchived {
  static constexpr std::string_view kType = "flow.archived";
  static constexpr auto Fields() { return std::tuple{}; }
};

using FlowEvent = std::variant<FlowCreated, FlowDraftUpdated, FlowPublished, FlowArchived>;

core::Result<FlowEvent> DecodeFlow(const eventstore::EventEnvelope& envelope);

}  // namespace svc::commands::embedded
