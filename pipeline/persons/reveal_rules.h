#pragma once
// The rules every reveal of the vault obeys, on the persons read model: the person's consents
// and the grant of the reader's application (docs/persons.md#grants). One place for them: the
// reveal routes (api/persons) and the bulk exporter (exporter.h) both ask here.

#include <optional>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/json.h"
#include "core/status.h"
#include "eventstore/kv_store.h"

namespace svc::pipeline::persons {

struct Reader {
  std::string tenant_id;
  std::string environment;
  std::string application_id;  // the key's application
};

// The person's record (the read model's masked row) is of an active person: 410 PERSON_PURGED
// when erased, 409 PERSON_ALREADY_MERGED when merged or being merged, 410 PERSON_FORGET_PENDING
// once forget was asked.
core::Status CheckActive(const core::Json& person_row);

// A consent or grant row is in force: not revoked, not expired at `now`.
bool InForce(const core::Json& item, core::Timestamp now);

// The grant in force (not revoked, not expired) of the reader's application on a person, if any.
core::Result<std::optional<core::Json>> GrantInForce(const eventstore::KvStore& store, core::Timestamp now,
                                                     const Reader& r, const std::string& person_id);

// Whether the reader may reveal `fields` of a person for `purpose`: 403 PURPOSE_OPPOSED when the
// person opposed the purpose (ARCO opposition) and has not consented to it since; 409 CONSENT_REQUIRED when the
// person consented to the purpose and every consent for it is revoked or expired; 403
// FIELD_NOT_GRANTED or GRANT_PURPOSE_NOT_ALLOWED when the reader's application holds a grant in
// force that does not allow them; 403 FIELD_NOT_GRANTED when an application other than the
// person's own holds no grant in force. `purpose` nullopt: the channel carries none, so only the
// fields are checked.
core::Status CheckRevealAllowed(const eventstore::KvStore& store, core::Timestamp now, const Reader& r,
                                const core::Json& person_row, const std::vector<std::string>& fields,
                                const std::optional<std::string>& purpose);

}  // namespace svc::pipeline::persons
