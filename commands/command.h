#pragma once
// The shape of a command on the write side. A decider is two pure functions:
//
//   Decide(state, command, context) -> events | error     (no I/O, no clock, no randomness)
//   Evolve(state, event) -> state
//
// Time, ids and the actor come in through CommandContext so tests and replays are
// deterministic. The Writer (writer.h) is the few lines of I/O around them: load state, decide,
// append, apply.

#include <any>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/clock.h"
#include "core/ids.h"
#include "core/json.h"
#include "core/json_fields.h"
#include "core/status.h"
#include "eventstore/envelope.h"

namespace svc::commands {

struct CommandContext {
  core::Timestamp now;
  core::IdSource* ids = nullptr;  // for ids a decision mints (never for event ids: the writer)
  eventstore::Actor actor;
  std::string environment;  // "live" / "test" / "" (tenant-level)
  std::string request_id;
  std::string correlation_id;
  std::string causation_id;
  std::string idempotency_key;       // empty: not an idempotent request
  std::string request_fingerprint;   // keyed MAC of the request's parameters (api/http/request_fingerprint.h)
};

// The context of a command a process manager issues on its own (a timer, the pipeline): the
// clock's now, actor {"system", `process`}, a fresh request id. (Extracted when the fifth process
// manager built it by hand.)
inline CommandContext SystemContext(core::Timestamp now, core::IdSource* ids, std::string process,
                                    std::string environment, std::string correlation_id = "") {
  CommandContext ctx;
  ctx.now = now;
  ctx.ids = ids;
  ctx.actor = {"system", std::move(process)};
  ctx.environment = std::move(environment);
  ctx.request_id = ids->NewIdString(core::IdKind::kRequest);
  ctx.correlation_id = std::move(correlation_id);
  return ctx;
}

// An event a decision produces, before the writer gives it an id, a version and a position.
struct NewEvent {
  std::string type;
  int schema_version = 1;
  std::string data;  // JSON object text
  // Optional: the typed event `data` was encoded from, so that the writer evolves the state
  // without parsing the text it was just given (TypedAggregate uses it when the decider declares
  // `using Event` and `EvolveDecoded`).
  std::any typed = {};
};

struct Decision {
  std::vector<NewEvent> events;
  core::Json result;  // what the caller is told (ids minted, etc.); never secrets or PII
};

// Type-erased description of one aggregate type, registered with the Writer.
class AggregateType {
 public:
  virtual ~AggregateType() = default;
  virtual std::string_view Name() const = 0;
  virtual std::any Initial() const = 0;
  // Evolve: applies one recorded event to the state.
  virtual core::Status Apply(std::any& state, const eventstore::EventEnvelope& e) const = 0;
  // Evolve with a just-decided event: `typed` is NewEvent::typed (may be empty).
  virtual core::Status ApplyDecided(std::any& state, const eventstore::EventEnvelope& e,
                                    const std::any& typed) const {
    (void)typed;
    return Apply(state, e);
  }
  virtual std::string Serialize(const std::any& state) const = 0;
  virtual core::Result<std::any> Deserialize(std::string_view text) const = 0;
  // A command of this type from its data ({"name", "data"}, Command::encode), bound as the sender
  // bound it (`reading`: MakeReadingCommand). INVALID_ARGUMENT for data that is not one.
  virtual core::Result<struct Command> DecodeCommand(std::string tenant_id, std::string aggregate_id,
                                                     const core::Json& data, bool reading,
                                                     CommandContext ctx) const = 0;
  // The answer (Decision::result) a command gave, told again from the events it appended: for an
  // idempotency record the write model rebuilds from the log after a crash (its original result
  // was never durable), so that a retry with the same Idempotency-Key is answered as the first
  // request was. `after` is the aggregate's state right after those events, so an answer may
  // describe the aggregate as the command left it (a person write's answer: issue 67). Null when
  // neither tells it (the routes then render from the read model).
  //
  // The writer answers a keyed command whose decision gave no result with this same function
  // (Writer::Run), so the first answer and a retry's after a crash are one computation; a decision
  // that does give a result must be told again identically (tests/support/decider_spec.h checks
  // it for every decider test).
  virtual core::Json ResultOf(const std::vector<eventstore::EventEnvelope>& events, const std::any& after) const {
    (void)events;
    (void)after;
    return nullptr;
  }
};

// Another aggregate of the same tenant as the write model holds it when a decision is made: the
// decision runs in the partition's strand, so every command submitted before it has been decided
// (its events applied, durable or about to be). version 0: the aggregate never existed (state is
// its initial state).
struct AggregateView {
  const std::any* state = nullptr;
  int64_t version = 0;
};
// What a decision that spans aggregates reads: a uniqueness claim checks whether its holder still
// holds the value; a holder checks that it holds its claim. Reads only, of the same tenant (the
// same partition, so the same strand): the decision stays a function of the log.
using StateReader = std::function<core::Result<AggregateView>(std::string_view aggregate_type, std::string_view id)>;

// A command addressed to one aggregate of one tenant.
struct Command {
  std::string tenant_id;
  std::string aggregate_type;
  std::string aggregate_id;
  // The caller minted aggregate_id just now from the random id source: no stored state can
  // exist, so the writer starts from the initial state without reading the store.
  bool fresh_id = false;
  CommandContext context;
  std::function<core::Result<Decision>(const std::any& state, const CommandContext& ctx)> decide;
  // Instead of `decide`, for a decision that reads other aggregates of the tenant (MakeReadingCommand).
  std::function<core::Result<Decision>(const std::any& state, const StateReader& read, const CommandContext& ctx)>
      decide_reading;
  // The command as data, {"name", "data"} (command_codec.h: a writer on another node decodes it
  // and decides the same). Set by MakeCommand and MakeReadingCommand.
  std::function<core::Json()> encode;
  // The claims the holder's command checks before deciding (claims::RequireClaims): [{claimId,
  // conflictCode, conflictMember}], or null.
  core::Json required_claims;
  // In a cluster, a command read from the commands topic: its offset there (its events record it,
  // EventEnvelope::command_ref). -1: issued in this process.
  int64_t bus_offset = -1;
  // The instant (system clock, micros) past which the asker has been answered 503 already
  // (Writer::Options::answer_timeout, or the commands topic's deadline): not decided after it.
  // 0: no deadline.
  int64_t answer_by_micros = 0;
};

// A decider's command type (D::CommandType: a std::variant of structs, or one struct) as data:
// each struct has a stable wire name (kCommand) and its Fields().
template <typename Alt>
concept WireCommand = core::HasFields<Alt> && requires { Alt::kCommand; };

template <typename V>
struct CommandCodec {
  static_assert(WireCommand<V>, "a command struct needs kCommand and Fields()");
  static core::Json Encode(const V& v) { return {{"name", V::kCommand}, {"data", core::EncodeFields(v)}}; }
  static core::Result<V> Decode(const core::Json& j) {
    if (!j.is_object() || j.value("name", std::string()) != V::kCommand) {
      return core::InvalidArgument("not a " + std::string(V::kCommand) + " command");
    }
    V v;
    core::DecodeFields(j.value("data", core::Json::object()), v);
    return v;
  }
};
template <typename... Alts>
struct CommandCodec<std::variant<Alts...>> {
  static_assert((WireCommand<Alts> && ...), "every command struct needs kCommand and Fields()");
  using V = std::variant<Alts...>;
  static core::Json Encode(const V& v) {
    return std::visit([](const auto& alt) -> core::Json {
      using Alt = std::decay_t<decltype(alt)>;
      return {{"name", Alt::kCommand}, {"data", core::EncodeFields(alt)}};
    }, v);
  }
  static core::Result<V> Decode(const core::Json& j) {
    const std::string name = j.is_object() ? j.value("name", std::string()) : std::string();
    std::optional<V> out;
    ((name == Alts::kCommand && !out ? (void)(out = DecodeAlt<Alts>(j)) : (void)0), ...);
    if (!out) return core::InvalidArgument("unknown command: " + name);
    return std::move(*out);
  }

 private:
  template <typename Alt>
  static V DecodeAlt(const core::Json& j) {
    Alt a;
    core::DecodeFields(j.value("data", core::Json::object()), a);
    return V(std::move(a));
  }
};

struct CommandOutcome {
  std::string aggregate_id;  // for a replay: the aggregate of the original request
  std::vector<eventstore::LogPosition> positions;  // empty when nothing was appended
  int64_t aggregate_version = 0;
  core::Json result;
  // True when this is the answer to an earlier request with the same Idempotency-Key.
  bool replayed = false;
};

// Adapts a typed decider to AggregateType. `D` provides:
//   using State = ...;  static constexpr std::string_view kName;
//   static core::Status Evolve(State&, const eventstore::EventEnvelope&);
//   static core::Json ToJson(const State&);  static core::Result<State> FromJson(std::string_view);
// (FieldSnapshots in commands/decider.h gives State, ToJson and FromJson from the state's fields)
// and optionally `using Event` with EvolveDecoded(State&, const Event&, Timestamp[, environment]),
// which evolves with the event just decided instead of parsing its data.
template <typename D>
class TypedAggregate final : public AggregateType {
 public:
  std::string_view Name() const override { return D::kName; }
  std::any Initial() const override { return typename D::State{}; }
  core::Status Apply(std::any& state, const eventstore::EventEnvelope& e) const override {
    return D::Evolve(std::any_cast<typename D::State&>(state), e);
  }
  core::Status ApplyDecided(std::any& state, const eventstore::EventEnvelope& e,
                            const std::any& typed) const override {
    if constexpr (requires { typename D::Event; }) {
      if (const auto* ev = std::any_cast<typename D::Event>(&typed)) {
        auto& s = std::any_cast<typename D::State&>(state);
        if constexpr (requires { D::EvolveDecoded(s, *ev, e.occurred_at, e.environment); }) {
          D::EvolveDecoded(s, *ev, e.occurred_at, e.environment);
        } else {
          D::EvolveDecoded(s, *ev, e.occurred_at);
        }
        return core::Status::Ok();
      }
    }
    return Apply(state, e);
  }
  std::string Serialize(const std::any& state) const override {
    return core::DumpJson(D::ToJson(std::any_cast<const typename D::State&>(state)));
  }
  core::Result<std::any> Deserialize(std::string_view text) const override {
    auto r = D::FromJson(text);
    if (!r.ok()) return r.status();
    return std::any(std::move(r).value());
  }
  core::Result<Command> DecodeCommand(std::string tenant_id, std::string aggregate_id, const core::Json& data,
                                      bool reading, CommandContext ctx) const override;
  core::Json ResultOf(const std::vector<eventstore::EventEnvelope>& events, const std::any& after) const override {
    if constexpr (requires(const typename D::State& s) { D::ResultOf(events, s); }) {
      return D::ResultOf(events, std::any_cast<const typename D::State&>(after));
    } else if constexpr (requires { D::ResultOf(events); }) {
      (void)after;
      return D::ResultOf(events);
    } else {
      (void)after;
      return nullptr;
    }
  }
};

// Binds a typed Decide to a Command.
template <typename D, typename Cmd>
Command MakeCommand(std::string tenant_id, std::string aggregate_id, Cmd cmd,
                    CommandContext ctx) {
  Command c;
  c.tenant_id = std::move(tenant_id);
  c.aggregate_type = std::string(D::kName);
  c.aggregate_id = std::move(aggregate_id);
  c.context = std::move(ctx);
  auto shared = std::make_shared<const Cmd>(std::move(cmd));
  c.decide = [shared](const std::any& state, const CommandContext& context) -> core::Result<Decision> {
    return D::Decide(std::any_cast<const typename D::State&>(state), *shared, context);
  };
  c.encode = [shared] { return CommandCodec<typename D::CommandType>::Encode(typename D::CommandType(*shared)); };
  return c;
}

// Binds a typed Decide that reads other aggregates: D::Decide(state, cmd, read, ctx).
template <typename D, typename Cmd>
Command MakeReadingCommand(std::string tenant_id, std::string aggregate_id, Cmd cmd, CommandContext ctx) {
  Command c;
  c.tenant_id = std::move(tenant_id);
  c.aggregate_type = std::string(D::kName);
  c.aggregate_id = std::move(aggregate_id);
  c.context = std::move(ctx);
  auto shared = std::make_shared<const Cmd>(std::move(cmd));
  c.decide_reading = [shared](const std::any& state, const StateReader& read,
                              const CommandContext& context) -> core::Result<Decision> {
    return D::Decide(std::any_cast<const typename D::State&>(state), *shared, read, context);
  };
  c.encode = [shared] { return CommandCodec<typename D::CommandType>::Encode(typename D::CommandType(*shared)); };
  return c;
}

template <typename D>
core::Result<Command> TypedAggregate<D>::DecodeCommand(std::string tenant_id, std::string aggregate_id,
                                                       const core::Json& data, bool reading,
                                                       CommandContext ctx) const {
  using V = typename D::CommandType;
  SVC_ASSIGN_OR_RETURN(V cmd, CommandCodec<V>::Decode(data));
  if (reading) {
    if constexpr (requires(const typename D::State& s, const V& v, const StateReader& r, const CommandContext& x) {
                    D::Decide(s, v, r, x);
                  }) {
      return MakeReadingCommand<D>(std::move(tenant_id), std::move(aggregate_id), std::move(cmd), std::move(ctx));
    } else {
      return core::InvalidArgument("a " + std::string(D::kName) + " command does not read other aggregates");
    }
  }
  if constexpr (requires(const typename D::State& s, const V& v, const CommandContext& x) { D::Decide(s, v, x); }) {
    return MakeCommand<D>(std::move(tenant_id), std::move(aggregate_id), std::move(cmd), std::move(ctx));
  } else {
    return core::InvalidArgument("a " + std::string(D::kName) + " command reads other aggregates");
  }
}

// The state of type D::State behind a view (the initial state when the aggregate never existed).
template <typename D>
const typename D::State& StateOf(const AggregateView& view) {
  return std::any_cast<const typename D::State&>(*view.state);
}

}  // namespace svc::commands
