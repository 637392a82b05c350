#include "pipeline/kyb/screening_index.h"

#include <cmath>

#include <algorithm>
#include <unordered_set>

namespace svc::pipeline::kyb {


std::vector<std::string> BlockingKeys(const std::string& token) {
  std::vector<std::string> keys = {"t:" + token};
  if (token.size() >= 3) {
    keys.push_back("p:" + SpanishPhonetic(token));
    if (token.front() == 'x') keys.push_back("p:" + SpanishPhonetic("j" + token.substr(1)));
  }
  for (auto n : NicknameOf(token)) keys.push_back("t:" + std::string(n));
  return keys;
}

ScreeningIndex::ScreeningIndex(std::vector<LoadedList> lists) : lists_(std::move(lists)) {
  for (size_t l = 0; l < lists_.size(); ++l) {
    for (const auto& e : lists_[l].entries) {
      Entry entry{l, &e, {}};
      if (!e.birth_dates.empty()) entry.facts.birth_date = e.birth_dates.front();
      if (!e.nationalities.empty()) entry.facts.nationality = e.nationalities.front();
      const size_t index = entries_.size();
      entries_.push_back(entry);
      for (const auto& num : e.id_numbers) {
        std::string id = CompactId(num);
        // Identifiers of fewer than 6 characters (a stray "1", a year) would match by chance.
        if (id.size() < 6) continue;
        auto& at = by_identifier_[id];
        if (at.empty() || at.back() != index) at.push_back(static_cast<uint32_t>(index));
      }
      std::vector<std::string> texts = {e.name};
      texts.insert(texts.end(), e.aliases.begin(), e.aliases.end());
      for (auto& t : texts) {
        Name n{index, t, NameTokens(t)};
        if (n.tokens.empty()) continue;
        const auto id = static_cast<uint32_t>(names_.size());
        std::unordered_set<std::string> seen;
        for (const auto& tok : n.tokens) {
          for (auto& k : BlockingKeys(tok)) {
            if (seen.insert(k).second) postings_[k].push_back(id);
          }
        }
        names_.push_back(std::move(n));
      }
    }
  }
}

ScreeningHit ScreeningIndex::HitOf(const Entry& e) const {
  ScreeningHit h;
  h.list_format = lists_[e.list].format;
  h.list_hash = lists_[e.list].content_hash;
  h.entry_id = e.entry->entry_id;
  h.entry_kind = e.entry->kind;
  h.entry_name = e.entry->name;
  h.programs = e.entry->programs;
  return h;
}

ScreeningHit ScreeningIndex::IdentifierHit(const Entry& e, const std::vector<std::string>& tokens) const {
  ScreeningHit h = HitOf(e);
  h.matched_name = e.entry->name;
  h.score = 1.0;
  // How the names compare is shown beside the certain match (0 when the query has no name).
  std::vector<std::string> texts = {e.entry->name};
  texts.insert(texts.end(), e.entry->aliases.begin(), e.entry->aliases.end());
  for (const auto& t : texts) {
    const double s = std::round(NameSimilarity(tokens, NameTokens(t)) * 10000) / 10000;
    if (s > h.name_score) {
      h.name_score = s;
      h.matched_name = t;
    }
  }
  h.reasons = {"id_number_equal"};
  return h;
}

std::vector<ScreeningHit> ScreeningIndex::Screen(const ScreeningQuery& q) const {
  const std::vector<std::string> tokens = NameTokens(q.name);
  std::vector<ScreeningHit> hits;
  std::unordered_map<size_t, size_t> best;  // entry -> index in hits
  // Identifiers first: an equal one is a hit whatever the names, and the name pass below cannot
  // beat its score.
  std::vector<std::string> ids = q.identifiers;
  if (!q.facts.id_number.empty()) ids.push_back(q.facts.id_number);
  for (const auto& raw : ids) {
    const std::string id = CompactId(raw);
    if (id.size() < 6) continue;
    auto it = by_identifier_.find(id);
    if (it == by_identifier_.end()) continue;
    for (uint32_t entry : it->second) {
      if (best.count(entry) != 0) continue;
      best[entry] = hits.size();
      hits.push_back(IdentifierHit(entries_[entry], tokens));
    }
  }
  // Candidates: names sharing keys with the query; counted per query token (a token's several
  // keys count once).
  std::unordered_map<uint32_t, int> shared;
  for (const auto& tok : tokens) {
    std::unordered_set<uint32_t> of_token;
    for (const auto& k : BlockingKeys(tok)) {
      auto it = postings_.find(k);
      if (it == postings_.end()) continue;
      for (uint32_t id : it->second) of_token.insert(id);
    }
    for (uint32_t id : of_token) ++shared[id];
  }
  const int need = tokens.size() >= 2 ? 2 : 1;
  const std::string id_number = CompactId(q.facts.id_number);
  for (const auto& [id, count] : shared) {
    if (count < need) continue;
    const Name& n = names_[id];
    const Entry& e = entries_[n.entry];
    if (!q.kind.empty() && e.entry->kind != q.kind) continue;
    MatchFacts candidate = e.facts;
    // The entry's identifier that compares with the query's (the same kind: same length).
    for (const auto& num : e.entry->id_numbers) {
      const std::string u = CompactId(num);
      if (!id_number.empty() && (u == id_number || u.size() == id_number.size())) {
        candidate.id_number = u;
        if (u == id_number) break;
      }
    }
    MatchResult r = MatchTokens(tokens, q.facts, n.tokens, candidate);
    if (r.eliminated || r.score < kHitThreshold) continue;
    ScreeningHit h = HitOf(e);
    h.matched_name = n.text;
    // Four decimals: what a hit records and shows (the threshold was applied to the exact score).
    h.score = std::round(r.score * 10000) / 10000;
    h.name_score = std::round(r.name_score * 10000) / 10000;
    h.reasons = std::move(r.reasons);
    auto it = best.find(n.entry);
    if (it == best.end()) {
      best[n.entry] = hits.size();
      hits.push_back(std::move(h));
    } else if (h.score > hits[it->second].score ||
               (h.score == hits[it->second].score && h.matched_name < hits[it->second].matched_name)) {
      hits[it->second] = std::move(h);
    }
  }
  std::sort(hits.begin(), hits.end(), [](const ScreeningHit& a, const ScreeningHit& b) {
    if (a.score != b.score) return a.score > b.score;
    if (a.list_format != b.list_format) return a.list_format < b.list_format;
    return a.entry_id < b.entry_id;
  });
  return hits;
}

}  // namespace svc::pipeline::kyb
