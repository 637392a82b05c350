#pragma once
// A file a `svc serve` flag names, read whole (a PEM, a credentials line, a JSON document, a list):
// InvalidArgument naming the flag (when given) and the path when it cannot be read. (Extracted at its third
// copy: the compliance file, the TSA's roots and credentials, the AML lists.)

#include <fstream>
#include <sstream>
#include <string>

#include "core/status.h"

namespace svc::api {

inline core::Result<std::string> ReadFlagFile(const std::string& what, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return core::InvalidArgument("cannot read " + (what.empty() ? "" : what + " ") + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace svc::api
