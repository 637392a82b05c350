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
    return std::tuple{core::Field("sealed", &SealedPii::sealed),
                      core::Field("index", &SealedPii::index, core::Empty::kOmit)};
  }
};

// Where a revision's values come from (piiProvenance).
struct PiiSource {
  std::string kind;        // api | verification
  std::string session_id;  // the verification session, for kind verification
  std::string detail;      // e.g. document_ocr, renapo ("" = none)
  static constexpr auto Fields() {
    return std::tuple{core::Field("kind", &PiiSource::kind),
                      core::Field("sessionId", &PiiSource::session_id, core::Empty::kNull),
                      core::Field("detail", &PiiSource::detail, core::Empty::kNull)};
  }
};

// A person, with its first revision of personal data (piiVersion 1).
struct PersonCreated {
  static constexpr std::string_view kType = "persons.person_created";
  std::string application_id;
  std::string external_ref;     // the integrator's uid, in clear ("" = none)
  std::string metadata_sealed;  // "" = none
  std::map<std::string, SealedPii> pii;  // by field name (camelCase, as in the API)
  PiiSource source;
  static constexpr auto Fields() {
    using T = PersonCreated;
    return std::tuple{core::Field("applicationId", &T::application_id),
                      core::Field("externalRef", &T::external_ref, core::Empty::kNull),
                      core::Field("metadataSealed", &T::metadata_sealed, core::Empty::kNull),
                      core::Field("pii", &T::pii), core::Field("source", &T::source)};
  }
};

// A change: personal data set or cleared (a new piiVersion), and/or new metadata.
struct PersonRevised {
  static constexpr std::string_view kType = "persons.person_revised";
  int pii_version = 0;  // the version this revision makes (unchanged when no PII changed)
  std::map<std::string, SealedPii> set;
  std::vector<std::string> cleared;
  bool metadata_changed = false;
  std::string metadata_sealed;  // when metadata_changed; "" = cleared
  PiiSource source;
  std::string arco_request_id;  // the ARCO rectification request it fulfils, "" = none
  static constexpr auto Fields() {
    using T = PersonRevised;
    return std::tuple{core::Field("piiVersion", &T::pii_version), core::Field("set", &T::set),
                      core::Field("cleared", &T::cleared, core::Empty::kOmit),
                      core::Field("metadataChanged", &T::metadata_changed),
                      core::Field("metadataSealed", &T::metadata_sealed, core::Empty::kNull),
                      core::Field("source", &T::source),
                      core::Field("arcoRequestId", &T::arco_request_id, core::Empty::kOmit)};
  }
};

// A consent the person gave for a purpose of the catalogue (pipeline/persons/purposes.h). Its
// evidence is sealed under the person's data key and never served.
struct ConsentGranted {
  static constexpr std::string_view kType = "persons.consent_granted";
  std::string consent_id;
  std::string purpose;
  std::string mechanism;        // firma_electronica | autenticacion
  std::string policy_version;
  std::string attested_by;      // applicant | integrator | "" (null)
  std::string evidence_sealed;  // "" = none
  int64_t expires_micros = 0;   // 0 = does not expire
  // The e.firma check (challenge id) whose signed text states this consent; its signature,
  // certificate and text are in the sealed evidence. "" = none.
  std::string efirma_challenge_id;
  static constexpr auto Fields() {
    using T = ConsentGranted;
    return std::tuple{core::Field("consentId", &T::consent_id), core::Field("purpose", &T::purpose),
                      core::Field("mechanism", &T::mechanism),
                      core::Field("policyVersion", &T::policy_version),
                      core::Field("attestedBy", &T::attested_by, core::Empty::kNull),
                      core::Field("evidenceSealed", &T::evidence_sealed, core::Empty::kNull),
                      core::Field("expiresMicros", &T::expires_micros),
                      core::Field("efirmaChallengeId", &T::efirma_challenge_id, core::Empty::kOmit)};
  }
};

struct ConsentRevoked {
  static constexpr std::string_view kType = "persons.consent_revoked";
  std::string consent_id;
  static constexpr auto Fields() { return std::tuple{core::Field("consentId", &ConsentRevoked::consent_id)}; }
};

// What an application may reveal of the person: fields and purposes. A new grant for an
// application replaces (revokes) the one in force.
struct GrantCreated {
  static constexpr std::string_view kType = "persons.grant_created";
  std::string grant_id;
  std::string application_id;
  std::vector<std::string> allowed_fields;
  std::vector<std::string> allowed_purposes;
  std::string default_redaction;  // plain | masked | redacted
  int64_t expires_micros = 0;     // 0 = does not expire
  std::string replaces;           // the grant it revokes ("" = none)
  static constexpr auto Fields() {
    using T = GrantCreated;
    return std::tuple{core::Field("grantId", &T::grant_id),
                      core::Field("applicationId", &T::application_id),
                      core::Field("allowedFields", &T::allowed_fields),
                      core::Field("allowedPurposes", &T::allowed_purposes),
                      core::Field("defaultRedaction", &T::default_redaction),
                      core::Field("expiresMicros", &T::expires_micros),
                      core::Field("replaces", &T::replaces, core::Empty::kNull)};
  }
};

struct GrantRevoked {
  static constexpr std::string_view kType = "persons.grant_revoked";
  std::string grant_id;
  static constexpr auto Fields() { return std::tuple{core::Field("grantId", &GrantRevoked::grant_id)}; }
};

// A row of the person's legal-hold history: a hold set (or renewed: set while one is in force)
// or released, on the whole person (asset_id "") or on one capture of theirs. A hold in force
// freezes every deletion of what it covers: forget, the retention sweep.
struct LegalHoldRecorded {
  static constexpr std::string_view kType = "persons.legal_hold_recorded";
  std::string hold_id;
  std::string action;       // set | renew | release
  std::string asset_id;     // a capture (med_…) of the person's sessions; "" = the whole person
  // The caller's words, sealed under the person's key (pipeline/persons/vault_keys.h,
  // SealPersonText). Events before that held them in clear in `legal_basis` and `reason`, which
  // are now written empty.
  std::string legal_basis;  // "" = none given (a release may omit it), or sealed
  std::string reason;
  int64_t expires_micros = 0;  // set and renew: 0 = until released
  std::string legal_basis_sealed;
  std::string reason_sealed;
  static constexpr auto Fields() {
    using T = LegalHoldRecorded;
    return std::tuple{core::Field("holdId", &T::hold_id), core::Field("action", &T::action),
                      core::Field("assetId", &T::asset_id, core::Empty::kNull),
                      core::Field("legalBasis", &T::legal_basis, core::Empty::kNull),
                      core::Field("reason", &T::reason),
                      core::Field("expiresMicros", &T::expires_micros),
                      core::Field("legalBasisSealed", &T::legal_basis_sealed, core::Empty::kOmit),
                      core::Field("reasonSealed", &T::reason_sealed, core::Empty::kOmit)};
  }
};

// ARCO cancellation, in three recorded steps: the request (block: the data is out of reach at once
// and kept until purge_due; purge: due now), the purge (the read models drop every sealed value,
// blind-index entry and reference; the person becomes `redacted`), and the destruction of the data
// keys (the person's and their sessions'), after which nothing ever sealed under them opens and the
// deletion certificate can be issued.
struct ForgetRequested {
  static constexpr std::string_view kType = "persons.forget_requested";
  std::string mode;  // block | purge
  std::string reason;  // in clear in events before reason_sealed: now written empty
  int64_t purge_due_micros = 0;
  std::string arco_request_id;  // the ARCO cancellation request it fulfils, "" = none
  std::string reason_sealed;    // the caller's words under the person's key (gone with it)
  static constexpr auto Fields() {
    using T = ForgetRequested;
    return std::tuple{core::Field("mode", &T::mode),
                      core::Field("reason", &T::reason, core::Empty::kNull),
                      core::Field("purgeDueMicros", &T::purge_due_micros),
                      core::Field("arcoRequestId", &T::arco_request_id, core::Empty::kOmit),
                      core::Field("reasonSealed", &T::reason_sealed, core::Empty::kOmit)};
  }
};

// ARCO opposition: the person objects to a purpose of the catalogue. Every later reveal for it is
// refused (PURPOSE_OPPOSED) until the person consents to it again; the consents in force for it are
// revoked in the same decision (their ConsentRevoked events follow this one).
struct OppositionRecorded {
  static constexpr std::string_view kType = "persons.opposition_recorded";
  std::string opposition_id;  // opp_…
  std::string purpose;
  std::string reason;  // in clear in events before reason_sealed: now written empty
  std::string arco_request_id;  // the ARCO opposition request it fulfils, "" = none
  std::string recorded_by;      // the API key
  std::string reason_sealed;    // the integrator's words under the person's key
  static constexpr auto Fields() {
    using T = OppositionRecorded;
    return std::tuple{core::Field("oppositionId", &T::opposition_id), core::Field("purpose", &T::purpose),
                      core::Field("reason", &T::reason, core::Empty::kNull),
                      core::Field("arcoRequestId", &T::arco_request_id, core::Empty::kOmit),
                      core::Field("recordedBy", &T::recorded_by),
                      core::Field("reasonSealed", &T::reason_sealed, core::Empty::kOmit)};
  }
};

struct PersonPurged {
  static constexpr std::string_view kType = "persons.person_purged";
  std::vector<std::string> session_ids;  // the person's verification sessions, whose keys go too
  static constexpr auto Fields() { return std::tuple{core::Field("sessionIds", &PersonPurged::session_ids)}; }
};

struct KeysDestroyed {
  static constexpr std::string_view kType = "persons.keys_destroyed";
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
  std::string consolidation_id;
  std::vector<std::string> source_ids;
  std::map<std::string, std::string> field_resolutions;  // field -> the person whose value wins
  static constexpr auto Fields() {
    using T = ConsolidationRequested;
    return std::tuple{core::Field("consolidationId", &T::consolidation_id),
                      core::Field("sourcePersonIds", &T::source_ids),
                      core::Field("fieldResolutions", &T::field_resolutions)};
  }
};

struct MergeStarted {
  static constexpr std::string_view kType = "persons.merge_started";
  std::string consolidation_id;
  std::string survivor_id;
  static constexpr auto Fields() {
    return std::tuple{core::Field("consolidationId", &MergeStarted::consolidation_id),
                      core::Field("survivorId", &MergeStarted::survivor_id)};
  }
};

struct SourceAbsorbed {
  static constexpr std::string_view kType = "persons.source_absorbed";
  std::string consolidation_id;
  std::string source_id;
  std::vector<std::string> fields;  // the fields whose value the survivor took (names only)
  std::string error;                // the source could not be merged: its refusal's code ("" = merged)
  static constexpr auto Fields() {
    using T = SourceAbsorbed;
    return std::tuple{core::Field("consolidationId", &T::consolidation_id),
                      core::Field("sourcePersonId", &T::source_id),
                      core::Field("fields", &T::fields),
                      core::Field("error", &T::error, core::Empty::kNull)};
  }
};

struct PersonMerged {
  static constexpr std::string_view kType = "persons.merged";
  std::string consolidation_id;
  std::string survivor_id;
  static constexpr auto Fields() {
    return std::tuple{core::Field("consolidationId", &PersonMerged::consolidation_id),
                      core::Field("survivorId", &PersonMerged::survivor_id)};
  }
};

struct ConsolidationCompleted {
  static constexpr std::string_view kType = "persons.consolidation_completed";
  std::string consolidation_id;
  static constexpr auto Fields() {
    return std::tuple{core::Field("consolidationId", &ConsolidationCompleted::consolidation_id)};
  }
};

using PersonEvent = std::variant<PersonCreated, PersonRevised, ConsentGranted, ConsentRevoked, GrantCreated,
                                 GrantRevoked, LegalHoldRecorded, ForgetRequested, PersonPurged, KeysDestroyed,
                                 ConsolidationRequested, MergeStarted, SourceAbsorbed, PersonMerged,
                                 ConsolidationCompleted, OppositionRecorded>;

std::string_view TypeOf(const PersonEvent& e);
std::string EncodeData(const PersonEvent& e);
core::Result<PersonEvent> Decode(const eventstore::EventEnvelope& envelope);

}  // namespace svc::commands::persons
