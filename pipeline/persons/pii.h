#pragma once
// The vault's personal data fields (the spec's "Person (vault)": 17 of them): what each accepts,
// the normalised form that is sealed, and the terms its blind index holds. Pure functions: the
// person routes validate input with them, the verification pipeline writes verified data through
// them, and search normalises a query the same way, so a value and its query meet in one index.
//
//   curp, rfc       check digits and dates (pipeline/documents); upper case
//   email           local@domain, the whole address lower-cased
//   phone           E.164 ("+" and 8-15 digits); Mexico when no country is given: 10 national
//                   digits, and the old 044/045/01 and 52-1 mobile prefixes, become +52 + 10 digits
//   birthDate, emision, vigencia   a date, YYYY-MM-DD (emision and vigencia may be a year, YYYY)
//   sex             F, M or X (ICAO 9303)
//   state           a Mexican state code as in the CURP (NE: born abroad)
//   nationality     ISO 3166-1 alpha-3 (alpha-2 accepted and converted), as in an MRZ
//   seccion         the electoral section, 1-4 digits
//   the rest        text (names, address, elector key, document number), trimmed, bounded
//
// Blind indexes (the keyed hash is computed by the caller with the tenant's index key): curp,
// rfc, email and phone index their normalised value; the names (fullName, givenName, surname)
// index their accent-folded lower-case tokens, so "José Pérez" and "jose perez" meet.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/mx_ids.h"
#include "core/status.h"

namespace svc::pipeline::persons {

// What a field's blind index is searched as (PersonSearchRequest.field).
enum class PiiIndex { kNone, kCurp, kRfc, kEmail, kPhone, kName };

struct PiiField {
  std::string_view name;  // camelCase, as in the API
  PiiIndex index;
  size_t max_length;      // of the input, in bytes
};

// The 17 fields, in the spec's (alphabetical) order.
const std::vector<PiiField>& PiiFields();
const PiiField* FindPiiField(std::string_view name);

// The normalised value of `raw` for `field`, or InvalidArgument whose message says what is wrong
// (for a field error of code `invalid_format`; never echoing the value). CURP and RFC follow
// core/mx_ids.h (a CURP born after `today` is refused; the generic RFCs are refused).
core::Result<std::string> NormalisePii(std::string_view field, std::string_view raw, core::mx::CivilDate today);

// The terms of a normalised value's blind index ("" none for an unindexed field).
std::vector<std::string> IndexTerms(std::string_view field, std::string_view normalised);

// The index key of a term: HMAC-SHA256 under the tenant's index key over "<index>|<term>",
// hex. `index` is curp, rfc, email, phone or name.
std::string BlindIndex(std::string_view index_key, std::string_view index, std::string_view term);
std::string_view IndexName(PiiIndex index);

// Lower case ASCII with the accents of Spanish (and Latin-1) letters removed: "Peña" -> "pena".
std::string FoldAccents(std::string_view utf8);
// The name tokens a name is indexed and searched by: folded, split on anything not a letter or
// digit, empty tokens dropped.
std::vector<std::string> NameTokens(std::string_view utf8);

// E.164 for a phone number, with Mexico (+52) as the default country; nullopt when it is not one.
std::optional<std::string> PhoneE164(std::string_view raw);

// ISO 3166-1: the alpha-3 code of an alpha-3 or alpha-2 code (any case); nullopt when unknown.
std::optional<std::string> CountryAlpha3(std::string_view code);

// True when an integrator's externalRef looks like personal data (a CURP, an RFC, an e-mail
// address, or a phone number): such a value is refused, since externalRef is stored in clear.
bool LooksLikePii(std::string_view external_ref, core::mx::CivilDate today);

}  // namespace svc::pipeline::persons
