#pragma once
// JSON written straight into a string, for the hot writers (event data, read-model rows) where
// building an nlohmann tree only to dump it cost more than the work around it. The bytes are
// those DumpJson would write for the same members in the same order (strings that are not plain
// printable ASCII go through nlohmann's own escaping, invalid UTF-8 replaced), so a row or an
// event reads back the same whichever writer made it.
//
//   JsonText t;
//   t.BeginObject();
//   t.Key("id"); t.String(id);
//   t.Key("fields"); t.BeginArray(); t.String("a"); t.EndArray();
//   t.EndObject();
//   std::string text = t.Take();

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"

namespace svc::core {

class JsonText {
 public:
  void BeginObject() { Open('{'); }
  void EndObject() { Close('}'); }
  void BeginArray() { Open('['); }
  void EndArray() { Close(']'); }
  // An object's member name; its value follows.
  void Key(std::string_view name) {
    Separate();
    Quoted(name);
    out_.push_back(':');
    after_key_ = true;
  }
  void String(std::string_view s) {
    Separate();
    Quoted(s);
  }
  void Int(int64_t v) {
    Separate();
    out_ += std::to_string(v);
  }
  void Uint(uint64_t v) {
    Separate();
    out_ += std::to_string(v);
  }
  void Bool(bool v) {
    Separate();
    out_ += v ? "true" : "false";
  }
  void Null() {
    Separate();
    out_ += "null";
  }
  // A value of any kind (doubles, free-form members): as DumpJson writes it.
  void Value(const Json& j) {
    Separate();
    out_ += DumpJson(j);
  }
  // A value that is already JSON text.
  void Raw(std::string_view json) {
    Separate();
    out_.append(json);
  }
  // A string value or null when it is empty.
  void StringOrNull(std::string_view s) {
    if (s.empty()) {
      Null();
    } else {
      String(s);
    }
  }

  std::string Take() { return std::move(out_); }
  const std::string& text() const { return out_; }

 private:
  void Separate() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (!first_.empty()) {
      if (!first_.back()) out_.push_back(',');
      first_.back() = false;
    }
  }
  void Open(char c) {
    Separate();
    out_.push_back(c);
    first_.push_back(true);
  }
  void Close(char c) {
    out_.push_back(c);
    first_.pop_back();
  }
  void Quoted(std::string_view s) {
    for (unsigned char c : s) {
      if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\') {
        out_ += DumpJson(Json(std::string(s)));  // escapes, UTF-8 checks: nlohmann's
        return;
      }
    }
    out_.push_back('"');
    out_.append(s);
    out_.push_back('"');
  }

  std::string out_;
  std::vector<bool> first_;  // per open container: nothing written in it yet
  bool after_key_ = false;
};

}  // namespace svc::core
