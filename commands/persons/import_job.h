#pragma once
// A bulk import of persons ("person_import", one aggregate per job, id imp_…): the rows are
// written one by one through the create path (each its own person event); when every row has an
// outcome, the job records them in one event, which the persons read model serves as the job.
// The outcomes hold ids, statuses and error codes with the names of the fields at fault — never
// a value.

#include <string>
#include <variant>
#include <vector>

#include "commands/command.h"
#include "commands/decider.h"
#include "core/json_fields.h"

namespace svc::commands::persons {

inline constexpr std::string_view kImportAggregate = "person_import";

struct ImportRow {
  int64_t index = 0;
  std::string status;     // created | updated | failed
  std::string person_id;  // "" when failed
  std::string code;       // the error code when failed
  std::vector<std::string> fields;  // the fields at fault, when the error names them
  static constexpr auto Fields() {
    using T = ImportRow;
    return std::tuple{core::Field("index", &T::index), core::Field("status", &T::status),
                      core::Field("personId", &T::person_id, core::Empty::kNull),
                      core::Field("code", &T::code, core::Empty::kNull),
                      core::Field("fields", &T::fields, core::Empty::kOmit)};
  }
};

struct ImportRecorded {
  static constexpr std::string_view kType = "persons.import_recorded";
  int64_t total = 0;
  int64_t created = 0;
  int64_t updated = 0;
  int64_t failed = 0;
  std::vector<ImportRow> rows;
  static constexpr auto Fields() {
    using T = ImportRecorded;
    return std::tuple{core::Field("total", &T::total), core::Field("created", &T::created),
                      core::Field("updated", &T::updated), core::Field("failed", &T::failed),
                      core::Field("rows", &T::rows)};
  }
};

using ImportEvent = std::variant<ImportRecorded>;
core::Result<ImportEvent> DecodeImport(const eventstore::EventEnvelope& envelope);

struct ImportState {
  bool recorded = false;
  static constexpr auto Fields() { return std::tuple{core::Field("recorded", &ImportState::recorded)}; }
};

struct RecordImport {
  ImportRecorded job;
  static constexpr std::string_view kCommand = "RecordImport";
  static constexpr auto Fields() {
    using T = RecordImport;
    return std::tuple{core::Field("job", &T::job)};
  }
};

struct ImportDecider : FieldSnapshots<ImportDecider, ImportState> {
  using CommandType = RecordImport;
  static constexpr std::string_view kName = kImportAggregate;
  static core::Result<Decision> Decide(const ImportState& s, const RecordImport& c, const CommandContext& ctx);
  static core::Status Evolve(ImportState& s, const eventstore::EventEnvelope& e);
};

}  // namespace svc::commands::persons
