#pragma once
// Events of the person aggregate ("person", id per_…): the vault. No value of personal data ever
// enters an event: each field is sealed under the person's own data key before the command
// (XChaCha20-Poly1305, AAD = tenant|environment|person|field|piiVersion, base64), and travels with
// the keys of its blind index (keyed HMACs of its normalised terms, pipeline/persons/pii.h). The
// integrator's metadata is sealed the same way. Each event lists its fields once (core/json_fields.h);
// the stored form is pinned by tests/commands/event_codecs.golden.

#include <map>
#include <string>
#include <variant>
#include <vector>

#include "core/json_fields.h"
#include "core/status.h"
#include "eventstore/envelope.h"

namespace svc::commands::persons {

inline constexpr std::string_view kPersonAggregate = "person";

// The vault's personal data fields (the spec's 17, alphabetical). What each accepts and how it is
// normalised and indexed: pipeline/persons/pii.h (a unit test keeps the two lists equal).
inline constexpr std::string_view kPiiFieldNames[] = {
    "address", "birthDate", "claveElector", "curp",    "documentNumber", "email",
    "emision", "fullName",  "givenName",    "nationality", "phone",      "rfc",
    "seccion", "sex",       "state",        "surname", "vigencia"};

// One field's sealed value and its blind-index keys (none for an unindexed field).
struct SealedPii {
  std::string sealed;
  std::vector<std::string> index;
  static constexpr auto Fields() {
    using core::Empty;
    using core::Field;
    return std::tuple{Field("sealed", &SealedPii::sealed),
                      Field("index", &SealedPii::index, Empty::kOmit)};
  }
};

// Where a revision's values come from (piiProvenance).
struct PiiSource {
  std::string kind;        // api | verification
  std::string session_id;  // the verification session, for kind verification
  std::string detail;      // e.g. document_ocr, renapo ("" = none)
  static constexpr auto Fields() {
    using core::Empty;
    using core::Field;
    return std::tuple{Field("kind", &PiiSource::kind),
                      Field("sessionId", &PiiSource::session_id, Empty::kNull),
                      Field("detail", &PiiSource::detail, Empty::kNull)};
  }
};

// A person, with its first revision of personal data (piiVersion 1).
struct PersonCreated {
  static constexpr std::string_view kType = "persons.person_created";
  static constexpr int kSchema = 1;
  std::string application_id;
  std::string external_ref;     // the integrator's uid, in clear ("" = none)
  std::string metadata_sealed;  // "" = none
  std::map<std::string, SealedPii> pii;  // by field name (camelCase, as in the API)
  PiiSource source;
  static constexpr auto Fields() {
    using core::Empty;
    using core::Field;
    using T = PersonCreated;
    return std::tuple{Field("applicationId", &T::application_id),
                      Field("externalRef", &T::external_ref, Empty::kNull),
                      Field("metadataSealed", &T::metadata_sealed, Empty::kNull),
                      Field("pii", &T::pii), Field("source", &T::source)};
  }
};

// A change: personal data set or cleared (a new piiVersion), and/or new metadata.
struct PersonRevised {
  static constexpr std::string_view kType = "persons.person_revised";
  static constexpr int kSchema = 1;
  int pii_version = 0;  // the version this revision makes (unchanged when no PII changed)
  std::map<std::string, SealedPii> set;
  std::vector<std::string> cleared;
  bool metadata_changed = false;
  std::string metadata_sealed;  // when metadata_changed; "" = cleared
  PiiSource source;
  static constexpr auto Fields() {
    using core::Empty;
    using core::Field;
    using T = PersonRevised;
    return std::tuple{Field("piiVersion", &T::pii_version), Field("set", &T::set),
                      Field("cleared", &T::cleared, Empty::kOmit),
                      Field("metadataChanged", &T::metadata_changed),
                      Field("metadataSealed", &T::metadata_sealed, Empty::kNull),
                      Field("source", &T::source)};
  }
};

// A consent the person gave for a purpose of the catalogue (pipeline/persons/purposes.h). Its
// evidence is sealed under the person's data key and never served.
struct ConsentGranted {
  static constexpr std::string_view kType = "persons.consent_granted";
  static constexpr int kSchema = 1;
  std::string consent_id;
  std::string purpose;
  std::string mechanism;        // firma_electronica | autenticacion
  std::string policy_version;
  std::string attested_by;      // applicant | integrator | "" (null)
  std::string evidence_sealed;  // "" = none
  int64_t expires_micros = 0;   // 0 = does not expire
  static constexpr auto Fields() {
    using core::Empty;
    using core::Field;
    using T = ConsentGranted;
    return std::tuple{Field("consentId", &T::consent_id), Field("purpose", &T::purpose),
                      Field("mechanism", &T::mechanism), Field("policyVersion", &T::policy_version),
                      Field("attestedBy", &T::attested_by, Empty::kNull),
                      Field("evidenceSealed", &T::evidence_sealed, Empty::kNull),
                      Field("expiresMicros", &T::expires_micros)};
  }
};

struct ConsentRevoked {
  static constexpr std::string_view kType = "persons.consent_revoked";
  static constexpr int kSchema = 1;
  std::string consent_id;
  static constexpr auto Fields() { return std::tuple{core::Field("consentId", &ConsentRevoked::consent_id)}; }
};

// What an application may reveal of the person: fields and purposes. A new grant for an
// application replaces (revokes) the one in force.
struct GrantCreated {
  static constexpr std::string_view kType = "persons.grant_created";
  static constexpr int kSchema = 1;
  std::string grant_id;
  std::string application_id;
  std::vector<std::string> allowed_fields;
  std::vector<std::string> allowed_purposes;
  std::string default_redaction;  // plain | masked | redacted
  int64_t expires_micros = 0;     // 0 = does not expire
  std::string replaces;           // the grant it revokes ("" = none)
  static constexpr auto Fields() {
    using core::Empty;
    using core::Field;
    using T = GrantCreated;
    return std::tuple{Field("grantId", &T::grant_id), Field("applicationId", &T::application_id),
                      Field("allowedFields", &T::allowed_fields), Field("allowedPurposes", &T::allowed_purposes),
                      Field("defaultRedaction", &T::default_redaction), Field("expiresMicros", &T::expires_micros),
                      Field("replaces", &T::replaces, Empty::kNull)};
  }
};

struct GrantRevoked {
  static constexpr std::string_view kType = "persons.grant_revoked";
  static constexpr int kSchema = 1;
  std::string grant_id;
  static constexpr auto Fields() { return std::tuple{core::Field("grantId", &GrantRevoked::grant_id)}; }
};

// A row of the person's legal-hold history: a hold set (or renewed: set while one is in force)
// or released, on the whole person (asset_id "") or on one capture of theirs. A hold in force
// freezes every deletion of what it covers: forget, the retention sweep.
struct LegalHoldRecorded {
  static constexpr std::string_view kType = "persons.legal_hold_recorded";
  static constexpr int kSchema = 1;
  std::string hold_id;
  std::string action;       // set | renew | release
  std::string asset_id;     // a capture (med_…) of the person's sessions; "" = the whole person
  std::string legal_basis;  // "" = none given (a release may omit it)
  std::string reason;
  int64_t expires_micros = 0;  // set and renew: 0 = until released
  static constexpr auto Fields() {
    using core::Empty;
    using core::Field;
    using T = LegalHoldRecorded;
    return std::tuple{Field("holdId", &T::hold_id), Field("action", &T::action),
                      Field("assetId", &T::asset_id, Empty::kNull), Field("legalBasis", &T::legal_basis, Empty::kNull),
                      Field("reason", &T::reason), Field("expiresMicros", &T::expires_micros)};
  }
};

// ARCO cancellation, in three recorded steps: the request (block: the data is out of reach at once
// and kept until purge_due; purge: due now), the purge (the read models drop every sealed value,
// blind-index entry and reference; the person becomes `redacted`), and the destruction of the data
// keys (the person's and their sessions'), after which nothing ever sealed under them opens and the
// deletion certificate can be issued.
struct ForgetRequested {
  static constexpr std::string_view kType = "persons.forget_requested";
  static constexpr int kSchema = 1;
  std::string mode;  // block | purge
  std::string reason;
  int64_t purge_due_micros = 0;
  static constexpr auto Fields() {
    using core::Empty;
    using core::Field;
    using T = ForgetRequested;
    return std::tuple{Field("mode", &T::mode), Field("reason", &T::reason, Empty::kNull),
                      Field("purgeDueMicros", &T::purge_due_micros)};
  }
};

struct PersonPurged {
  static constexpr std::string_view kType = "persons.person_purged";
  static constexpr int kSchema = 1;
  std::vector<std::string> session_ids;  // the person's verification sessions, whose keys go too
  static constexpr auto Fields() { return std::tuple{core::Field("sessionIds", &PersonPurged::session_ids)}; }
};

struct KeysDestroyed {
  static constexpr std::string_view kType = "persons.keys_destroyed";
  static constexpr int kSchema = 1;
  std::vector<std::string> key_names;  // what was destroyed (names, never material)
  static constexpr auto Fields() { return std::tuple{core::Field("keyNames", &KeysDestroyed::key_names)}; }
};

// Consolidation of duplicates into a survivor, in five recorded steps carried out by a process
// manager (pipeline/persons/consolidator.h), each idempotent so a crash anywhere is finished
// exactly once: the request (survivor), the source frozen for the merge (source), the survivor
// absorbing the source's values (a PersonRevised in the same decision, with this record), the
// source merged (source: status merged, pointing to the survivor), the consolidation done
// (survivor).
struct ConsolidationRequested {
  static constexpr std::string_view kType = "persons.consolidation_requested";
  static constexpr int kSchema = 1;
  std::string consolidation_id;
  std::vector<std::string> source_ids;
  std::map<std::string, std::string> field_resolutions;  // field -> the person whose value wins
  static constexpr auto Fields() {
    using core::Field;
    using T = ConsolidationRequested;
    return std::tuple{Field("consolidationId", &T::consolidation_id), Field("sourcePersonIds", &T::source_ids),
                      Field("fieldResolutions", &T::field_resolutions)};
  }
};

struct MergeStarted {
  static constexpr std::string_view kType = "persons.merge_started";
  static constexpr int kSchema = 1;
  std::string consolidation_id;
  std::string survivor_id;
  static constexpr auto Fields() {
    using core::Field;
    return std::tuple{Field("consolidationId", &MergeStarted::consolidation_id),
                      Field("survivorId", &MergeStarted::survivor_id)};
  }
};

struct SourceAbsorbed {
  static constexpr std::string_view kType = "persons.source_absorbed";
  static constexpr int kSchema = 1;
  std::string consolidation_id;
  std::string source_id;
  std::vector<std::string> fields;  // the fields whose value the survivor took (names only)
  std::string error;                // the source could not be merged: its refusal's code ("" = merged)
  static constexpr auto Fields() {
    using core::Empty;
    using core::Field;
    using T = SourceAbsorbed;
    return std::tuple{Field("consolidationId", &T::consolidation_id), Field("sourcePersonId", &T::source_id),
                      Field("fields", &T::fields), Field("error", &T::error, Empty::kNull)};
  }
};

struct PersonMerged {
  static constexpr std::string_view kType = "persons.merged";
  static constexpr int kSchema = 1;
  std::string consolidation_id;
  std::string survivor_id;
  static constexpr auto Fields() {
    using core::Field;
    return std::tuple{Field("consolidationId", &PersonMerged::consolidation_id),
                      Field("survivorId", &PersonMerged::survivor_id)};
  }
};

struct ConsolidationCompleted {
  static constexpr std::string_view kType = "persons.consolidation_completed";
  static constexpr int kSchema = 1;
  std::string consolidation_id;
  static constexpr auto Fields() {
    return std::tuple{core::Field("consolidationId", &ConsolidationCompleted::consolidation_id)};
  }
};

using PersonEvent = std::variant<PersonCreated, PersonRevised, ConsentGranted, ConsentRevoked, GrantCreated,
                                 GrantRevoked, LegalHoldRecorded, ForgetRequested, PersonPurged, KeysDestroyed,
                                 ConsolidationRequested, MergeStarted, SourceAbsorbed, PersonMerged,
                                 ConsolidationCompleted>;

std::string_view TypeOf(const PersonEvent& e);
std::string EncodeData(const PersonEvent& e);
core::Result<PersonEvent> Decode(const eventstore::EventEnvelope& envelope);

}  // namespace svc::commands::persons
