#pragma once
// The AML aggregates (screening_events.h):
//
// - aml_list: a load of the version the list holds already records nothing (`unchanged`).
// - screening: recorded once (its id is fresh, or derived from a company's run).
// - screening_hit: found once — a later screening that meets the same subject and entry records
//   nothing here (`new: false`), so aml.hit_found fires once per hit; then reviewed: confirmed or
//   dismissed with a reason code, any number of times (each is the audit trail's row).
//   SCREENING_NOT_FOUND for the review of a hit never found.

#include "commands/command.h"
#include "commands/decider.h"
#include "commands/kyb/screening_events.h"

namespace svc::commands::kyb {

struct AmlListState {
  bool exists = false;
  std::string content_hash;
  int64_t versions = 0;
  static constexpr auto Fields() {
    using T = AmlListState;
    return std::tuple{core::Field("exists", &T::exists),
                      core::Field("contentHash", &T::content_hash),
                      core::Field("versions", &T::versions)};
  }
};
struct LoadList {
  ListLoaded loaded;
  static constexpr std::string_view kCommand = "LoadList";
  static constexpr auto Fields() {
    using T = LoadList;
    return std::tuple{core::Field("loaded", &T::loaded)};
  }
};
using AmlListCommand = std::variant<LoadList>;
struct AmlListDecider : FieldSnapshots<AmlListDecider, AmlListState> {
  using CommandType = AmlListCommand;
  static constexpr std::string_view kName = kAmlListAggregate;
  // No route or manager runs its commands with an Idempotency-Key: their answers are given live
  // only, never told again after a crash (the writer logs a keyed one whose answer its events
  // cannot tell; tests/support/decider_spec.h checks the others).
  static constexpr bool kNeverKeyed = true;
  static core::Result<Decision> Decide(const AmlListState& s, const AmlListCommand& c, const CommandContext& ctx);
  static core::Status Evolve(AmlListState& s, const eventstore::EventEnvelope& e);
};

struct ScreeningState {
  bool exists = false;
  static constexpr auto Fields() { return std::tuple{core::Field("exists", &ScreeningState::exists)}; }
};
struct RecordScreening {
  ScreeningCompleted completed;
  static constexpr std::string_view kCommand = "RecordScreening";
  static constexpr auto Fields() {
    using T = RecordScreening;
    return std::tuple{core::Field("completed", &T::completed)};
  }
};
using ScreeningCommand = std::variant<RecordScreening>;
struct ScreeningDecider : FieldSnapshots<ScreeningDecider, ScreeningState> {
  using CommandType = ScreeningCommand;
  static constexpr std::string_view kName = kScreeningAggregate;
  static core::Result<Decision> Decide(const ScreeningState& s, const ScreeningCommand& c, const CommandContext& ctx);
  static core::Status Evolve(ScreeningState& s, const eventstore::EventEnvelope& e);
};

struct HitState {
  bool exists = false;
  std::string status;  // open | confirmed | dismissed
  static constexpr auto Fields() {
    return std::tuple{core::Field("exists", &HitState::exists),
                      core::Field("status", &HitState::status)};
  }
};
struct FindHit {
  HitFound found;
  static constexpr std::string_view kCommand = "FindHit";
  static constexpr auto Fields() {
    using T = FindHit;
    return std::tuple{core::Field("found", &T::found)};
  }
};
struct ReviewHit {
  HitReviewed review;
  static constexpr std::string_view kCommand = "ReviewHit";
  static constexpr auto Fields() {
    using T = ReviewHit;
    return std::tuple{core::Field("review", &T::review)};
  }
};
using HitCommand = std::variant<FindHit, ReviewHit>;
struct HitDecider : FieldSnapshots<HitDecider, HitState> {
  using CommandType = HitCommand;
  static constexpr std::string_view kName = kHitAggregate;
  // No route or manager runs its commands with an Idempotency-Key: their answers are given live
  // only, never told again after a crash (the writer logs a keyed one whose answer its events
  // cannot tell; tests/support/decider_spec.h checks the others).
  static constexpr bool kNeverKeyed = true;
  static core::Result<Decision> Decide(const HitState& s, const HitCommand& c, const CommandContext& ctx);
  static core::Status Evolve(HitState& s, const eventstore::EventEnvelope& e);
};

// The hit id of a subject and a list entry: hit_ + 32 hex of SHA-256 over the tenant,
// environment, subject (its type and id, or for a name its blind key) and the list's source and
// entry id.
std::string HitIdFor(std::string_view tenant, std::string_view environment, std::string_view subject_key,
                     std::string_view list_source, std::string_view entry_id);

}  // namespace svc::commands::kyb
