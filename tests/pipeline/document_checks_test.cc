// Model-free document checks against published examples (ICAO 9303 specimens, SAT and RENAPO
// examples) and hand-built cases.
#include <doctest/doctest.h>

#include <algorithm>

#include "pipeline/documents/checks.h"
#include "pipeline/documents/names.h"

namespace pipeline_document_checks_test {

using namespace svc::pipeline::documents;

namespace {
bool Has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}
const Date kToday{2026, 11, 22};
}  // namespace

TEST_CASE("MRZ: ICAO 9303 TD3 specimen (passport)") {
  auto r = CheckMrz({"P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
                     "L898902C36UTO7408122F1204159ZE184226B<<<<<10"},
                    kToday);
  CHECK(r.valid);
  CHECK(r.format == "TD3");
  CHECK(r.document_code == "P");
  CHECK(r.issuing_state == "UTO");
  CHECK(r.document_number == "L898902C3");
  CHECK(r.nationality == "UTO");
  CHECK(r.birth_date == Date{1974, 8, 12});
  CHECK(r.expiry_date == Date{2012, 4, 15});
  CHECK(r.sex == 'F');
  CHECK(r.surname == "ERIKSSON");
  CHECK(r.given_names == "ANNA MARIA");
  CHECK(r.optional_data == "ZE184226B");
  CHECK(IsExpired(*r.expiry_date, kToday));
  CHECK(MrzCheckDigit("L898902C3") == 6);

  // One changed character breaks the right check.
  auto bad = CheckMrz({"P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
                       "L898902C36UTO7408132F1204159ZE184226B<<<<<10"},
                      kToday);
  CHECK(Has(bad.reasons, "mrz_birth_date_check"));
  CHECK(Has(bad.reasons, "mrz_composite_check"));
  auto bad_number = CheckMrz({"P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
                              "L898902C46UTO7408122F1204159ZE184226B<<<<<10"},
                             kToday);
  CHECK(Has(bad_number.reasons, "mrz_document_number_check"));
}

TEST_CASE("MRZ: ICAO 9303 TD1 specimen (identity card, as on the back of the INE)") {
  auto r = CheckMrz({"I<UTOD231458907<<<<<<<<<<<<<<<", "7408122F1204159UTO<<<<<<<<<<<6",
                     "ERIKSSON<<ANNA<MARIA<<<<<<<<<<"},
                    kToday);
  CHECK(r.valid);
  CHECK(r.format == "TD1");
  CHECK(r.document_code == "I");
  CHECK(r.document_number == "D23145890");
  CHECK(r.birth_date == Date{1974, 8, 12});
  CHECK(r.surname == "ERIKSSON");
  CHECK(r.given_names == "ANNA MARIA");
  auto bad = CheckMrz({"I<UTOD231458907<<<<<<<<<<<<<<<", "7408122F1204159UTO<<<<<<<<<<<7",
                       "ERIKSSON<<ANNA<MARIA<<<<<<<<<<"},
                      kToday);
  CHECK(Has(bad.reasons, "mrz_composite_check"));
  CHECK(Has(CheckMrz({"I<UTOD231458907", "x"}, kToday).reasons, "mrz_format"));
  CHECK(Has(CheckMrz({"i<UTOD231458907<<<<<<<<<<<<<<<", "7408122F1204159UTO<<<<<<<<<<<6",
                      "ERIKSSON<<ANNA<MARIA<<<<<<<<<<"},
                     kToday)
                .reasons,
            "mrz_format"));
}

TEST_CASE("expiry: INE vigencia runs through 31 December of its year") {
  CHECK_FALSE(IsExpired(VigenciaEnd(2026), kToday));
  CHECK(IsExpired(VigenciaEnd(2025), kToday));
  CHECK_FALSE(IsExpired(Date{2026, 11, 22}, kToday));  // the last day still counts
  CHECK(IsExpired(Date{2026, 11, 21}, kToday));
}

TEST_CASE("consistency between an INE-style TD1 MRZ and the CURP") {
  // A hand-built credential: GARCIA HERNANDEZ, MARIA JOSEFINA, born 1990-03-15, woman, CDMX.
  std::string curp = "GAHJ900315MDFRRS0";
  curp += svc::core::mx::CurpCheckDigit(curp);
  auto c = svc::core::mx::CheckCurp(curp, kToday);
  REQUIRE(c.valid);
  CHECK(CurpNameLetters("GARCIA", "HERNANDEZ", "MARIA JOSEFINA") == "GAHJ");  // MARIA skipped
  std::string l1 = "IDMEX1234567897<<<<<<<<<<<<<<<";
  std::string l2_body = "9003155F3112314MEX<<<<<<<<<<<";
  std::string l3 = "GARCIA<HERNANDEZ<<MARIA<JOSEFI";
  // Fix the check digits of the hand-built zone.
  l1[14] = static_cast<char>('0' + MrzCheckDigit(l1.substr(5, 9)));
  l2_body[6] = static_cast<char>('0' + MrzCheckDigit(l2_body.substr(0, 6)));
  l2_body[14] = static_cast<char>('0' + MrzCheckDigit(l2_body.substr(8, 6)));
  std::string l2 = l2_body.substr(0, 29);
  l2 += static_cast<char>('0' + MrzCheckDigit(l1.substr(5, 25) + l2.substr(0, 7) +
                                              l2.substr(8, 7) + l2.substr(18, 11)));
  auto m = CheckMrz({l1, l2, l3}, kToday);
  REQUIRE_MESSAGE(m.valid, m.reasons.size());
  CHECK(m.issuing_state == "MEX");
  CHECK(CheckConsistency(m, c).empty());

  std::string other = "GAHJ900316MDFRRS0";  // a day later
  other += svc::core::mx::CurpCheckDigit(other);
  CHECK(Has(CheckConsistency(m, svc::core::mx::CheckCurp(other, kToday)), "consistency_birth_date"));
  std::string man = "GAHJ900315HDFRRS0";
  man += svc::core::mx::CurpCheckDigit(man);
  CHECK(Has(CheckConsistency(m, svc::core::mx::CheckCurp(man, kToday)), "consistency_sex"));
  std::string names = "LOPJ900315MDFRRS0";
  names += svc::core::mx::CurpCheckDigit(names);
  CHECK(Has(CheckConsistency(m, svc::core::mx::CheckCurp(names, kToday)), "consistency_names"));
}

TEST_CASE("names: the front's printed names where the MRZ and the CURP agree, else the MRZ's") {
  // GARCIA HERNANDEZ MARIA JOSEFINA: GAHJ (JOSEFINA: MARIA skipped), inner consonants R, R, S.
  const std::string curp = "GAHJ900315MDFRRS05";
  CHECK(CurpNameLetters("GARCIA", "HERNANDEZ", "MARIA JOSEFINA") == "GAHJ");
  CHECK(CurpInnerConsonants("GARCIA", "HERNANDEZ", "MARIA JOSEFINA") == "RRS");
  CHECK(CurpInnerConsonants("OCHOA", "", "ANA") == "CXN");  // no second surname: X
  const NameParts front{"GARCIA", "HERNANDEZ", "MARIA JOSEFINA"};
  const NameParts mrz{"GARCIA", "HERNANDEZ", "MARIA JOSEFI"};  // the name field stops at 30 characters
  auto r = ReconcileNames(front, mrz, curp);
  CHECK(r.source == "front");
  CHECK(r.names.given_names == "MARIA JOSEFINA");
  CHECK(r.mrz_agrees);
  CHECK(r.curp_agrees);
  // OCR lost the space between the given names: the MRZ's filler puts it back.
  auto glued = ReconcileNames(NameParts{"GARCIA", "HERNANDEZ", "MARIAJOSEFINA"}, mrz, curp);
  CHECK(glued.source == "front");
  CHECK(glued.names.given_names == "MARIA JOSEFINA");
  // A front misread (a letter lost to glare) disagrees with the MRZ and the CURP: the MRZ's names.
  auto misread = ReconcileNames(NameParts{"GARCIA", "HERNAN", "MARIA J"}, mrz, curp);
  CHECK(misread.source == "mrz");
  CHECK(misread.names.given_names == "MARIA JOSEFI");
  CHECK_FALSE(misread.mrz_agrees);
  // An MRZ misread where the CURP confirms the front: the front's.
  auto mrz_wrong = ReconcileNames(front, NameParts{"GARCIA", "HFRNANDEZ", "MARIA JOSEFI"}, curp);
  CHECK(mrz_wrong.source == "front");
  CHECK(mrz_wrong.curp_agrees);
  // Only one side read.
  CHECK(ReconcileNames(std::nullopt, mrz, curp).source == "mrz");
  CHECK(ReconcileNames(front, std::nullopt, curp).source == "front");
  CHECK(ReconcileNames(front, std::nullopt, "").source == "front");
  CHECK(ReconcileNames(std::nullopt, std::nullopt, curp).source.empty());
  // The MRZ's decoded names split into the two surnames.
  MrzResult m;
  m.surname = "GARCIA HERNANDEZ";
  m.given_names = "MARIA JOSEFI";
  auto split = MrzNames(m);
  CHECK(split.surname1 == "GARCIA");
  CHECK(split.surname2 == "HERNANDEZ");
  CHECK(split.given_names == "MARIA JOSEFI");
}

}  // namespace pipeline_document_checks_test
