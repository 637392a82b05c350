#include "commands/tenancy/tenancy_events.h"

#include <optional>

namespace svc::commands::tenancy {

std::string_view TypeOf(const TenancyEvent& e) {
  return std::visit([](const auto& v) { return std::decay_t<decltype(v)>::kType; }, e);
}
int SchemaOf(const TenancyEvent& e) {
  return std::visit([](const auto& v) { return std::decay_t<decltype(v)>::kSchema; }, e);
}

std::string EncodeData(const TenancyEvent& event) {
  return core::DumpJson(std::visit([](const auto& e) { return core::EncodeFields(e); }, event));
}

namespace {

template <size_t I = 0>
std::optional<TenancyEvent> DecodeAlternative(std::string_view type, const core::Json& j) {
  if constexpr (I == std::variant_size_v<TenancyEvent>) {
    return std::nullopt;
  } else {
    using T = std::variant_alternative_t<I, TenancyEvent>;
    if (type == T::kType) {
      T e;
      core::DecodeFields(j, e);
      return TenancyEvent(std::move(e));
    }
    return DecodeAlternative<I + 1>(type, j);
  }
}

}  // namespace

core::Result<TenancyEvent> Decode(const eventstore::EventEnvelope& env) {
  core::Json j = core::ParseJsonOrDiscarded(env.data);
  if (!j.is_object()) return core::DataLoss("tenancy event data is not valid");
  if (auto e = DecodeAlternative(env.type, j)) return std::move(*e);
  return core::InvalidArgument("not a tenancy event: " + env.type);
}

}  // namespace svc::commands::tenancy
