// The two readers of a field list (core/json_fields.h from an nlohmann tree, and
// core/json_fields_read.h from simdjson's DOM, which the event and snapshot codecs use) agree on
// every shape and on the rules: absent or mistyped members keep their defaults, the last of
// duplicate keys wins.
#include "core/json_fields.h"
#include "core/json_fields_read.h"

#include <doctest/doctest.h>

namespace core_json_fields_test {

namespace {

using svc::core::Field;
using svc::core::Json;

struct Inner {
  std::string kind;
  int n = -1;
  static constexpr auto Fields() { return std::tuple{Field("kind", &Inner::kind), Field("n", &Inner::n)}; }
};

struct Outer {
  std::string s = "default";
  std::optional<std::string> opt;
  bool b = false;
  int i = 7;
  int64_t big = 0;
  uint64_t ubig = 0;
  double d = 0.5;
  std::vector<std::string> list = {"x"};
  std::set<std::string> set;
  Inner inner;
  std::map<std::string, Inner> by_name;
  std::map<std::string, int> versions;
  std::vector<Inner> items;
  Json free;
  static constexpr auto Fields() {
    using O = Outer;
    return std::tuple{Field("s", &O::s),         Field("opt", &O::opt),       Field("b", &O::b),
                      Field("i", &O::i),         Field("big", &O::big),       Field("ubig", &O::ubig),
                      Field("d", &O::d),         Field("list", &O::list),     Field("set", &O::set),
                      Field("inner", &O::inner), Field("byName", &O::by_name), Field("versions", &O::versions),
                      Field("items", &O::items), Field("free", &O::free)};
  }
};

bool Same(const Outer& a, const Outer& b) {
  return svc::core::EncodeFields(a) == svc::core::EncodeFields(b);
}

Outer ViaNlohmann(std::string_view text) {
  Outer o;
  svc::core::DecodeFields(svc::core::ParseJsonOrDiscarded(text), o);
  return o;
}

Outer ViaSimdjson(std::string_view text) {
  Outer o;
  auto root = svc::core::ParseObject(text);
  REQUIRE(root.has_value());
  svc::core::DecodeFields(*root, o);
  return o;
}

}  // namespace

TEST_CASE("field lists: simdjson and nlohmann read the same values") {
  const char* docs[] = {
      R"({})",
      R"({"s":"héllo \"q\" \u00e9","opt":"o","b":true,"i":-3,"big":-9007199254740993,"ubig":18446744073709551615,)"
      R"("d":2.25,"list":["a","b"],"set":["z","a","z"],"inner":{"kind":"k","n":4},)"
      R"("byName":{"x":{"kind":"1"},"y":{"n":2}},"versions":{"curp":1,"email":3},)"
      R"("items":[{"kind":"a"},{"n":9}],"free":{"nested":[1,"two",null,{"t":true}]}})",
      // Mistyped members keep their defaults; lists skip items of another type.
      R"({"s":1,"opt":null,"b":"yes","i":"7","big":1.5,"d":"x","list":[1,"kept",null],"inner":[],)"
      R"("byName":[],"versions":{"curp":"1"},"items":{},"free":null})",
      // The last of duplicate keys wins; unknown members are ignored.
      R"({"s":"first","s":"second","unknown":{"deep":[1,2]},"i":1,"i":2})",
      // Integers read as doubles.
      R"({"d":3})",
  };
  for (const char* doc : docs) {
    CAPTURE(doc);
    Outer a = ViaNlohmann(doc);
    Outer b = ViaSimdjson(doc);
    CHECK(svc::core::DumpJson(svc::core::EncodeFields(a)) == svc::core::DumpJson(svc::core::EncodeFields(b)));
    CHECK(Same(a, b));
  }
  Outer full = ViaSimdjson(docs[1]);
  CHECK(full.s == "héllo \"q\" é");
  CHECK(full.ubig == 18446744073709551615ULL);
  CHECK(full.by_name.at("y").n == 2);
  CHECK(full.versions.at("email") == 3);
  CHECK(full.free["nested"][3]["t"] == true);
  CHECK(full.set == std::set<std::string>{"a", "z"});
}

TEST_CASE("field lists: only a JSON object parses as one") {
  CHECK_FALSE(svc::core::ParseObject("[1,2]").has_value());
  CHECK_FALSE(svc::core::ParseObject("{\"a\":").has_value());
  CHECK_FALSE(svc::core::ParseObject("\"\xff\"").has_value());
  CHECK_FALSE(svc::core::ParseObject("").has_value());
  CHECK(svc::core::ParseObject(" {\"a\":1} ").has_value());
}

namespace {

struct Shaped {
  std::string none;
  std::vector<std::string> omitted;
  int zero = 0;
  Json object_or_null = Json::array();
  Json object_or_empty;
  Json number_or_null = "x";
  static constexpr auto Fields() {
    using S = Shaped;
    using svc::core::Empty;
    using svc::core::Shape;
    return std::tuple{Field("none", &S::none, Empty::kNull), Field("omitted", &S::omitted, Empty::kOmit),
                      Field("zero", &S::zero, Empty::kOmit), Field("objectOrNull", &S::object_or_null, Shape::kObjectOrNull),
                      Field("objectOrEmpty", &S::object_or_empty, Shape::kObjectOrEmpty),
                      Field("numberOrNull", &S::number_or_null, Shape::kNumberOrNull)};
  }
};

}  // namespace

TEST_CASE("field lists: the text writer writes what DumpJson of the tree writes") {
  Outer o = ViaSimdjson(
      R"({"s":"tab\there \"quoted\" back\\slash ñ 😀 \u0001 \u007f","opt":"x","b":true,"i":-2147483648,)"
      R"("big":-9223372036854775808,"ubig":18446744073709551615,"d":0.1,"list":["","a\nb"],"set":["b","a"],)"
      R"("inner":{"kind":"k"},"byName":{"z":{},"a":{"n":0}},"versions":{"x":1},"items":[{}],)"
      R"("free":{"k":[1.5,1e300,-0.0,"s",null,true]}})");
  o.s.push_back('\xff');  // invalid UTF-8: replaced, by both
  CHECK(svc::core::EncodeFieldsText(o) == svc::core::DumpJson(svc::core::EncodeFields(o)));
  Outer empty;
  empty.d = 1e-7;
  CHECK(svc::core::EncodeFieldsText(empty) == svc::core::DumpJson(svc::core::EncodeFields(empty)));
  Shaped sh;
  CHECK(svc::core::EncodeFieldsText(sh) == svc::core::DumpJson(svc::core::EncodeFields(sh)));
  CHECK(svc::core::EncodeFieldsText(sh) == R"({"none":null,"objectOrNull":null,"objectOrEmpty":{},"numberOrNull":null})");
  sh.none = "n";
  sh.omitted = {"o"};
  sh.zero = 3;
  sh.object_or_null = {{"a", 1}};
  sh.number_or_null = 2.5;
  CHECK(svc::core::EncodeFieldsText(sh) == svc::core::DumpJson(svc::core::EncodeFields(sh)));
}

}  // namespace core_json_fields_test
