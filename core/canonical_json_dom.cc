#include "core/canonical_json_dom.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <vector>

#include "core/canonical_json.h"

namespace svc::core {

namespace {

using Member = std::pair<std::string_view, simdjson::dom::element>;

// The order members sort into, remembered for the last list of names seen on this thread: a log
// writes every entry with the same names in the same order, so the sort is done once.
struct OrderCache {
  std::vector<std::string> names;
  std::vector<uint32_t> order;
};

const std::vector<uint32_t>& SortedOrder(const std::vector<Member>& members) {
  static thread_local OrderCache cache;
  bool same = cache.names.size() == members.size();
  for (size_t i = 0; same && i < members.size(); ++i) same = cache.names[i] == members[i].first;
  if (same) return cache.order;
  cache.names.clear();
  for (const auto& m : members) cache.names.emplace_back(m.first);
  cache.order.resize(members.size());
  for (uint32_t i = 0; i < cache.order.size(); ++i) cache.order[i] = i;
  std::stable_sort(cache.order.begin(), cache.order.end(),
                   [&](uint32_t x, uint32_t y) { return Utf16Less(members[x].first, members[y].first); });
  return cache.order;
}

// Sorted by name; with a duplicate name the last one wins, as nlohmann (and CanonicalJson after
// it) reads the text.
Status AppendMembers(const std::vector<Member>& members, std::string& out) {
  // A copy of the order: a nested object sorts with the same cache.
  const std::vector<uint32_t> order = SortedOrder(members);
  out += '{';
  bool first = true;
  for (size_t i = 0; i < order.size(); ++i) {
    const Member& m = members[order[i]];
    if (i + 1 < order.size() && members[order[i + 1]].first == m.first) continue;
    if (!first) out += ',';
    first = false;
    AppendCanonicalString(out, m.first);
    out += ':';
    SVC_RETURN_IF_ERROR(AppendCanonical(m.second, out));
  }
  out += '}';
  return Status::Ok();
}

void AppendInteger(std::string& out, auto v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

}  // namespace

Status AppendCanonical(simdjson::dom::element e, std::string& out) {
  using simdjson::dom::element_type;
  switch (e.type()) {
    case element_type::NULL_VALUE: out += "null"; return Status::Ok();
    case element_type::BOOL: out += e.get_bool().value_unsafe() ? "true" : "false"; return Status::Ok();
    case element_type::INT64: AppendInteger(out, e.get_int64().value_unsafe()); return Status::Ok();
    case element_type::UINT64: AppendInteger(out, e.get_uint64().value_unsafe()); return Status::Ok();
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
