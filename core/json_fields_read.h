#pragma once
// Reading a field list (core/json_fields.h) straight from simdjson's DOM: the decoders of events
// and snapshots, which run for every event a projector or the writer applies, parse with
// simdjson instead of building an nlohmann tree first. Same rules as DecodeFields: members
// absent or of another type keep their defaults; with a duplicate key the last one wins.

#include <simdjson.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include "core/json_fields.h"

namespace svc::core {

template <class T>
void DecodeFields(simdjson::dom::element e, T& value);

namespace fields_internal {

inline bool DomString(simdjson::dom::element e, std::string& out) {
  std::string_view v;
  if (e.get_string().get(v) != simdjson::SUCCESS) return false;
  out.assign(v.data(), v.size());
  return true;
}

template <class M>
void FromDom(simdjson::dom::element e, M& out) {
  using simdjson::SUCCESS;
  if constexpr (std::is_same_v<M, Json>) {
    // Rare (free-form members such as metadata): through nlohmann, from simdjson's own text.
    out = ParseJsonOrDiscarded(simdjson::minify(e));
  } else if constexpr (std::is_same_v<M, std::string>) {
    DomString(e, out);
  } else if constexpr (std::is_same_v<M, std::optional<std::string>>) {
    std::string s;
    if (DomString(e, s)) out = std::move(s);
  } else if constexpr (std::is_same_v<M, bool>) {
    bool b;
    if (e.get_bool().get(b) == SUCCESS) out = b;
  } else if constexpr (std::is_integral_v<M>) {
    int64_t i;
    uint64_t u;
    if (e.is_int64() && e.get_int64().get(i) == SUCCESS) {
      out = static_cast<M>(i);
    } else if (e.is_uint64() && e.get_uint64().get(u) == SUCCESS) {
      out = static_cast<M>(u);
    }
  } else if constexpr (std::is_floating_point_v<M>) {
    double d;
    if (e.is_number() && e.get_double().get(d) == SUCCESS) out = static_cast<M>(d);
  } else if constexpr (std::is_same_v<M, std::vector<std::string>> || std::is_same_v<M, std::set<std::string>>) {
    simdjson::dom::array a;
    if (e.get_array().get(a) != SUCCESS) return;
    out.clear();
    for (simdjson::dom::element item : a) {
      std::string s;
      if (!DomString(item, s)) continue;
      if constexpr (std::is_same_v<M, std::set<std::string>>) {
        out.insert(std::move(s));
      } else {
        out.push_back(std::move(s));
      }
    }
  } else if constexpr (HasFields<M>) {
    DecodeFields(e, out);
  } else if constexpr (IsStringMap<M>::value) {
    simdjson::dom::object o;
    if (e.get_object().get(o) != SUCCESS) return;
    out.clear();
    for (auto field : o) FromDom(field.value, out[std::string(field.key)]);
  } else if constexpr (IsFieldsVector<M>::value) {
    simdjson::dom::array a;
    if (e.get_array().get(a) != SUCCESS) return;
    out.clear();
    for (simdjson::dom::element item : a) FromDom(item, out.emplace_back());
  } else {
    static_assert(sizeof(M) == 0, "no JSON field codec for this member type");
  }
}

}  // namespace fields_internal

// Reads the listed members present in `e` (an object); others keep what `value` holds.
template <class T>
void DecodeFields(simdjson::dom::element e, T& value) {
  simdjson::dom::object o;
  if (e.get_object().get(o) != simdjson::SUCCESS) return;
  for (auto member : o) {
    std::apply(
        [&](const auto&... f) {
          // The first field of that name (a list names each member once).
          (void)((member.key == f.name ? (fields_internal::FromDom(member.value, value.*(f.member)), true) : false) ||
                 ...);
        },
        T::Fields());
  }
}

// Parses `text` with this thread's parser; the root element, or nullopt when `text` is not a JSON
// object. The element lives until this thread's next ParseObject.
inline std::optional<simdjson::dom::element> ParseObject(std::string_view text) {
  static thread_local simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (parser.parse(text.data(), text.size(), true).get(root) != simdjson::SUCCESS) return std::nullopt;
  if (!root.is_object()) return std::nullopt;
  return root;
}

}  // namespace svc::core
