#pragma once
// Given / when / then for any decider (commands/command.h), the way the writer runs it: the
// history is folded with Evolve from recorded envelopes, the command is decided at a fixed time,
// the events it decides are applied too, and the state survives its snapshot codec. Pure: no
// store, no clock, no ids beyond the context's.
//
//   DeciderSpec<CaseDecider> spec;
//   spec.Given({...events...});                 // NewEvents as a decision made them
//   auto d = spec.When(OpenCase{...});          // Result<Decision>
//   CHECK(Types(*d) == std::vector<std::string>{"review.case_opened"});
//   spec.CheckSnapshot();

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "commands/command.h"

namespace svc::testing {

inline constexpr int64_t kSpecT0 = 1767225600LL * 1000000;  // 2026-01-01T00:00:00Z

template <typename D>
struct DeciderSpec {
  typename D::State state{};
  int64_t version = 0;
  commands::CommandContext ctx = DefaultContext();
  std::string tenant = "ten_00000000000000000000000000000001";
  std::string aggregate_id = "agg_00000000000000000000000000000001";

  static commands::CommandContext DefaultContext() {
    commands::CommandContext c;
    c.now = core::Timestamp{kSpecT0};
    c.actor = {"api_key", "key_00000000000000000000000000000001"};
    c.environment = "test";
    return c;
  }

  // The envelope the writer would record for `e` as the next event of the aggregate.
  eventstore::EventEnvelope Record(const commands::NewEvent& e) {
    eventstore::EventEnvelope env;
    env.id = "evt_" + std::string(31, '0') + std::to_string(version % 10);
    env.type = e.type;
    env.schema_version = e.schema_version;
    env.tenant_id = tenant;
    env.environment = ctx.environment;
    env.aggregate_type = std::string(D::kName);
    env.aggregate_id = aggregate_id;
    env.aggregate_version = ++version;
    env.occurred_at = ctx.now;
    env.actor = ctx.actor;
    env.data = e.data;
    return env;
  }

  // Given: events already recorded (as NewEvents a decision produced).
  DeciderSpec& Given(const std::vector<commands::NewEvent>& history) {
    for (const auto& e : history) {
      auto st = D::Evolve(state, Record(e));
      REQUIRE_MESSAGE(st.ok(), st.ToString());
    }
    return *this;
  }

  // When: decides `command`; on success its events are recorded and applied, as the writer does.
  template <typename Cmd>
  core::Result<commands::Decision> When(const Cmd& command) {
    CheckWire(command);
    auto d = D::Decide(state, command, ctx);
    if (d.ok()) Record(*d);
    return d;
  }

  // Records and applies a decision's events, as the writer does, and checks that its answer can
  // be told again from them: after a crash that lost an idempotency record's result, the write
  // model rebuilds the record from the log and a retry with the same Idempotency-Key is answered
  // with ResultOf(events, state after) (AggregateType::ResultOf). A decision that appends events
  // and answers anything must be told again identically (issue 67: a claim's take was not, and its
  // retry answered 500).
  void Record(const commands::Decision& d) {
    std::vector<eventstore::EventEnvelope> recorded;
    for (const auto& e : d.events) {
      recorded.push_back(Record(e));
      auto st = D::Evolve(state, recorded.back());
      REQUIRE_MESSAGE(st.ok(), st.ToString());
    }
    // The writer answers a keyed command with ResultOf's whole answer (Writer::Run), the same
    // function recovery uses; what the decision itself answers must be part of it, member for
    // member, or a caller reading it would find it missing after a crash.
    if (recorded.empty() || d.result.is_null()) return;
    if constexpr (requires { D::kNeverKeyed; }) {
      if (D::kNeverKeyed) return;  // its answers are given live only (the decider says why)
    }
    commands::TypedAggregate<D> type;
    const core::Json again = type.ResultOf(recorded, std::any(state));
    INFO("decider ", D::kName, ", events ", recorded.front().type, ": the answer after a crash lacks ",
         core::DumpJson(d.result), "; told again: ", core::DumpJson(again));
    if (!d.result.is_object()) {
      CHECK(core::DumpJson(again) == core::DumpJson(d.result));
      return;
    }
    CHECK(again.is_object());
    if (!again.is_object()) return;
    for (const auto& [k, v] : d.result.items()) {
      CHECK_MESSAGE(again.contains(k), k);
      if (again.contains(k)) CHECK_MESSAGE(core::DumpJson(again[k]) == core::DumpJson(v), k);
    }
  }

  // The command survives its wire form (commands/command_codec.h): decoded, it encodes the same
  // and, decided on the same state and context, decides the same (every member travels).
  template <typename Cmd>
  void CheckWire(const Cmd& command) {
    using V = typename D::CommandType;
    using Codec = commands::CommandCodec<V>;
    const V full(command);
    const core::Json wire = Codec::Encode(full);
    auto back = Codec::Decode(core::ParseJsonOrDiscarded(core::DumpJson(wire)));
    REQUIRE_MESSAGE(back.ok(), back.status().ToString());
    CHECK(core::DumpJson(Codec::Encode(*back)) == core::DumpJson(wire));
    if constexpr (requires { D::Decide(state, full, ctx); }) {
      // With an id source, ids minted twice differ: the decisions are compared without their
      // data and results, on a context whose ids come from a scratch source (the test's own
      // source mints what it expects, unchanged).
      const bool minted = ctx.ids != nullptr;
      core::SequentialIdSource scratch;
      commands::CommandContext c = ctx;
      if (minted) c.ids = &scratch;
      auto a = D::Decide(state, full, c);
      auto b = D::Decide(state, *back, c);
      REQUIRE(a.ok() == b.ok());
      if (!a.ok()) {
        CHECK(a.status().ToString() == b.status().ToString());
        return;
      }
      if (!minted) CHECK(core::DumpJson(a->result) == core::DumpJson(b->result));
      REQUIRE(a->events.size() == b->events.size());
      for (size_t i = 0; i < a->events.size(); ++i) {
        CHECK(a->events[i].type == b->events[i].type);  // a type the wire form lost shows here
        if (!minted) CHECK(a->events[i].data == b->events[i].data);
      }
    }
  }

  // The state written to a snapshot reads back the same.
  void CheckSnapshot() const {
    auto back = D::FromJson(core::DumpJson(D::ToJson(state)));
    REQUIRE_MESSAGE(back.ok(), back.status().ToString());
    CHECK(core::DumpJson(D::ToJson(*back)) == core::DumpJson(D::ToJson(state)));
  }
};

inline std::vector<std::string> Types(const commands::Decision& d) {
  std::vector<std::string> out;
  for (const auto& e : d.events) out.push_back(e.type);
  return out;
}

inline core::Json Data(const commands::NewEvent& e) { return core::ParseJsonOrDiscarded(e.data); }

inline std::string Code(const core::Status& st) { return std::string(st.api_code()); }

}  // namespace svc::testing
