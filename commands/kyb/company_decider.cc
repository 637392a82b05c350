#include "commands/kyb/company_decider.h"

#include <algorithm>
#include <cstdlib>

#include "commands/event_codec.h"
#include "commands/persons/person_decider.h"

namespace svc::commands::kyb {

namespace {

NewEvent Make(const CompanyEvent& e) { return NewEventOf(e); }

core::Status MustExist(const CompanyState& s) {
  if (!s.exists) return core::NotFound("no such company", "COMPANY_NOT_FOUND");
  return core::Status::Ok();
}

bool Finished(const CompanyState& s) {
  return s.status == "verified" || s.status == "needs_review" || s.status == "rejected";
}

}  // namespace

core::Result<Decision> CompanyDecider::Decide(const CompanyState& s, const CompanyCommand& command,
                                              const StateReader& read, const CommandContext& ctx) {
  std::string person, related;
  if (const auto* m = std::get_if<AddMember>(&command)) person = m->member.person_id;
  if (const auto* n = std::get_if<AddUboNode>(&command)) {
    person = n->node.person_id;
    related = n->node.related_company_id;
  }
  if (!person.empty()) {
    SVC_ASSIGN_OR_RETURN(AggregateView view, read(persons::PersonDecider::kName, person));
    const auto& p = StateOf<persons::PersonDecider>(view);
    if (!p.exists || p.environment != ctx.environment) {
      return core::NotFound("personId is no person of this tenant and environment", "PERSON_NOT_FOUND");
    }
  }
  if (!related.empty()) {  // like any id: another tenant's or environment's company is not found
    SVC_ASSIGN_OR_RETURN(AggregateView view, read(kName, related));
    const auto& other = StateOf<CompanyDecider>(view);
    if (!other.exists || other.environment != ctx.environment) {
      return core::NotFound("relatedCompanyId is no company of this tenant and environment", "COMPANY_NOT_FOUND");
    }
  }
  return Decide(s, command, ctx);
}

core::Result<Decision> CompanyDecider::Decide(const CompanyState& s, const CompanyCommand& command,
                                              const CommandContext&) {
  Decision d;
  return std::visit(
      [&](const auto& c) -> core::Result<Decision> {
        using T = std::decay_t<decltype(c)>;
        if constexpr (std::is_same_v<T, CreateCompany>) {
          if (s.exists) return core::AlreadyExists("the company exists", "CONFLICT");
          d.events.push_back(Make(c.created));
          d.result = {{"status", "draft"}};
          return d;
        } else {
          SVC_RETURN_IF_ERROR(MustExist(s));
          if constexpr (std::is_same_v<T, AddMember>) {
            if (static_cast<size_t>(s.members) >= kMaxMembers) {
              return core::InvalidArgument("a company holds at most " + std::to_string(kMaxMembers) + " members",
                                           "VALIDATION_ERROR");
            }
            d.events.push_back(Make(c.member));
          } else if constexpr (std::is_same_v<T, AddDocument>) {
            if (static_cast<size_t>(s.documents) >= kMaxDocuments) {
              return core::InvalidArgument("a company holds at most " + std::to_string(kMaxDocuments) + " documents",
                                           "VALIDATION_ERROR");
            }
            d.events.push_back(Make(c.document));
          } else if constexpr (std::is_same_v<T, AddUboNode>) {
            if (s.nodes.size() >= kMaxUboNodes) {
              return core::InvalidArgument("a company holds at most " + std::to_string(kMaxUboNodes) + " UBO nodes",
                                           "VALIDATION_ERROR");
            }
            if (!c.node.parent_node_id.empty()) {
              auto parent = s.nodes.find(c.node.parent_node_id);
              if (parent == s.nodes.end()) {
                return core::NotFound("parentNodeId is no node of this company", "UBO_NODE_NOT_FOUND");
              }
              if (parent->second != "company") {
                return core::InvalidArgument("parentNodeId names a person: only a company has owners",
                                             "VALIDATION_ERROR");
              }
            }
            if (!c.node.ownership_pct.empty()) {
              auto held = s.held.find(c.node.parent_node_id);
              const double total = (held == s.held.end() ? 0.0 : held->second) + std::atof(c.node.ownership_pct.c_str());
              if (total > 100.0 + 1e-9) {
                return core::InvalidArgument(
                    std::string("the owners declared of ") +
                        (c.node.parent_node_id.empty() ? "the company" : c.node.parent_node_id) +
                        " would hold more than 100%",
                    "VALIDATION_ERROR");
              }
            }
            d.events.push_back(Make(c.node));
          } else if constexpr (std::is_same_v<T, StartVerification>) {
            if (s.status == "verifying") {  // a run is in progress: the same one
              d.result = {{"run", s.run}, {"started", false}};
              return d;
            }
            d.events.push_back(Make(VerificationStarted{s.run + 1}));
            d.result = {{"run", s.run + 1}, {"started", true}};
          } else if constexpr (std::is_same_v<T, CompleteStage>) {
            if (s.status != "verifying" || c.stage.run != s.run ||
                std::find(s.stages.begin(), s.stages.end(), c.stage.stage) != s.stages.end()) {
              d.result = {{"recorded", false}};  // another run's, or recorded already
              return d;
            }
            d.events.push_back(Make(c.stage));
            d.result = {{"recorded", true}};
          } else if constexpr (std::is_same_v<T, AssessRisk>) {
            if (s.status != "verifying" || c.risk.run != s.run) {
              d.result = {{"recorded", false}};
              return d;
            }
            d.events.push_back(Make(c.risk));
            d.result = {{"recorded", true}};
          } else if constexpr (std::is_same_v<T, ForgetSubject>) {
            const auto& f = c.forgotten;
            const bool member = f.subject_type == "member";
            auto it = s.subjects.find(f.subject_id);
            if (it == s.subjects.end() || it->second.type != f.subject_type) {
              const bool legacy = member ? false : s.nodes.count(f.subject_id) > 0;
              if (legacy) {
                return core::FailedPrecondition("this node's name was sealed before per-record keys: it cannot be erased",
                                                "CONFLICT");
              }
              return member ? core::NotFound("no such member of this company", "COMPANY_MEMBER_NOT_FOUND")
                            : core::NotFound("no such ownership node of this company", "UBO_NODE_NOT_FOUND");
            }
            if (!it->second.forgotten) d.events.push_back(Make(f));
            d.result = {{"forgotten", true}, {"keysDestroyed", it->second.keys_destroyed}};
          } else if constexpr (std::is_same_v<T, ConfirmSubjectKeysDestroyed>) {
            auto it = s.subjects.find(c.destroyed.subject_id);
            if (it == s.subjects.end() || !it->second.forgotten) {
              return core::FailedPrecondition("the subject was not forgotten", "INVALID_STATE_TRANSITION");
            }
            if (!it->second.keys_destroyed) d.events.push_back(Make(c.destroyed));
          }
          return d;
        }
      },
      command);
}

core::Status CompanyDecider::Evolve(CompanyState& s, const eventstore::EventEnvelope& e) {
  SVC_ASSIGN_OR_RETURN(CompanyEvent ev, Decode(e));
  auto changed = [&s] {
    if (Finished(s)) s.status = "draft";
  };
  std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, CompanyCreated>) {
          s.exists = true;
          s.environment = e.environment;
          s.status = "draft";
        } else if constexpr (std::is_same_v<T, MemberAdded>) {
          ++s.members;
          if (x.sealed_with == "record") s.subjects[x.member_id] = {"member", false, false};
          changed();
        } else if constexpr (std::is_same_v<T, DocumentAdded>) {
          ++s.documents;
          changed();
        } else if constexpr (std::is_same_v<T, UboNodeAdded>) {
          s.nodes[x.node_id] = x.node_type;
          if (!x.ownership_pct.empty()) s.held[x.parent_node_id] += std::atof(x.ownership_pct.c_str());
          if (x.sealed_with == "record") s.subjects[x.node_id] = {"ubo_node", false, false};
          changed();
        } else if constexpr (std::is_same_v<T, VerificationStarted>) {
          s.run = x.run;
          s.status = "verifying";
          s.stages.clear();
        } else if constexpr (std::is_same_v<T, StageCompleted>) {
          s.stages.push_back(x.stage);
        } else if constexpr (std::is_same_v<T, RiskAssessed>) {
          s.status = x.status;
          s.stages.clear();
        } else if constexpr (std::is_same_v<T, SubjectForgotten>) {
          s.subjects[x.subject_id].forgotten = true;
        } else if constexpr (std::is_same_v<T, SubjectKeysDestroyed>) {
          s.subjects[x.subject_id].keys_destroyed = true;
        }
      },
      ev);
  return core::Status::Ok();
}

core::Json CompanyDecider::ResultOf(const std::vector<eventstore::EventEnvelope>& events, const CompanyState& after) {
  for (const auto& e : events) {
    // An erasure: its keys are destroyed by a later command of the shredder, never by this one.
    if (e.type == SubjectForgotten::kType) return {{"forgotten", true}, {"keysDestroyed", false}};
    if (e.type == CompanyCreated::kType) return {{"status", "draft"}};  // a create (keyed: POST /v1/companies)
    if (e.type == VerificationStarted::kType) return {{"run", after.run}, {"started", true}};
    if (e.type == StageCompleted::kType || e.type == RiskAssessed::kType) return {{"recorded", true}};
  }
  return nullptr;
}

}  // namespace svc::commands::kyb
