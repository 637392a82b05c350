#pragma once
// Name matching for sanctions and PEP screening, built for Mexican and Latin American names
// (docs/screening.md#matching). Pure functions, no state: the same two names and facts give the
// same score under the same algorithm version, months later.
//
//   1. Folding: UTF-8 -> lowercase ASCII letters and digits; accents and tildes removed (á->a,
//      ñ->n, ü->u, ç->c), every other character a separator.
//   2. Tokens: the folded words (dots and apostrophes join: "S.A." is "sa"), without the
//      particles of compound surnames and given names (de, del, la, las, los, y, e, da, das, do,
//      dos, di, van, von, mc, san), honorifics and company legal forms (sa, sab, sapi, cv, rl, …).
//   3. Token similarity: 1 when equal; 0.95 for nicknames of one given name (Pepe = José, Lupe =
//      Guadalupe, Chucho = Jesús …); 0.8 for an initial; else the Levenshtein ratio, raised to
//      0.92 when the Spanish phonetic keys agree (Gonzalez = Gonsales, Ybarra = Ibarra, an
//      initial x read as s or j), capped at 0.7 when the first letters differ (Fernández is not
//      Hernández) and at 0.6 for the other gender of one given name (María, Mario).
//   4. Name similarity: the shorter name's tokens assigned one-to-one to the longer's to maximise
//      the sum (any order: two surnames swapped score as in order); a pair under 0.8 counts half
//      (another word, not a misspelling); the mean over the shorter name, less 0.07 for each token
//      only the longer has (a missing second surname or middle name; at most four), and a
//      one-token name inside a longer one scaled by 0.6 (it proves little).
//   5. Facts: an RFC or CURP equal on both sides is a certain match; a differing one, a birth
//      date of another year or another nationality eliminates or weakens (MatchFacts).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace svc::pipeline::kyb {

// The algorithm's version, recorded on every hit.
inline constexpr std::string_view kNameMatchVersion = "name-match/v1";
// A candidate whose score reaches this is a hit (docs/screening.md#matching: the evaluation set's
// precision and recall at this threshold).
inline constexpr double kHitThreshold = 0.85;

// Lowercase ASCII letters and digits, single spaces; accents folded.
std::string FoldName(std::string_view utf8);
// The tokens of a name: folded, particles and honorifics removed (a name made only of particles
// keeps them).
std::vector<std::string> NameTokens(std::string_view utf8);
// A Spanish phonetic key of one folded token (h silent, b/v, c/s/z, ll/y, qu/k, gue/gui, x as
// j or s, doubled letters once, vowels kept but for the first letter's group).
std::string SpanishPhonetic(std::string_view token);
// True when two folded tokens are one given name, one of them a common nickname of it ("pepe" and
// "jose", "lupita" and "guadalupe"; "beto" is alberto, roberto or humberto).
bool SameGivenName(std::string_view a, std::string_view b);
// The full given names a nickname stands for ("beto": alberto, roberto, humberto); none for a
// token that is no nickname.
std::vector<std::string_view> NicknameOf(std::string_view token);
// An RFC, CURP or other identifier as compared: core::mx::CompactIdentifier (letters with Ñ,
// digits and &, uppercase); "" for the SAT's generic RFCs, which identify nobody.
std::string CompactId(std::string_view id);
// Levenshtein distance between two ASCII strings.
int EditDistance(std::string_view a, std::string_view b);
// 0..1 similarity of two folded tokens (step 3).
double TokenSimilarity(std::string_view a, std::string_view b);
// 0..1 similarity of two token lists (step 4).
double NameSimilarity(const std::vector<std::string>& query, const std::vector<std::string>& candidate);

// What is known beyond the name, on either side. Empty = unknown.
struct MatchFacts {
  std::string birth_date;   // YYYY-MM-DD, or YYYY
  std::string nationality;  // ISO 3166-1 alpha-2 or alpha-3, any case
  std::string id_number;    // RFC or CURP (compared without spaces or dashes, uppercase)
};

struct MatchResult {
  double score = 0;          // 0..1
  double name_score = 0;     // step 4 alone
  bool eliminated = false;   // a fact rules the candidate out (score 0)
  std::vector<std::string> reasons;  // what moved the score: "id_number_equal", "birth_year_differs", …
};

// Step 5 over step 4: the score of a candidate for a query.
MatchResult MatchNames(std::string_view query_name, const MatchFacts& query, std::string_view candidate_name,
                       const MatchFacts& candidate);
// The same over names already made tokens (NameTokens), for a list screened many times.
MatchResult MatchTokens(const std::vector<std::string>& query_tokens, const MatchFacts& query,
                        const std::vector<std::string>& candidate_tokens, const MatchFacts& candidate);

}  // namespace svc::pipeline::kyb
