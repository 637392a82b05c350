#pragma once
// Reads of the embedded read model combined with others, for the widget's routes.

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "core/json.h"
#include "core/status.h"
#include "eventstore/kv_store.h"

namespace svc::projections {

// Makes a session's `requestedInput` servable: its sealed words opened in place
// (pipeline/verification/requested_input.h, OpenRequestedInput bound to the session).
using OpenApplicantWords = std::function<void(core::Json& requested_input)>;

// The widget's init answer (EmbeddedInitResponse) for the embedded session `embedded` (its row in
// the embedded view), mounted with `applicant_token`: the flow it walks and its verification
// session's state. Unavailable while the session record is not readable.
core::Result<core::Json> MountAnswer(const eventstore::KvStore& views, const core::Json& embedded,
                                     const std::string& embedded_id, const std::string& applicant_token,
                                     const OpenApplicantWords& open_words);

// Where the applicant's page resumes the session (issue 69): {consentGiven, processing (a
// submission's pipeline is running), submission (the latest submission's trackingId, or null: the
// verdict the page waits for is that one's), capturedKinds (the kinds captured since it, or since
// the start), requestedCaptures (asked for more information: the captures the verdict named),
// requestedInput (the session's, its words opened by `open_words`; null when nothing is asked)}. The
// widget's init answers carry it as `resume`.
core::Result<core::Json> ApplicantResume(const eventstore::KvStore& views, const std::string& te,
                                         const std::string& session_id, const core::Json& session_record,
                                         const OpenApplicantWords& open_words);

// Who asks the applicant to verify (the consent names them, as the LFPDPPP wants before data is
// collected): {name, privacyNoticeUrl} of the session record's application; name null when the
// application is not readable.
core::Result<core::Json> IntegratorOf(const eventstore::KvStore& views, std::string_view tenant,
                                      const core::Json& session_record);

}  // namespace svc::projections
