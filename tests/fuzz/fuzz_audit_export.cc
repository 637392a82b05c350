// An access-log export (JSON lines) as `svc audit verify FILE` reads it
// (pipeline/audit/export_check.h): the header, its checkpoints, every entry's chain link and leaf.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "pipeline/audit/export_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  auto check = svc::pipeline::audit::CheckExport(in, "", /*threads=*/1);
  if (check.ok()) (void)check->ToJson();
  return 0;
}
