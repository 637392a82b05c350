#include "pipeline/manager_runtime.h"

#include "commands/writer.h"

namespace svc::pipeline {

bool ManagerRuntime::Owns(std::string_view tenant) const { return writer == nullptr || writer->DecidesTenant(tenant); }

}  // namespace svc::pipeline
