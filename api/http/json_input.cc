#include "api/http/json_input.h"

#include <simdjson.h>

#include <string_view>
#include <unordered_set>

#include "core/clock.h"

namespace svc::api {

namespace {

// What makes a body unreadable as one meaning: nesting past 32 levels, or a member given twice in
// one object (RFC 8259 leaves its meaning open; parsers differ on which copy wins, so a body that
// one reader takes as `fields: [email]` and another as `fields: [curp]` is refused).
struct DomTrouble {
  bool too_deep = false;
  std::string duplicate;  // JSON Pointer of the first member given twice
};

core::Json FromDom(simdjson::dom::element e, int depth, const std::string& pointer, DomTrouble* t) {
  using simdjson::dom::element_type;
  if (depth > 32) {
    t->too_deep = true;
    return nullptr;
  }
  switch (e.type()) {
    case element_type::OBJECT: {
      // Members are appended to the ordered object's vector directly: its own insert looks each
      // key up in a list, which made a 1 MiB body of 100,000 members cost seconds. Repeats are
      // found by a hash set over the parser's key views (valid until the next parse).
      core::Json o = core::Json::object();
      auto& members = static_cast<core::Json::object_t::Container&>(o.get_ref<core::Json::object_t&>());
      std::unordered_set<std::string_view> seen;
      for (auto field : simdjson::dom::object(e)) {
        if (!seen.insert(field.key).second) {
          if (t->duplicate.empty()) t->duplicate = pointer + "/" + JsonPointerEscape(field.key);
          continue;
        }
        std::string at = pointer + "/" + JsonPointerEscape(field.key);
        members.emplace_back(std::string(field.key), FromDom(field.value, depth + 1, at, t));
      }
      return o;
    }
    case element_type::ARRAY: {
      core::Json a = core::Json::array();
      size_t i = 0;
      for (auto v : simdjson::dom::array(e)) a.push_back(FromDom(v, depth + 1, pointer + "/" + std::to_string(i++), t));
      return a;
    }
    case element_type::STRING: return std::string(std::string_view(e));
    case element_type::INT64: return int64_t(e);
    case element_type::UINT64: return uint64_t(e);
    case element_type::DOUBLE: return double(e);
    case element_type::BOOL: return bool(e);
    case element_type::NULL_VALUE: return nullptr;
  }
  return nullptr;
}

}  // namespace

core::Result<core::Json> ParseJsonObject(std::string_view body) {
  thread_local simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (parser.parse(body.data(), body.size()).get(root) != simdjson::SUCCESS) {
    return core::InvalidArgument("the body is not valid JSON", "BAD_REQUEST");
  }
  if (root.type() != simdjson::dom::element_type::OBJECT) {
    return core::InvalidArgument("the body must be a JSON object", "BAD_REQUEST");
  }
  DomTrouble trouble;
  core::Json j = FromDom(root, 0, "", &trouble);
  if (trouble.too_deep) return core::InvalidArgument("the body nests too deeply", "BAD_REQUEST");
  if (!trouble.duplicate.empty()) {
    return core::InvalidArgument("the body gives the member " + trouble.duplicate + " more than once", "BAD_REQUEST");
  }
  return j;
}

std::string JsonPointerEscape(std::string_view token) {
  std::string out;
  for (char c : token) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

const core::Json* Validator::Member(const char* name, bool required, const char* type) {
  seen_.insert(name);
  auto it = body_.find(name);
  if (it == body_.end() || it->is_null()) {
    if (required) {
      errors_.push_back({name, "/" + JsonPointerEscape(name), "required",
                         std::string(name) + " is required (" + type + ")"});
    }
    return nullptr;
  }
  return &*it;
}

void Validator::TypeError(const char* name, const char* type) {
  errors_.push_back({name, "/" + JsonPointerEscape(name), "invalid_type",
                     std::string(name) + " must be " + type});
}

bool Validator::IsNull(const char* name) const {
  auto it = body_.find(name);
  return it == body_.end() || it->is_null();
}

std::optional<std::string> Validator::String(const char* name, bool required, size_t max_len) {
  const core::Json* v = Member(name, required, "a string");
  if (v == nullptr) return std::nullopt;
  if (!v->is_string()) {
    TypeError(name, "a string");
    return std::nullopt;
  }
  std::string s = v->get<std::string>();
  if (s.size() > max_len) {
    errors_.push_back({name, "/" + JsonPointerEscape(name), "too_long",
                       std::string(name) + " must be at most " + std::to_string(max_len) +
                           " characters"});
    return std::nullopt;
  }
  for (unsigned char c : s) {
    if (c < 0x20 || c == 0x7f) {
      errors_.push_back({name, "/" + JsonPointerEscape(name), "invalid_format",
                         std::string(name) + " must not contain control characters"});
      return std::nullopt;
    }
  }
  return s;
}

std::optional<std::string> Validator::Enum(const char* name, bool required,
                                           const std::vector<std::string>& values) {
  const core::Json* v = Member(name, required, "a string");
  if (v == nullptr) return std::nullopt;
  if (!v->is_string()) {
    TypeError(name, "a string");
    return std::nullopt;
  }
  std::string s = v->get<std::string>();
  for (const auto& allowed : values) {
    if (s == allowed) return s;
  }
  std::string list;
  for (const auto& a : values) list += (list.empty() ? "" : ", ") + a;
  errors_.push_back({name, "/" + JsonPointerEscape(name), "invalid_enum",
                     std::string(name) + " must be one of: " + list});
  return std::nullopt;
}

std::optional<bool> Validator::Bool(const char* name, bool required) {
  const core::Json* v = Member(name, required, "a boolean");
  if (v == nullptr) return std::nullopt;
  if (!v->is_boolean()) {
    TypeError(name, "a boolean");
    return std::nullopt;
  }
  return v->get<bool>();
}

std::optional<int64_t> Validator::Integer(const char* name, bool required, int64_t min, int64_t max) {
  const core::Json* v = Member(name, required, "an integer");
  if (v == nullptr) return std::nullopt;
  // An unsigned beyond int64's range is out of range, never wrapped.
  const bool in_int64 = v->is_number_integer() && (!v->is_number_unsigned() || v->get<uint64_t>() <= INT64_MAX);
  if (!v->is_number_integer()) {
    TypeError(name, "an integer");
    return std::nullopt;
  }
  const int64_t n = in_int64 ? v->get<int64_t>() : INT64_MAX;
  if (!in_int64 || n < min || n > max) {
    errors_.push_back({name, "/" + JsonPointerEscape(name), "out_of_range",
                       std::string(name) + " must be an integer from " + std::to_string(min) + " to " +
                           std::to_string(max)});
    return std::nullopt;
  }
  return n;
}

std::optional<std::string> Validator::Url(const char* name, bool required) {
  auto s = String(name, required, 2048);
  if (!s.has_value()) return std::nullopt;
  bool ok = (s->rfind("https://", 0) == 0 && s->size() > 8) ||
            (s->rfind("http://", 0) == 0 && s->size() > 7);
  if (ok) {
    for (char c : *s) ok &= c > 0x20 && c != '"' && c != '<' && c != '>' && c != '\\';
  }
  if (!ok) {
    errors_.push_back({name, "/" + JsonPointerEscape(name), "invalid_format",
                       std::string(name) + " must be an absolute http(s) URL"});
    return std::nullopt;
  }
  return s;
}

std::optional<std::string> Validator::DateTime(const char* name, bool required) {
  auto s = String(name, required, 64);
  if (!s.has_value()) return std::nullopt;
  if (!core::ParseRfc3339(*s).ok()) {
    errors_.push_back({name, "/" + JsonPointerEscape(name), "invalid_format",
                       std::string(name) + " must be an RFC 3339 date-time"});
    return std::nullopt;
  }
  return s;
}

std::optional<std::string> Validator::OpaqueId(const char* name, std::string_view prefix, bool required) {
  auto s = String(name, required, 64);
  if (!s.has_value()) return std::nullopt;
  if (!IsOpaqueId(*s, prefix)) {
    // Convention 3: a malformed identifier (a raw UUID above all) is 400 INVALID_ID wherever it
    // is sent, path, query or body; ValidationProblem turns this code into that answer.
    errors_.push_back({name, "/" + JsonPointerEscape(name), "invalid_id",
                       std::string(name) + " must be an identifier " + std::string(prefix) +
                           "_<32 lowercase hex>"});
    return std::nullopt;
  }
  return s;
}

bool IsOpaqueId(std::string_view s, std::string_view prefix) {
  bool ok = s.size() == prefix.size() + 33 && s.compare(0, prefix.size(), prefix) == 0 &&
            s[prefix.size()] == '_';
  for (size_t i = prefix.size() + 1; ok && i < s.size(); ++i) {
    char c = s[i];
    ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
  }
  return ok;
}

const core::Json* Validator::Object(const char* name, size_t max_bytes) {
  const core::Json* v = Member(name, false, "an object");
  if (v == nullptr) return nullptr;
  if (!v->is_object()) {
    TypeError(name, "an object");
    return nullptr;
  }
  if (core::DumpJson(*v).size() > max_bytes) {
    errors_.push_back({name, "/" + JsonPointerEscape(name), "too_long",
                       std::string(name) + " must serialise to at most " +
                           std::to_string(max_bytes) + " bytes"});
    return nullptr;
  }
  return v;
}

void Validator::RejectUnknown() {
  for (auto it = body_.begin(); it != body_.end(); ++it) {
    if (seen_.count(it.key()) == 0) {
      errors_.push_back({it.key(), "/" + JsonPointerEscape(it.key()), "unknown_field",
                         it.key() + " is not a field of this request"});
    }
  }
}

core::Json ErrorsJson(const std::vector<FieldError>& errors) {
  core::Json a = core::Json::array();
  for (const auto& e : errors) {
    a.push_back({{"field", e.field}, {"pointer", e.pointer}, {"code", e.code}, {"detail", e.detail}});
  }
  return a;
}

}  // namespace svc::api
