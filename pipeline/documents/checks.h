#pragma once
// Document checks that need no model: ICAO 9303 machine-readable zones (TD1 as on the back of the INE, TD3 as in passports)
// with every check digit, document expiry, and consistency between the MRZ and the CURP.
// Pure functions: no I/O, no clock (today comes in).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/mx_ids.h"

namespace svc::pipeline::documents {

// Dates, CURP and RFC are core::mx's (core/mx_ids.h): one rule set for every route, loader and
// engine.
using Date = core::mx::CivilDate;
inline bool IsValidDate(int year, int month, int day) { return core::mx::IsValidCivilDate(year, month, day); }

// The API speaks one vocabulary for sex, ICAO 9303's (as printed in an MRZ): "F" female, "M"
// male, "X" unspecified. The CURP and RENAPO use Spanish letters ("H" hombre, "M" mujer, "X"), so
// a CURP "M" is an ICAO "F". Returns "" for anything else.
std::string CurpSexToIcao(std::string_view curp_sex);

// ---- ICAO 9303 MRZ ----
int MrzCheckDigit(std::string_view field);  // weights 7-3-1; '<' = 0; -1 on a bad character

struct MrzResult {
  bool valid = false;
  std::string format;  // "TD1" | "TD3"
  std::vector<std::string> reasons;  // mrz_format, mrz_document_number_check, mrz_birth_date_check,
                                     // mrz_expiry_date_check, mrz_optional_data_check,
                                     // mrz_composite_check, mrz_date
  std::string document_code;    // "P", "ID", "I", …
  std::string issuing_state;
  std::string document_number;  // without filler
  std::string nationality;
  std::optional<Date> birth_date;
  std::optional<Date> expiry_date;
  char sex = '<';  // 'M', 'F' or '<'
  std::string surname;
  std::string given_names;
  std::string optional_data;  // TD3 personal number / TD1 optional fields, without filler
};
// `lines`: the MRZ lines as read (2 x 44 for TD3, 3 x 30 for TD1). `today` resolves two-digit
// years: birth dates are never in the future, expiry dates are within 50 years.
MrzResult CheckMrz(const std::vector<std::string>& lines, Date today);

// ---- Expiry ----
// INE credentials carry a vigencia year: valid through 31 December of that year.
bool IsExpired(const Date& expiry, const Date& today);
Date VigenciaEnd(int year);

// ---- Consistency between what was read ----
// Reason codes when the MRZ and the CURP disagree: consistency_birth_date, consistency_sex,
// consistency_names (the CURP's first four letters do not follow from the names).
std::vector<std::string> CheckConsistency(const MrzResult& mrz, const core::mx::CurpCheck& curp);
// The first four letters a CURP derives from the names (RENAPO rules, simplified: the first
// vowel inside the first surname, common first names JOSE/MARIA skipped, Ñ as X).
std::string CurpNameLetters(std::string_view surname1, std::string_view surname2,
                            std::string_view given_names);

}  // namespace svc::pipeline::documents
