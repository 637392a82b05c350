#pragma once
// API key scopes: the spec's list, wildcards per resource ("persons:*") and total ("*").

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace svc::commands::tenancy {

std::span<const std::string_view> KnownScopes();
// OK for a known scope, "<resource>:*" of a known resource, or "*"; else UNKNOWN_SCOPE.
core::Status ValidateScope(std::string_view scope);
// Publishable keys may hold only flow-scoped scopes (embedded:create_session).
bool ScopeAllowedForPublishable(std::string_view scope);
// Does a key holding `held` satisfy `required`?
bool ScopesAllow(const std::vector<std::string>& held, std::string_view required);

}  // namespace svc::commands::tenancy
