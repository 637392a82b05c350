#include "pipeline/documents/checks.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace svc::pipeline::documents {

namespace {

bool Upper(char c) { return c >= 'A' && c <= 'Z'; }
bool Digit(char c) { return c >= '0' && c <= '9'; }
int TwoDigits(std::string_view s) { return (s[0] - '0') * 10 + (s[1] - '0'); }
bool AllDigits(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return Digit(c); });
}

}  // namespace

std::string CurpSexToIcao(std::string_view curp_sex) {
  if (curp_sex == "H") return "M";
  if (curp_sex == "M") return "F";
  if (curp_sex == "X") return "X";
  return "";
}

int MrzCheckDigit(std::string_view field) {
  static constexpr int kWeights[] = {7, 3, 1};
  int sum = 0;
  for (size_t i = 0; i < field.size(); ++i) {
    char c = field[i];
    int v;
    if (c == '<') v = 0;
    else if (Digit(c)) v = c - '0';
    else if (Upper(c)) v = c - 'A' + 10;
    else return -1;
    sum += v * kWeights[i % 3];
  }
  return sum % 10;
}

namespace {

std::string Strip(std::string_view s) {
  std::string out(s);
  while (!out.empty() && out.back() == '<') out.pop_back();
  return out;
}

std::string Spaces(std::string_view s) {
  std::string out;
  for (char c : s) out += c == '<' ? ' ' : c;
  while (!out.empty() && out.back() == ' ') out.pop_back();
  while (!out.empty() && out.front() == ' ') out.erase(out.begin());
  return out;
}

void CheckField(MrzResult& r, std::string_view field, char check, const char* reason) {
  int want = MrzCheckDigit(field);
  if (want < 0 || check != static_cast<char>('0' + want)) r.reasons.push_back(reason);
}

// YYMMDD -> Date. Birth dates resolve to the latest century not in the future; expiry dates to
// within 50 years of today.
std::optional<Date> MrzDate(std::string_view s, Date today, bool birth) {
  if (s.size() != 6 || !AllDigits(s)) return std::nullopt;
  int yy = TwoDigits(s.substr(0, 2)), mm = TwoDigits(s.substr(2, 2)), dd = TwoDigits(s.substr(4, 2));
  int century = today.year / 100 * 100;
  int year = century + yy;
  if (birth) {
    if (Date{year, mm, dd} > today) year -= 100;
  } else if (year > today.year + 50) {
    year -= 100;
  } else if (year < today.year - 50) {
    year += 100;
  }
  if (!IsValidDate(year, mm, dd)) return std::nullopt;
  return Date{year, mm, dd};
}

void Names(MrzResult& r, std::string_view field) {
  size_t sep = field.find("<<");
  if (sep == std::string_view::npos) {
    r.surname = Spaces(field);
    return;
  }
  r.surname = Spaces(field.substr(0, sep));
  r.given_names = Spaces(field.substr(sep + 2));
}

bool Charset(const std::string& line) {
  return std::all_of(line.begin(), line.end(),
                     [](char c) { return Upper(c) || Digit(c) || c == '<'; });
}

}  // namespace

MrzResult CheckMrz(const std::vector<std::string>& lines, Date today) {
  MrzResult r;
  bool td3 = lines.size() == 2 && lines[0].size() == 44 && lines[1].size() == 44;
  bool td1 = lines.size() == 3 && lines[0].size() == 30 && lines[1].size() == 30 &&
             lines[2].size() == 30;
  if ((!td1 && !td3) || !std::all_of(lines.begin(), lines.end(), Charset)) {
    r.reasons.push_back("mrz_format");
    return r;
  }
  if (td3) {
    r.format = "TD3";
    const std::string &l1 = lines[0], &l2 = lines[1];
    r.document_code = Strip(l1.substr(0, 2));
    r.issuing_state = Strip(l1.substr(2, 3));
    Names(r, std::string_view(l1).substr(5));
    r.document_number = Strip(l2.substr(0, 9));
    CheckField(r, l2.substr(0, 9), l2[9], "mrz_document_number_check");
    r.nationality = Strip(l2.substr(10, 3));
    r.birth_date = MrzDate(l2.substr(13, 6), today, true);
    CheckField(r, l2.substr(13, 6), l2[19], "mrz_birth_date_check");
    r.sex = l2[20];
    r.expiry_date = MrzDate(l2.substr(21, 6), today, false);
    CheckField(r, l2.substr(21, 6), l2[27], "mrz_expiry_date_check");
    r.optional_data = Strip(l2.substr(28, 14));
    // An all-filler personal number may carry '<' or '0' as its check digit.
    if (!(l2[42] == '<' && r.optional_data.empty())) {
      CheckField(r, l2.substr(28, 14), l2[42], "mrz_optional_data_check");
    }
    CheckField(r, l2.substr(0, 10) + l2.substr(13, 7) + l2.substr(21, 22), l2[43],
               "mrz_composite_check");
  } else {
    r.format = "TD1";
    const std::string &l1 = lines[0], &l2 = lines[1], &l3 = lines[2];
    r.document_code = Strip(l1.substr(0, 2));
    r.issuing_state = Strip(l1.substr(2, 3));
    r.document_number = Strip(l1.substr(5, 9));
    CheckField(r, l1.substr(5, 9), l1[14], "mrz_document_number_check");
    r.optional_data = Strip(l1.substr(15, 15));
    r.birth_date = MrzDate(l2.substr(0, 6), today, true);
    CheckField(r, l2.substr(0, 6), l2[6], "mrz_birth_date_check");
    r.sex = l2[7];
    r.expiry_date = MrzDate(l2.substr(8, 6), today, false);
    CheckField(r, l2.substr(8, 6), l2[14], "mrz_expiry_date_check");
    r.nationality = Strip(l2.substr(15, 3));
    CheckField(r, l1.substr(5, 25) + l2.substr(0, 7) + l2.substr(8, 7) + l2.substr(18, 11),
               l2[29], "mrz_composite_check");
    Names(r, l3);
  }
  if (!r.birth_date.has_value() || !r.expiry_date.has_value()) r.reasons.push_back("mrz_date");
  if (r.sex != 'M' && r.sex != 'F' && r.sex != '<' && r.sex != 'X') r.reasons.push_back("mrz_format");
  r.valid = r.reasons.empty();
  return r;
}

bool IsExpired(const Date& expiry, const Date& today) { return today > expiry; }
Date VigenciaEnd(int year) { return Date{year, 12, 31}; }

std::vector<std::string> CheckConsistency(const MrzResult& mrz, const core::mx::CurpCheck& curp) {
  std::vector<std::string> out;
  if (mrz.birth_date.has_value() && curp.birth_date.year != 0 &&
      *mrz.birth_date != curp.birth_date) {
    out.push_back("consistency_birth_date");
  }
  bool sex_agrees = (mrz.sex == 'M' && curp.sex == 'H') || (mrz.sex == 'F' && curp.sex == 'M') ||
                    mrz.sex == '<' || mrz.sex == 'X' || curp.sex == 'X';
  if (!sex_agrees) out.push_back("consistency_sex");
  // MRZ surnames: "PATERNO<MATERNO" (spaces once decoded); given names after "<<".
  std::string s1 = mrz.surname, s2;
  if (size_t sp = s1.find(' '); sp != std::string::npos) {
    s2 = s1.substr(sp + 1);
    s1 = s1.substr(0, sp);
  }
  if (!s1.empty() && curp.curp.size() >= 4) {
    std::string letters = CurpNameLetters(s1, s2, mrz.given_names);
    std::string_view have = std::string_view(curp.curp).substr(0, 4);
    // RENAPO replaces the second letter with X when the four letters form an inconvenient word.
    bool agrees = have == letters ||
                  (have[0] == letters[0] && have[1] == 'X' && have[2] == letters[2] &&
                   have[3] == letters[3]);
    if (!agrees) out.push_back("consistency_names");
  }
  return out;
}

}  // namespace svc::pipeline::documents
