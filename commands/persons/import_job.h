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
    using core::Empty;
    using core::Field;
    using T = ImportRow;
    return std::tuple{Field("index", &T::index), Field("status", &T::status),
                      Field("personId", &T::person_id, Empty::kNull), Field("code", &T::code, Empty::kNull),
                      Field("fields", &T::fields, Empty::kOmit)};
  }
};

struct ImportRecorded {
  static constexpr std::string_view kType = "persons.import_recorded";
  static constexpr int kSchema = 1;
  int64_t total = 0;
  int64_t created = 0;
  int64_t updated = 0;
  int64_t failed = 0;
  std::vector<ImportRow> rows;
  static constexpr auto Fields() {
    using core::Field;
    using T = ImportRecorded;
    return std::tuple{Field("total", &T::total), Field("created", &T::created), Field("updated", &T::updated),
                      Field("failed", &T::failed), Field("rows", &T::rows)};
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
};

struct ImportDecider {
  using State = ImportState;
  static constexpr std::string_view kName = kImportAggregate;
  static core::Result<Decision> Decide(const ImportState& s, const RecordImport& c, const CommandContext& ctx);
  static core::Status Evolve(ImportState& s, const eventstore::EventEnvelope& e);
  static core::Json ToJson(const ImportState& s);
  static core::Result<ImportState> FromJson(std::string_view text);
};

}  // namespace svc::commands::persons
