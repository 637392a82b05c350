// Wiring of the compliance area: the operator's compliance file (datacenters, subprocessors),
// read and checked at start: a server never runs with a file it cannot report truthfully.

#include "api/compliance/routes.h"
#include "api/server/cli.h"
#include "api/server/wiring.h"

namespace svc::api {
namespace {

void DeclareFlags(Flags& f) {
  f.Declare({"compliance-file", "",
             "JSON file of the datacenters and subprocessors GET /v1/compliance/* report "
             "(docs/compliance.md); empty: both lists are empty"});
}

class ComplianceServices final : public AreaServices {
 public:
  core::Status Start(ServeSetup& s) {
    const std::string path = s.flags.Get("compliance-file");
    if (path.empty()) return core::Status::Ok();
    auto text = cli::ReadInputFile(path);
    if (!text.ok()) return core::InvalidArgument("cannot read --compliance-file " + path);
    core::Json config = core::ParseJsonOrDiscarded(*text);
    if (auto st = compliance::CheckComplianceConfig(config); !st.ok()) {
      return core::InvalidArgument("--compliance-file " + path + ": " + st.message());
    }
    s.routes.compliance_config = {{"datacenters", config.value("datacenters", core::Json::array())},
                                  {"subprocessors", config.value("subprocessors", core::Json::array())}};
    return core::Status::Ok();
  }
  void Stop() override {}
};

}  // namespace

AreaWiring ComplianceWiring() { return {"compliance", &DeclareFlags, &StartArea<ComplianceServices>}; }

}  // namespace svc::api
