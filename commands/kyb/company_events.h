#pragma once
// Company events (aggregate "company", id cmp_…): the KYB record (docs/kyb.md). The integrator
// creates it and adds members, document references and ownership nodes; `verify` starts a run of
// the KYB process manager (pipeline/kyb/company_verifier.h), whose stages are events too: the
// registry lookup, the ownership analysis, the screening, the risk assessment.
//
// A company may be a physical person with business activity, and its members and owners are
// persons: every name and the RFC travel sealed (base64, XChaCha20-Poly1305 under the KYB key,
// pipeline/kyb/kyb_seal.h), never in clear. The RFC also travels as its blind index, which backs
// RFC_CONFLICT.

#include <string>
#include <variant>
#include <vector>

#include "core/json.h"
#include "core/json_fields.h"
#include "core/status.h"
#include "eventstore/envelope.h"

namespace svc::commands::kyb {

inline constexpr std::string_view kCompanyAggregate = "company";

struct CompanyCreated {
  static constexpr std::string_view kType = "kyb.company_created";
  std::string legal_name_sealed;
  std::string trade_name_sealed;  // "" none
  std::string country;            // ISO 3166-1 alpha-2
  std::string rfc_sealed;         // "" none
  std::string rfc_blind;          // the RFC's blind index ("" none)
  std::string rfc_kind;           // moral | fisica | "" (no RFC)
  std::string subject_kind;       // legal_entity | individual_business
  static constexpr auto Fields() {
    using T = CompanyCreated;
    return std::tuple{core::Field("legalNameSealed", &T::legal_name_sealed),
                      core::Field("tradeNameSealed", &T::trade_name_sealed, core::Empty::kNull),
                      core::Field("country", &T::country),
                      core::Field("rfcSealed", &T::rfc_sealed, core::Empty::kNull),
                      core::Field("rfcBlind", &T::rfc_blind, core::Empty::kNull),
                      core::Field("rfcKind", &T::rfc_kind, core::Empty::kNull),
                      core::Field("subjectKind", &T::subject_kind)};
  }
};

struct MemberAdded {
  static constexpr std::string_view kType = "kyb.member_added";
  std::string member_id;
  std::string name_sealed;
  std::string person_id;  // "" none
  std::string role;       // "" none
  // "record": the name is sealed under the member's own data key (pipeline/kyb/kyb_seal.h), which
  // a cancellation destroys; "" (members added before): under the KYB key.
  std::string sealed_with;
  static constexpr auto Fields() {
    using T = MemberAdded;
    return std::tuple{core::Field("memberId", &T::member_id),
                      core::Field("nameSealed", &T::name_sealed),
                      core::Field("personId", &T::person_id, core::Empty::kNull),
                      core::Field("role", &T::role, core::Empty::kNull),
                      core::Field("sealedWith", &T::sealed_with, core::Empty::kOmit)};
  }
};

struct DocumentAdded {
  static constexpr std::string_view kType = "kyb.document_added";
  std::string document_id;
  std::string kind;
  std::string sha256;
  std::string storage_key;
  std::string uploaded_by_user_id;  // "" none (an API key)
  static constexpr auto Fields() {
    using T = DocumentAdded;
    return std::tuple{core::Field("documentId", &T::document_id),
                      core::Field("kind", &T::kind, core::Empty::kNull),
                      core::Field("sha256", &T::sha256, core::Empty::kNull),
                      core::Field("storageKey", &T::storage_key, core::Empty::kNull),
                      core::Field("uploadedByUserId", &T::uploaded_by_user_id, core::Empty::kNull)};
  }
};

struct UboNodeAdded {
  static constexpr std::string_view kType = "kyb.ubo_node_added";
  std::string node_id;
  std::string name_sealed;
  std::string node_type;           // person | company
  std::string ownership_pct;       // decimal text ("" none: control only)
  std::string parent_node_id;      // "" = the company itself
  std::string person_id;           // "" none
  std::string related_company_id;  // "" none
  std::string role;                // "" none
  bool is_control_person = false;
  std::string sealed_with;         // as MemberAdded's
  static constexpr auto Fields() {
    using T = UboNodeAdded;
    return std::tuple{core::Field("nodeId", &T::node_id),
                      core::Field("nameSealed", &T::name_sealed),
                      core::Field("nodeType", &T::node_type),
                      core::Field("ownershipPct", &T::ownership_pct, core::Empty::kNull),
                      core::Field("parentNodeId", &T::parent_node_id, core::Empty::kNull),
                      core::Field("personId", &T::person_id, core::Empty::kNull),
                      core::Field("relatedCompanyId", &T::related_company_id, core::Empty::kNull),
                      core::Field("role", &T::role, core::Empty::kNull),
                      core::Field("isControlPerson", &T::is_control_person),
                      core::Field("sealedWith", &T::sealed_with, core::Empty::kOmit)};
  }
};

// `verify` asked: run `run` of the pipeline starts.
struct VerificationStarted {
  static constexpr std::string_view kType = "kyb.verification_started";
  int64_t run = 0;
  static constexpr auto Fields() { return std::tuple{core::Field("run", &VerificationStarted::run)}; }
};

// A stage of a run: registry | ownership | screening. `result` is the stage's check, without
// personal data (ids, codes, figures; docs/kyb.md#checks).
struct StageCompleted {
  static constexpr std::string_view kType = "kyb.stage_completed";
  int64_t run = 0;
  std::string stage;
  std::string status;  // passed | failed | needs_review | not_run
  core::Json result = core::Json::object();
  static constexpr auto Fields() {
    using T = StageCompleted;
    return std::tuple{core::Field("run", &T::run), core::Field("stage", &T::stage),
                      core::Field("status", &T::status), core::Field("result", &T::result)};
  }
};

// The end of a run: the risk assessment and the status it leaves the company in.
struct RiskAssessed {
  static constexpr std::string_view kType = "kyb.risk_assessed";
  int64_t run = 0;
  int64_t score = 0;
  std::string level;   // low | medium | high
  std::string status;  // verified | needs_review | rejected
  core::Json factors = core::Json::array();  // [{code, points, detail}]
  std::string formula;                       // the formula's version (risk/v1)
  static constexpr auto Fields() {
    using T = RiskAssessed;
    return std::tuple{core::Field("run", &T::run), core::Field("score", &T::score),
                      core::Field("level", &T::level), core::Field("status", &T::status),
                      core::Field("factors", &T::factors), core::Field("formula", &T::formula)};
  }
};

// A member's or ownership node's personal data is to be erased (an ARCO cancellation: docs/kyb.md#erasure).
// The read models drop its sealed name at once; its data key is destroyed next (SubjectKeysDestroyed).
struct SubjectForgotten {
  static constexpr std::string_view kType = "kyb.subject_forgotten";
  std::string subject_type;     // member | ubo_node
  std::string subject_id;       // cmm_… | ubo_…
  std::string reason;           // operator text ("" none)
  std::string arco_request_id;  // the ARCO cancellation it serves ("" none)
  static constexpr auto Fields() {
    using T = SubjectForgotten;
    return std::tuple{core::Field("subjectType", &T::subject_type), core::Field("subjectId", &T::subject_id),
                      core::Field("reason", &T::reason, core::Empty::kNull),
                      core::Field("arcoRequestId", &T::arco_request_id, core::Empty::kOmit)};
  }
};
// The subject's data key is gone (the key store flushed and compacted): every copy of its sealed
// name, in the log and in backups, no longer opens. The deletion certificate follows from it.
struct SubjectKeysDestroyed {
  static constexpr std::string_view kType = "kyb.subject_keys_destroyed";
  std::string subject_type;
  std::string subject_id;
  std::vector<std::string> key_names;
  static constexpr auto Fields() {
    using T = SubjectKeysDestroyed;
    return std::tuple{core::Field("subjectType", &T::subject_type), core::Field("subjectId", &T::subject_id),
                      core::Field("keyNames", &T::key_names)};
  }
};

using CompanyEvent = std::variant<CompanyCreated, MemberAdded, DocumentAdded, UboNodeAdded, VerificationStarted,
                                  StageCompleted, RiskAssessed, SubjectForgotten, SubjectKeysDestroyed>;

std::string EncodeData(const CompanyEvent& e);
core::Result<CompanyEvent> Decode(const eventstore::EventEnvelope& envelope);

}  // namespace svc::commands::kyb
