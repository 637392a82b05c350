#pragma once
// AML events (docs/screening.md):
//
// - aggregate "aml_list" (id: the list's source name, e.g. ofac_sdn), in the service's own
//   partition (kServiceTenant): a version of a sanctions or PEP list loaded by the operator
//   (`svc aml load`). The files themselves are blobs, addressed by their SHA-256; the event says
//   which, and the content hash that versions the list.
// - aggregate "screening" (id scr_…): one screening of one subject — a person of the vault, a
//   company (its name, members and owners) or a name — against the lists loaded then; the hits
//   it found, with everything needed to reproduce them. A name screened (and a portfolio's
//   subject) travels sealed.
// - aggregate "screening_hit" (id hit_…, derived from the subject and the list entry, so the
//   same subject matching the same entry is the same hit however often it is screened): found
//   once (the webhook aml.hit_found), then confirmed or dismissed by a compliance officer with a
//   reason, as often as they change their mind; each decision is an event with its actor.

#include <string>
#include <variant>
#include <vector>

#include "commands/service_tenant.h"
#include "core/json.h"
#include "core/json_fields.h"
#include "core/status.h"
#include "eventstore/envelope.h"

namespace svc::commands::kyb {

// The loaded lists are in the partition of service-wide records.
using commands::kServiceTenant;
inline constexpr std::string_view kAmlListAggregate = "aml_list";
inline constexpr std::string_view kScreeningAggregate = "screening";
inline constexpr std::string_view kHitAggregate = "screening_hit";

struct ListLoaded {
  static constexpr std::string_view kType = "aml.list_loaded";
  std::string source;        // the operator's name for the list (ofac_sdn, un_consolidated, …)
  std::string format;        // pipeline/kyb/list_loaders.h
  std::string content_hash;  // the list's version
  std::vector<std::string> blobs;  // the files' blob addresses, in the loader's order
  int64_t entries = 0;
  int64_t persons = 0;
  int64_t companies = 0;
  static constexpr auto Fields() {
    using T = ListLoaded;
    return std::tuple{core::Field("source", &T::source), core::Field("format", &T::format),
                      core::Field("contentHash", &T::content_hash), core::Field("blobs", &T::blobs),
                      core::Field("entries", &T::entries), core::Field("persons", &T::persons),
                      core::Field("companies", &T::companies)};
  }
};

struct ScreeningCompleted {
  static constexpr std::string_view kType = "aml.screening_completed";
  std::string subject_type;    // person | company | name
  std::string subject_id;      // per_… | cmp_… | "" (a name)
  std::string subject_key;     // person:per_… | company:cmp_… | name:<blind key of the query>
  std::string subject_sealed;  // a name's query, sealed ({name, kind, birthDate, nationality, idNumber})
  std::string portfolio_id;    // "" none: the subject joins this portfolio
  std::string origin;          // api | company_verification | portfolio_run
  core::Json lists = core::Json::array();  // [{source, format, contentHash, entries}]
  int64_t names_screened = 0;
  core::Json hits = core::Json::array();   // [{hitId, subjectType, subjectId, listSource, entryId, score}]
  static constexpr auto Fields() {
    using T = ScreeningCompleted;
    return std::tuple{core::Field("subjectType", &T::subject_type),
                      core::Field("subjectId", &T::subject_id, core::Empty::kNull),
                      core::Field("subjectKey", &T::subject_key),
                      core::Field("subjectSealed", &T::subject_sealed, core::Empty::kNull),
                      core::Field("portfolioId", &T::portfolio_id, core::Empty::kNull),
                      core::Field("origin", &T::origin), core::Field("lists", &T::lists),
                      core::Field("namesScreened", &T::names_screened),
                      core::Field("hits", &T::hits)};
  }
};

struct HitFound {
  static constexpr std::string_view kType = "aml.hit_found";
  std::string screening_id;
  std::string subject_type;  // person | company | company_member | ubo_node | name
  std::string subject_id;    // per_… | cmp_… | cmm_… | ubo_… | "" (a name)
  std::string company_id;    // the company of a member or an owner ("" otherwise)
  std::string list_source;
  std::string list_format;
  std::string list_hash;
  std::string entry_id;
  std::string entry_kind;
  // The list's name of the entry and the name (primary or alias) that scored. Public data of the
  // list, but next to a subject's id they say whom a person was taken for (for a true match, the
  // person's own name): sealed (pipeline/kyb/kyb_seal.h SealHitNames) under the key that
  // `names_sealed_with` names, and then written empty here. Events before issue 71 hold them in
  // clear and no `namesSealedWith`.
  std::string entry_name;
  std::string matched_name;
  double score = 0;
  double name_score = 0;
  std::vector<std::string> reasons;
  std::string algorithm;
  std::vector<std::string> programs;  // the entry's sanctions programmes or datasets
  std::string entry_name_sealed;
  std::string matched_name_sealed;
  std::string names_sealed_with;  // person | record | kyb ("" = the names in clear, older events)
  static constexpr auto Fields() {
    using T = HitFound;
    return std::tuple{core::Field("screeningId", &T::screening_id),
                      core::Field("subjectType", &T::subject_type),
                      core::Field("subjectId", &T::subject_id, core::Empty::kNull),
                      core::Field("companyId", &T::company_id, core::Empty::kNull),
                      core::Field("listSource", &T::list_source),
                      core::Field("listFormat", &T::list_format),
                      core::Field("listHash", &T::list_hash), core::Field("entryId", &T::entry_id),
                      core::Field("entryKind", &T::entry_kind),
                      core::Field("entryName", &T::entry_name),
                      core::Field("matchedName", &T::matched_name), core::Field("score", &T::score),
                      core::Field("nameScore", &T::name_score), core::Field("reasons", &T::reasons),
                      core::Field("algorithm", &T::algorithm),
                      core::Field("programs", &T::programs),
                      core::Field("entryNameSealed", &T::entry_name_sealed, core::Empty::kOmit),
                      core::Field("matchedNameSealed", &T::matched_name_sealed, core::Empty::kOmit),
                      core::Field("namesSealedWith", &T::names_sealed_with, core::Empty::kOmit)};
  }
};

struct HitReviewed {
  static constexpr std::string_view kType = "aml.hit_reviewed";
  std::string decision;     // confirmed | dismissed
  std::string reason_code;  // e.g. false_positive, true_match (no personal data)
  std::string note_sealed;  // the officer's free text, sealed ("" none)
  std::string actor_type;   // api_key | user
  std::string actor_id;
  static constexpr auto Fields() {
    using T = HitReviewed;
    return std::tuple{
        core::Field("decision", &T::decision), core::Field("reasonCode", &T::reason_code),
        core::Field("noteSealed", &T::note_sealed, core::Empty::kNull),
        core::Field("actorType", &T::actor_type), core::Field("actorId", &T::actor_id)};
  }
};

using AmlListEvent = std::variant<ListLoaded>;
using ScreeningEvent = std::variant<ScreeningCompleted>;
using HitEvent = std::variant<HitFound, HitReviewed>;

core::Result<AmlListEvent> DecodeAmlList(const eventstore::EventEnvelope& envelope);
core::Result<ScreeningEvent> DecodeScreening(const eventstore::EventEnvelope& envelope);
core::Result<HitEvent> DecodeHit(const eventstore::EventEnvelope& envelope);

}  // namespace svc::commands::kyb
