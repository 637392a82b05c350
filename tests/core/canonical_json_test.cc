// RFC 8785 (JSON Canonicalization Scheme), against the RFC's own examples.
#include <doctest/doctest.h>

#include <cstring>

#include "core/canonical_json.h"
#include "core/canonical_json_dom.h"

namespace core_canonical_json_test {

using namespace svc::core;

namespace {
double FromBits(uint64_t bits) {
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}
}  // namespace

TEST_CASE("JCS: the example of RFC 8785 section 3.2.2") {
  Json in = ParseJsonOrDiscarded(
      R"({"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],)"
      R"( "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",)"
      R"( "literals": [null, true, false]})");
  REQUIRE(in.is_object());
  auto out = CanonicalJson(in);
  REQUIRE(out.ok());
  CHECK(*out ==
        "{\"literals\":[null,true,false],\"numbers\":[333333333.3333333,1e+30,4.5,0.002,1e-27],"
        "\"string\":\"\u20ac$\\u000f\\nA'B\\\"\\\\\\\\\\\"/\"}");
}

TEST_CASE("JCS: member order by UTF-16 code units (RFC 8785 section 3.2.3)") {
  Json in = ParseJsonOrDiscarded(
      R"({"\u20ac": "Euro Sign", "\r": "Carriage Return", "\ufb33": "Hebrew Letter Dalet With Dagesh",)"
      R"( "1": "One", "\ud83d\ude00": "Emoji: Grinning Face", "\u0080": "Control",)"
      R"( "\u00f6": "Latin Small Letter O With Diaeresis"})");
  auto out = CanonicalJson(in);
  REQUIRE(out.ok());
  std::vector<std::string> order = {"Carriage Return", "One", "Control",
                                    "Latin Small Letter O With Diaeresis", "Euro Sign",
                                    "Emoji: Grinning Face", "Hebrew Letter Dalet With Dagesh"};
  size_t pos = 0;
  for (const auto& v : order) {
    size_t at = out->find(v, pos);
    CHECK_MESSAGE(at != std::string::npos, v);
    pos = at;
  }
}

TEST_CASE("JCS: ECMAScript numbers (RFC 8785 appendix B)") {
  CHECK(EcmaScriptNumber(FromBits(0x0000000000000000)) == "0");
  CHECK(EcmaScriptNumber(FromBits(0x8000000000000000)) == "0");
  CHECK(EcmaScriptNumber(FromBits(0x0000000000000001)) == "5e-324");
  CHECK(EcmaScriptNumber(FromBits(0x8000000000000001)) == "-5e-324");
  CHECK(EcmaScriptNumber(FromBits(0x7fefffffffffffff)) == "1.7976931348623157e+308");
  CHECK(EcmaScriptNumber(FromBits(0x4340000000000000)) == "9007199254740992");
  CHECK(EcmaScriptNumber(FromBits(0xc340000000000000)) == "-9007199254740992");
  CHECK(EcmaScriptNumber(FromBits(0x4430000000000000)) == "295147905179352830000");
  CHECK(EcmaScriptNumber(FromBits(0x44b52d02c7e14af5)) == "9.999999999999997e+22");
  CHECK(EcmaScriptNumber(FromBits(0x44b52d02c7e14af6)) == "1e+23");
  CHECK(EcmaScriptNumber(FromBits(0x444b1ae4d6e2ef4e)) == "999999999999999700000");
  CHECK(EcmaScriptNumber(FromBits(0x444b1ae4d6e2ef50)) == "1e+21");
  CHECK(EcmaScriptNumber(FromBits(0x3eb0c6f7a0b5ed8c)) == "9.999999999999997e-7");
  CHECK(EcmaScriptNumber(FromBits(0x3eb0c6f7a0b5ed8d)) == "0.000001");
  CHECK(EcmaScriptNumber(FromBits(0x41b3de4355555553)) == "333333333.3333332");
  // Cross-checked against Python's shortest round-trip repr (an independent implementation).
  CHECK(EcmaScriptNumber(FromBits(0x41b3de4355555556)) == "333333333.3333334");
  CHECK(EcmaScriptNumber(FromBits(0xc2b3de4355555556)) == "-21845333333333.336");
  CHECK(EcmaScriptNumber(0.1) == "0.1");
  CHECK(EcmaScriptNumber(1e-7) == "1e-7");
  CHECK_FALSE(CanonicalJson(Json(std::nan(""))).ok());
}

namespace {
// The DOM path's canonical form of `text` (which must parse).
std::string FromDom(const std::string& text, std::initializer_list<std::string_view> skip = {}) {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  REQUIRE(parser.parse(text).get(root) == simdjson::SUCCESS);
  std::string out;
  Status st = root.is_object() ? AppendCanonicalObject(root.get_object().value_unsafe(), out, skip)
                               : AppendCanonical(root, out);
  REQUIRE(st.ok());
  return out;
}
}  // namespace

TEST_CASE("JCS from simdjson's DOM: the same bytes as CanonicalJson") {
  const std::vector<std::string> inputs = {
      R"({"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],)"
      R"( "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/", "literals": [null, true, false]})",
      R"({"\u20ac": "Euro Sign", "\r": "Carriage Return", "\ufb33": "Hebrew Letter Dalet With Dagesh",)"
      R"( "1": "One", "\ud83d\ude00": "Emoji: Grinning Face", "\u0080": "Control",)"
      R"( "\u00f6": "Latin Small Letter O With Diaeresis"})",
      R"({"id":7,"object":"audit_log_entry","personId":null,"fields":["curp","email"],"reason":"tab\there \u0001 \"q\"",)"
      R"("nested":{"b":[{"z":1,"a":-2}],"a":18446744073709551615},"empty":{},"list":[]})",
      R"({"dup":1,"a":true,"dup":2})",  // the last of a duplicate name wins, as nlohmann reads it
      R"([1,"two",{"c":3,"b":[]},null])",
      R"("\ud834\udd1e and \uffff")"};
  for (const auto& text : inputs) {
    auto expected = CanonicalJson(ParseJsonOrDiscarded(text));
    REQUIRE(expected.ok());
    CHECK_MESSAGE(FromDom(text) == *expected, text);
  }
  // Named members left out (the audit chain hashes an entry without prevHash and hash).
  CHECK(FromDom(R"({"prevHash":"00","id":1,"hash":"ff","a":"x"})", {"prevHash", "hash"}) == R"({"a":"x","id":1})");
}

}  // namespace core_canonical_json_test
