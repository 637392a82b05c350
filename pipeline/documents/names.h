#pragma once
// A person's names on a Mexican document: what the MRZ carries, what the CURP's letters say of
// them, and which names the vault receives from an INE (docs/biometrics.md#names). The CURP's
// first four letters (CurpNameLetters) are declared in checks.h, defined here.

#include <optional>
#include <string>
#include <string_view>

#include "pipeline/documents/checks.h"

namespace svc::pipeline::documents {

// A person's names as a document carries them (upper case, words separated by single spaces).
struct NameParts {
  std::string surname1, surname2, given_names;
};

// The names an MRZ carries (decoded: "GARCIA HERNANDEZ" / "MARIA JOSEFI"): the first surname up
// to the first filler, the rest as the second (the MRZ cannot tell a compound surname's words
// apart).
NameParts MrzNames(const MrzResult& mrz);

// The CURP's inner consonants (its 14th to 16th characters) from the names: the first consonant
// after the first letter of the first surname, of the second surname and of the given name used
// (JOSE and MARIA skipped before another name, as for the four letters). X where there is none.
std::string CurpInnerConsonants(std::string_view surname1, std::string_view surname2, std::string_view given_names);

// Which names the vault receives from an INE: the names printed on its front when they agree
// with the MRZ (its surnames equal, its given names equal or — the name field stops at 30
// characters — a prefix of the printed ones) and with the CURP (the four letters, RENAPO's X for
// an inconvenient word allowed, and the three inner consonants); the printed names also when the
// CURP confirms them and not the MRZ's; else the MRZ's.
struct ReconciledNames {
  NameParts names;
  std::string source;        // front | mrz | "" (neither read)
  bool mrz_agrees = false;   // the printed names against the MRZ (false when either is missing)
  bool curp_agrees = false;  // the chosen names against the CURP (false without a CURP)
};
ReconciledNames ReconcileNames(const std::optional<NameParts>& printed, const std::optional<NameParts>& mrz,
                               std::string_view curp);

}  // namespace svc::pipeline::documents
