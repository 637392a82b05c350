#include "pipeline/persons/pii.h"

#include <algorithm>
#include <cctype>
#include <utility>

#include "core/crypto.h"
#include "core/ids.h"

namespace svc::pipeline::persons {

namespace {

// ISO 3166-1 alpha-3 and alpha-2, from Debian's iso-codes 4.15.0
// (/usr/share/iso-codes/json/iso_3166-1.json), sorted by alpha-3.
constexpr std::pair<std::string_view, std::string_view> kCountries[] = {
    {"ABW", "AW"}, {"AFG", "AF"}, {"AGO", "AO"}, {"AIA", "AI"}, {"ALA", "AX"}, {"ALB", "AL"},
    {"AND", "AD"}, {"ARE", "AE"}, {"ARG", "AR"}, {"ARM", "AM"}, {"ASM", "AS"}, {"ATA", "AQ"},
    {"ATF", "TF"}, {"ATG", "AG"}, {"AUS", "AU"}, {"AUT", "AT"}, {"AZE", "AZ"}, {"BDI", "BI"},
    {"BEL", "BE"}, {"BEN", "BJ"}, {"BES", "BQ"}, {"BFA", "BF"}, {"BGD", "BD"}, {"BGR", "BG"},
    {"BHR", "BH"}, {"BHS", "BS"}, {"BIH", "BA"}, {"BLM", "BL"}, {"BLR", "BY"}, {"BLZ", "BZ"},
    {"BMU", "BM"}, {"BOL", "BO"}, {"BRA", "BR"}, {"BRB", "BB"}, {"BRN", "BN"}, {"BTN", "BT"},
    {"BVT", "BV"}, {"BWA", "BW"}, {"CAF", "CF"}, {"CAN", "CA"}, {"CCK", "CC"}, {"CHE", "CH"},
    {"CHL", "CL"}, {"CHN", "CN"}, {"CIV", "CI"}, {"CMR", "CM"}, {"COD", "CD"}, {"COG", "CG"},
    {"COK", "CK"}, {"COL", "CO"}, {"COM", "KM"}, {"CPV", "CV"}, {"CRI", "CR"}, {"CUB", "CU"},
    {"CUW", "CW"}, {"CXR", "CX"}, {"CYM", "KY"}, {"CYP", "CY"}, {"CZE", "CZ"}, {"DEU", "DE"},
    {"DJI", "DJ"}, {"DMA", "DM"}, {"DNK", "DK"}, {"DOM", "DO"}, {"DZA", "DZ"}, {"ECU", "EC"},
    {"EGY", "EG"}, {"ERI", "ER"}, {"ESH", "EH"}, {"ESP", "ES"}, {"EST", "EE"}, {"ETH", "ET"},
    {"FIN", "FI"}, {"FJI", "FJ"}, {"FLK", "FK"}, {"FRA", "FR"}, {"FRO", "FO"}, {"FSM", "FM"},
    {"GAB", "GA"}, {"GBR", "GB"}, {"GEO", "GE"}, {"GGY", "GG"}, {"GHA", "GH"}, {"GIB", "GI"},
    {"GIN", "GN"}, {"GLP", "GP"}, {"GMB", "GM"}, {"GNB", "GW"}, {"GNQ", "GQ"}, {"GRC", "GR"},
    {"GRD", "GD"}, {"GRL", "GL"}, {"GTM", "GT"}, {"GUF", "GF"}, {"GUM", "GU"}, {"GUY", "GY"},
    {"HKG", "HK"}, {"HMD", "HM"}, {"HND", "HN"}, {"HRV", "HR"}, {"HTI", "HT"}, {"HUN", "HU"},
    {"IDN", "ID"}, {"IMN", "IM"}, {"IND", "IN"}, {"IOT", "IO"}, {"IRL", "IE"}, {"IRN", "IR"},
    {"IRQ", "IQ"}, {"ISL", "IS"}, {"ISR", "IL"}, {"ITA", "IT"}, {"JAM", "JM"}, {"JEY", "JE"},
    {"JOR", "JO"}, {"JPN", "JP"}, {"KAZ", "KZ"}, {"KEN", "KE"}, {"KGZ", "KG"}, {"KHM", "KH"},
    {"KIR", "KI"}, {"KNA", "KN"}, {"KOR", "KR"}, {"KWT", "KW"}, {"LAO", "LA"}, {"LBN", "LB"},
    {"LBR", "LR"}, {"LBY", "LY"}, {"LCA", "LC"}, {"LIE", "LI"}, {"LKA", "LK"}, {"LSO", "LS"},
    {"LTU", "LT"}, {"LUX", "LU"}, {"LVA", "LV"}, {"MAC", "MO"}, {"MAF", "MF"}, {"MAR", "MA"},
    {"MCO", "MC"}, {"MDA", "MD"}, {"MDG", "MG"}, {"MDV", "MV"}, {"MEX", "MX"}, {"MHL", "MH"},
    {"MKD", "MK"}, {"MLI", "ML"}, {"MLT", "MT"}, {"MMR", "MM"}, {"MNE", "ME"}, {"MNG", "MN"},
    {"MNP", "MP"}, {"MOZ", "MZ"}, {"MRT", "MR"}, {"MSR", "MS"}, {"MTQ", "MQ"}, {"MUS", "MU"},
    {"MWI", "MW"}, {"MYS", "MY"}, {"MYT", "YT"}, {"NAM", "NA"}, {"NCL", "NC"}, {"NER", "NE"},
    {"NFK", "NF"}, {"NGA", "NG"}, {"NIC", "NI"}, {"NIU", "NU"}, {"NLD", "NL"}, {"NOR", "NO"},
    {"NPL", "NP"}, {"NRU", "NR"}, {"NZL", "NZ"}, {"OMN", "OM"}, {"PAK", "PK"}, {"PAN", "PA"},
    {"PCN", "PN"}, {"PER", "PE"}, {"PHL", "PH"}, {"PLW", "PW"}, {"PNG", "PG"}, {"POL", "PL"},
    {"PRI", "PR"}, {"PRK", "KP"}, {"PRT", "PT"}, {"PRY", "PY"}, {"PSE", "PS"}, {"PYF", "PF"},
    {"QAT", "QA"}, {"REU", "RE"}, {"ROU", "RO"}, {"RUS", "RU"}, {"RWA", "RW"}, {"SAU", "SA"},
    {"SDN", "SD"}, {"SEN", "SN"}, {"SGP", "SG"}, {"SGS", "GS"}, {"SHN", "SH"}, {"SJM", "SJ"},
    {"SLB", "SB"}, {"SLE", "SL"}, {"SLV", "SV"}, {"SMR", "SM"}, {"SOM", "SO"}, {"SPM", "PM"},
    {"SRB", "RS"}, {"SSD", "SS"}, {"STP", "ST"}, {"SUR", "SR"}, {"SVK", "SK"}, {"SVN", "SI"},
    {"SWE", "SE"}, {"SWZ", "SZ"}, {"SXM", "SX"}, {"SYC", "SC"}, {"SYR", "SY"}, {"TCA", "TC"},
    {"TCD", "TD"}, {"TGO", "TG"}, {"THA", "TH"}, {"TJK", "TJ"}, {"TKL", "TK"}, {"TKM", "TM"},
    {"TLS", "TL"}, {"TON", "TO"}, {"TTO", "TT"}, {"TUN", "TN"}, {"TUR", "TR"}, {"TUV", "TV"},
    {"TWN", "TW"}, {"TZA", "TZ"}, {"UGA", "UG"}, {"UKR", "UA"}, {"UMI", "UM"}, {"URY", "UY"},
    {"USA", "US"}, {"UZB", "UZ"}, {"VAT", "VA"}, {"VCT", "VC"}, {"VEN", "VE"}, {"VGB", "VG"},
    {"VIR", "VI"}, {"VNM", "VN"}, {"VUT", "VU"}, {"WLF", "WF"}, {"WSM", "WS"}, {"YEM", "YE"},
    {"ZAF", "ZA"}, {"ZMB", "ZM"}, {"ZWE", "ZW"},
};

std::string Trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

std::string Upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool AllDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

core::Status Bad(std::string_view field, std::string_view what) {
  return core::InvalidArgument(std::string(field) + " " + std::string(what), "VALIDATION_ERROR");
}

// YYYY-MM-DD, a real date from 1900 on.
bool IsIsoDate(std::string_view s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return false;
  if (!AllDigits(s.substr(0, 4)) || !AllDigits(s.substr(5, 2)) || !AllDigits(s.substr(8, 2))) return false;
  int y = std::stoi(std::string(s.substr(0, 4)));
  int m = std::stoi(std::string(s.substr(5, 2)));
  int d = std::stoi(std::string(s.substr(8, 2)));
  return y >= 1900 && core::mx::IsValidCivilDate(y, m, d);
}

// local@domain: one @, a non-empty local part without spaces, a domain of dot-separated labels
// (letters, digits, hyphens; no label starts or ends with a hyphen) with at least one dot.
bool IsEmail(std::string_view s) {
  if (s.size() > 254) return false;
  size_t at = s.find('@');
  if (at == std::string_view::npos || at == 0 || at > 64 || s.find('@', at + 1) != std::string_view::npos) {
    return false;
  }
  std::string_view local = s.substr(0, at), domain = s.substr(at + 1);
  for (char c : local) {
    if (static_cast<unsigned char>(c) <= ' ' || c == '"' || c == '(' || c == ')' || c == ',' ||
        c == ':' || c == ';' || c == '<' || c == '>' || c == '[' || c == ']' || c == '\\') {
      return false;
    }
  }
  if (local.front() == '.' || local.back() == '.' || local.find("..") != std::string_view::npos) return false;
  if (domain.find('.') == std::string_view::npos) return false;
  size_t start = 0;
  while (start <= domain.size()) {
    size_t dot = domain.find('.', start);
    std::string_view label = domain.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (label.empty() || label.size() > 63 || label.front() == '-' || label.back() == '-') return false;
    for (char c : label) {
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-') return false;
    }
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return true;
}

}  // namespace

const std::vector<PiiField>& PiiFields() {
  static const std::vector<PiiField> kFields = {
      {"address", PiiIndex::kNone, 512},       {"birthDate", PiiIndex::kNone, 10},
      {"claveElector", PiiIndex::kNone, 18},   {"curp", PiiIndex::kCurp, 18},
      {"documentNumber", PiiIndex::kNone, 64}, {"email", PiiIndex::kEmail, 254},
      {"emision", PiiIndex::kNone, 10},        {"fullName", PiiIndex::kName, 256},
      {"givenName", PiiIndex::kName, 128},     {"nationality", PiiIndex::kNone, 3},
      {"phone", PiiIndex::kPhone, 32},         {"rfc", PiiIndex::kRfc, 13},
      {"seccion", PiiIndex::kNone, 4},         {"sex", PiiIndex::kNone, 1},
      {"state", PiiIndex::kNone, 2},           {"surname", PiiIndex::kName, 128},
      {"vigencia", PiiIndex::kNone, 10},
  };
  return kFields;
}

const PiiField* FindPiiField(std::string_view name) {
  for (const auto& f : PiiFields()) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

std::string_view IndexName(PiiIndex index) {
  switch (index) {
    case PiiIndex::kCurp: return "curp";
    case PiiIndex::kRfc: return "rfc";
    case PiiIndex::kEmail: return "email";
    case PiiIndex::kPhone: return "phone";
    case PiiIndex::kName: return "name";
    case PiiIndex::kNone: break;
  }
  return "";
}

std::optional<std::string> CountryAlpha3(std::string_view code) {
  std::string c = Upper(std::string(code));
  for (const auto& [a3, a2] : kCountries) {
    if (c == a3 || c == a2) return std::string(a3);
  }
  return std::nullopt;
}

std::optional<std::string> PhoneE164(std::string_view raw) {
  std::string s = Trim(raw);
  bool plus = !s.empty() && s[0] == '+';
  std::string digits;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c >= '0' && c <= '9') {
      digits.push_back(c);
    } else if (c != ' ' && c != '-' && c != '(' && c != ')' && c != '.' && !(c == '+' && i == 0)) {
      return std::nullopt;  // letters, extensions and the like are not a phone number
    }
  }
  if (!plus) {
    // National forms of Mexico: 10 digits, with the old long-distance (01) and mobile (044, 045)
    // prefixes; 52 + 10 digits without the plus.
    if (digits.size() == 13 && (digits.rfind("044", 0) == 0 || digits.rfind("045", 0) == 0)) {
      digits = digits.substr(3);
    } else if (digits.size() == 12 && digits.rfind("01", 0) == 0) {
      digits = digits.substr(2);
    } else if (digits.size() == 12 && digits.rfind("52", 0) == 0) {
      digits = digits.substr(2);
    }
    if (digits.size() != 10) return std::nullopt;
    digits = "52" + digits;
  }
  // Mexico's mobile "1" after the country code was dropped in 2019: +52 1 + 10 digits.
  if (digits.size() == 13 && digits.rfind("521", 0) == 0) digits = "52" + digits.substr(3);
  if (digits.size() < 8 || digits.size() > 15 || digits[0] == '0') return std::nullopt;
  if (digits.rfind("52", 0) == 0 && digits.size() != 12) return std::nullopt;
  return "+" + digits;
}

std::string FoldAccents(std::string_view s) {
  // U+00C0..U+00FF (two UTF-8 bytes: 0xC3, then 0x80..0xBF), upper then lower case; " " for the
  // two signs among them (multiplication and division).
  static constexpr std::string_view kLatin1[64] = {
      "a", "a", "a", "a", "a", "a", "ae", "c", "e", "e", "e", "e", "i", "i", "i", "i",
      "d", "n", "o", "o", "o", "o", "o",  " ", "o", "u", "u", "u", "u", "y", "th", "ss",
      "a", "a", "a", "a", "a", "a", "ae", "c", "e", "e", "e", "e", "i", "i", "i", "i",
      "d", "n", "o", "o", "o", "o", "o",  " ", "o", "u", "u", "u", "u", "y", "th", "y"};
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      out.push_back(static_cast<char>(std::tolower(c)));
    } else if (c == 0xC3 && i + 1 < s.size() && (static_cast<unsigned char>(s[i + 1]) & 0xC0) == 0x80) {
      out.append(kLatin1[static_cast<unsigned char>(s[i + 1]) - 0x80]);
      ++i;
    } else {
      out.push_back(static_cast<char>(c));  // other characters stay as they are
    }
  }
  return out;
}

std::vector<std::string> NameTokens(std::string_view utf8) {
  std::string folded = FoldAccents(utf8);
  std::vector<std::string> tokens;
  std::string cur;
  for (char c : folded) {
    unsigned char u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || u >= 0x80) {
      cur.push_back(c);
    } else if (!cur.empty()) {
      tokens.push_back(std::move(cur));
      cur.clear();
    }
  }
  if (!cur.empty()) tokens.push_back(std::move(cur));
  return tokens;
}

core::Result<std::string> NormalisePii(std::string_view field, std::string_view raw, core::mx::CivilDate today) {
  const PiiField* f = FindPiiField(field);
  if (f == nullptr) return core::InvalidArgument("unknown PII field " + std::string(field), "UNKNOWN_PII_FIELD");
  std::string v = Trim(raw);
  if (v.empty()) return Bad(field, "must not be empty");
  if (raw.size() > f->max_length + 64) return Bad(field, "is longer than " + std::to_string(f->max_length) + " characters");
  // CURP and RFC are counted in characters (an RFC may hold Ñ), the rest in bytes.
  if (field == "curp") {
    v = core::mx::NormaliseCurp(v);
    const auto c = core::mx::CheckCurp(v, today);
    if (!c.valid) return Bad(field, "is not a valid CURP (" + core::mx::Explain(c.reasons) + ")");
    return v;
  }
  if (field == "rfc") {
    v = core::mx::NormaliseRfc(v);
    const auto c = core::mx::CheckRfc(v, today);
    if (!c.valid) return Bad(field, "is not a valid RFC (" + core::mx::Explain(c.reasons) + ")");
    return v;
  }
  if (v.size() > f->max_length) return Bad(field, "is longer than " + std::to_string(f->max_length) + " bytes");
  if (field == "email") {
    v = Lower(v);
    if (!IsEmail(v)) return Bad(field, "is not an e-mail address");
    return v;
  }
  if (field == "phone") {
    auto e164 = PhoneE164(v);
    if (!e164) return Bad(field, "is not a phone number (E.164, or 10 digits of a Mexican number)");
    return *e164;
  }
  if (field == "birthDate") {
    if (!IsIsoDate(v)) return Bad(field, "must be a date, YYYY-MM-DD");
    return v;
  }
  if (field == "emision" || field == "vigencia") {
    bool year = v.size() == 4 && AllDigits(v) && std::stoi(v) >= 1900;
    if (!year && !IsIsoDate(v)) return Bad(field, "must be a date, YYYY-MM-DD, or a year, YYYY");
    return v;
  }
  if (field == "sex") {
    v = Upper(v);
    if (v != "F" && v != "M" && v != "X") return Bad(field, "must be F, M or X");
    return v;
  }
  if (field == "state") {
    v = Upper(v);
    if (!core::mx::IsCurpStateCode(v)) return Bad(field, "must be a Mexican state code as in the CURP (NE: born abroad)");
    return v;
  }
  if (field == "nationality") {
    auto a3 = CountryAlpha3(v);
    if (!a3) return Bad(field, "must be an ISO 3166-1 country code (alpha-3, or alpha-2)");
    return *a3;
  }
  if (field == "seccion") {
    if (!AllDigits(v) || v.size() > 4) return Bad(field, "must be 1 to 4 digits");
    return v;
  }
  if (field == "claveElector" || field == "documentNumber") v = Upper(v);
  for (char c : v) {
    if (static_cast<unsigned char>(c) < 0x20) return Bad(field, "must not hold control characters");
  }
  return v;
}

std::vector<std::string> IndexTerms(std::string_view field, std::string_view normalised) {
  const PiiField* f = FindPiiField(field);
  if (f == nullptr || f->index == PiiIndex::kNone) return {};
  if (f->index == PiiIndex::kName) return NameTokens(normalised);
  return {std::string(normalised)};
}

std::string BlindIndex(std::string_view index_key, std::string_view index, std::string_view term) {
  std::string data(index);
  data.push_back('|');
  data.append(term);
  return core::HexEncode(core::HmacSha256(index_key, data));
}

bool LooksLikePii(std::string_view external_ref, core::mx::CivilDate today) {
  std::string v = Trim(external_ref);
  const std::string id = core::mx::NormaliseRfc(v);
  if (core::mx::CheckCurp(id, today).valid) return true;
  const auto rfc = core::mx::CheckRfc(id, today);
  if (rfc.valid || rfc.generic != core::mx::GenericRfc::kNone) return true;
  if (v.find('@') != std::string::npos && IsEmail(Lower(v))) return true;
  // A phone number: mostly digits with phone punctuation, 10 or more digits.
  size_t digits = std::count_if(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; });
  bool phone_chars = std::all_of(v.begin(), v.end(), [](char c) {
    return (c >= '0' && c <= '9') || c == '+' || c == ' ' || c == '-' || c == '(' || c == ')' || c == '.';
  });
  return phone_chars && digits >= 10 && PhoneE164(v).has_value();
}

}  // namespace svc::pipeline::persons
