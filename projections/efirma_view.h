#pragma once
// The e.firma challenges' read model (prefix "efirma/"), for EfirmaProjector and its readers (the
// e.firma routes, the session's evidence and the pipeline's e.firma stage).
//
//   ch/<ten>/<env>/<efc>     {challengeId, sessionId, nonce, expiresAtMicros, answered,
//                            consentPurpose, consentPolicyVersion ("" = none), check (the
//                            EfirmaCheck as served), holderSealed (the holder's {rfc, curp, name})
//                            and evidenceSealed (certificate, signature, signed text), both under
//                            the session's key, never served}
//   last/<ten>/<env>/<vrf>   the session's latest e.firma check (EfirmaCheck, as served)
//
// `te` is "<ten>/<env>" (TenantEnv).

#include <string>
#include <string_view>

#include "projections/view_key.h"

namespace svc::projections {

struct EfirmaView {
  static constexpr std::string_view kName = "efirma";
  static std::string Challenge(std::string_view te, std::string_view efc) { return ScopedKey("ch/", te, efc); }
  static std::string Latest(std::string_view te, std::string_view vrf) { return ScopedKey("last/", te, vrf); }
  static std::string Abs(std::string_view relative) { return AbsoluteKey(kName, relative); }
};

}  // namespace svc::projections
