#pragma once
// A fresh directory under $TMPDIR, removed with everything in it when the object dies.

#include <string>

namespace svc::testing {

class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string Sub(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// A whole file's bytes ("" when it cannot be read).
std::string ReadFile(const std::string& path);

}  // namespace svc::testing
