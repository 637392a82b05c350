#include "core/canonical_json_dom.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/canonical_json.h"

namespace svc::core {

namespace {

using Member = std::pair<std::string_view, simdjson::dom::element>;

// Sorted by name; with a duplicate name the last one wins, as nlohmann (and CanonicalJson after
// it) reads the text.
Status AppendMembers(std::vector<Member>& members, std::string& out) {
  std::stable_sort(members.begin(), members.end(),
                   [](const Member& x, const Member& y) { return Utf16Less(x.first, y.first); });
  out += '{';
  bool first = true;
  for (size_t i = 0; i < members.size(); ++i) {
    if (i + 1 < members.size() && members[i + 1].first == members[i].first) continue;
    if (!first) out += ',';
    first = false;
    AppendCanonicalString(out, members[i].first);
    out += ':';
    SVC_RETURN_IF_ERROR(AppendCanonical(members[i].second, out));
  }
  out += '}';
  return Status::Ok();
}

}  // namespace

Status AppendCanonical(simdjson::dom::element e, std::string& out) {
  using simdjson::dom::element_type;
  switch (e.type()) {
    case element_type::NULL_VALUE: out += "null"; return Status::Ok();
    case element_type::BOOL: out += e.get_bool().value_unsafe() ? "true" : "false"; return Status::Ok();
    case element_type::INT64: out += std::to_string(e.get_int64().value_unsafe()); return Status::Ok();
    case element_type::UINT64: out += std::to_string(e.get_uint64().value_unsafe()); return Status::Ok();
    case element_type::DOUBLE: {
      double d = e.get_double().value_unsafe();
      if (!std::isfinite(d)) return InvalidArgument("NaN and infinity are not JSON");
      out += EcmaScriptNumber(d);
      return Status::Ok();
    }
    case element_type::STRING: AppendCanonicalString(out, e.get_string().value_unsafe()); return Status::Ok();
    case element_type::ARRAY: {
      out += '[';
      bool first = true;
      const simdjson::dom::array items = e.get_array().value_unsafe();
      for (simdjson::dom::element item : items) {
        if (!first) out += ',';
        first = false;
        SVC_RETURN_IF_ERROR(AppendCanonical(item, out));
      }
      out += ']';
      return Status::Ok();
    }
    case element_type::OBJECT: return AppendCanonicalObject(e.get_object().value_unsafe(), out);
    default: return InvalidArgument("not a JSON value");
  }
}

Status AppendCanonicalObject(simdjson::dom::object o, std::string& out, std::initializer_list<std::string_view> skip) {
  std::vector<Member> members;
  members.reserve(o.size());
  for (auto field : o) {
    if (std::find(skip.begin(), skip.end(), field.key) == skip.end()) members.emplace_back(field.key, field.value);
  }
  return AppendMembers(members, out);
}

}  // namespace svc::core
