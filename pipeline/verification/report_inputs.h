#pragma once
// What a session's evidence, report and certificate are built from, read from the read models
// (the sessions and verification views): the routes that serve those documents and the
// timestamper (pipeline/audit/timestamper.h), which timestamps a certificate's content hash, read
// the same rows the same way. (Moved out of the sessions routes when the timestamper came.)

#include <optional>
#include <string>

#include "core/json.h"
#include "core/status.h"
#include "eventstore/kv_store.h"
#include "pipeline/verification/policy.h"

namespace svc::pipeline::verification {

// The inputs of the session whose record (the sessions view's row) is `session`.
core::Result<ReportInputs> ReadReportInputs(const eventstore::KvStore& store, const core::Json& session,
                                            const std::string& environment);

// Whether a certificate is issued for the session as it stands (approved or declined, with its
// verdict).
bool CertificateIssued(const ReportInputs& in);

// The certificate's contentHash (hex) of a session, as the read models show it now; nullopt when
// the session is unknown or no certificate is issued for it (yet).
core::Result<std::optional<std::string>> CertificateDigest(const eventstore::KvStore& store,
                                                           const std::string& tenant,
                                                           const std::string& environment,
                                                           const std::string& session_id);

}  // namespace svc::pipeline::verification
