#pragma once
// A JSON Schema (draft-07 keywords, which AsyncAPI's schema format and every checker read) of what a field list (core/json_fields.h) writes: derived from the
// list itself, so a schema is never written by hand beside the struct it describes. The event
// contract (commands/event_catalogue.h) publishes one per event type and version.
//
// Each member's schema follows its C++ type and its `Empty` and `Shape` rules exactly as
// EncodeFields writes it: a member left out when empty (Empty::kOmit) is not required, one
// written as null when empty (Empty::kNull) also admits null. Every other member is required: the
// writer always writes it. Objects stay open (no `additionalProperties: false`): a later version
// may add members, and a reader ignores the ones it does not know.

#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "core/json.h"
#include "core/json_fields.h"

namespace svc::core {

template <class T>
Json FieldsSchema();

namespace schema_internal {

inline Json Typed(const char* type) { return Json{{"type", type}}; }

// `schema` that also admits null.
inline Json OrNull(Json schema) {
  if (schema.empty()) return schema;  // any value: null already
  if (schema.contains("type")) {
    Json& t = schema["type"];
    if (t.is_array()) {
      for (const auto& x : t) {
        if (x == "null") return schema;
      }
      t.push_back("null");
      return schema;
    }
    if (t.is_string()) {
      t = Json::array({t, "null"});
      return schema;
    }
  }
  return Json{{"anyOf", Json::array({std::move(schema), Typed("null")})}};
}

template <class M>
Json MemberSchema(Shape shape) {
  using namespace fields_internal;
  if constexpr (std::is_same_v<M, Json>) {
    switch (shape) {
      case Shape::kAny: return Json::object();  // any JSON value
      case Shape::kObjectOrNull: return Json{{"type", Json::array({"object", "null"})}};
      case Shape::kObjectOrEmpty: return Typed("object");
      case Shape::kNumberOrNull: return Json{{"type", Json::array({"number", "null"})}};
    }
    return Json::object();
  } else if constexpr (std::is_same_v<M, std::string>) {
    return Typed("string");
  } else if constexpr (std::is_same_v<M, std::optional<std::string>>) {
    return Json{{"type", Json::array({"string", "null"})}};
  } else if constexpr (std::is_same_v<M, bool>) {
    return Typed("boolean");
  } else if constexpr (std::is_integral_v<M> && std::is_signed_v<M>) {
    return Typed("integer");
  } else if constexpr (std::is_integral_v<M>) {
    return Json{{"type", "integer"}, {"minimum", 0}};
  } else if constexpr (std::is_floating_point_v<M>) {
    return Typed("number");
  } else if constexpr (std::is_same_v<M, std::vector<std::string>>) {
    return Json{{"type", "array"}, {"items", Typed("string")}};
  } else if constexpr (std::is_same_v<M, std::set<std::string>>) {
    return Json{{"type", "array"}, {"items", Typed("string")}, {"description", "distinct values, in order"}};
  } else if constexpr (IsFieldsOptional<M>::value) {
    return OrNull(FieldsSchema<typename M::value_type>());
  } else if constexpr (HasFields<M>) {
    return FieldsSchema<M>();
  } else if constexpr (IsStringMap<M>::value) {
    return Json{{"type", "object"}, {"additionalProperties", MemberSchema<typename M::mapped_type>(Shape::kAny)}};
  } else if constexpr (IsFieldsVector<M>::value) {
    return Json{{"type", "array"}, {"items", FieldsSchema<typename M::value_type>()}};
  } else {
    static_assert(sizeof(M) == 0, "no JSON schema for this member type");
  }
}

}  // namespace schema_internal

// The schema of EncodeFields(T{...}): an object with T's members, in its list's order.
template <class T>
Json FieldsSchema() {
  Json properties = Json::object();
  Json required = Json::array();
  std::apply(
      [&](const auto&... f) {
        (
            [&] {
              using M = std::remove_cvref_t<decltype(std::declval<T>().*(f.member))>;
              Json s = schema_internal::MemberSchema<M>(f.shape);
              if (f.empty == Empty::kNull) s = schema_internal::OrNull(std::move(s));
              properties[std::string(f.name)] = std::move(s);
              if (f.empty != Empty::kOmit) required.push_back(std::string(f.name));
            }(),
            ...);
      },
      T::Fields());
  Json out = {{"type", "object"}, {"properties", std::move(properties)}};
  if (!required.empty()) out["required"] = std::move(required);
  return out;
}

}  // namespace svc::core
