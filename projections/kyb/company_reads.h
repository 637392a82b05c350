#pragma once
// Queries over the KYB read model (kyb_view.h) that the company routes call.

#include <optional>
#include <string_view>

#include "core/json.h"
#include "core/status.h"
#include "eventstore/kv_store.h"

namespace svc::projections {

// The company's row as its create made it (the first answer of POST /v1/companies, told again to
// a retry with its Idempotency-Key, issue 67); for a company made before that row was kept, its
// current row. nullopt when neither exists yet.
core::Result<std::optional<core::Json>> CompanyAsCreatedRow(const eventstore::KvStore& store, std::string_view te,
                                                            std::string_view id);

}  // namespace svc::projections
