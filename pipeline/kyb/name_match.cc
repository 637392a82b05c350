#include "pipeline/kyb/name_match.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <set>
#include <unordered_map>

#include "core/mx_ids.h"

namespace svc::pipeline::kyb {

namespace {

// The ASCII letter of a Latin-1 Supplement or Latin Extended-A code point ("" for a separator).
std::string_view FoldCodePoint(uint32_t cp) {
  if (cp < 0x80) return {};
  static const std::map<uint32_t, std::string_view> kFold = {
      {0xC0, "a"}, {0xC1, "a"}, {0xC2, "a"}, {0xC3, "a"}, {0xC4, "a"}, {0xC5, "a"}, {0xC6, "ae"}, {0xC7, "c"},
      {0xC8, "e"}, {0xC9, "e"}, {0xCA, "e"}, {0xCB, "e"}, {0xCC, "i"}, {0xCD, "i"}, {0xCE, "i"}, {0xCF, "i"},
      {0xD0, "d"}, {0xD1, "n"}, {0xD2, "o"}, {0xD3, "o"}, {0xD4, "o"}, {0xD5, "o"}, {0xD6, "o"}, {0xD8, "o"},
      {0xD9, "u"}, {0xDA, "u"}, {0xDB, "u"}, {0xDC, "u"}, {0xDD, "y"}, {0xDF, "ss"}, {0xE0, "a"}, {0xE1, "a"},
      {0xE2, "a"}, {0xE3, "a"}, {0xE4, "a"}, {0xE5, "a"}, {0xE6, "ae"}, {0xE7, "c"}, {0xE8, "e"}, {0xE9, "e"},
      {0xEA, "e"}, {0xEB, "e"}, {0xEC, "i"}, {0xED, "i"}, {0xEE, "i"}, {0xEF, "i"}, {0xF0, "d"}, {0xF1, "n"},
      {0xF2, "o"}, {0xF3, "o"}, {0xF4, "o"}, {0xF5, "o"}, {0xF6, "o"}, {0xF8, "o"}, {0xF9, "u"}, {0xFA, "u"},
      {0xFB, "u"}, {0xFC, "u"}, {0xFD, "y"}, {0xFF, "y"}, {0x0106, "c"}, {0x0107, "c"}, {0x010C, "c"},
      {0x010D, "c"}, {0x011A, "e"}, {0x011B, "e"}, {0x0141, "l"}, {0x0142, "l"}, {0x0143, "n"}, {0x0144, "n"},
      {0x0147, "n"}, {0x0148, "n"}, {0x0150, "o"}, {0x0151, "o"}, {0x0152, "oe"}, {0x0153, "oe"}, {0x0158, "r"},
      {0x0159, "r"}, {0x015A, "s"}, {0x015B, "s"}, {0x015E, "s"}, {0x015F, "s"}, {0x0160, "s"}, {0x0161, "s"},
      {0x0162, "t"}, {0x0163, "t"}, {0x016E, "u"}, {0x016F, "u"}, {0x0170, "u"}, {0x0171, "u"}, {0x0178, "y"},
      {0x0179, "z"}, {0x017A, "z"}, {0x017B, "z"}, {0x017C, "z"}, {0x017D, "z"}, {0x017E, "z"}};
  auto it = kFold.find(cp);
  return it == kFold.end() ? std::string_view() : it->second;
}

bool IsParticle(std::string_view t) {
  static const std::set<std::string_view> kParticles = {"de", "del", "la", "las", "los", "y",  "e",   "da",
                                                        "das", "do", "dos", "di", "van", "von", "mc", "san"};
  return kParticles.count(t) > 0;
}

// Mexican and common foreign legal forms of companies (after folding: "S.A. de C.V." is "sa",
// "de", "cv").
bool IsLegalForm(std::string_view t) {
  static const std::set<std::string_view> kForms = {"sa", "sab", "sapi", "cv", "rl", "srl", "sc", "ac", "sas", "spr",
                                                    "scl", "sofom", "enr", "er", "ltd", "llc", "inc", "corp", "co",
                                                    "gmbh", "plc", "bv", "nv", "ag", "sl", "ltda", "eireli"};
  return kForms.count(t) > 0;
}

bool IsHonorific(std::string_view t) {
  static const std::set<std::string_view> kHonorifics = {"sr", "sra", "srta", "lic", "ing", "dr", "dra", "mr",
                                                         "mrs", "ms", "don", "dona", "c"};
  return kHonorifics.count(t) > 0;
}

// Below this a token pair counts half (NameSimilarity).
constexpr double kTokenCutoff = 0.8;

bool Vowel(char c) { return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u'; }

// Nicknames of common given names -> the names they stand for.
const std::map<std::string_view, std::vector<std::string_view>>& Nicknames() {
  static const std::map<std::string_view, std::vector<std::string_view>> kNicknames = {
      {"pepe", {"jose"}},          {"chepe", {"jose"}},         {"chema", {"jose"}},
      {"paco", {"francisco"}},     {"pancho", {"francisco"}},   {"curro", {"francisco"}},
      {"lupe", {"guadalupe"}},     {"lupita", {"guadalupe"}},   {"chucho", {"jesus"}},
      {"chuy", {"jesus"}},         {"memo", {"guillermo"}},     {"nacho", {"ignacio"}},
      {"lalo", {"eduardo"}},       {"tono", {"antonio"}},       {"concha", {"concepcion"}},
      {"conchita", {"concepcion"}}, {"lola", {"dolores"}},      {"loli", {"dolores"}},
      {"pili", {"pilar"}},         {"charo", {"rosario"}},      {"chelo", {"consuelo"}},
      {"chela", {"graciela"}},     {"maru", {"maria"}},         {"mari", {"maria"}},
      {"rafa", {"rafael"}},        {"quique", {"enrique"}},     {"kike", {"enrique"}},
      {"beto", {"alberto", "roberto", "humberto"}},             {"fer", {"fernando", "fernanda"}},
      {"gaby", {"gabriela", "gabriel"}},                        {"alex", {"alejandro", "alejandra"}},
      {"santi", {"santiago"}},     {"tere", {"teresa"}},        {"lucho", {"luis"}},
      {"poncho", {"alfonso"}},     {"goyo", {"gregorio"}},      {"chalo", {"gonzalo"}},
      {"chabela", {"isabel"}},     {"licha", {"alicia"}},       {"meche", {"mercedes"}},
      {"manolo", {"manuel"}},      {"manu", {"manuel"}},        {"pato", {"patricio", "patricia"}},
      {"fito", {"adolfo", "rodolfo"}},                          {"rodo", {"rodolfo"}},
      {"chava", {"salvador"}},     {"chente", {"vicente"}},     {"nando", {"fernando"}},
      {"toni", {"antonio"}},       {"juanca", {"juan"}},        {"migue", {"miguel"}},
      {"dani", {"daniel", "daniela"}},                          {"isa", {"isabel"}},
      {"caro", {"carolina"}},      {"vero", {"veronica"}},      {"ale", {"alejandro", "alejandra"}}};
  return kNicknames;
}

}  // namespace

std::string FoldName(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  bool space = true;  // no leading space
  auto sep = [&] {
    if (!space) out.push_back(' ');
    space = true;
  };
  auto cont = [&s](size_t i) { return i < s.size() && (static_cast<unsigned char>(s[i]) & 0xC0u) == 0x80u; };
  for (size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    uint32_t cp = c;
    size_t len = 1;
    // UTF-8, checked: a malformed sequence is one separator byte.
    if (c >= 0xC2 && c < 0xE0 && cont(i + 1)) {
      cp = ((c & 0x1Fu) << 6) | (static_cast<unsigned char>(s[i + 1]) & 0x3Fu);
      len = 2;
    } else if (c >= 0xE0 && c < 0xF0 && cont(i + 1) && cont(i + 2)) {
      cp = ((c & 0x0Fu) << 12) | ((static_cast<unsigned char>(s[i + 1]) & 0x3Fu) << 6) |
           (static_cast<unsigned char>(s[i + 2]) & 0x3Fu);
      len = 3;
    } else if (c >= 0xF0 && c < 0xF5 && cont(i + 1) && cont(i + 2) && cont(i + 3)) {
      cp = 0x10000;  // beyond the Latin letters: a separator
      len = 4;
    } else if (c >= 0x80) {
      cp = 0xFFFD;
    }
    i += len;
    if (cp < 0x80) {
      if (std::isalnum(cp)) {
        out.push_back(static_cast<char>(std::tolower(static_cast<int>(cp))));
        space = false;
      } else if (cp == '\'' || cp == 0x60 || cp == '.') {
        // O'Brien, D'Angelo, S.A. de C.V.: apostrophes and dots join (a space still separates)
      } else {
        sep();
      }
      continue;
    }
    if (cp == 0x2019) continue;  // a typographic apostrophe joins too
    std::string_view folded = FoldCodePoint(cp);
    if (folded.empty()) {
      sep();
    } else {
      out.append(folded);
      space = false;
    }
  }
  if (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

std::vector<std::string> NameTokens(std::string_view utf8) {
  const std::string folded = FoldName(utf8);
  std::vector<std::string> all, kept;
  size_t start = 0;
  while (start < folded.size()) {
    size_t end = folded.find(' ', start);
    if (end == std::string::npos) end = folded.size();
    if (end > start) all.emplace_back(folded.substr(start, end - start));
    start = end + 1;
  }
  for (const auto& t : all) {
    if (!IsParticle(t) && !IsHonorific(t) && !IsLegalForm(t)) kept.push_back(t);
  }
  return kept.empty() ? all : kept;
}

std::string SpanishPhonetic(std::string_view t) {
  std::string out;
  auto at = [&t](size_t i) -> char { return i < t.size() ? t[i] : '\0'; };
  for (size_t i = 0; i < t.size(); ++i) {
    const char c = t[i], n = at(i + 1);
    std::string_view code;
    char one = 0;
    switch (c) {
      case 'h': continue;  // silent ("ch" is handled at the c)
      case 'b': case 'v': one = 'b'; break;
      case 'w': one = 'u'; break;
      case 'z': one = 's'; break;
      case 's': one = 's'; break;
      case 'c':
        if (n == 'h') { one = 'C'; ++i; }
        else if (n == 'e' || n == 'i' || n == 'y') one = 's';
        else if (n == 'k') { one = 'k'; ++i; }
        else one = 'k';
        break;
      case 'q': one = 'k'; if (n == 'u') ++i; break;
      case 'k': one = 'k'; break;
      case 'g':
        if (n == 'e' || n == 'i') one = 'j';
        else if (n == 'u' && (at(i + 2) == 'e' || at(i + 2) == 'i')) { one = 'g'; ++i; }
        else one = 'g';
        break;
      case 'j': one = 'j'; break;
      case 'x': if (i == 0) one = 's'; else code = "ks"; break;
      case 'l': if (n == 'l') { one = 'y'; ++i; } else one = 'l'; break;
      case 'y': one = (Vowel(n) && n != '\0') ? 'y' : 'i'; break;
      case 'p': if (n == 'h') { one = 'f'; ++i; } else one = 'p'; break;
      case 't': if (n == 'h') ++i; one = 't'; break;
      default: one = c; break;
    }
    if (!code.empty()) {
      out.append(code);
    } else if (out.empty() || out.back() != one) {  // doubled sounds once (rr, ss, nn)
      out.push_back(one);
    }
  }
  return out;
}

std::vector<std::string_view> NicknameOf(std::string_view token) {
  auto it = Nicknames().find(token);
  return it == Nicknames().end() ? std::vector<std::string_view>() : it->second;
}

bool SameGivenName(std::string_view a, std::string_view b) {
  if (a == b) return true;
  const auto& nick = Nicknames();
  auto names_of = [&nick](std::string_view t) {
    std::vector<std::string_view> out = {t};
    if (auto it = nick.find(t); it != nick.end()) out.insert(out.end(), it->second.begin(), it->second.end());
    return out;
  };
  for (auto x : names_of(a)) {
    for (auto y : names_of(b)) {
      if (x == y) return true;
    }
  }
  return false;
}

int EditDistance(std::string_view a, std::string_view b) {
  std::vector<int> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = static_cast<int>(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = static_cast<int>(i);
    for (size_t j = 1; j <= b.size(); ++j) {
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

double TokenSimilarity(std::string_view a, std::string_view b) {
  if (a == b) return 1.0;
  if (a.empty() || b.empty()) return 0.0;
  if (SameGivenName(a, b)) return 0.95;
  // An initial stands for a name that starts with it ("R." for Rafael).
  if ((a.size() == 1 && b.front() == a.front()) || (b.size() == 1 && a.front() == b.front())) return 0.8;
  const double longest = static_cast<double>(std::max(a.size(), b.size()));
  double sim = 1.0 - EditDistance(a, b) / longest;
  bool sounds_alike = false;
  if (a.size() >= 3 && b.size() >= 3) {
    // An initial x is s (Xochitl) or j (Ximena): either reading may be the one meant. Keys are
    // remembered per thread (names repeat their tokens; a list screening computes few new ones).
    thread_local std::unordered_map<std::string, std::pair<std::string, std::string>> memo;
    auto keys = [](std::string_view t) -> const std::pair<std::string, std::string>& {
      auto it = memo.find(std::string(t));
      if (it != memo.end()) return it->second;
      if (memo.size() > 200000) memo.clear();
      std::pair<std::string, std::string> k = {SpanishPhonetic(t), ""};
      if (t.front() == 'x') k.second = SpanishPhonetic("j" + std::string(t.substr(1)));
      return memo.emplace(std::string(t), std::move(k)).first->second;
    };
    const auto ka = keys(a), kb = keys(b);  // copies: the second lookup may clear the memo
    sounds_alike = ka.first == kb.first || (!ka.second.empty() && ka.second == kb.first) ||
                   (!kb.second.empty() && ka.first == kb.second) ||
                   (!ka.second.empty() && ka.second == kb.second);
  }
  if (sounds_alike) return std::max(sim, 0.92);
  // Another first sound is rarely a misspelling (Fernández and Hernández are two surnames).
  if (a.front() != b.front()) sim = std::min(sim, 0.7);
  // The same given name in the other gender (María and Mario, Patricia and Patricio) is another
  // name.
  if (a.size() >= 4 && a.size() == b.size() && a.substr(0, a.size() - 1) == b.substr(0, b.size() - 1) &&
      ((a.back() == 'a' && b.back() == 'o') || (a.back() == 'o' && b.back() == 'a'))) {
    sim = std::min(sim, 0.6);
  }
  return sim;
}

double NameSimilarity(const std::vector<std::string>& query, const std::vector<std::string>& candidate) {
  if (query.empty() || candidate.empty()) return 0.0;
  // At most 10 tokens a side (a name longer than that is cut: its first tokens count).
  const size_t n = std::min<size_t>(query.size(), 10), m = std::min<size_t>(candidate.size(), 10);
  const bool q_short = n <= m;
  const size_t rows = q_short ? n : m, cols = q_short ? m : n;
  std::vector<double> sim(rows * cols);
  for (size_t i = 0; i < rows; ++i) {
    for (size_t j = 0; j < cols; ++j) {
      double s = q_short ? TokenSimilarity(query[i], candidate[j]) : TokenSimilarity(query[j], candidate[i]);
      // A token that is not a near spelling of the other is a different word, not half of one:
      // "Loera" against "Lara" must not carry a name the way "Carillo" against "Carrillo" does.
      sim[i * cols + j] = s >= kTokenCutoff ? s : s * 0.5;
    }
  }
  // The best one-to-one assignment of the shorter side's tokens (rows) to the longer's (cols):
  // dynamic programming over the set of columns used.
  std::vector<double> best(size_t{1} << cols, -1.0);
  best[0] = 0.0;
  for (size_t mask = 0; mask < best.size(); ++mask) {
    if (best[mask] < 0) continue;
    const size_t row = static_cast<size_t>(__builtin_popcountll(mask));
    if (row >= rows) continue;
    for (size_t j = 0; j < cols; ++j) {
      if (mask & (size_t{1} << j)) continue;
      const size_t next = mask | (size_t{1} << j);
      best[next] = std::max(best[next], best[mask] + sim[row * cols + j]);
    }
  }
  double top = 0.0;
  for (size_t mask = 0; mask < best.size(); ++mask) {
    if (static_cast<size_t>(__builtin_popcountll(mask)) == rows) top = std::max(top, best[mask]);
  }
  double score = top / static_cast<double>(rows);
  // Tokens only one side has: a missing second surname or middle name costs a little; a one-word
  // name matching inside a longer one proves little.
  const size_t extra = cols - rows;
  score *= 1.0 - 0.07 * static_cast<double>(std::min<size_t>(extra, 4));
  if (rows == 1 && cols > 1) score *= 0.6;
  return std::clamp(score, 0.0, 1.0);
}

std::string CompactId(std::string_view id) {
  std::string out = core::mx::CompactIdentifier(id);
  if (core::mx::IsGenericRfc(out)) out.clear();  // the SAT's generic RFCs identify nobody
  return out;
}

namespace {

// ISO 3166-1 alpha-2 of a nationality given as alpha-2 or alpha-3 (a few of the region's; others
// are compared as given).
std::string Country(std::string_view code) {
  std::string c = core::mx::CompactIdentifier(code);
  static const std::map<std::string, std::string, std::less<>> kAlpha3 = {
      {"MEX", "MX"}, {"USA", "US"}, {"CAN", "CA"}, {"GTM", "GT"}, {"BLZ", "BZ"}, {"SLV", "SV"}, {"HND", "HN"},
      {"NIC", "NI"}, {"CRI", "CR"}, {"PAN", "PA"}, {"CUB", "CU"}, {"DOM", "DO"}, {"COL", "CO"}, {"VEN", "VE"},
      {"ECU", "EC"}, {"PER", "PE"}, {"BOL", "BO"}, {"CHL", "CL"}, {"ARG", "AR"}, {"URY", "UY"}, {"PRY", "PY"},
      {"BRA", "BR"}, {"ESP", "ES"}, {"CHN", "CN"}, {"RUS", "RU"}, {"IRN", "IR"}, {"PRK", "KP"}, {"SYR", "SY"}};
  if (auto it = kAlpha3.find(c); it != kAlpha3.end()) return it->second;
  return c;
}

}  // namespace

MatchResult MatchNames(std::string_view query_name, const MatchFacts& query, std::string_view candidate_name,
                       const MatchFacts& candidate) {
  return MatchTokens(NameTokens(query_name), query, NameTokens(candidate_name), candidate);
}

MatchResult MatchTokens(const std::vector<std::string>& query_tokens, const MatchFacts& query,
                        const std::vector<std::string>& candidate_tokens, const MatchFacts& candidate) {
  MatchResult r;
  r.name_score = NameSimilarity(query_tokens, candidate_tokens);
  r.score = r.name_score;
  // An identity number on both sides decides: the same RFC or CURP is the same person or company;
  // another of the same kind (length) is someone else.
  const std::string qi = CompactId(query.id_number), ci = CompactId(candidate.id_number);
  if (!qi.empty() && !ci.empty()) {
    if (qi == ci) {
      r.score = 1.0;
      r.reasons.push_back("id_number_equal");
      return r;
    }
    // Of one kind (the same length), any difference is another identity. A person's RFC (13
    // characters) and CURP (18) share their first ten; a company's RFC (12) compares with neither.
    const bool same_kind = qi.size() == ci.size();
    const bool person_ids = qi.size() >= 13 && ci.size() >= 13;
    if (same_kind || (person_ids && qi.substr(0, 10) != ci.substr(0, 10))) {
      r.eliminated = true;
      r.score = 0;
      r.reasons.push_back("id_number_differs");
      return r;
    }
  }
  if (query.birth_date.size() >= 4 && candidate.birth_date.size() >= 4) {
    const int qy = std::atoi(query.birth_date.substr(0, 4).c_str()), cy = std::atoi(candidate.birth_date.substr(0, 4).c_str());
    if (std::abs(qy - cy) > 1) {
      r.eliminated = true;
      r.score = 0;
      r.reasons.push_back("birth_year_differs");
      return r;
    }
    if (query.birth_date.size() == 10 && query.birth_date == candidate.birth_date) {
      r.score = std::min(1.0, r.score + 0.05);
      r.reasons.push_back("birth_date_equal");
    } else if (qy == cy) {
      r.score = std::min(1.0, r.score + 0.02);
      r.reasons.push_back("birth_year_equal");
    } else {
      r.score *= 0.95;
      r.reasons.push_back("birth_year_near");
    }
  }
  if (!query.nationality.empty() && !candidate.nationality.empty()) {
    if (Country(query.nationality) != Country(candidate.nationality)) {
      r.score *= 0.9;
      r.reasons.push_back("nationality_differs");
    } else {
      r.reasons.push_back("nationality_equal");
    }
  }
  return r;
}

}  // namespace svc::pipeline::kyb
