#pragma once
// The company aggregate (docs/kyb.md#statuses):
//
//   create -> draft
//   draft | verified | needs_review | rejected --verify--> verifying (run n+1)
//   verifying --the run's risk assessment--> verified | needs_review | rejected
//   a member, document or ownership node added to a company a run finished with -> draft again
//   (the record changed since it was verified: verify again)
//
// Members, documents and ownership nodes may be added in any status; a node's parent must be a
// node of the company (UBO_NODE_NOT_FOUND). The stages of a run are recorded only for the run in
// progress, once each (a resumed process manager repeats nothing). The RFC's uniqueness per
// tenant and environment is the routes' (a read model and an in-flight claim), not the
// aggregate's: one aggregate is one company.

#include <map>

#include "commands/command.h"
#include "commands/decider.h"
#include "commands/kyb/company_events.h"

namespace svc::commands::kyb {

// Bounds of one company's record (422 VALIDATION_ERROR beyond).
inline constexpr size_t kMaxMembers = 100;
inline constexpr size_t kMaxDocuments = 100;
inline constexpr size_t kMaxUboNodes = 200;

// A member or ownership node whose name can be erased (sealed under its own key).
struct KybSubject {
  std::string type;            // member | ubo_node
  bool forgotten = false;
  bool keys_destroyed = false;
  static constexpr auto Fields() {
    using T = KybSubject;
    return std::tuple{core::Field("type", &T::type), core::Field("forgotten", &T::forgotten),
                      core::Field("keysDestroyed", &T::keys_destroyed)};
  }
};

struct CompanyState {
  bool exists = false;
  std::string environment;  // the environment it was created in
  std::string status;  // draft | verifying | verified | needs_review | rejected
  int64_t run = 0;     // the last run started
  int64_t members = 0;
  int64_t documents = 0;
  std::map<std::string, std::string> nodes;  // ubo node id -> node type
  std::map<std::string, double> held;        // owned party ("" the company, else a node id) -> % declared
  std::vector<std::string> stages;           // stages recorded for the run in progress
  std::map<std::string, KybSubject> subjects;  // members and nodes with their own data key, by id
  static constexpr auto Fields() {
    using T = CompanyState;
    return std::tuple{core::Field("exists", &T::exists),
                      core::Field("environment", &T::environment, core::Empty::kOmit),
                      core::Field("status", &T::status), core::Field("run", &T::run),
                      core::Field("members", &T::members), core::Field("documents", &T::documents),
                      core::Field("nodes", &T::nodes), core::Field("held", &T::held),
                      core::Field("stages", &T::stages),
                      core::Field("subjects", &T::subjects, core::Empty::kOmit)};
  }
};

struct CreateCompany {
  CompanyCreated created;
  static constexpr std::string_view kCommand = "CreateCompany";
  static constexpr auto Fields() {
    using T = CreateCompany;
    return std::tuple{core::Field("created", &T::created)};
  }
};
struct AddMember {
  MemberAdded member;
  static constexpr std::string_view kCommand = "AddMember";
  static constexpr auto Fields() {
    using T = AddMember;
    return std::tuple{core::Field("member", &T::member)};
  }
};
struct AddDocument {
  DocumentAdded document;
  static constexpr std::string_view kCommand = "AddDocument";
  static constexpr auto Fields() {
    using T = AddDocument;
    return std::tuple{core::Field("document", &T::document)};
  }
};
struct AddUboNode {
  UboNodeAdded node;
  static constexpr std::string_view kCommand = "AddUboNode";
  static constexpr auto Fields() {
    using T = AddUboNode;
    return std::tuple{core::Field("node", &T::node)};
  }
};
struct StartVerification {
  static constexpr std::string_view kCommand = "StartVerification";
  static constexpr auto Fields() { return std::tuple{}; }
};
struct CompleteStage {
  StageCompleted stage;
  static constexpr std::string_view kCommand = "CompleteStage";
  static constexpr auto Fields() {
    using T = CompleteStage;
    return std::tuple{core::Field("stage", &T::stage)};
  }
};
struct AssessRisk {
  RiskAssessed risk;
  static constexpr std::string_view kCommand = "AssessRisk";
  static constexpr auto Fields() {
    using T = AssessRisk;
    return std::tuple{core::Field("risk", &T::risk)};
  }
};
// Erase a member's or node's personal data: COMPANY_MEMBER_NOT_FOUND / UBO_NODE_NOT_FOUND for
// none of this company; CONFLICT for one sealed before per-record keys (its name is under the KYB
// key, which no cancellation may destroy). A repeat is a no-op (result forgotten: true).
struct ForgetSubject {
  SubjectForgotten forgotten;
  static constexpr std::string_view kCommand = "ForgetSubject";
  static constexpr auto Fields() {
    using T = ForgetSubject;
    return std::tuple{core::Field("forgotten", &T::forgotten)};
  }
};
// The shredder destroyed the subject's key (once; a repeat is a no-op).
struct ConfirmSubjectKeysDestroyed {
  SubjectKeysDestroyed destroyed;
  static constexpr std::string_view kCommand = "ConfirmSubjectKeysDestroyed";
  static constexpr auto Fields() {
    using T = ConfirmSubjectKeysDestroyed;
    return std::tuple{core::Field("destroyed", &T::destroyed)};
  }
};
using CompanyCommand = std::variant<CreateCompany, AddMember, AddDocument, AddUboNode, StartVerification, CompleteStage,
                                    AssessRisk, ForgetSubject, ConfirmSubjectKeysDestroyed>;

struct CompanyDecider : FieldSnapshots<CompanyDecider, CompanyState> {
  using CommandType = CompanyCommand;
  static constexpr std::string_view kName = kCompanyAggregate;
  static core::Result<Decision> Decide(const CompanyState& s, const CompanyCommand& c, const CommandContext& ctx);
  // The same, reading other aggregates of the tenant (MakeReadingCommand): a member's or UBO
  // node's personId must be a person of the environment (PERSON_NOT_FOUND), a node's
  // relatedCompanyId a company of it (COMPANY_NOT_FOUND).
  static core::Result<Decision> Decide(const CompanyState& s, const CompanyCommand& c, const StateReader& read,
                                       const CommandContext& ctx);
  static core::Status Evolve(CompanyState& s, const eventstore::EventEnvelope& e);
  // The answer told again from the events a command appended (AggregateType::ResultOf).
  static core::Json ResultOf(const std::vector<eventstore::EventEnvelope>& events, const CompanyState& after);
};

}  // namespace svc::commands::kyb
