#pragma once
// Mexican identifiers: the CURP (RENAPO) and the RFC (SAT), normalised and checked by one set of
// rules that every route, loader and engine uses (docs/mexican-identifiers.md).
//
// CURP, 18 characters (Instructivo Normativo para la asignación de la CURP):
//   1-4   initial and first inner vowel of the first surname, initial of the second surname,
//         initial of the given name. Ñ and special characters are written X, so a CURP is ASCII.
//         When the four letters form one of RENAPO's inconvenient words (Anexo 2) the second one
//         is replaced by X: a CURP that still spells such a word was never issued.
//   5-10  birth date YYMMDD; 11 sex (H, M, or X); 12-13 state (the 32 entities, NE: born abroad);
//   14-16 first inner consonants of both surnames and the name (X when none);
//   17    homonymy differentiator: a digit for births up to 1999, a letter from 2000 (it fixes
//         the century, so a birth date in the future is detectable); 18 check digit (modulo 10
//         over the alphabet 0-9 A-N Ñ O-Z).
// RFC (SAT), 13 characters for a persona física, 12 for a persona moral:
//   4 (or 3) letters, which may include Ñ and &; YYMMDD (birth or incorporation); a two-character
//   homoclave and a check digit (modulo 11 over 0-9 A-N & O-Z space Ñ, a persona moral padded
//   with a leading space). A persona física's four letters never spell one of the SAT's
//   inconvenient words (Anexo IV): the last letter is replaced by X. The two-digit year is read as
//   the latest century not in the future.
//   The generic RFCs XAXX010101000 (público en general) and XEXX010101000 (residentes en el
//   extranjero) are well-formed but identify nobody: both are reported as `generic`, never valid.
//
// Pure functions: no I/O, no clock (today comes in).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace svc::core::mx {

struct CivilDate {
  int year = 0, month = 0, day = 0;
  friend auto operator<=>(const CivilDate&, const CivilDate&) = default;
  std::string Iso() const;  // YYYY-MM-DD
};
bool IsValidCivilDate(int year, int month, int day);

// What a person types, made the one written form: surrounding blanks and the separators people
// put between groups (spaces, '-', '.', '_') removed, ASCII letters upper-cased and ñ written Ñ
// (UTF-8). Any other character is kept, so that the check refuses it.
std::string NormaliseCurp(std::string_view raw);
std::string NormaliseRfc(std::string_view raw);

// ---- CURP ----
struct CurpCheck {
  bool valid = false;
  // curp_length, curp_format, curp_inconvenient_word, curp_date, curp_future_date, curp_sex,
  // curp_state, curp_check_digit
  std::vector<std::string> reasons;
  CivilDate birth_date;
  char sex = 0;       // 'H', 'M' or 'X'
  std::string state;  // two-letter code; NE = born abroad
  std::string curp;   // as checked
};
// `curp` as normalised. A birth date after `today` is curp_future_date.
CurpCheck CheckCurp(std::string_view curp, CivilDate today);
// The check digit (18th character) the first 17 characters imply; '\0' if they are malformed.
char CurpCheckDigit(std::string_view first17);
// The two-letter state codes of the CURP (the 32 federal entities, and NE: born abroad).
bool IsCurpStateCode(std::string_view code);
// RENAPO's inconvenient words (Anexo 2): four letters a CURP never starts with.
bool IsCurpInconvenientWord(std::string_view four);

// ---- RFC ----
enum class GenericRfc { kNone, kGeneralPublic, kForeign };
struct RfcCheck {
  bool valid = false;
  bool persona_moral = false;  // 12 characters; 13 = persona física
  GenericRfc generic = GenericRfc::kNone;
  // rfc_length, rfc_format, rfc_inconvenient_word, rfc_date, rfc_check_digit, rfc_generic
  std::vector<std::string> reasons;
  CivilDate date;   // birth (física) or incorporation (moral)
  std::string rfc;  // as checked (UTF-8: Ñ is two bytes, one character)
};
// `rfc` as normalised.
RfcCheck CheckRfc(std::string_view rfc, CivilDate today);
// The check digit that 11 (moral) or 12 (física) characters imply; '\0' if malformed. Ñ is
// given as UTF-8.
char RfcCheckDigit(std::string_view without_check);
// The SAT's inconvenient words (Anexo IV): four letters a persona física's RFC never starts with.
bool IsRfcInconvenientWord(std::string_view four);
// The characters of an RFC or CURP: Ñ counts once.
size_t IdentifierLength(std::string_view utf8);

// The reasons of a check in words, joined ("the check digit does not match, …").
std::string Explain(const std::vector<std::string>& reasons);
// Today's civil date (UTC) of a moment given as microseconds since the Unix epoch.
CivilDate CivilDateOfMicros(int64_t micros);

// An identifier from a list or a query compacted for comparison: letters (Ñ kept), digits and
// '&', upper-cased; everything else dropped. Two writings of one RFC, CURP or passport number
// compact to the same string.
std::string CompactIdentifier(std::string_view raw);
// True when `compact` (CompactIdentifier's output) is one of the generic RFCs.
bool IsGenericRfc(std::string_view compact);

}  // namespace svc::core::mx
