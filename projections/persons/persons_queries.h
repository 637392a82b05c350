#pragma once
// Reads of the persons read model that the routes, the console and the CLI share.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"
#include "core/status.h"
#include "eventstore/kv_store.h"

namespace svc::projections {

// A page of person records: `data` the rows as stored, comma-separated (no re-serialisation);
// `last` the last id of the page (the next cursor's position); `total` how many of the ids have a
// record.
struct PersonsPage {
  std::string data;
  bool has_more = false;
  std::string last;
  int64_t total = 0;
};
// The records of `ids` (sorted) in `te` after `starting_after` ("" = from the first), at most
// `limit`, read in one batch.
core::Result<PersonsPage> PagePersons(const eventstore::KvStore& views, std::string_view te,
                                      const std::vector<std::string>& ids, const std::string& starting_after,
                                      int limit);

// The ids of the persons of `te` holding a blind-index key (search, duplicates), in id order.
core::Result<std::vector<std::string>> PersonsWithBlindKey(const eventstore::KvStore& views, std::string_view te,
                                                           std::string_view blind_key);

// A person's likely duplicates (GET /v1/persons/{id}/duplicates): every other person of `te`
// holding one of the person's CURP or email blind-index keys, by person id, with the fields that
// matched (`curp`, `email`, in that order) and its record as stored. A person with nothing sealed
// has none.
struct PersonDuplicate {
  std::string person_id;
  std::vector<std::string> matched_on;
  core::Json record;
};
core::Result<std::vector<PersonDuplicate>> FindDuplicates(const eventstore::KvStore& views, std::string_view te,
                                                          const std::string& person_id);

}  // namespace svc::projections
