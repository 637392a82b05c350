#pragma once
// A portfolio run as a use case, HTTP-free (docs/screening.md#portfolios): every subject ever
// screened into the portfolio screened again against the lists in force — a company by its row's
// names, a person by their opened fields, a name by its sealed query — the matching spread over
// the cores (the index is immutable), then every screening and hit recorded together so that they
// share the log's group commits. Also the screened names of a person and of a name's query, which
// a single screening uses too.

#include <functional>
#include <string>
#include <vector>

#include "commands/writer.h"
#include "core/ids.h"
#include "core/json.h"
#include "core/status.h"
#include "eventstore/kv_store.h"
#include "pipeline/kyb/kyb_seal.h"
#include "pipeline/kyb/list_registry.h"
#include "pipeline/kyb/screening_run.h"

namespace svc::pipeline::kyb {

// The fields of a person a screening opens (its access recorded first, by the caller).
const std::vector<std::string>& PersonScreenFields();
// The screened name of a person of the vault, from its opened fields.
ScreenedName PersonScreenedName(const std::string& person_id, const core::Json& fields);
// The screened name of a name's query ({name, kind, birthDate, nationality, idNumber}).
ScreenedName QueryScreenedName(const core::Json& query, const std::string& subject_key);

struct PortfolioRunDeps {
  commands::Writer* writer = nullptr;
  const eventstore::KvStore* views = nullptr;  // companies' rows, hits already found
  core::IdSource* ids = nullptr;
  KybKeys keys;
  std::function<commands::CommandContext()> context;  // each command's context
  // A person's opened PersonScreenFields(); an error skips the person (erased, no longer readable).
  std::function<core::Result<core::Json>(const std::string& person_id)> person_fields;
};

struct PortfolioRun {
  int64_t subjects = 0, skipped = 0, names_screened = 0, hits = 0;
  std::vector<std::string> new_hits;  // ids of the hits this run found first
  std::vector<eventstore::LogPosition> positions;
};

// Runs `portfolio` over `subjects` (the portfolio's rows of the KYB read model: subjectType,
// subjectId, subjectKey, subjectSealed) in `tenant` and `environment`.
core::Result<PortfolioRun> RunPortfolio(const PortfolioRunDeps& deps, const std::string& tenant,
                                        const std::string& environment, const std::string& portfolio,
                                        const std::vector<core::Json>& subjects, const ListsInForce& lists);

}  // namespace svc::pipeline::kyb
