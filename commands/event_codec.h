#pragma once
// The codec every aggregate's events share: an event struct lists its fields once
// (core/json_fields.h) and has kType; a variant of them encodes and decodes through these two
// functions. (Extracted when the third aggregate needed it: sessions, tenancy, webhooks.)

#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "core/json.h"
#include "core/json_fields.h"

namespace svc::commands {

// The event's data: its fields in its list's order, as JSON text.
template <class Variant>
std::string EncodeEventData(const Variant& event) {
  return core::DumpJson(std::visit([](const auto& e) { return core::EncodeFields(e); }, event));
}

// The alternative of `Variant` whose kType is `type`, read from `data` (an object); nullopt when
// no alternative has that type (alternatives without kType are skipped: their caller decodes
// them).
template <class Variant, size_t I = 0>
std::optional<Variant> DecodeEventData(std::string_view type, const core::Json& data) {
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

}  // namespace svc::commands
