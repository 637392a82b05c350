#pragma once
// What every route that lets plaintext personal data leave the vault shares (the persons area's
// reveals, the review case detail and media): the access event of the caller, recording it
// against the day's reveal budget before anything is opened, and opening a person's fields.
// Extracted from the persons area when review became the second user (areas never include each
// other: api/CMakeLists.txt).

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "api/http/public_api.h"
#include "api/http/route.h"
#include "api/http/runtime.h"
#include "commands/persons/access_events.h"
#include "core/json.h"
#include "core/status.h"

namespace svc::pipeline::verification {
class MediaReader;
}

namespace svc::api {

// An access event of a reveal by the call's credential (an API key, a client token, or a
// reviewer): who, which channel, fields, purpose and reason (redaction "plain").
commands::persons::PiiAccessed AccessBy(const AuthContext& a, const std::string& person, std::string channel,
                                        std::vector<std::string> fields, std::string purpose, std::string reason);
// Appends the accesses against the day's reveal budget, then answers with `then()` (which opens
// the values): 429 PII_DECRYPT_CAP_REACHED with Retry-After when the budget is spent.
void RecordThen(Runtime& rt, const ApiContext& o, ApiCall& call,
                std::vector<commands::persons::PiiAccessed> accesses, std::function<HttpResponse()> then,
                Respond respond);
// As RecordThen, for an answer that needs more asynchronous work once the accesses are recorded
// (another append): `then` answers through the Respond it is given.
void RecordThenAsync(Runtime& rt, const ApiContext& o, ApiCall& call,
                     std::vector<commands::persons::PiiAccessed> accesses, std::function<void(Respond)> then,
                     Respond respond);
// As RecordThen, blocking: for work already off the I/O threads (a screening on the work pool).
// The problem to answer when the accesses were not recorded (429 with Retry-After when the budget
// is spent), else nullopt: go on and open.
std::optional<HttpResponse> RecordNow(Runtime& rt, const ApiContext& o, ApiCall& call,
                                      std::vector<commands::persons::PiiAccessed> accesses);
// The plaintext of `fields` of a person of the caller's tenant and environment (null for a field
// it does not hold); 409/410 PERSON_PURGED once the person's key was destroyed. Call it only
// after the access was recorded (RecordThen).
core::Result<core::Json> OpenFields(Runtime& rt, const AuthContext& a, const std::string& person,
                                    const std::vector<std::string>& fields);

// A capture of a session (its row in the verification read model: kind, mime, blob, purgedAt), or
// nullopt when the session holds no capture of that id.
core::Result<std::optional<core::Json>> CaptureRow(Runtime& rt, const std::string& tenant, const std::string& environment,
                                                   const std::string& session, const std::string& media_id);
// The capture opened for reading piece by piece with the session's key (its header and first
// chunk already opened, so a capture that does not open is an error here, before any answer);
// nullopt when its bytes are no longer held (purged, the session's key destroyed by a forget,
// the blob gone). Call it for a capture the caller was entitled to, and let nothing leave before
// the access is recorded.
using OpenedCapture = std::shared_ptr<pipeline::verification::MediaReader>;
core::Result<std::optional<OpenedCapture>> OpenCapture(Runtime& rt, const std::string& tenant,
                                                       const std::string& environment, const std::string& session,
                                                       const core::Json& capture);
// The answer carrying a capture's bytes: its own type, never cached, never sniffed, inert if
// opened as a document. Streamed (chunked) as it is opened, each piece read on `pool` (inline when
// null); a chunk that fails to open midway cuts the answer off without its last chunk.
HttpResponse CaptureResponse(const std::string& mime, OpenedCapture capture, core::ThreadPool* pool);

}  // namespace svc::api
