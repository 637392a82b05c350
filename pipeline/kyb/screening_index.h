#pragma once
// The loaded lists, ready to screen a name against (docs/screening.md#screening): every name of
// every entry (its primary name and aliases) made tokens once, and a blocking index from each
// token's keys (the folded token, its Spanish phonetic key, an initial x read as s and as j, and
// the full names a nickname stands for) to the names holding them. A query is scored only against
// the names that share keys with it — at least two when it has two tokens or more — and a hit is
// a score of kHitThreshold or more, not ruled out by a fact.
//
// Immutable once built: screening from many threads needs no lock. A new version of a list makes
// a new index.

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "pipeline/kyb/list_loaders.h"
#include "pipeline/kyb/name_match.h"

namespace svc::pipeline::kyb {

struct ScreeningHit {
  std::string list_format;
  std::string list_hash;    // the content hash of the list version
  std::string entry_id;
  std::string entry_kind;   // person | company | other
  std::string entry_name;   // the entry's primary name
  std::string matched_name; // the name (primary or alias) that scored
  double score = 0;       // rounded to 4 decimals
  double name_score = 0;  // rounded to 4 decimals
  std::vector<std::string> reasons;
  std::string algorithm = std::string(kNameMatchVersion);
  std::vector<std::string> programs;  // the entry's sanctions programmes or datasets
};

struct ScreeningQuery {
  std::string name;
  std::string kind;  // person | company | "" (any)
  MatchFacts facts;
  // The subject's identifiers (RFC, CURP, passport or registration numbers): one equal to an
  // entry's identifier is a hit by itself, whatever the names say (reason id_number_equal).
  std::vector<std::string> identifiers;
};

class ScreeningIndex {
 public:
  explicit ScreeningIndex(std::vector<LoadedList> lists);

  // The hits of a query, best first (one per entry: its best-scoring name, or its identifier).
  std::vector<ScreeningHit> Screen(const ScreeningQuery& q) const;

  size_t Entries() const { return entries_.size(); }
  size_t Names() const { return names_.size(); }
  const std::vector<LoadedList>& Lists() const { return lists_; }

 private:
  struct Entry {
    size_t list;
    const ListEntry* entry;
    MatchFacts facts;
  };
  struct Name {
    size_t entry;
    std::string text;
    std::vector<std::string> tokens;
  };
  std::vector<LoadedList> lists_;
  std::vector<Entry> entries_;
  std::vector<Name> names_;
  std::unordered_map<std::string, std::vector<uint32_t>> postings_;  // key -> names
  std::unordered_map<std::string, std::vector<uint32_t>> by_identifier_;  // CompactId -> entries
  // An entry's hit when an identifier of the query equals one of its own.
  ScreeningHit IdentifierHit(const Entry& e, const std::vector<std::string>& tokens) const;
  ScreeningHit HitOf(const Entry& e) const;
};

// The blocking keys of a folded token.
std::vector<std::string> BlockingKeys(const std::string& token);

}  // namespace svc::pipeline::kyb
