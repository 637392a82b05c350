#include "core/json.h"

namespace svc::core {

std::string DumpJson(const Json& j) {
  return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

Json ParseJsonOrDiscarded(std::string_view text) {
  return Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
}

}  // namespace svc::core
