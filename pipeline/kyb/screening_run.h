#pragma once
// One screening, as every caller runs it (docs/screening.md#screening): the screening route, the
// company verifier and a portfolio run. The names of the subject are screened against the lists
// in force; one hit per subject name and list entry (its best score); then the screening is
// recorded (aml.screening_completed, with the lists' versions) and each hit is found on its own
// aggregate, whose id derives from the subject and the entry — so a hit met again is the same hit,
// and only a new one fires aml.hit_found.

#include <functional>
#include <string>
#include <vector>

#include "commands/command.h"
#include "commands/kyb/screening_events.h"
#include "commands/writer.h"
#include "pipeline/kyb/kyb_seal.h"
#include "pipeline/kyb/list_registry.h"

namespace svc::pipeline::kyb {

struct ScreenedName {
  std::string subject_type;  // person | company | company_member | ubo_node | name
  std::string subject_id;    // "" for a name
  std::string company_id;    // the company of a member or owner (or the company itself)
  std::string subject_key;   // what hit ids derive from (person:per_…, member:cmm_…, name:<blind>)
  ScreeningQuery query;
};

struct FoundHit {
  size_t name = 0;  // index in the names screened
  ScreeningHit hit;
  std::string source;
  std::string hit_id;
};

// A hit whose every programme or dataset names politically exposed persons (not a sanction).
bool PepOnly(const std::vector<std::string>& programs);

// The names a company is screened by (its row in the KYB read model, names opened): its legal and
// trade names (with its RFC), its members and its owners.
std::vector<ScreenedName> CompanyScreenedNames(const KybKeys& keys, const core::Json& row);

std::vector<FoundHit> ScreenNames(const ListsInForce& lists, const std::vector<ScreenedName>& names,
                                  const std::string& tenant, const std::string& environment);

struct RecordedScreening {
  core::Json hits = core::Json::array();  // [{hitId, new, subjectType, subjectId, listSource, entryId, score}]
  std::vector<std::string> new_hits;
  std::vector<eventstore::LogPosition> positions;
};

// Records the screening `completed` (its lists, count and hits are filled here) as `screening_id`
// and finds each hit, its entry's names sealed with `keys` (SealHitNames). `context` makes each
// command's context (a route's call, a process's).
core::Result<RecordedScreening> RecordScreening(commands::Writer& writer,
                                                const std::function<commands::CommandContext()>& context,
                                                const KybKeys& keys, const std::string& tenant,
                                                const std::string& environment, const std::string& screening_id,
                                                commands::kyb::ScreeningCompleted completed, const ListsInForce& lists,
                                                const std::vector<ScreenedName>& names,
                                                const std::vector<FoundHit>& hits);

// Many screenings at once (a portfolio run): every command is handed to the writer before any is
// waited for, so they share the log's group commits instead of paying an fsync each.
struct ScreeningJob {
  std::string screening_id;
  commands::kyb::ScreeningCompleted completed;
  std::vector<ScreenedName> names;
  std::vector<FoundHit> hits;
};
// `found` (optional) tells a hit already found (its read-model row exists): no command is sent for
// it (the hit's decider would record nothing anyway), which halves a re-screen's commands.
core::Result<std::vector<RecordedScreening>> RecordScreenings(commands::Writer& writer,
                                                              const std::function<commands::CommandContext()>& context,
                                                              const KybKeys& keys, const std::string& tenant,
                                                              const std::string& environment, const ListsInForce& lists,
                                                              std::vector<ScreeningJob> jobs,
                                                              const std::function<bool(const std::string&)>& found = {});

// Executes `commands` together and waits for every outcome (in order); the first error, if any.
core::Result<std::vector<commands::CommandOutcome>> ExecuteAll(commands::Writer& writer,
                                                               std::vector<commands::Command> commands);

}  // namespace svc::pipeline::kyb
