#include "pipeline/kyb/screening_run.h"

#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>

#include "commands/kyb/screening.h"

namespace svc::pipeline::kyb {

namespace kc = commands::kyb;

bool PepOnly(const std::vector<std::string>& programs) {
  if (programs.empty()) return false;
  for (const auto& p : programs) {
    const std::string f = " " + FoldName(p) + " ";
    if (f.find(" pep") == std::string::npos && f.find("politically exposed") == std::string::npos &&
        f.find("persona politicamente expuesta") == std::string::npos) {
      return false;
    }
  }
  return true;
}

std::vector<ScreenedName> CompanyScreenedNames(const KybKeys& keys, const core::Json& row) {
  const std::string tenant = core::StringOr(row, "tenantId"), env = core::StringOr(row, "environment");
  const std::string company = core::StringOr(row, "id");
  auto open = [&](const std::string& record, const std::string& field, const core::Json& sealed) -> std::string {
    if (!sealed.is_string()) return "";
    auto v = OpenValue(keys, KybAad(tenant, env, record, field), sealed.get<std::string>());
    return v.ok() ? *v : "";
  };
  std::vector<ScreenedName> names;
  const std::string rfc = open(company, "rfc", row.value("rfcSealed", core::Json(nullptr)));
  for (const char* field : {"legalName", "tradeName"}) {
    ScreeningQuery q;
    q.name = open(company, field, row.value(std::string(field) + "Sealed", core::Json(nullptr)));
    if (q.name.empty()) continue;
    q.kind = core::StringOr(row, "rfcKind") == "fisica" ? "" : "company";
    q.facts.id_number = rfc;
    if (!rfc.empty()) q.identifiers = {rfc};
    names.push_back({"company", company, company, "company:" + company, q});
  }
  // A member or node whose name was erased is not screened (there is no name left to screen).
  auto subject_name = [&](const core::Json& m) -> std::string {
    auto v = OpenSubjectName(keys, tenant, env, company, core::StringOr(m, "id"), m);
    return v.ok() && v->has_value() ? **v : "";
  };
  for (const auto& m : row.value("members", core::Json::array())) {
    const std::string id = core::StringOr(m, "id");
    ScreeningQuery q;
    q.name = subject_name(m);
    if (q.name.empty()) continue;
    q.kind = "person";
    names.push_back({"company_member", id, company, "member:" + id, q});
  }
  for (const auto& n : row.value("uboNodes", core::Json::array())) {
    const std::string id = core::StringOr(n, "id");
    ScreeningQuery q;
    q.name = subject_name(n);
    if (q.name.empty()) continue;
    q.kind = core::StringOr(n, "nodeType") == "person" ? "person" : "company";
    names.push_back({"ubo_node", id, company, "ubo:" + id, q});
  }
  return names;
}

std::vector<FoundHit> ScreenNames(const ListsInForce& lists, const std::vector<ScreenedName>& names,
                                  const std::string& tenant, const std::string& environment) {
  std::vector<FoundHit> out;
  if (lists.index == nullptr) return out;
  std::map<std::string, size_t> by_id;  // hit id -> index in out (a subject's best name wins)
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i].query.name.empty() && names[i].query.identifiers.empty()) continue;
    for (auto& h : lists.index->Screen(names[i].query)) {
      auto src = lists.source_of.find(h.list_hash);
      const std::string source = src == lists.source_of.end() ? h.list_format : src->second;
      const std::string id = kc::HitIdFor(tenant, environment, names[i].subject_key, source, h.entry_id);
      auto at = by_id.find(id);
      if (at != by_id.end()) {
        if (h.score > out[at->second].hit.score) out[at->second] = {i, std::move(h), source, id};
        continue;
      }
      by_id[id] = out.size();
      out.push_back({i, std::move(h), source, id});
    }
  }
  return out;
}

core::Result<std::vector<commands::CommandOutcome>> ExecuteAll(commands::Writer& writer,
                                                               std::vector<commands::Command> commands) {
  struct Shared {
    std::mutex mu;
    std::condition_variable done;
    size_t left = 0;
    std::vector<std::optional<core::Result<commands::CommandOutcome>>> out;
  };
  auto shared = std::make_shared<Shared>();
  shared->left = commands.size();
  shared->out.resize(commands.size());
  for (size_t i = 0; i < commands.size(); ++i) {
    writer.Execute(std::move(commands[i]), [shared, i](core::Result<commands::CommandOutcome> r) {
      std::lock_guard l(shared->mu);
      shared->out[i] = std::move(r);
      if (--shared->left == 0) shared->done.notify_all();
    });
  }
  std::unique_lock l(shared->mu);
  shared->done.wait(l, [&] { return shared->left == 0; });
  std::vector<commands::CommandOutcome> outcomes;
  outcomes.reserve(shared->out.size());
  for (auto& r : shared->out) {
    if (!r->ok()) return r->status();
    outcomes.push_back(std::move(**r));
  }
  return outcomes;
}

core::Result<std::vector<RecordedScreening>> RecordScreenings(commands::Writer& writer,
                                                              const std::function<commands::CommandContext()>& context,
                                                              const KybKeys& keys, const std::string& tenant,
                                                              const std::string& environment, const ListsInForce& lists,
                                                              std::vector<ScreeningJob> jobs,
                                                              const std::function<bool(const std::string&)>& found) {
  std::vector<commands::Command> all;
  std::vector<std::vector<bool>> sent(jobs.size());
  for (auto& job : jobs) {
    kc::ScreeningCompleted& completed = job.completed;
    completed.lists = lists.lists;
    completed.names_screened = static_cast<int64_t>(job.names.size());
    completed.hits = core::Json::array();
    for (const auto& f : job.hits) {
      const ScreenedName& n = job.names[f.name];
      completed.hits.push_back({{"hitId", f.hit_id},
                                {"subjectType", n.subject_type},
                                {"subjectId", n.subject_id},
                                {"listSource", f.source},
                                {"entryId", f.hit.entry_id},
                                {"score", f.hit.score}});
    }
    all.push_back(commands::MakeCommand<kc::ScreeningDecider>(tenant, job.screening_id,
                                                              kc::ScreeningCommand(kc::RecordScreening{completed}),
                                                              context()));
    for (const auto& f : job.hits) {
      const bool known = found && found(f.hit_id);
      sent[&job - jobs.data()].push_back(!known);
      if (known) continue;
      const ScreenedName& n = job.names[f.name];
      kc::HitFound hit;
      hit.screening_id = job.screening_id;
      hit.subject_type = n.subject_type;
      hit.subject_id = n.subject_id;
      hit.company_id = n.company_id;
      hit.list_source = f.source;
      hit.list_format = f.hit.list_format;
      hit.list_hash = f.hit.list_hash;
      hit.entry_id = f.hit.entry_id;
      hit.entry_kind = f.hit.entry_kind;
      SVC_ASSIGN_OR_RETURN(auto names, SealHitNames(keys, tenant, environment, n.subject_type, n.subject_id,
                                                    n.company_id, f.hit_id, f.hit.entry_name, f.hit.matched_name));
      hit.entry_name_sealed = std::move(names.entry_name);
      hit.matched_name_sealed = std::move(names.matched_name);
      hit.names_sealed_with = std::move(names.sealed_with);
      hit.score = f.hit.score;
      hit.name_score = f.hit.name_score;
      hit.reasons = f.hit.reasons;
      hit.algorithm = f.hit.algorithm;
      hit.programs = f.hit.programs;
      all.push_back(
          commands::MakeCommand<kc::HitDecider>(tenant, f.hit_id, kc::HitCommand(kc::FindHit{hit}), context()));
    }
  }
  SVC_ASSIGN_OR_RETURN(auto outcomes, ExecuteAll(writer, std::move(all)));
  std::vector<RecordedScreening> out;
  size_t at = 0;
  for (size_t j = 0; j < jobs.size(); ++j) {
    const ScreeningJob& job = jobs[j];
    RecordedScreening r;
    const auto& recorded = outcomes[at++];
    r.positions = recorded.positions;
    for (size_t h = 0; h < job.hits.size(); ++h) {
      const FoundHit& f = job.hits[h];
      const ScreenedName& n = job.names[f.name];
      bool is_new = false;
      if (sent[j][h]) {
        const auto& o = outcomes[at++];
        is_new = o.result.value("new", false);
        r.positions.insert(r.positions.end(), o.positions.begin(), o.positions.end());
      }
      if (is_new) r.new_hits.push_back(f.hit_id);
      r.hits.push_back({{"hitId", f.hit_id},
                        {"new", is_new},
                        {"subjectType", n.subject_type},
                        {"subjectId", n.subject_id.empty() ? core::Json(nullptr) : core::Json(n.subject_id)},
                        {"listSource", f.source},
                        {"entryId", f.hit.entry_id},
                        {"score", f.hit.score}});
    }
    out.push_back(std::move(r));
  }
  return out;
}

core::Result<RecordedScreening> RecordScreening(commands::Writer& writer,
                                                const std::function<commands::CommandContext()>& context,
                                                const KybKeys& keys, const std::string& tenant,
                                                const std::string& environment, const std::string& screening_id,
                                                kc::ScreeningCompleted completed, const ListsInForce& lists,
                                                const std::vector<ScreenedName>& names,
                                                const std::vector<FoundHit>& hits) {
  std::vector<ScreeningJob> jobs;
  jobs.push_back({screening_id, std::move(completed), names, hits});
  SVC_ASSIGN_OR_RETURN(auto recorded, RecordScreenings(writer, context, keys, tenant, environment, lists, std::move(jobs)));
  return std::move(recorded[0]);
}

}  // namespace svc::pipeline::kyb
