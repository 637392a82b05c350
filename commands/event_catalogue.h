#pragma once
// The catalogue of every event type the log holds: its aggregate types, the public topic area it
// belongs to, whether it is meant for analytics, whether it obliges a consumer to erase what it
// derived, and the JSON Schema of its data, derived from the event's field list
// (core/json_schema.h). The event contract (docs/events.md, `svc asyncapi`) is written from it.
//
// It is built from the aggregates' event variants, so an event type added to a variant is in the
// catalogue without another line; what it cannot know (the audience and the erasure duty of a new
// type) defaults to public and no duty, and the test names every type (event_catalogue_test.cc).

#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"

namespace svc::commands {

enum class Audience {
  kPublic,    // a fact an analyst counts or joins: carried on the public topics
  kInternal,  // a control record or a step of a process (uniqueness claims, delivery attempts,
              // timestamp requests, sweeps): kept in the log, not published
};

struct EventTypeInfo {
  std::string type;                          // "persons.person_created"
  int schema_version = 1;                    // the envelope's schemaVersion the code writes
  std::vector<std::string> aggregate_types;  // "person" (persons.pii_accessed has two)
  std::string area;                          // the public topic's area: "persons"
  Audience audience = Audience::kPublic;
  bool erasure = false;  // a consumer must delete what it derived from the subject (docs/events.md)
  core::Json data_schema;    // JSON Schema of the event's data in the log (core/json_schema.h)
  core::Json public_schema;  // the same for its public form (PublicData)
};

// An event's data as the public topics carry it: every member named `sealed`, `index` or ending
// in `Sealed`, and every member of kUnpublishedMembers, left out at any depth. The first hold
// ciphertext under a person's or the service's key and keyed blind indexes: of no use to an
// analyst, and an index is an identifier that must not outlive the person's key downstream. The
// others are free text people write (a reveal's or a hold's reason, a list entry's name matched
// against a person, an ARCO request's identity reference, a reviewer's label), and a reveal's
// commitment to its sealed reason: personal data, or of use only beside it, that a count or a
// join never needs. What is left says which fields exist, never their values.
core::Json PublicData(const core::Json& data);
// The schema of PublicData's output, from the data's schema by the same rule.
core::Json PublicSchema(const core::Json& data_schema);
inline constexpr std::string_view kUnpublishedMembers[] = {
    "reason", "legalBasis", "entryName", "matchedName", "identityReference", "reference",
    "fulfilmentReference", "denialReason", "label", "reasonCommitment"};
// The URI a public record names in ce_dataschema: the schema of `type` at `version`, an entry of
// the AsyncAPI document the service serves ({base}/v1/asyncapi.json#/components/schemas/{type}.v{N}).
std::string EventSchemaUri(std::string_view public_base_url, std::string_view type, int version);

// Whether PublicData leaves out a member of this name.
bool IsUnpublishedMember(std::string_view name);

// Every event type, ordered by area, then type.
const std::vector<EventTypeInfo>& EventCatalogue();
// nullptr for a type the catalogue does not hold.
const EventTypeInfo* FindEventType(std::string_view type);
// The names the catalogue's lists of internal and erasure types hold that name no event type (a
// type renamed or mistyped: the test requires none).
std::vector<std::string> UnknownListedTypes();
// The public topic areas, in order (each a topic per environment: docs/events.md).
const std::vector<std::string>& EventAreas();

}  // namespace svc::commands
