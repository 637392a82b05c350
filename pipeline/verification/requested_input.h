#pragma once
// What a session asks of its applicant after "more information" (docs/verification-sessions.md#
// more-information): the session record's `requestedInput` — the reason codes, the captures to take
// again, when it was asked, and the reviewer's words for the applicant. Those words may hold
// personal data (a reviewer writes what they saw), so they travel sealed under the session's data
// key — in the case's events, the session's verdict and every read model — and are opened only on
// the way out: the session resource, the applicant's page and the webhook. Erasing the session's
// data (forget) makes them unreadable: `message` is then null.

#include <optional>
#include <string>
#include <string_view>

#include "core/json.h"
#include "core/status.h"
#include "eventstore/key_store.h"

namespace svc::pipeline::verification {

// The longest message for the applicant, in characters (code points).
inline constexpr size_t kMaxApplicantMessage = 500;

// `text` sealed under the session's key (base64), bound to the session; "" for "".
// CASE_HAS_NO_SESSION without a session, CASE_CLOSED once the session's data was erased.
core::Result<std::string> SealApplicantMessage(eventstore::KeyStore& keys, std::string_view tenant,
                                               std::string_view environment, std::string_view session_id,
                                               std::string_view text);
// The words, or nullopt when the session's key is gone (erased) or they do not open as its own.
std::optional<std::string> OpenApplicantMessage(eventstore::KeyStore& keys, std::string_view tenant,
                                                std::string_view environment, std::string_view session_id,
                                                std::string_view sealed);

// `requested_input` (an object with `messageSealed`, as the read models keep it) made servable:
// `message` the opened words (null when there are none or they are gone), `messageSealed` removed.
// Anything else is left as it is.
void OpenRequestedInput(eventstore::KeyStore& keys, std::string_view tenant, std::string_view environment,
                        std::string_view session_id, core::Json& requested_input);

// A stored session record (the sessions read model's row) as the API serves it: its
// `requestedInput` opened; a record without sealed words is served byte for byte as stored.
std::string ServedSessionRecord(eventstore::KeyStore& keys, std::string_view tenant, std::string_view environment,
                                std::string stored);

// A webhook body as kept for its deliveries (a verification.more_info_requested's
// `data.requestedInput` holds the words sealed) as it is sent: the words opened. Opened at every
// attempt, so a retry after the session's data was erased sends `message` null. A body without
// sealed words is sent byte for byte as kept. verify-signature compares a payload with this.
std::string WebhookBodyAsSent(eventstore::KeyStore& keys, std::string_view tenant, std::string_view environment,
                              std::string stored);

}  // namespace svc::pipeline::verification
