#pragma once
// The partition of service-wide records, which belong to no tenant anyone holds: the sanctions
// lists the operator loads (kyb/screening_events.h) and the blob collector's deletions
// (compliance/blob_gc.h). Extracted from kyb at the second user.

#include <string_view>

namespace svc::commands {

inline constexpr std::string_view kServiceTenant = "ten_00000000000000000000000000000000";

}  // namespace svc::commands
