#include "commands/tenancy/scopes.h"

#include <algorithm>

namespace svc::commands::tenancy {

namespace {
constexpr std::string_view kScopes[] = {
    "aml:read",          "aml:write",         "compliance:read",  "compliance:write",
    "embedded:create_session", "kyb:read",    "kyb:write",        "persons:read",
    "persons:read_pii",  "persons:redact",    "persons:write",    "review:read",
    "review:write",      "verification:read", "verification:write", "webhook:read",
    "webhook:write",
};

std::string_view Resource(std::string_view scope) {
  auto colon = scope.find(':');
  return colon == std::string_view::npos ? scope : scope.substr(0, colon);
}
}  // namespace

std::span<const std::string_view> KnownScopes() { return kScopes; }

core::Status ValidateScope(std::string_view scope) {
  if (scope == "*") return core::Status::Ok();
  if (std::find(std::begin(kScopes), std::end(kScopes), scope) != std::end(kScopes)) {
    return core::Status::Ok();
  }
  if (scope.size() > 2 && scope.substr(scope.size() - 2) == ":*") {
    std::string_view res = scope.substr(0, scope.size() - 2);
    for (auto s : kScopes) {
      if (Resource(s) == res) return core::Status::Ok();
    }
  }
  return core::InvalidArgument("unknown scope: " + std::string(scope), "UNKNOWN_SCOPE");
}

bool ScopeAllowedForPublishable(std::string_view scope) {
  return scope == "embedded:create_session" || scope == "embedded:*";
}

bool ScopesAllow(const std::vector<std::string>& held, std::string_view required) {
  std::string_view res = Resource(required);
  for (const auto& h : held) {
    if (h == "*" || h == required) return true;
    if (h.size() == res.size() + 2 && h.compare(0, res.size(), res) == 0 &&
        h.compare(res.size(), 2, ":*") == 0) {
      return true;
    }
  }
  return false;
}

}  // namespace svc::commands::tenancy
