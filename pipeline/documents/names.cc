#include "pipeline/documents/names.h"

#include <algorithm>
#include <cctype>

namespace svc::pipeline::documents {

namespace {

bool AsciiUpper(char c) { return c >= 'A' && c <= 'Z'; }
bool Vowel(char c) { return c == 'A' || c == 'E' || c == 'I' || c == 'O' || c == 'U'; }

std::string UpperSpaced(std::string_view s) {
  std::string out;
  for (char c : s) out += c == '<' ? ' ' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

// The given name a CURP uses: with two or more given names, a leading JOSE/J/MARIA/MA/MA. is skipped.
std::string UsedGivenName(std::string g) {
  static constexpr std::string_view kCommon[] = {"JOSE", "J", "MARIA", "MA", "MA.", "J."};
  size_t space = g.find(' ');
  if (space != std::string::npos) {
    std::string first = g.substr(0, space);
    if (std::find(std::begin(kCommon), std::end(kCommon), first) != std::end(kCommon)) g = g.substr(space + 1);
  }
  return g;
}

char InnerConsonant(const std::string& s) {
  for (size_t i = 1; i < s.size(); ++i) {
    if (s[i] == ' ') break;  // the first word only
    if (AsciiUpper(s[i]) && !Vowel(s[i])) return s[i];
  }
  return 'X';
}

}  // namespace

std::string CurpNameLetters(std::string_view surname1, std::string_view surname2,
                            std::string_view given_names) {
  std::string s1 = UpperSpaced(surname1), s2 = UpperSpaced(surname2), g = UsedGivenName(UpperSpaced(given_names));
  std::string out;
  out += s1.empty() ? 'X' : s1[0];
  char vowel = 'X';
  for (size_t i = 1; i < s1.size(); ++i) {
    if (Vowel(s1[i])) {
      vowel = s1[i];
      break;
    }
  }
  out += vowel;
  out += s2.empty() ? 'X' : s2[0];
  out += g.empty() ? 'X' : g[0];
  for (auto& c : out) {
    if (!AsciiUpper(c)) c = 'X';  // Ñ and other non-ASCII letters read as X
  }
  return out;
}

std::string CurpInnerConsonants(std::string_view surname1, std::string_view surname2, std::string_view given_names) {
  std::string out;
  out += InnerConsonant(UpperSpaced(surname1));
  out += InnerConsonant(UpperSpaced(surname2));
  out += InnerConsonant(UsedGivenName(UpperSpaced(given_names)));
  return out;
}

NameParts MrzNames(const MrzResult& mrz) {
  NameParts n;
  // Decoded, the MRZ's fillers are spaces: "GARCIA HERNANDEZ".
  std::string surnames = UpperSpaced(mrz.surname);
  size_t sep = surnames.find(' ');
  n.surname1 = surnames.substr(0, sep);
  n.surname2 = sep == std::string::npos ? "" : surnames.substr(sep + 1);
  n.given_names = UpperSpaced(mrz.given_names);
  auto trim = [](std::string& x) {
    while (!x.empty() && x.back() == ' ') x.pop_back();
  };
  trim(n.surname1);
  trim(n.surname2);
  trim(n.given_names);
  return n;
}

ReconciledNames ReconcileNames(const std::optional<NameParts>& printed, const std::optional<NameParts>& mrz,
                               std::string_view curp) {
  auto curp_agrees = [&](const NameParts& n) {
    if (curp.size() < 16) return false;
    std::string letters = CurpNameLetters(n.surname1, n.surname2, n.given_names);
    std::string_view have = curp.substr(0, 4);
    // RENAPO replaces the second letter with X when the four letters form an inconvenient word.
    bool four = have == letters || (have[0] == letters[0] && have[1] == 'X' && have[2] == letters[2] &&
                                    have[3] == letters[3]);
    return four && curp.substr(13, 3) == CurpInnerConsonants(n.surname1, n.surname2, n.given_names);
  };
  ReconciledNames r;
  std::optional<NameParts> front = printed;
  if (front && mrz && front->given_names.find(' ') == std::string::npos) {
    // OCR may lose the space between given names ("MARIAJOSEFINA"): the MRZ's fillers put it
    // back where its letters agree ("MARIA<JOSEFI").
    std::string joined;
    for (char c : mrz->given_names) {
      if (c != ' ') joined += c;
    }
    if (!joined.empty() && front->given_names.rfind(joined, 0) == 0) {
      std::string spaced = mrz->given_names + front->given_names.substr(joined.size());
      front->given_names = spaced;
    }
  }
  if (front && mrz) {
    // The MRZ joins both surnames with a filler, as it does a compound surname's words.
    std::string printed_surnames = front->surname1 + (front->surname2.empty() ? "" : " " + front->surname2);
    std::string mrz_surnames = mrz->surname1 + (mrz->surname2.empty() ? "" : " " + mrz->surname2);
    r.mrz_agrees = printed_surnames == mrz_surnames && !mrz->given_names.empty() &&
                   front->given_names.rfind(mrz->given_names, 0) == 0;
  }
  const bool printed_ok = front && (!curp.empty() ? curp_agrees(*front) : r.mrz_agrees);
  if (front && (r.mrz_agrees || !mrz) && (curp.empty() || curp_agrees(*front))) {
    r.names = *front;
    r.source = "front";
  } else if (front && printed_ok && mrz && !curp_agrees(*mrz)) {
    r.names = *front;  // the MRZ misread where the CURP confirms the front
    r.source = "front";
  } else if (mrz) {
    r.names = *mrz;
    r.source = "mrz";
  }
  r.curp_agrees = !r.source.empty() && curp_agrees(r.names);
  return r;
}

}  // namespace svc::pipeline::documents
