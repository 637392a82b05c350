#include "api/http/flags.h"

#include <algorithm>
#include <cstdlib>

namespace svc::api {

void Flags::Declare(Spec spec) { specs_.push_back(std::move(spec)); }

std::string Flags::EnvName(const std::string& flag) {
  std::string e = "SVC_";
  for (char c : flag) e += c == '-' ? '_' : static_cast<char>(std::toupper(c));
  return e;
}

core::Status Flags::Parse(int argc, char** argv, int first) {
  for (int i = first; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      help_ = true;
      continue;
    }
    if (a.rfind("--", 0) != 0) return core::InvalidArgument("unexpected argument: " + a);
    std::string name = a.substr(2), value;
    bool has_value = false;
    if (auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      has_value = true;
    }
    auto spec = std::find_if(specs_.begin(), specs_.end(),
                             [&](const Spec& s) { return s.name == name; });
    if (spec == specs_.end()) return core::InvalidArgument("unknown flag --" + name);
    if (!has_value) {
      if (spec->is_bool) {
        value = "true";
      } else {
        if (i + 1 >= argc) return core::InvalidArgument("--" + name + " needs a value");
        value = argv[++i];
      }
    }
    values_[name].push_back(value);
  }
  return core::Status::Ok();
}

std::string Flags::Get(const std::string& name) const {
  auto it = values_.find(name);
  if (it != values_.end() && !it->second.empty()) return it->second.back();
  if (const char* env = std::getenv(EnvName(name).c_str()); env != nullptr) return env;
  for (const auto& s : specs_) {
    if (s.name == name) return s.default_value;
  }
  return "";
}

std::vector<std::string> Flags::GetAll(const std::string& name) const {
  // Repeated flags and comma-separated lists are both accepted: --scopes a,b --scopes c.
  std::vector<std::string> raw;
  auto it = values_.find(name);
  if (it != values_.end()) raw = it->second;
  else if (std::string v = Get(name); !v.empty()) raw.push_back(v);
  std::vector<std::string> out;
  for (const auto& v : raw) {
    size_t start = 0;
    while (start <= v.size()) {
      size_t comma = v.find(',', start);
      if (comma == std::string::npos) comma = v.size();
      if (comma > start) out.push_back(v.substr(start, comma - start));
      start = comma + 1;
    }
  }
  return out;
}

bool Flags::GetBool(const std::string& name) const {
  std::string v = Get(name);
  return v == "true" || v == "1" || v == "yes";
}

std::string Flags::Help(const std::string& usage) const {
  std::string out = "usage: " + usage + "\n\nflags (each also read from the environment):\n";
  for (const auto& s : specs_) {
    std::string line = "  --" + s.name + (s.is_bool ? "" : " VALUE");
    line += "  [" + EnvName(s.name) + "]";
    out += line + "\n      " + s.help;
    if (!s.default_value.empty()) out += " (default: " + s.default_value + ")";
    out += "\n";
  }
  return out;
}

}  // namespace svc::api
