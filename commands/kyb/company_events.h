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
  static constexpr int kSchema = 1;
  std::string legal_name_sealed;
  std::string trade_name_sealed;  // "" none
  std::string country;            // ISO 3166-1 alpha-2
  std::string rfc_sealed;         // "" none
  std::string rfc_blind;          // the RFC's blind index ("" none)
  std::string rfc_kind;           // moral | fisica | "" (no RFC)
  std::string subject_kind;       // legal_entity | individual_business
  static constexpr auto Fields() {
    using core::Empty;
    using core::Field;
    using T = CompanyCreated;
    return std::tuple{Field("legalNameSealed", &T::legal_name_sealed),
                      Field("tradeNameSealed", &T::trade_name_sealed, Empty::kNull),
                      Field("country", &T::country),
                      Field("rfcSealed", &T::rfc_sealed, Empty::kNull),
                      Field("rfcBlind", &T::rfc_blind, Empty::kNull),
                      Field("rfcKind", &T::rfc_kind, Empty::kNull),
                      Field("subjectKind", &T::subject_kind)};
  }
};

struct MemberAdded {
  static constexpr std::string_view kType = "kyb.member_added";
  static constexpr int kSchema = 1;
  std::string member_id;
  std::string name_sealed;
  std::string person_id;  // "" none
  std::string role;       // "" none
  static constexpr auto Fields() {
    using core::Empty;
    using core::Field;
    using T = MemberAdded;
    return std::tuple{Field("memberId", &T::member_id), Field("nameSealed", &T::name_sealed),
                      Field("personId", &T::person_id, Empty::kNull), Field("role", &T::role, Empty::kNull)};
  }
};

struct DocumentAdded {
  static constexpr std::string_view kType = "kyb.document_added";
  static constexpr int kSchema = 1;
  std::string document_id;
  std::string kind;
  std::string sha256;
  std::string storage_key;
  std::string uploaded_by_user_id;  // "" none (an API key)
  static constexpr auto Fields() {
    using core::Empty;
    using core::Field;
    using T = DocumentAdded;
    return std::tuple{Field("documentId", &T::document_id), Field("kind", &T::kind, Empty::kNull),
                      Field("sha256", &T::sha256, Empty::kNull), Field("storageKey", &T::storage_key, Empty::kNull),
                      Field("uploadedByUserId", &T::uploaded_by_user_id, Empty::kNull)};
  }
};

struct UboNodeAdded {
  static constexpr std::string_view kType = "kyb.ubo_node_added";
  static constexpr int kSchema = 1;
  std::string node_id;
  std::string name_sealed;
  std::string node_type;           // person | company
  std::string ownership_pct;       // decimal text ("" none: control only)
  std::string parent_node_id;      // "" = the company itself
  std::string person_id;           // "" none
  std::string related_company_id;  // "" none
  std::string role;                // "" none
  bool is_control_person = false;
  static constexpr auto Fields() {
    using core::Empty;
    using core::Field;
    using T = UboNodeAdded;
    return std::tuple{Field("nodeId", &T::node_id),
                      Field("nameSealed", &T::name_sealed),
                      Field("nodeType", &T::node_type),
                      Field("ownershipPct", &T::ownership_pct, Empty::kNull),
                      Field("parentNodeId", &T::parent_node_id, Empty::kNull),
                      Field("personId", &T::person_id, Empty::kNull),
                      Field("relatedCompanyId", &T::related_company_id, Empty::kNull),
                      Field("role", &T::role, Empty::kNull),
                      Field("isControlPerson", &T::is_control_person)};
  }
};

// `verify` asked: run `run` of the pipeline starts.
struct VerificationStarted {
  static constexpr std::string_view kType = "kyb.verification_started";
  static constexpr int kSchema = 1;
  int64_t run = 0;
  static constexpr auto Fields() { return std::tuple{core::Field("run", &VerificationStarted::run)}; }
};

// A stage of a run: registry | ownership | screening. `result` is the stage's check, without
// personal data (ids, codes, figures; docs/kyb.md#checks).
struct StageCompleted {
  static constexpr std::string_view kType = "kyb.stage_completed";
  static constexpr int kSchema = 1;
  int64_t run = 0;
  std::string stage;
  std::string status;  // passed | failed | needs_review | not_run
  core::Json result = core::Json::object();
  static constexpr auto Fields() {
    using core::Field;
    using T = StageCompleted;
    return std::tuple{Field("run", &T::run), Field("stage", &T::stage), Field("status", &T::status),
                      Field("result", &T::result)};
  }
};

// The end of a run: the risk assessment and the status it leaves the company in.
struct RiskAssessed {
  static constexpr std::string_view kType = "kyb.risk_assessed";
  static constexpr int kSchema = 1;
  int64_t run = 0;
  int64_t score = 0;
  std::string level;   // low | medium | high
  std::string status;  // verified | needs_review | rejected
  core::Json factors = core::Json::array();  // [{code, points, detail}]
  std::string formula;                       // the formula's version (risk/v1)
  static constexpr auto Fields() {
    using core::Field;
    using T = RiskAssessed;
    return std::tuple{Field("run", &T::run),         Field("score", &T::score),
                      Field("level", &T::level),     Field("status", &T::status),
                      Field("factors", &T::factors), Field("formula", &T::formula)};
  }
};

using CompanyEvent = std::variant<CompanyCreated, MemberAdded, DocumentAdded, UboNodeAdded, VerificationStarted,
                                  StageCompleted, RiskAssessed>;

std::string EncodeData(const CompanyEvent& e);
core::Result<CompanyEvent> Decode(const eventstore::EventEnvelope& envelope);

}  // namespace svc::commands::kyb
