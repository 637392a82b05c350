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

using PersonEvent = std::variant<PersonCreated, PersonRevised>;

std::string_view TypeOf(const PersonEvent& e);
std::string EncodeData(const PersonEvent& e);
core::Result<PersonEvent> Decode(const eventstore::EventEnvelope& envelope);

}  // namespace svc::commands::persons
