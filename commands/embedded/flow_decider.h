#pragma once
// The flow aggregate (flow_events.h):
//
//   create -> draft (version 0)
//   draft | published --update--> the draft changes (the published version stays in force)
//   draft | published --publish--> published, version n+1, when the draft validates
//                                  (FLOW_VALIDATION_FAILED otherwise; the routes list the issues)
//   any --archive--> archived; an archived flow is neither edited nor published
//                    (FLOW_NOT_PUBLISHABLE), and archiving again is a no-op

#include "commands/command.h"
#include "commands/decider.h"
#include "commands/embedded/flow_events.h"

namespace svc::commands::embedded {

struct FlowState {
  bool exists = false;
  std::string status;  // draft | published | archived
  std::string key;
  int64_t version = 0;  // the last published version (0: none)
  core::Json draft = core::Json::object();
  std::string published_hash;
  static constexpr auto Fields() {
    using T = FlowState;
    return std::tuple{
        core::Field("exists", &T::exists), core::Field("status", &T::status),
        core::Field("key", &T::key),       core::Field("version", &T::version),
        core::Field("draft", &T::draft),   core::Field("publishedHash", &T::published_hash)};
  }
};

struct CreateFlow {
  FlowCreated created;
  static constexpr std::string_view kCommand = "CreateFlow";
  static constexpr auto Fields() {
    using T = CreateFlow;
    return std::tuple{core::Field("created", &T::created)};
  }
};
struct UpdateFlowDraft {
  core::Json definition;
  static constexpr std::string_view kCommand = "UpdateFlowDraft";
  static constexpr auto Fields() {
    using T = UpdateFlowDraft;
    return std::tuple{core::Field("definition", &T::definition)};
  }
};
struct PublishFlow {
  static constexpr std::string_view kCommand = "PublishFlow";
  static constexpr auto Fields() { return std::tuple{}; }
};
struct ArchiveFlow {
  static constexpr std::string_view kCommand = "ArchiveFlow";
  static constexpr auto Fields() { return std::tuple{}; }
};
using FlowCommand = std::variant<CreateFlow, UpdateFlowDraft, PublishFlow, ArchiveFlow>;

struct FlowDecider : FieldSnapshots<FlowDecider, FlowState> {
  using CommandType = FlowCommand;
  static constexpr std::string_view kName = kFlowAggregate;
  // No route or manager runs its commands with an Idempotency-Key: their answers are given live
  // only, never told again after a crash (the writer logs a keyed one whose answer its events
  // cannot tell; tests/support/decider_spec.h checks the others).
  static constexpr bool kNeverKeyed = true;
  static core::Result<Decision> Decide(const FlowState& s, const FlowCommand& c, const CommandContext& ctx);
  static core::Status Evolve(FlowState& s, const eventstore::EventEnvelope& e);
};

// A flow key: 1-64 of a-z, 0-9, _ and -, from a letter or digit.
bool ValidFlowKey(std::string_view key);

// The id of a tenant's flow of `key`: flw_ + the first 32 hex digits of SHA-256 over the tenant
// and the key. A key names one flow for ever (FLOW_KEY_TAKEN is "this aggregate exists"), with no
// index that could disagree with the log.
std::string FlowIdFor(std::string_view tenant_id, std::string_view key);

}  // namespace svc::commands::embedded
