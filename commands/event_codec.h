#pragma once
// The codec every aggregate's events share: an event struct lists its fields once
// (core/json_fields.h) and has kType; a variant of them encodes and decodes through these two
// functions. (Extracted when the third aggregate needed it: sessions, tenancy, webhooks.)

#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "commands/command.h"
#include "core/json.h"
#include "core/json_fields.h"
#include "core/json_fields_read.h"
#include "core/status.h"
#include "eventstore/envelope.h"

namespace svc::commands {

// The event's data: its fields in its list's order, as JSON text.
template <class Variant>
std::string EncodeEventData(const Variant& event) {
  return std::visit([](const auto& e) { return core::EncodeFieldsText(e); }, event);
}

// The alternative of `Variant` whose kType is `type`, read from `data` (an object: an nlohmann
// tree or simdjson's DOM); nullopt when no alternative has that type (alternatives without kType
// are skipped: their caller decodes them).
template <class Variant, size_t I = 0, class Data>
std::optional<Variant> DecodeEventData(std::string_view type, const Data& data) {
  if constexpr (I == std::variant_size_v<Variant>) {
    return std::nullopt;
  } else {
    using T = std::variant_alternative_t<I, Variant>;
    if constexpr (requires { T::kType; }) {
      if (type == T::kType) {
        T e;
        core::DecodeFields(data, e);
        return Variant(std::move(e));
      }
    }
    return DecodeEventData<Variant, I + 1>(type, data);
  }
}

// An envelope's event of `Variant`: DataLoss when its data is not an object, InvalidArgument when
// no alternative has its type. `what` names the aggregate in the messages.
template <class Variant>
core::Result<Variant> DecodeEvent(const eventstore::EventEnvelope& env, std::string_view what) {
  auto root = core::ParseObject(env.data);
  if (!root.has_value()) return core::DataLoss(std::string(what) + " event data is not an object");
  if (auto e = DecodeEventData<Variant>(env.type, *root)) return std::move(*e);
  return core::InvalidArgument("not a " + std::string(what) + " event: " + env.type);
}

// An event's schema version: 1 until the event declares `static constexpr int kSchema` (the day
// its data changes shape and a reader of the old shape is written).
template <class T>
inline constexpr int kSchemaOf = [] {
  if constexpr (requires { T::kSchema; }) {
    return T::kSchema;
  } else {
    return 1;
  }
}();

// The NewEvent a decision appends for a typed event (its kType, kSchema and field-list data; the
// typed event rides along for the writer's evolve).
template <class Variant>
NewEvent NewEventOf(const Variant& event) {
  return std::visit(
      [&](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        return NewEvent{std::string(T::kType), kSchemaOf<T>, EncodeEventData(event), event};
      },
      event);
}

// An aggregate's snapshot read back through its state's field list; DataLoss when it is not an
// object.
template <class State>
core::Result<State> DecodeSnapshot(std::string_view text, std::string_view what) {
  auto root = core::ParseObject(text);
  if (!root.has_value()) return core::DataLoss(std::string(what) + " state is not a JSON object");
  State s;
  core::DecodeFields(*root, s);
  return s;
}

}  // namespace svc::commands
