#include "core/mx_ids.h"

#include <algorithm>
#include <cstdio>

namespace svc::core::mx {

namespace {

// One byte per character of an identifier: ASCII as it is, Ñ as kEnye, anything else outside
// ASCII as kOther (which no rule accepts).
constexpr char kEnye = '\x01';
constexpr char kOther = '\x02';
constexpr std::string_view kEnyeUtf8 = "\xC3\x91";
constexpr std::string_view kEnyeLowerUtf8 = "\xC3\xB1";

std::string Symbols(std::string_view utf8) {
  std::string out;
  for (size_t i = 0; i < utf8.size(); ++i) {
    const auto c = static_cast<unsigned char>(utf8[i]);
    if (c < 0x80) {
      out.push_back(static_cast<char>(c));
      continue;
    }
    if (utf8.substr(i, 2) == kEnyeUtf8) {
      out.push_back(kEnye);
      ++i;
      continue;
    }
    out.push_back(kOther);
    while (i + 1 < utf8.size() && (static_cast<unsigned char>(utf8[i + 1]) & 0xC0) == 0x80) ++i;
  }
  return out;
}

bool Upper(char c) { return c >= 'A' && c <= 'Z'; }
bool Digit(char c) { return c >= '0' && c <= '9'; }
bool Vowel(char c) { return c == 'A' || c == 'E' || c == 'I' || c == 'O' || c == 'U'; }
bool Consonant(char c) { return Upper(c) && !Vowel(c); }
int TwoDigits(std::string_view s) { return (s[0] - '0') * 10 + (s[1] - '0'); }
bool AllDigits(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return Digit(c); });
}

constexpr std::string_view kStates[] = {"AS", "BC", "BS", "CC", "CL", "CM", "CS", "CH", "DF",
                                        "DG", "GT", "GR", "HG", "JC", "MC", "MN", "MS", "NT",
                                        "NL", "OC", "PL", "QT", "QR", "SP", "SL", "SR", "TC",
                                        "TS", "TL", "VZ", "YN", "ZS", "NE"};

// RENAPO, Instructivo Normativo para la asignación de la CURP, Anexo 2.
constexpr std::string_view kCurpWords[] = {
    "BACA", "BAKA", "BUEI", "BUEY", "CACA", "CACO", "CAGA", "CAGO", "CAKA", "CAKO", "COGE", "COGI", "COJA", "COJE",
    "COJI", "COJO", "COLA", "CULO", "FALO", "FETO", "GETA", "GUEI", "GUEY", "JETA", "JOTO", "KACA", "KACO", "KAGA",
    "KAGO", "KAKA", "KAKO", "KOGE", "KOGI", "KOJA", "KOJE", "KOJI", "KOJO", "KOLA", "KULO", "LILO", "LOCA", "LOCO",
    "LOKA", "LOKO", "MAME", "MAMO", "MEAR", "MEAS", "MEON", "MIAR", "MION", "MOCO", "MOKO", "MULA", "MULO", "NACA",
    "NACO", "PEDA", "PEDO", "PENE", "PIPI", "PITO", "POPO", "PUTA", "PUTO", "QULO", "RATA", "ROBA", "ROBE", "ROBO",
    "RUIN", "SENO", "TETA", "VACA", "VAGA", "VAGO", "VAKA", "VUEI", "VUEY", "WUEI", "WUEY"};

// SAT, algoritmo del RFC de personas físicas, Anexo IV.
constexpr std::string_view kRfcWords[] = {
    "BUEI", "BUEY", "CACA", "CACO", "CAGA", "CAGO", "CAKA", "CAKO", "COGE", "COJA", "COJE", "COJI", "COJO", "CULO",
    "FETO", "GUEY", "JOTO", "KACA", "KACO", "KAGA", "KAGO", "KAKA", "KOGE", "KOJO", "KULO", "MAME", "MAMO", "MEAR",
    "MEAS", "MEON", "MION", "MOCO", "MULA", "PEDA", "PEDO", "PENE", "PUTA", "PUTO", "QULO", "RATA", "RUIN"};

// Value in the CURP alphabet "0-9 A-N Ñ O-Z".
int CurpValue(char c) {
  if (Digit(c)) return c - '0';
  if (c >= 'A' && c <= 'N') return c - 'A' + 10;
  if (c == kEnye) return 24;
  if (c >= 'O' && c <= 'Z') return c - 'O' + 25;
  return -1;
}

// Value in the RFC alphabet "0-9 A-N & O-Z space Ñ".
int RfcValue(char c) {
  if (Digit(c)) return c - '0';
  if (c >= 'A' && c <= 'N') return c - 'A' + 10;
  if (c == '&') return 24;
  if (c >= 'O' && c <= 'Z') return c - 'O' + 25;
  if (c == ' ') return 37;
  if (c == kEnye) return 38;
  return -1;
}

char CurpDigitOf(std::string_view symbols) {
  if (symbols.size() < 17) return '\0';
  int sum = 0;
  for (int i = 0; i < 17; ++i) {
    const int v = CurpValue(symbols[i]);
    if (v < 0) return '\0';
    sum += v * (18 - i);
  }
  return static_cast<char>('0' + (10 - sum % 10) % 10);
}

char RfcDigitOf(std::string_view symbols) {
  std::string padded(symbols);
  if (padded.size() == 11) padded = " " + padded;  // persona moral: a leading space
  if (padded.size() != 12) return '\0';
  int sum = 0;
  for (int i = 0; i < 12; ++i) {
    const int v = RfcValue(padded[i]);
    if (v < 0) return '\0';
    sum += v * (13 - i);
  }
  const int r = sum % 11;
  if (r == 0) return '0';
  return 11 - r == 10 ? 'A' : static_cast<char>('0' + (11 - r));
}

bool In(std::string_view word, const std::string_view* begin, const std::string_view* end) {
  return std::find(begin, end, word) != end;
}

std::string Normalise(std::string_view raw) {
  std::string out;
  for (size_t i = 0; i < raw.size(); ++i) {
    const char c = raw[i];
    if (c == ' ' || c == '\t' || c == '-' || c == '.' || c == '_') continue;
    if (raw.substr(i, 2) == kEnyeLowerUtf8) {
      out.append(kEnyeUtf8);
      ++i;
      continue;
    }
    out.push_back(c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c);
  }
  return out;
}

}  // namespace

std::string CivilDate::Iso() const {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02d", year, month, day);
  return buf;
}

bool IsValidCivilDate(int y, int m, int d) {
  if (y < 1800 || y > 2200 || m < 1 || m > 12 || d < 1) return false;
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return d <= (m == 2 && leap ? 29 : kDays[m - 1]);
}

std::string NormaliseCurp(std::string_view raw) { return Normalise(raw); }
std::string NormaliseRfc(std::string_view raw) { return Normalise(raw); }

size_t IdentifierLength(std::string_view utf8) { return Symbols(utf8).size(); }

bool IsCurpStateCode(std::string_view code) {
  return std::find(std::begin(kStates), std::end(kStates), code) != std::end(kStates);
}
bool IsCurpInconvenientWord(std::string_view four) { return In(four, std::begin(kCurpWords), std::end(kCurpWords)); }
bool IsRfcInconvenientWord(std::string_view four) { return In(four, std::begin(kRfcWords), std::end(kRfcWords)); }

char CurpCheckDigit(std::string_view first17) { return CurpDigitOf(Symbols(first17)); }
char RfcCheckDigit(std::string_view without_check) { return RfcDigitOf(Symbols(without_check)); }

CurpCheck CheckCurp(std::string_view curp, CivilDate today) {
  CurpCheck r;
  r.curp = std::string(curp);
  const std::string c = Symbols(curp);
  if (c.size() != 18) {
    r.reasons.push_back("curp_length");
    return r;
  }
  // RENAPO writes Ñ as X: no letter of a CURP is an Ñ.
  const bool format = Upper(c[0]) && (Vowel(c[1]) || c[1] == 'X') && Upper(c[2]) && Upper(c[3]) &&
                      AllDigits(std::string_view(c).substr(4, 6)) && Upper(c[10]) && Upper(c[11]) &&
                      Upper(c[12]) && Consonant(c[13]) && Consonant(c[14]) && Consonant(c[15]) &&
                      (Upper(c[16]) || Digit(c[16])) && Digit(c[17]);
  if (!format) {
    r.reasons.push_back("curp_format");
    return r;
  }
  if (IsCurpInconvenientWord(std::string_view(c).substr(0, 4))) r.reasons.push_back("curp_inconvenient_word");
  // The 17th character tells the century: a digit up to 1999, a letter from 2000.
  const int yy = TwoDigits(std::string_view(c).substr(4, 2));
  const int year = (Digit(c[16]) ? 1900 : 2000) + yy;
  const int month = TwoDigits(std::string_view(c).substr(6, 2)), day = TwoDigits(std::string_view(c).substr(8, 2));
  r.birth_date = CivilDate{year, month, day};
  if (!IsValidCivilDate(year, month, day)) {
    r.reasons.push_back("curp_date");
  } else if (r.birth_date > today) {
    r.reasons.push_back("curp_future_date");
  }
  r.sex = c[10];
  if (r.sex != 'H' && r.sex != 'M' && r.sex != 'X') r.reasons.push_back("curp_sex");
  r.state = c.substr(11, 2);
  if (!IsCurpStateCode(r.state)) r.reasons.push_back("curp_state");
  if (CurpDigitOf(c) != c[17]) r.reasons.push_back("curp_check_digit");
  r.valid = r.reasons.empty();
  return r;
}

RfcCheck CheckRfc(std::string_view rfc, CivilDate today) {
  RfcCheck r;
  r.rfc = std::string(rfc);
  const std::string s = Symbols(rfc);
  if (s.size() != 12 && s.size() != 13) {
    r.reasons.push_back("rfc_length");
    return r;
  }
  r.persona_moral = s.size() == 12;
  if (s == "XAXX010101000" || s == "XEXX010101000") {
    r.generic = s[1] == 'A' ? GenericRfc::kGeneralPublic : GenericRfc::kForeign;
    r.reasons.push_back("rfc_generic");
    return r;
  }
  const size_t letters = r.persona_moral ? 3 : 4;
  bool format = true;
  for (size_t i = 0; i < letters; ++i) format &= Upper(s[i]) || s[i] == '&' || s[i] == kEnye;
  format &= AllDigits(std::string_view(s).substr(letters, 6));
  for (size_t i = letters + 6; i < s.size(); ++i) format &= Upper(s[i]) || Digit(s[i]);
  if (!format) {
    r.reasons.push_back("rfc_format");
    return r;
  }
  if (!r.persona_moral && IsRfcInconvenientWord(std::string_view(s).substr(0, 4))) {
    r.reasons.push_back("rfc_inconvenient_word");
  }
  // Two-digit years: the latest century that is not in the future.
  const int yy = TwoDigits(std::string_view(s).substr(letters, 2));
  const int month = TwoDigits(std::string_view(s).substr(letters + 2, 2));
  const int day = TwoDigits(std::string_view(s).substr(letters + 4, 2));
  int year = today.year / 100 * 100 + yy;
  if (CivilDate{year, month, day} > today) year -= 100;
  r.date = CivilDate{year, month, day};
  if (!IsValidCivilDate(year, month, day)) r.reasons.push_back("rfc_date");
  if (RfcDigitOf(std::string_view(s).substr(0, s.size() - 1)) != s.back()) r.reasons.push_back("rfc_check_digit");
  r.valid = r.reasons.empty();
  return r;
}

std::string CompactIdentifier(std::string_view raw) {
  std::string out;
  for (size_t i = 0; i < raw.size(); ++i) {
    const char c = raw[i];
    if (raw.substr(i, 2) == kEnyeUtf8 || raw.substr(i, 2) == kEnyeLowerUtf8) {
      out.append(kEnyeUtf8);
      ++i;
    } else if ((c >= 'A' && c <= 'Z') || Digit(c) || c == '&') {
      out.push_back(c);
    } else if (c >= 'a' && c <= 'z') {
      out.push_back(static_cast<char>(c - 'a' + 'A'));
    }
  }
  return out;
}

std::string Explain(const std::vector<std::string>& reasons) {
  static const std::pair<std::string_view, std::string_view> kWords[] = {
      {"curp_length", "a CURP has 18 characters"},
      {"curp_format", "letters, digits and their places do not follow the CURP's structure"},
      {"curp_inconvenient_word", "its first four letters spell a word RENAPO replaces (the second letter becomes X)"},
      {"curp_date", "the birth date is not a date"},
      {"curp_future_date", "the birth date is in the future"},
      {"curp_sex", "the sex is not H, M or X"},
      {"curp_state", "the state code is not one of the 32 entities or NE"},
      {"curp_check_digit", "the check digit does not match"},
      {"rfc_length", "an RFC has 12 characters (persona moral) or 13 (persona física)"},
      {"rfc_format", "letters, digits and their places do not follow the RFC's structure"},
      {"rfc_inconvenient_word", "its first four letters spell a word the SAT replaces (the last letter becomes X)"},
      {"rfc_date", "the date is not a date"},
      {"rfc_check_digit", "the check digit does not match"},
      {"rfc_generic", "it is one of the SAT's two generic RFCs (público en general, extranjeros), which identify nobody"}};
  std::string out;
  for (const auto& r : reasons) {
    std::string_view words = r;
    for (const auto& [code, text] : kWords) {
      if (code == r) words = text;
    }
    if (!out.empty()) out += "; ";
    out += words;
  }
  return out;
}

CivilDate CivilDateOfMicros(int64_t micros) {
  // Days since 1970-01-01 to a civil date (H. Hinnant's algorithm).
  int64_t z = micros / 86'400'000'000;
  if (micros % 86'400'000'000 < 0) --z;
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  const int d = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  const int m = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  const int y = static_cast<int>(yoe + era * 400 + (m <= 2 ? 1 : 0));
  return CivilDate{y, m, d};
}

bool IsGenericRfc(std::string_view compact) { return compact == "XAXX010101000" || compact == "XEXX010101000"; }

}  // namespace svc::core::mx
