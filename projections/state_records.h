#pragma once
// The state topics' records (docs/events.md, "State topics"): for the read models an analyst
// wants whole (verification sessions, persons, review cases, companies), the latest state of each
// one, as a compacted topic per area and environment, so a new consumer starts from the states
// instead of replaying the history. A record is its read-model row as the REST API serves it,
// cut to the members below: each shape lists, once, the members an analyst counts and groups by
// (statuses, steps, scores, times, the ids that join); its JSON Schema is derived from the same
// list (core/json_schema.h). Never carried: personal values (sealed, masked), the integrator's
// free text (client references, external refs, metadata, notes), secrets (link tokens, callback
// secrets), and people's ids other than as pseudonyms (pipeline/events/pseudonyms.h).
//
// A person who asked to be forgotten, and a row the read model no longer holds, is a tombstone: a
// null value under the key, which compaction keeps until it drops the key.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"
#include "core/json_fields.h"
#include "projections/persons/persons_view.h"

namespace svc::projections {

struct SessionStateRecord {
  std::string id;
  std::string application_id;
  std::optional<std::string> flow_id;
  std::optional<std::string> person_id;  // the person's pseudonym on the topic
  std::string channel;
  std::string status;
  std::optional<std::string> current_step;
  std::string country;
  std::string locale;
  core::Json trust_score;  // 0-100, or null
  std::string created_at;
  std::string updated_at;
  std::optional<std::string> started_at;
  std::optional<std::string> completed_at;
  std::optional<std::string> decided_at;
  std::optional<std::string> expires_at;
  static constexpr auto Fields() {
    using T = SessionStateRecord;
    return std::tuple{core::Field("id", &T::id),
                      core::Field("applicationId", &T::application_id),
                      core::Field("flowId", &T::flow_id),
                      core::Field("personId", &T::person_id),
                      core::Field("channel", &T::channel),
                      core::Field("status", &T::status),
                      core::Field("currentStep", &T::current_step),
                      core::Field("country", &T::country),
                      core::Field("locale", &T::locale),
                      core::Field("trustScore", &T::trust_score, core::Shape::kNumberOrNull),
                      core::Field("createdAt", &T::created_at),
                      core::Field("updatedAt", &T::updated_at),
                      core::Field("startedAt", &T::started_at),
                      core::Field("completedAt", &T::completed_at),
                      core::Field("decidedAt", &T::decided_at),
                      core::Field("expiresAt", &T::expires_at)};
  }
};

struct PersonStateRecord {
  std::string id;  // the person's pseudonym on the topic
  std::string status;  // active | merged (a redacted person is a tombstone)
  int64_t pii_version = 0;
  std::optional<std::string> application_id;
  std::vector<std::string> pii_fields;  // the personal fields the person has (names, never values)
  PersonVerificationSummary verification_summary;
  std::string created_at;
  std::string updated_at;
  static constexpr auto Fields() {
    using T = PersonStateRecord;
    return std::tuple{core::Field("id", &T::id),
                      core::Field("status", &T::status),
                      core::Field("piiVersion", &T::pii_version),
                      core::Field("applicationId", &T::application_id),
                      core::Field("piiFields", &T::pii_fields),
                      core::Field("verificationSummary", &T::verification_summary),
                      core::Field("createdAt", &T::created_at),
                      core::Field("updatedAt", &T::updated_at)};
  }
};

struct CaseStateRecord {
  std::string case_id;
  int64_t case_number = 0;
  std::optional<std::string> application_id;
  std::optional<std::string> session_id;
  std::string status;
  std::string priority;
  std::vector<std::string> reason_codes;
  int64_t escalation_level = 0;
  bool awaiting_second_approval = false;
  std::optional<std::string> resolution;
  std::optional<std::string> claimed_at;
  std::optional<std::string> sla_due_at;
  std::optional<std::string> escalated_at;
  std::optional<std::string> resolved_at;
  std::string created_at;
  std::string updated_at;
  static constexpr auto Fields() {
    using T = CaseStateRecord;
    return std::tuple{core::Field("caseId", &T::case_id),
                      core::Field("caseNumber", &T::case_number),
                      core::Field("applicationId", &T::application_id),
                      core::Field("sessionId", &T::session_id),
                      core::Field("status", &T::status),
                      core::Field("priority", &T::priority),
                      core::Field("reasonCodes", &T::reason_codes),
                      core::Field("escalationLevel", &T::escalation_level),
                      core::Field("awaitingSecondApproval", &T::awaiting_second_approval),
                      core::Field("resolution", &T::resolution),
                      core::Field("claimedAt", &T::claimed_at),
                      core::Field("slaDueAt", &T::sla_due_at),
                      core::Field("escalatedAt", &T::escalated_at),
                      core::Field("resolvedAt", &T::resolved_at),
                      core::Field("createdAt", &T::created_at),
                      core::Field("updatedAt", &T::updated_at)};
  }
};

struct CompanyStateRecord {
  std::string id;
  std::string country;
  std::string subject_kind;
  std::optional<std::string> legal_form;
  std::optional<std::string> industry_code;
  std::optional<std::string> registry_authority;
  std::optional<std::string> registry_status;
  std::string claim_status;
  std::string status;
  std::optional<std::string> risk_level;
  core::Json risk_score;  // or null
  std::optional<std::string> verification_method;
  std::optional<std::string> verified_at;
  std::string created_at;
  std::string updated_at;
  static constexpr auto Fields() {
    using T = CompanyStateRecord;
    return std::tuple{core::Field("id", &T::id),
                      core::Field("country", &T::country),
                      core::Field("subjectKind", &T::subject_kind),
                      core::Field("legalForm", &T::legal_form),
                      core::Field("industryCode", &T::industry_code),
                      core::Field("registryAuthority", &T::registry_authority),
                      core::Field("registryStatus", &T::registry_status),
                      core::Field("claimStatus", &T::claim_status),
                      core::Field("status", &T::status),
                      core::Field("riskLevel", &T::risk_level),
                      core::Field("riskScore", &T::risk_score, core::Shape::kNumberOrNull),
                      core::Field("verificationMethod", &T::verification_method),
                      core::Field("verifiedAt", &T::verified_at),
                      core::Field("createdAt", &T::created_at),
                      core::Field("updatedAt", &T::updated_at)};
  }
};

// One state topic: which aggregate's events touch it, where its rows are, how a row becomes a
// record.
struct StateTopicInfo {
  std::string aggregate_type;  // "verification_session"
  std::string area;            // "verification": the topic is {prefix}.{env}.{area}.state
  std::string type;            // "verification_session.state": ce_type, and the schema's name
  int schema_version = 1;
  std::string_view view;       // the projector whose rows it reads (waited for before reading)
  std::string (*row_key)(std::string_view tenant, std::string_view env, std::string_view id);
  // The record of a stored row (its JSON text, read with simdjson), or nullopt for a tombstone (an
  // erased subject, or a row that does not parse).
  std::optional<core::Json> (*record)(std::string_view row);
  core::Json schema;  // of the record (core/json_schema.h)
};

const std::vector<StateTopicInfo>& StateTopics();
const StateTopicInfo* FindStateTopic(std::string_view aggregate_type);
// "{prefix}.{env}.{area}.state"
std::string StateTopicName(std::string_view prefix, std::string_view env, std::string_view area);

}  // namespace svc::projections
