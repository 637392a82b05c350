#include "pipeline/kyb/portfolio_run.h"

#include <algorithm>
#include <thread>

#include "core/ids.h"
#include "projections/kyb/kyb_view.h"
#include "projections/projector.h"
#include "projections/view_rows.h"

namespace svc::pipeline::kyb {

using KV = projections::KybView;

const std::vector<std::string>& PersonScreenFields() {
  static const std::vector<std::string> fields = {"fullName", "givenName", "surname", "birthDate",
                                                  "nationality", "curp", "rfc"};
  return fields;
}

ScreenedName PersonScreenedName(const std::string& person_id, const core::Json& fields) {
  auto s = [&fields](const char* k) { return core::StringOr(fields, k); };
  ScreenedName n;
  n.subject_type = "person";
  n.subject_id = person_id;
  n.subject_key = "person:" + person_id;
  n.query.kind = "person";
  n.query.name = !s("fullName").empty() ? s("fullName") : s("givenName") + " " + s("surname");
  if (n.query.name == " ") n.query.name.clear();
  n.query.facts.birth_date = s("birthDate");
  n.query.facts.nationality = s("nationality");
  n.query.facts.id_number = !s("curp").empty() ? s("curp") : s("rfc");
  for (const char* id : {"curp", "rfc", "documentNumber"}) {
    if (!s(id).empty()) n.query.identifiers.push_back(s(id));
  }
  return n;
}

ScreenedName QueryScreenedName(const core::Json& query, const std::string& subject_key) {
  ScreenedName n;
  n.subject_type = "name";
  n.subject_key = subject_key;
  n.query.name = core::StringOr(query, "name");
  n.query.kind = core::StringOr(query, "kind");
  n.query.facts.birth_date = core::StringOr(query, "birthDate");
  n.query.facts.nationality = core::StringOr(query, "nationality");
  n.query.facts.id_number = core::StringOr(query, "idNumber");
  if (!n.query.facts.id_number.empty()) n.query.identifiers = {n.query.facts.id_number};
  return n;
}

namespace {

// The names of one subject of the portfolio; none when it is gone (erased, no longer readable).
core::Result<std::vector<ScreenedName>> NamesOf(const PortfolioRunDeps& deps, const std::string& tenant,
                                                const std::string& environment, const core::Json& subject) {
  const std::string type = core::StringOr(subject, "subjectType"), key = core::StringOr(subject, "subjectKey");
  const std::string id = core::StringOr(subject, "subjectId");
  std::vector<ScreenedName> names;
  if (type == "company") {
    SVC_ASSIGN_OR_RETURN(auto row,
                         projections::ReadRow(*deps.views, KV::Abs(KV::Company(projections::TenantEnv(tenant, environment), id))));
    if (row.has_value()) names = CompanyScreenedNames(deps.keys, *row);
  } else if (type == "person") {
    auto fields = deps.person_fields(id);
    if (fields.ok()) names.push_back(PersonScreenedName(id, *fields));
  } else {
    auto q = OpenValue(deps.keys, KybAad(tenant, environment, key, "query"), core::StringOr(subject, "subjectSealed"));
    if (q.ok()) names.push_back(QueryScreenedName(core::ParseJsonOrDiscarded(*q), key));
  }
  return names;
}

}  // namespace

core::Result<PortfolioRun> RunPortfolio(const PortfolioRunDeps& deps, const std::string& tenant,
                                        const std::string& environment, const std::string& portfolio,
                                        const std::vector<core::Json>& subjects, const ListsInForce& lists) {
  PortfolioRun run;
  run.subjects = static_cast<int64_t>(subjects.size());
  std::vector<ScreeningJob> jobs;
  for (const auto& s : subjects) {
    ScreeningJob job;
    SVC_ASSIGN_OR_RETURN(job.names, NamesOf(deps, tenant, environment, s));
    if (job.names.empty()) {
      ++run.skipped;
      continue;
    }
    job.screening_id = deps.ids->NewIdString(core::IdKind::kScreening);
    job.completed.subject_type = core::StringOr(s, "subjectType");
    job.completed.subject_id = core::StringOr(s, "subjectId");
    job.completed.subject_key = core::StringOr(s, "subjectKey");
    job.completed.subject_sealed = core::StringOr(s, "subjectSealed");
    job.completed.portfolio_id = portfolio;
    job.completed.origin = "portfolio_run";
    run.names_screened += static_cast<int64_t>(job.names.size());
    jobs.push_back(std::move(job));
  }
  // The matching on every core (the index is immutable), then everything recorded together.
  const size_t workers = std::max<size_t>(1, std::min<size_t>(std::thread::hardware_concurrency(), 8));
  std::vector<std::thread> threads;
  for (size_t w = 0; w < workers; ++w) {
    threads.emplace_back([&jobs, &lists, &tenant, &environment, w, workers] {
      for (size_t i = w; i < jobs.size(); i += workers) jobs[i].hits = ScreenNames(lists, jobs[i].names, tenant, environment);
    });
  }
  for (auto& t : threads) t.join();
  for (const auto& job : jobs) run.hits += static_cast<int64_t>(job.hits.size());
  const std::string te = projections::TenantEnv(tenant, environment);
  SVC_ASSIGN_OR_RETURN(auto recorded,
                       RecordScreenings(*deps.writer, deps.context, deps.keys, tenant, environment, lists, std::move(jobs),
                                        [&deps, &te](const std::string& hit) {
                                          auto row = deps.views->Get(deps.views->Cf(projections::kViewsCf),
                                                                     KV::Abs(KV::Hit(te, hit)));
                                          return row.ok() && row->has_value();
                                        }));
  for (const auto& r : recorded) {
    run.positions.insert(run.positions.end(), r.positions.begin(), r.positions.end());
    run.new_hits.insert(run.new_hits.end(), r.new_hits.begin(), r.new_hits.end());
  }
  return run;
}

}  // namespace svc::pipeline::kyb
