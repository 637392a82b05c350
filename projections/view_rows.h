#pragma once
// Reading the read models' JSON rows (column family `views`) from the store: what every query
// and process manager that reads a view needs. (Extracted at its third copy: the routes' ReadView,
// the reveal rules and the capture use case.)

#include <optional>
#include <string>
#include <vector>

#include "core/json.h"
#include "core/status.h"
#include "eventstore/kv_store.h"

namespace svc::projections {

// One row, parsed; nullopt when absent.
core::Result<std::optional<core::Json>> ReadRow(const eventstore::KvStore& store, const std::string& key);
// Every row under `prefix`, parsed, in key order.
core::Result<std::vector<core::Json>> ScanRows(const eventstore::KvStore& store, const std::string& prefix);

}  // namespace svc::projections
