#include "pipeline/verification/stage_details.h"

#include "core/crypto.h"

namespace svc::pipeline::verification {

namespace {
std::string Aad(const StageRef& r) {
  return "stage|" + r.tenant + "/" + r.environment + "/" + r.session + "|" + r.tracking + "|" + r.stage;
}
}  // namespace

std::string SealStageDetails(std::string_view session_key, const StageRef& ref, const core::Json& details) {
  return core::Base64Encode(core::AeadSeal(session_key, core::DumpJson(details), Aad(ref)));
}

core::Result<core::Json> OpenStageDetails(std::string_view session_key, const StageRef& ref, std::string_view sealed) {
  auto raw = core::Base64Decode(sealed);
  if (!raw.ok()) return core::DataLoss("the " + ref.stage + " stage's details are not base64");
  auto plain = core::AeadOpen(session_key, *raw, Aad(ref));
  if (!plain.ok()) return core::DataLoss("the " + ref.stage + " stage's details do not open");
  core::Json details = core::ParseJsonOrDiscarded(*plain);
  core::SecureZero(*plain);
  return details;
}

}  // namespace svc::pipeline::verification
