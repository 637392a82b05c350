#pragma once
// One field list per struct drives its JSON encoding and decoding: an event's data, an
// aggregate's snapshot. A struct lists its members once, with their camelCase names:
//
//   struct CaseOpened {
//     std::string session_id;
//     std::vector<std::string> reason_codes;
//     std::string priority = "normal";
//     static constexpr auto Fields() {
//       return std::tuple{core::Field("sessionId", &CaseOpened::session_id),
//                         core::Field("reasonCodes", &CaseOpened::reason_codes),
//                         core::Field("priority", &CaseOpened::priority)};
//     }
//   };
//   core::Json j = core::EncodeFields(e);  // members in the list's order
//   core::DecodeFields(j, e);              // absent or mistyped members keep their defaults
//
// Member types: std::string, bool, integers, double, std::vector<std::string>,
// std::set<std::string>, core::Json, std::optional<std::string>, and nested structs (or maps
// from string to them, vectors and optionals of them) that have their own Fields(). `Empty` says
// how an empty value is written; `Shape` constrains a core::Json member.

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include "core/json.h"
#include "core/json_text.h"

namespace svc::core {

// How an empty value (an empty string or list, or a zero number) is written.
enum class Empty {
  kKeep,  // as it is: "" or []
  kNull,  // null ("" = none)
  kOmit,  // left out
};

// What a core::Json member may hold when written (anything else is written as the fallback).
enum class Shape {
  kAny,            // as it is
  kObjectOrNull,   // an object, else null
  kObjectOrEmpty,  // an object, else {}
  kNumberOrNull,   // a number, else null
};

template <class T, class M>
struct FieldDef {
  std::string_view name;
  M T::*member;
  Empty empty = Empty::kKeep;
  Shape shape = Shape::kAny;
};

template <class T, class M>
constexpr FieldDef<T, M> Field(std::string_view name, M T::*member, Empty empty = Empty::kKeep) {
  return {name, member, empty, Shape::kAny};
}
template <class T>
constexpr FieldDef<T, Json> Field(std::string_view name, Json T::*member, Shape shape, Empty empty = Empty::kKeep) {
  return {name, member, empty, shape};  // a Json is empty when null (Empty::kOmit leaves it out)
}

template <class T>
concept HasFields = requires { T::Fields(); };

template <class T>
Json EncodeFields(const T& value);
template <class T>
void WriteFields(JsonText& out, const T& value);
template <class T>
void DecodeFields(const Json& j, T& value);

namespace fields_internal {

template <class M>
struct IsVector : std::false_type {};
template <class E>
struct IsVector<std::vector<E>> : std::true_type {};
template <class M>
struct IsFieldsVector : std::false_type {};
template <class E>
struct IsFieldsVector<std::vector<E>> : std::bool_constant<HasFields<E>> {};
template <class M>
struct IsFieldsOptional : std::false_type {};
template <class E>
struct IsFieldsOptional<std::optional<E>> : std::bool_constant<HasFields<E>> {};
template <class M>
struct IsStringMap : std::false_type {};
template <class V>
struct IsStringMap<std::map<std::string, V>> : std::true_type {};

template <class M>
bool IsEmpty(const M& v) {
  if constexpr (std::is_same_v<M, std::string> || IsVector<M>::value ||
                std::is_same_v<M, std::set<std::string>> || IsStringMap<M>::value) {
    return v.empty();
  } else if constexpr (std::is_arithmetic_v<M> && !std::is_same_v<M, bool>) {
    return v == 0;
  } else if constexpr (std::is_same_v<M, Json>) {
    return v.is_null();
  } else {
    return false;
  }
}

template <class M>
Json ToJson(const M& v, Shape shape) {
  if constexpr (std::is_same_v<M, Json>) {
    switch (shape) {
      case Shape::kAny: return v;
      case Shape::kObjectOrNull: return v.is_object() ? v : Json(nullptr);
      case Shape::kObjectOrEmpty: return v.is_object() ? v : Json::object();
      case Shape::kNumberOrNull: return v.is_number() ? v : Json(nullptr);
    }
    return v;
  } else if constexpr (std::is_same_v<M, std::optional<std::string>>) {
    return v.has_value() ? Json(*v) : Json(nullptr);
  } else if constexpr (IsFieldsOptional<M>::value) {
    return v.has_value() ? EncodeFields(*v) : Json(nullptr);
  } else if constexpr (HasFields<M>) {
    return EncodeFields(v);
  } else if constexpr (IsStringMap<M>::value) {
    Json out = Json::object();
    for (const auto& [k, item] : v) out[k] = ToJson(item, Shape::kAny);
    return out;
  } else if constexpr (IsFieldsVector<M>::value) {
    Json out = Json::array();
    for (const auto& item : v) out.push_back(EncodeFields(item));
    return out;
  } else {
    return Json(v);
  }
}

template <class M>
void FromJson(const Json& j, M& out) {
  if constexpr (std::is_same_v<M, Json>) {
    out = j;
  } else if constexpr (std::is_same_v<M, std::string>) {
    if (j.is_string()) out = j.get<std::string>();
  } else if constexpr (std::is_same_v<M, std::optional<std::string>>) {
    if (j.is_string()) out = j.get<std::string>();
  } else if constexpr (std::is_same_v<M, bool>) {
    if (j.is_boolean()) out = j.get<bool>();
  } else if constexpr (std::is_integral_v<M>) {
    if (j.is_number_integer()) out = j.get<M>();
  } else if constexpr (std::is_floating_point_v<M>) {
    if (j.is_number()) out = j.get<M>();
  } else if constexpr (std::is_same_v<M, std::vector<std::string>>) {
    if (!j.is_array()) return;
    out.clear();
    for (const auto& v : j) {
      if (v.is_string()) out.push_back(v.get<std::string>());
    }
  } else if constexpr (std::is_same_v<M, std::set<std::string>>) {
    if (!j.is_array()) return;
    out.clear();
    for (const auto& v : j) {
      if (v.is_string()) out.insert(v.get<std::string>());
    }
  } else if constexpr (IsFieldsOptional<M>::value) {
    if (!j.is_object()) return;
    DecodeFields(j, out.emplace());
  } else if constexpr (HasFields<M>) {
    DecodeFields(j, out);
  } else if constexpr (IsStringMap<M>::value) {
    if (!j.is_object()) return;
    out.clear();
    for (auto it = j.begin(); it != j.end(); ++it) FromJson(*it, out[it.key()]);
  } else if constexpr (IsFieldsVector<M>::value) {
    if (!j.is_array()) return;
    out.clear();
    for (const auto& v : j) FromJson(v, out.emplace_back());
  } else {
    static_assert(sizeof(M) == 0, "no JSON field codec for this member type");
  }
}

// ToJson's twin that writes text: the same bytes DumpJson(ToJson(v, shape)) would give.
template <class M>
void Write(JsonText& out, const M& v, Shape shape) {
  if constexpr (std::is_same_v<M, Json>) {
    out.Value(ToJson(v, shape));
  } else if constexpr (std::is_same_v<M, std::string>) {
    out.String(v);
  } else if constexpr (std::is_same_v<M, std::optional<std::string>>) {
    if (v.has_value()) {
      out.String(*v);
    } else {
      out.Null();
    }
  } else if constexpr (std::is_same_v<M, bool>) {
    out.Bool(v);
  } else if constexpr (std::is_integral_v<M> && std::is_signed_v<M>) {
    out.Int(v);
  } else if constexpr (std::is_integral_v<M>) {
    out.Uint(v);
  } else if constexpr (std::is_same_v<M, std::vector<std::string>> || std::is_same_v<M, std::set<std::string>>) {
    out.BeginArray();
    for (const auto& item : v) out.String(item);
    out.EndArray();
  } else if constexpr (IsFieldsOptional<M>::value) {
    if (v.has_value()) {
      WriteFields(out, *v);
    } else {
      out.Null();
    }
  } else if constexpr (HasFields<M>) {
    WriteFields(out, v);
  } else if constexpr (IsStringMap<M>::value) {
    out.BeginObject();
    for (const auto& [k, item] : v) {
      out.Key(k);
      Write(out, item, Shape::kAny);
    }
    out.EndObject();
  } else if constexpr (IsFieldsVector<M>::value) {
    out.BeginArray();
    for (const auto& item : v) WriteFields(out, item);
    out.EndArray();
  } else {
    out.Value(Json(v));  // doubles: nlohmann's number format
  }
}

}  // namespace fields_internal

// The members of `value` in its field list's order.
template <class T>
Json EncodeFields(const T& value) {
  Json j = Json::object();
  std::apply(
      [&](const auto&... f) {
        (
            [&] {
              const auto& v = value.*(f.member);
              if (f.empty != Empty::kKeep && fields_internal::IsEmpty(v)) {
                if (f.empty == Empty::kNull) j[std::string(f.name)] = nullptr;
                return;
              }
              j[std::string(f.name)] = fields_internal::ToJson(v, f.shape);
            }(),
            ...);
      },
      T::Fields());
  return j;
}

// EncodeFields written as text: DumpJson(EncodeFields(value)), without the tree.
template <class T>
void WriteFields(JsonText& out, const T& value) {
  out.BeginObject();
  std::apply(
      [&](const auto&... f) {
        (
            [&] {
              const auto& v = value.*(f.member);
              if (f.empty != Empty::kKeep && fields_internal::IsEmpty(v)) {
                if (f.empty == Empty::kNull) {
                  out.Key(f.name);
                  out.Null();
                }
                return;
              }
              out.Key(f.name);
              fields_internal::Write(out, v, f.shape);
            }(),
            ...);
      },
      T::Fields());
  out.EndObject();
}

template <class T>
std::string EncodeFieldsText(const T& value) {
  JsonText out;
  WriteFields(out, value);
  return out.Take();
}

// Reads the listed members present in `j` (an object); others keep what `value` holds.
template <class T>
void DecodeFields(const Json& j, T& value) {
  if (!j.is_object()) return;
  std::apply(
      [&](const auto&... f) {
        (
            [&] {
              auto it = j.find(f.name);
              if (it != j.end()) fields_internal::FromJson(*it, value.*(f.member));
            }(),
            ...);
      },
      T::Fields());
}

}  // namespace svc::core
