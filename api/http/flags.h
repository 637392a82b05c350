#pragma once
// Command-line flags with SVC_* environment fallbacks. Every flag is declared with its default
// and help text, so `--help` documents all of them.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"

namespace svc::api {

class Flags {
 public:
  struct Spec {
    std::string name;  // "data-dir"
    std::string default_value;
    std::string help;
    bool is_bool = false;
    bool repeated = false;
  };

  void Declare(Spec spec);
  // Parses argv[first..]; unknown flags and stray arguments are errors.
  core::Status Parse(int argc, char** argv, int first);
  bool HelpRequested() const { return help_; }
  std::string Help(const std::string& usage) const;

  // Value: command line, else SVC_<NAME> from the environment, else the default.
  std::string Get(const std::string& name) const;
  std::vector<std::string> GetAll(const std::string& name) const;
  bool GetBool(const std::string& name) const;
  static std::string EnvName(const std::string& flag);

 private:
  std::vector<Spec> specs_;
  std::map<std::string, std::vector<std::string>> values_;
  bool help_ = false;
};

}  // namespace svc::api
