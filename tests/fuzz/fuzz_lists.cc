// The sanctions and SAT list loaders on a file of any bytes: the input's first byte picks the
// format (OFAC SDN CSV, UN XML, OpenSanctions CSV, FtM JSON lines, SAT 69-B and 69 CSV), the rest
// is the file. And RFC 4180 CSV on its own.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "pipeline/kyb/list_loaders.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace kyb = svc::pipeline::kyb;
  if (size == 0) return 0;
  const auto& formats = kyb::ListFormats();
  const std::string& format = formats[data[0] % formats.size()];
  const std::string_view file(reinterpret_cast<const char*>(data) + 1, size - 1);
  (void)kyb::ParseCsv(file);
  static const std::string path = "/tmp/svc-fuzz-list-" + std::to_string(getpid());
  if (FILE* f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(file.data(), 1, file.size(), f);
    std::fclose(f);
    (void)kyb::LoadList(format, {path});
  }
  return 0;
}
