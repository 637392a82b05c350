#pragma once
// The person aggregate (aggregate id = per_…): creation with its first revision of personal
// data, and revisions (PATCH, or the data of an approved verification). Values arrive sealed
// (the routes seal them under the person's data key); the aggregate keeps, per field, only which
// version set it (the snapshot is written on every command: it stays small).

#include <map>
#include <set>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "commands/command.h"
#include "commands/decider.h"
#include "commands/persons/person_events.h"

namespace svc::commands::persons {

struct PersonState {
  bool exists = false;
  std::string environment;
  std::string status;  // active | merged | redacted
  std::string application_id;
  std::string external_ref;
  int pii_version = 0;
  // The fields that hold a value, with the piiVersion that set each (provenance is the read
  // model's: the decider needs only which fields are set).
  std::map<std::string, int> fields;
  // The first blind-index key of the CURP it holds ("" = none): the CURP claim it needs
  // (commands/claims, docs/write-side.md#claims).
  std::string curp_key;
  int64_t created_micros = 0;
  int64_t updated_micros = 0;
  // Consents and grants by id: whether each was revoked (their content is the read model's). A
  // grant also names its application, so a new one for the application replaces it.
  std::map<std::string, bool> consents;
  struct GrantRef {
    std::string application_id;
    bool revoked = false;
    static constexpr auto Fields() {
      return std::tuple{core::Field("applicationId", &GrantRef::application_id),
                        core::Field("revoked", &GrantRef::revoked)};
    }
  };
  std::map<std::string, GrantRef> grants;
  // Holds: per covered thing ("" = the whole person, else a capture's id), until when (0 = until
  // released); a released hold is removed here (its history is the read model's).
  std::map<std::string, int64_t> holds;
  bool HoldInForce(const std::string& asset, int64_t now_micros) const {
    auto it = holds.find(asset);
    return it != holds.end() && (it->second == 0 || it->second > now_micros);
  }
  bool AnyHoldInForce(int64_t now_micros) const {
    for (const auto& [asset, until] : holds) {
      if (until == 0 || until > now_micros) return true;
    }
    return false;
  }
  // Forget: "" (none), "block" or "purge"; when the purge is due; whether the keys are gone.
  std::string forget_mode;
  int64_t purge_due_micros = 0;
  bool keys_destroyed = false;
  // Consolidation. As a survivor: the consolidations under way (id -> sources) and the merges
  // absorbed ("<consolidation>/<source>": each is absorbed once). As a source: the consolidation
  // merging it and its survivor (frozen from merge_started on; status merged once done).
  std::map<std::string, std::vector<std::string>> consolidating;
  std::set<std::string> absorbed;
  std::string merge_consolidation;
  std::string merged_into;
  static constexpr auto Fields() {
    using T = PersonState;
    return std::tuple{
        core::Field("exists", &T::exists),
        core::Field("environment", &T::environment),
        core::Field("status", &T::status),
        core::Field("applicationId", &T::application_id),
        core::Field("externalRef", &T::external_ref),
        core::Field("piiVersion", &T::pii_version),
        core::Field("fields", &T::fields),
        core::Field("curpKey", &T::curp_key, core::Empty::kOmit),
        core::Field("created", &T::created_micros),
        core::Field("updated", &T::updated_micros),
        core::Field("consents", &T::consents, core::Empty::kOmit),
        core::Field("grants", &T::grants, core::Empty::kOmit),
        core::Field("holds", &T::holds, core::Empty::kOmit),
        core::Field("forgetMode", &T::forget_mode, core::Empty::kOmit),
        core::Field("purgeDue", &T::purge_due_micros, core::Empty::kOmit),
        core::Field("keysDestroyed", &T::keys_destroyed),
        core::Field("consolidating", &T::consolidating, core::Empty::kOmit),
        core::Field("absorbed", &T::absorbed, core::Empty::kOmit),
        core::Field("mergeConsolidation", &T::merge_consolidation, core::Empty::kOmit),
        core::Field("mergedInto", &T::merged_into, core::Empty::kOmit)};
  }
};

struct CreatePerson {
  PersonCreated created;
  static constexpr std::string_view kCommand = "CreatePerson";
  static constexpr auto Fields() {
    using T = CreatePerson;
    return std::tuple{core::Field("created", &T::created)};
  }
};
// Fields in `set` get new values, fields in `cleared` lose theirs; `metadata_sealed` replaces the
// metadata when present ("" clears it).
struct RevisePerson {
  std::map<std::string, SealedPii> set;
  std::vector<std::string> cleared;
  std::optional<std::string> metadata_sealed;
  PiiSource source;
  // A consolidation's absorption of one source (the consolidator): recorded with the revision,
  // once per consolidation and source (a second one decides nothing); `error` records a source
  // that could not be merged, with no revision.
  struct Absorbing {
    std::string consolidation_id;
    std::string source_id;
    std::string error;
    static constexpr auto Fields() {
      using T = Absorbing;
      return std::tuple{core::Field("consolidationId", &T::consolidation_id), core::Field("sourceId", &T::source_id),
                        core::Field("error", &T::error)};
    }
  };
  std::optional<Absorbing> absorbing;
  // Sealed for the version after this one (a revision that travelled from another node of a
  // cluster, sealed there from its read model): decided only while the person is at it. 0: any
  // (a person's version is 1 or more).
  int64_t expected_pii_version = 0;
  std::string arco_request_id;  // an ARCO rectification request it fulfils ("" = none)
  static constexpr std::string_view kCommand = "RevisePerson";
  static constexpr auto Fields() {
    using T = RevisePerson;
    return std::tuple{core::Field("set", &T::set),
                      core::Field("cleared", &T::cleared),
                      core::Field("metadataSealed", &T::metadata_sealed),
                      core::Field("source", &T::source),
                      core::Field("absorbing", &T::absorbing),
                      core::Field("expectedPiiVersion", &T::expected_pii_version),
                      core::Field("arcoRequestId", &T::arco_request_id, core::Empty::kOmit)};
  }
};
// Consents (the purpose is checked against the catalogue by the routes) and grants (the
// application is checked by the routes; `replaces` is decided here). Revocations are idempotent:
// a second one records nothing.
struct GrantConsent {
  ConsentGranted consent;
  static constexpr std::string_view kCommand = "GrantConsent";
  static constexpr auto Fields() {
    using T = GrantConsent;
    return std::tuple{core::Field("consent", &T::consent)};
  }
};
struct RevokeConsent {
  std::string consent_id;
  static constexpr std::string_view kCommand = "RevokeConsent";
  static constexpr auto Fields() {
    using T = RevokeConsent;
    return std::tuple{core::Field("consentId", &T::consent_id)};
  }
};
struct CreateGrant {
  GrantCreated grant;
  static constexpr std::string_view kCommand = "CreateGrant";
  static constexpr auto Fields() {
    using T = CreateGrant;
    return std::tuple{core::Field("grant", &T::grant)};
  }
};
struct RevokeGrant {
  std::string grant_id;
  static constexpr std::string_view kCommand = "RevokeGrant";
  static constexpr auto Fields() {
    using T = RevokeGrant;
    return std::tuple{core::Field("grantId", &T::grant_id)};
  }
};
// Legal holds: `hold.action` is "set" (the decider makes it "renew" when one is in force) or
// "release" (recorded whatever is in force: the history never loses a call).
struct RecordLegalHold {
  LegalHoldRecorded hold;
  static constexpr std::string_view kCommand = "RecordLegalHold";
  static constexpr auto Fields() {
    using T = RecordLegalHold;
    return std::tuple{core::Field("hold", &T::hold)};
  }
};
// Forget (ARCO cancellation). A request while one is pending only ever brings the purge closer
// (purge after block: due now); a legal hold in force (on the person or on any capture) refuses it.
struct RequestForget {
  std::string mode;     // block | purge
  std::string reason_sealed;  // the caller's words under the person's key (SealPersonText)
  int64_t grace_micros = 0;  // block: how long the data is kept before the purge
  std::string arco_request_id;  // an ARCO cancellation request it fulfils ("" = none)
  static constexpr std::string_view kCommand = "RequestForget";
  static constexpr auto Fields() {
    using T = RequestForget;
    return std::tuple{core::Field("mode", &T::mode),
                      core::Field("reasonSealed", &T::reason_sealed),
                      core::Field("graceMicros", &T::grace_micros),
                      core::Field("arcoRequestId", &T::arco_request_id, core::Empty::kOmit)};
  }
};
// ARCO opposition to a purpose: `revoke`, the person's consents for it the caller read in force
// (the decider revokes those it knows and has not revoked).
struct RecordOpposition {
  OppositionRecorded opposition;
  std::vector<std::string> revoke;
  static constexpr std::string_view kCommand = "RecordOpposition";
  static constexpr auto Fields() {
    using T = RecordOpposition;
    return std::tuple{core::Field("opposition", &T::opposition), core::Field("revoke", &T::revoke)};
  }
};
// The purger (pipeline/persons/purger.h): the purge once due (refused while a hold is in force),
// then the record that the keys are gone.
struct PurgePerson {
  std::vector<std::string> session_ids;
  static constexpr std::string_view kCommand = "PurgePerson";
  static constexpr auto Fields() {
    using T = PurgePerson;
    return std::tuple{core::Field("sessionIds", &T::session_ids)};
  }
};
struct ConfirmKeysDestroyed {
  std::vector<std::string> key_names;
  static constexpr std::string_view kCommand = "ConfirmKeysDestroyed";
  static constexpr auto Fields() {
    using T = ConfirmKeysDestroyed;
    return std::tuple{core::Field("keyNames", &T::key_names)};
  }
};
// Consolidation (docs/persons.md#consolidation). On the survivor: the request (it must be active,
// not itself being merged), and the end once every source is merged. On each source: the start
// (frozen: writes, forget and other merges are refused) and the merge.
struct RequestConsolidation {
  ConsolidationRequested request;
  static constexpr std::string_view kCommand = "RequestConsolidation";
  static constexpr auto Fields() {
    using T = RequestConsolidation;
    return std::tuple{core::Field("request", &T::request)};
  }
};
struct StartMerge {
  std::string consolidation_id;
  std::string survivor_id;
  static constexpr std::string_view kCommand = "StartMerge";
  static constexpr auto Fields() {
    using T = StartMerge;
    return std::tuple{core::Field("consolidationId", &T::consolidation_id),
                      core::Field("survivorId", &T::survivor_id)};
  }
};
struct CompleteMerge {
  std::string consolidation_id;
  std::string survivor_id;
  static constexpr std::string_view kCommand = "CompleteMerge";
  static constexpr auto Fields() {
    using T = CompleteMerge;
    return std::tuple{core::Field("consolidationId", &T::consolidation_id),
                      core::Field("survivorId", &T::survivor_id)};
  }
};
struct CompleteConsolidation {
  std::string consolidation_id;
  static constexpr std::string_view kCommand = "CompleteConsolidation";
  static constexpr auto Fields() {
    using T = CompleteConsolidation;
    return std::tuple{core::Field("consolidationId", &T::consolidation_id)};
  }
};
using PersonCommand = std::variant<CreatePerson, RevisePerson, GrantConsent, RevokeConsent, CreateGrant, RevokeGrant,
                                   RecordLegalHold, RequestForget, PurgePerson, ConfirmKeysDestroyed,
                                   RequestConsolidation, StartMerge, CompleteMerge, CompleteConsolidation,
                                   RecordOpposition>;

struct PersonDecider : FieldSnapshots<PersonDecider, PersonState> {
  using CommandType = PersonCommand;
  using Event = PersonEvent;
  static constexpr std::string_view kName = kPersonAggregate;
  static core::Result<Decision> Decide(const PersonState& s, const PersonCommand& c,
                                       const CommandContext& ctx);
  // The same, reading other aggregates of the tenant (MakeReadingCommand): a consolidation reads
  // its sources, each of which must exist in the survivor's environment and still hold its data
  // (PERSON_NOT_FOUND, PERSON_ALREADY_MERGED, PERSON_PURGED, PERSON_FORGET_PENDING). The
  // consolidator checks each again when it freezes it.
  static core::Result<Decision> Decide(const PersonState& s, const PersonCommand& c, const StateReader& read,
                                       const CommandContext& ctx);
  static core::Status Evolve(PersonState& s, const eventstore::EventEnvelope& e);
  static void EvolveDecoded(PersonState& s, const PersonEvent& e, core::Timestamp at,
                            std::string_view environment);
  // The answer told again from the events a command appended (AggregateType::ResultOf).
  // A create or revision of the person's data answers the person as the write left it
  // (WriteAnswer): a retry with the same Idempotency-Key is told the first answer, whatever was
  // written to the person since.
  static core::Json ResultOf(const std::vector<eventstore::EventEnvelope>& events, const PersonState& after);
};

// The names of the vault's personal data fields (the spec's 17), for the aggregate's own guard:
// a field outside them is a programming error of the caller (the routes validate first).
bool IsPiiFieldName(std::string_view name);

// Claims of a person (docs/write-side.md#claims): its CURP and its application's externalRef are
// each unique in the tenant and environment. The claim ids, and whether a person's state still
// holds each value (an erased person frees both; a merged one, or one being merged, its CURP).
std::string CurpClaimId(std::string_view environment, std::string_view curp_key);
std::string ExternalRefClaimId(std::string_view environment, std::string_view application_id,
                               std::string_view external_ref);
bool HoldsCurp(const PersonState& s, std::string_view curp_key);
bool HoldsExternalRef(const PersonState& s, std::string_view application_id, std::string_view external_ref);

}  // namespace svc::commands::persons
