#pragma once
// What the person routes share: reading a person's rows (another tenant's or environment's
// person is 404 PERSON_NOT_FOUND, never data; an erased or merged one is 410/409 where the route
// needs an active person) and parsing PiiInput. (Two concurrent writes never make two persons of
// one externalRef or CURP: those are claims decided in the log, commands/claims/.)

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "api/http/json_input.h"
#include "commands/persons/access_events.h"
#include "api/http/pagination.h"
#include "api/http/reveal.h"
#include "api/persons/routes.h"
#include "api/http/public_api.h"
#include "api/http/route.h"
#include "api/http/runtime.h"
#include "core/json.h"
#include "core/status.h"
#include "pipeline/persons/person_writes.h"
#include "pipeline/persons/reveal_rules.h"

namespace svc::api::persons {

std::string TeOf(const AuthContext& a);
pipeline::persons::PersonRef RefOf(const AuthContext& a, const std::string& person);

// The masked record of a person of the caller's tenant and environment.
core::Result<core::Json> PersonRow(Runtime& rt, const AuthContext& a, const std::string& id);
// As PersonRow, for reads of the person's data (detail, fields, sessions, documents, duplicates):
// 410 PERSON_PURGED once the person was erased. The records about the person's rights (consents,
// grants, legal holds) and the deletion certificate stay readable with PersonRow.
core::Result<core::Json> UnpurgedPersonRow(Runtime& rt, const AuthContext& a, const std::string& id);
// As PersonRow, and the person must be active: 410 PERSON_PURGED when erased, 409
// PERSON_ALREADY_MERGED when merged, 410 PERSON_FORGET_PENDING once forget was asked.
core::Result<core::Json> ActivePersonRow(Runtime& rt, const AuthContext& a, const std::string& id);

// PiiInput: the members of `pii` (an object), each one of the 17 fields with a string value
// (normalised here; a value is never echoed in an error) or, when `allow_null`, null (clears the
// field). Field errors go to `errors` (pointer /pii/<field>); a member that is no PII field sets
// `unknown` (answered 422 UNKNOWN_PII_FIELD).
void ParsePiiInput(const core::Json& pii, bool allow_null, core::mx::CivilDate today,
                   pipeline::persons::PiiWrite& out, std::vector<FieldError>& errors, bool* unknown);

// The holders of a CURP (its blind key) in the caller's tenant and environment: one Get of the
// holders row (a miss is answered by the bloom filter), ids in the order they became holders.
core::Result<std::vector<std::string>> CurpHolders(Runtime& rt, const AuthContext& a, const std::string& blind_key);
// The persons whose blind index holds `blind_key`, in id order.
core::Result<std::vector<std::string>> IdsWithBlindKey(Runtime& rt, const AuthContext& a, const std::string& blind_key);

}  // namespace svc::api::persons

namespace svc::api::persons {

// What a masked `pii` member shows for a held field.
inline constexpr std::string_view kMaskedValue = "********";

// The masked detail (PersonDetailMasked): decrypts no personal data.
core::Result<core::Json> MaskedDetail(Runtime& rt, const AuthContext& a, const std::string& id);

// The person's verification sessions (their records), newest first.
core::Result<core::Json> PersonSessions(Runtime& rt, const AuthContext& a, const std::string& id);
// The metadata of the captures of the person's sessions (PersonDocumentItem: no bytes, no
// extracted data), newest first.
core::Result<core::Json> PersonMedia(Runtime& rt, const AuthContext& a, const std::string& id);

// Whether a key may reveal `fields` of a person for `purpose` (rights_api.cc): 409
// CONSENT_REQUIRED when the person consented to the purpose and every consent for it is revoked
// or expired; 403 FIELD_NOT_GRANTED or GRANT_PURPOSE_NOT_ALLOWED when the key's application
// holds a grant in force that does not allow them; 403 FIELD_NOT_GRANTED when an application
// other than the person's own holds no grant in force. `purpose` nullopt: the channel carries
// none (integrity compares, it states no purpose), so only the fields are checked.
core::Status CheckRevealAllowed(Runtime& rt, const AuthContext& a, const core::Json& person_row,
                                const std::vector<std::string>& fields, const std::optional<std::string>& purpose);
// The key as a reader of the vault (its tenant, environment and application).
pipeline::persons::Reader ReaderOf(const AuthContext& a);
// The grant in force (not revoked, not expired) of the key's application on a person, if any.
core::Result<std::optional<core::Json>> GrantInForce(Runtime& rt, const AuthContext& a, const std::string& person_id);
// A create or externalRef upsert of one person from a PersonWriteRequest body (persons_api.cc):
// what POST /v1/persons answers (201, 200 or the problem); a bulk import runs it per row.
void WritePerson(Runtime& rt, ApiCall& call, const core::Json& body, Respond respond);
// The names of a `fields` member: a non-empty array of vault field names, deduplicated in order
// (reveal_api.cc). Type errors go to `v`; a name that is no vault field sets `*unknown` (422
// UNKNOWN_PII_FIELD).
std::vector<std::string> FieldNames(const core::Json& fields, Validator& v, bool* unknown);
// A required array of 1..max distinct non-empty strings (duplicates dropped); a field error otherwise.
std::vector<std::string> StringList(Validator& v, const core::Json& body, const char* name, size_t max);
// The newest-first list of a person's items (consents, grants, legal holds, oppositions: rights_api.cc):
// the person must be of the caller's tenant and environment; `index` is the absolute index prefix.
// With `person_text`, each row's members sealed by SealPersonText are served opened
// (pipeline/persons/vault_keys.h: legal holds' and oppositions' reasons).
void ListPersonItems(Runtime& rt, const PersonsOptions& o, ApiCall& call, const std::string& index,
                     std::function<std::string(std::string_view)> row_key, Respond respond,
                     bool person_text = false);
// A person's row as served: its members sealed by SealPersonText opened (null once forgotten).
std::string OpenPersonText(Runtime& rt, const AuthContext& a, const std::string& person, std::string row);
// The consent and grant routes (rights_api.cc).
std::vector<ApiRoute> RightsRoutes(Runtime* r, const PersonsOptions& options);
// ARCO requests and a person's oppositions (arco_api.cc).
std::vector<ApiRoute> ArcoRoutes(Runtime* r, const PersonsOptions& options);
// POST …/consolidate and GET …/consolidations/{id} (consolidation_api.cc).
std::vector<ApiRoute> ConsolidationRoutes(Runtime* r, const PersonsOptions& options);

using RevealHandler = std::function<void(ApiCall&, Respond)>;
// GET /v1/persons/{id}?expand=…: the expanded read, a reveal (reveal_api.cc).
RevealHandler RevealOnRead(Runtime* rt, const PersonsOptions& options);
// POST /v1/persons/import and GET /v1/person-imports/{job_id} (import_api.cc); each row is a
// create (WritePerson).
std::vector<ApiRoute> ImportRoutes(Runtime* r, const PersonsOptions& options);
// POST /v1/persons/export-bulk, GET …/{job_id} and GET …/{job_id}/dump (export_bulk_api.cc).
std::vector<ApiRoute> ExportBulkRoutes(Runtime* r, const PersonsOptions& options);
// POST /v1/media-links and GET /v1/media-links/{token} (media_links_api.cc).
std::vector<ApiRoute> MediaLinkRoutes(Runtime* r, const PersonsOptions& options);
// The reveal routes (reveal_api.cc).
std::vector<ApiRoute> RevealRoutes(Runtime* r, const PersonsOptions& options);

}  // namespace svc::api::persons
