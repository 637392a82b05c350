#include "core/json.h"

template class nlohmann::basic_json<nlohmann::ordered_map>;

namespace svc::core {

std::string DumpJson(const Json& j) {
  return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

Json StringOrNull(const std::string& s) { return s.empty() ? Json(nullptr) : Json(s); }

std::string StringOr(const Json& j, std::string_view key, std::string fallback) {
  if (!j.is_object()) return fallback;
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : fallback;
}

int64_t IntOr(const Json& j, std::string_view key, int64_t fallback) {
  if (!j.is_object()) return fallback;
  auto it = j.find(key);
  return it != j.end() && it->is_number_integer() ? it->get<int64_t>() : fallback;
}

bool BoolOr(const Json& j, std::string_view key, bool fallback) {
  if (!j.is_object()) return fallback;
  auto it = j.find(key);
  return it != j.end() && it->is_boolean() ? it->get<bool>() : fallback;
}

Json ParseJsonOrDiscarded(std::string_view text) {
  return Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
}

}  // namespace svc::core
