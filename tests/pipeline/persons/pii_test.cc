// The vault's personal data fields: what each accepts, the normalised form that is sealed, and
// the terms its blind index holds (pipeline/persons/pii.h).
#include <doctest/doctest.h>

#include "commands/persons/person_events.h"
#include "pipeline/persons/pii.h"

namespace pipeline_persons_pii_test {

using namespace svc;
using namespace svc::pipeline::persons;

namespace {
const core::mx::CivilDate kToday{2026, 11, 26};
std::string Norm(std::string_view field, std::string_view raw) {
  auto r = NormalisePii(field, raw, kToday);
  return r.ok() ? *r : "!" + std::string(r.status().api_code());
}
}  // namespace

TEST_CASE("pii: the spec's 17 fields, each once, with its index") {
  const char* names[] = {"address", "birthDate", "claveElector", "curp", "documentNumber", "email",
                         "emision", "fullName", "givenName", "nationality", "phone", "rfc",
                         "seccion", "sex", "state", "surname", "vigencia"};
  REQUIRE(PiiFields().size() == 17);
  for (size_t i = 0; i < 17; ++i) {
    CHECK(PiiFields()[i].name == names[i]);
    CHECK(PiiFields()[i].name == svc::commands::persons::kPiiFieldNames[i]);  // the aggregate's list
  }
  CHECK(FindPiiField("curp")->index == PiiIndex::kCurp);
  CHECK(FindPiiField("surname")->index == PiiIndex::kName);
  CHECK(FindPiiField("address")->index == PiiIndex::kNone);
  CHECK(FindPiiField("password") == nullptr);
  CHECK(Norm("password", "x") == "!UNKNOWN_PII_FIELD");
}

TEST_CASE("pii: CURP and RFC with their check digits, upper-cased") {
  CHECK(Norm("curp", " hegg560427mvzrrl04 ") == "HEGG560427MVZRRL04");
  CHECK(Norm("curp", "HEGG560427MVZRRL05") == "!VALIDATION_ERROR");  // check digit
  CHECK(Norm("curp", "HEGG561327MVZRRL04") == "!VALIDATION_ERROR");  // month 13
  CHECK(Norm("rfc", "gode561231gr8") == "GODE561231GR8");
  CHECK(Norm("rfc", "SAT970701NN3") == "SAT970701NN3");  // a company's (12 characters)
  CHECK(Norm("rfc", "GODE561231GR9") == "!VALIDATION_ERROR");
  // Issue 31: the vault takes CURP and RFC by core/mx_ids.h's rules, as companies and lists do.
  CHECK(Norm("rfc", "muño800101ab3") == "MUÑO800101AB3");     // Ñ: 13 characters, 14 bytes
  CHECK(Norm("rfc", "A&B010203XY9") == "A&B010203XY9");           // & in a company's RFC
  CHECK(Norm("rfc", "GODE-561231-GR8") == "GODE561231GR8");    // dashes, as companies take them
  CHECK(Norm("rfc", "XAXX010101000") == "!VALIDATION_ERROR");  // generic: identifies nobody
  CHECK(Norm("rfc", "XEXX010101000") == "!VALIDATION_ERROR");  // the other generic, the same way
  CHECK(Norm("rfc", "PEDO850101AB5") == "!VALIDATION_ERROR");  // a word the SAT replaces
  CHECK(Norm("curp", "GOMA270101HDFMRNA8") == "!VALIDATION_ERROR");  // born in 2027
  CHECK(Norm("curp", "BUEY850101HDFRRN01") == "!VALIDATION_ERROR");  // a word RENAPO replaces
}

TEST_CASE("pii: e-mail lower-cased; phones to E.164 with Mexico by default") {
  CHECK(Norm("email", " Ana.Lopez@Example.COM ") == "ana.lopez@example.com");
  for (const char* bad : {"ana", "ana@", "@example.com", "ana@example", "ana@@example.com",
                          "ana lopez@example.com", "ana@-example.com", "ana..x@example.com"}) {
    CAPTURE(bad);
    CHECK(Norm("email", bad) == "!VALIDATION_ERROR");
  }
  CHECK(Norm("phone", "55 1234 5678") == "+525512345678");
  CHECK(Norm("phone", "(55) 1234-5678") == "+525512345678");
  CHECK(Norm("phone", "044 55 1234 5678") == "+525512345678");
  CHECK(Norm("phone", "01 55 1234 5678") == "+525512345678");
  CHECK(Norm("phone", "525512345678") == "+525512345678");
  CHECK(Norm("phone", "+52 1 55 1234 5678") == "+525512345678");  // the old mobile "1"
  CHECK(Norm("phone", "+1 (415) 555-0100") == "+14155550100");
  CHECK(Norm("phone", "+34 612 345 678") == "+34612345678");
  for (const char* bad : {"12345", "55 1234 567", "+52 55 1234 567", "55-1234-5678 ext 2",
                          "+0 123 456 789", "++5255123456"}) {
    CAPTURE(bad);
    CHECK(Norm("phone", bad) == "!VALIDATION_ERROR");
  }
}

TEST_CASE("pii: dates, sex, state, nationality, section") {
  CHECK(Norm("birthDate", "1956-04-27") == "1956-04-27");
  CHECK(Norm("birthDate", "1956-02-30") == "!VALIDATION_ERROR");
  CHECK(Norm("birthDate", "27/04/1956") == "!VALIDATION_ERROR");
  CHECK(Norm("vigencia", "2031") == "2031");
  CHECK(Norm("emision", "2021-06-01") == "2021-06-01");
  CHECK(Norm("emision", "21") == "!VALIDATION_ERROR");
  CHECK(Norm("sex", "f") == "F");
  CHECK(Norm("sex", "H") == "!VALIDATION_ERROR");  // the API speaks ICAO: F, M, X
  CHECK(Norm("state", "vz") == "VZ");
  CHECK(Norm("state", "NE") == "NE");
  CHECK(Norm("state", "XX") == "!VALIDATION_ERROR");
  CHECK(Norm("nationality", "mex") == "MEX");
  CHECK(Norm("nationality", "MX") == "MEX");
  CHECK(Norm("nationality", "US") == "USA");
  CHECK(Norm("nationality", "XYZ") == "!VALIDATION_ERROR");
  CHECK(CountryAlpha3("de") == std::optional<std::string>("DEU"));
  CHECK(Norm("seccion", "0123") == "0123");
  CHECK(Norm("seccion", "12345") == "!VALIDATION_ERROR");
}

TEST_CASE("pii: text fields are trimmed and bounded; empty and control characters are refused") {
  CHECK(Norm("fullName", "  José Pérez Peña ") == "José Pérez Peña");
  CHECK(Norm("claveElector", "gmvlmr80070501m100") == "GMVLMR80070501M100");
  CHECK(Norm("address", std::string(513, 'a')) == "!VALIDATION_ERROR");
  CHECK(Norm("address", "   ") == "!VALIDATION_ERROR");
  CHECK(Norm("address", "Calle 1\x01") == "!VALIDATION_ERROR");
  auto r = NormalisePii("curp", "HEGG560427MVZRRL05", kToday);
  CHECK(r.status().message().find("HEGG") == std::string::npos);  // errors never echo the value
}

TEST_CASE("pii: blind-index terms; names meet without accents or case") {
  CHECK(FoldAccents("JOSÉ PÉREZ PEÑA Ñandú Über Æsir ß") == "jose perez pena nandu uber aesir ss");
  CHECK(NameTokens("  José-Luis  PÉREZ, Peña ") == std::vector<std::string>{"jose", "luis", "perez", "pena"});
  CHECK(IndexTerms("surname", "Pérez Peña") == std::vector<std::string>{"perez", "pena"});
  CHECK(IndexTerms("curp", "HEGG560427MVZRRL05") == std::vector<std::string>{"HEGG560427MVZRRL05"});
  CHECK(IndexTerms("address", "Calle 1").empty());
  std::string a = BlindIndex(std::string(32, 'k'), "curp", "HEGG560427MVZRRL05");
  CHECK(a.size() == 64);
  CHECK(a == BlindIndex(std::string(32, 'k'), "curp", "HEGG560427MVZRRL05"));
  CHECK(a != BlindIndex(std::string(32, 'j'), "curp", "HEGG560427MVZRRL05"));  // per tenant key
  CHECK(a != BlindIndex(std::string(32, 'k'), "rfc", "HEGG560427MVZRRL05"));   // per index
  CHECK(IndexName(PiiIndex::kPhone) == "phone");
}

TEST_CASE("pii: an externalRef that looks like personal data") {
  CHECK(LooksLikePii("HEGG560427MVZRRL04", kToday));
  CHECK(LooksLikePii("hegg560427mvzrrl04", kToday));
  CHECK(LooksLikePii("GODE561231GR8", kToday));
  CHECK(LooksLikePii("ana@example.com", kToday));
  CHECK(LooksLikePii("55 1234 5678", kToday));
  CHECK(LooksLikePii("+34 612 345 678", kToday));
  CHECK_FALSE(LooksLikePii("user-8f14e45f", kToday));
  CHECK_FALSE(LooksLikePii("12345", kToday));
  CHECK_FALSE(LooksLikePii("order-2026-0001", kToday));
  CHECK_FALSE(LooksLikePii("usr_00000000000000000000000000000001", kToday));
}

}  // namespace pipeline_persons_pii_test
