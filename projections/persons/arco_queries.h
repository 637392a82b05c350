#pragma once
// Reads of the ARCO requests' read model combined for one answer: a request as served (with
// `overdue`, which depends on the time of the read), the check an operation that names a request
// runs before it acts, and the counts of the compliance reports.

#include <optional>
#include <string>
#include <string_view>

#include "core/json.h"
#include "core/status.h"
#include "eventstore/kv_store.h"

namespace svc::projections {

// Whether a served request is overdue at `now_micros`: a response not given by its due time
// (received), or an accepted request not made effective by its own (accepted). A request awaiting
// the requester's information is not (the term counts again from the information).
bool ArcoOverdue(const core::Json& row, int64_t now_micros);

// The request as served at `now_micros` (the row and `overdue`); ARCO_REQUEST_NOT_FOUND.
core::Result<core::Json> ArcoRequestAt(const eventstore::KvStore& views, std::string_view te, std::string_view id,
                                       int64_t now_micros);

// Before an operation that names request `id` acts on `subject_id` (a person): the request exists
// (ARCO_REQUEST_NOT_FOUND), is received or accepted, and is of the right `operation` fulfils
// (ARCO_INVALID_TRANSITION, 409), and of that subject (CONFLICT, 409); an opposition's `purpose`
// must be one the request objects to (CONFLICT). The request records the operation once it
// succeeded (pipeline/persons/arco_manager.h).
core::Status CheckArcoFulfilment(const eventstore::KvStore& views, std::string_view te, std::string_view id,
                                 std::string_view operation, std::string_view subject_id,
                                 std::string_view purpose = "");

// The compliance reports' counts of a tenant and environment at `now_micros`: {total, open,
// overdue, byStatus, byRight}.
core::Result<core::Json> ArcoCounts(const eventstore::KvStore& views, std::string_view te, int64_t now_micros);

}  // namespace svc::projections
