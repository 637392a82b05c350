#pragma once
// The embedded channel's read model (prefix "embedded/"), for EmbeddedProjector, the flow admin
// and the embedded routes (docs/embedded.md). No personal data: flows are configuration, and an
// embedded session row holds ids, origins and times.
//
//   flow/<ten>/<flw>              the flow (FlowItem as served: key, name, status, version, draft)
//   flowv/<ten>/<flw>/<n BE>      a published version {flowId, version, definition, definitionHash,
//                                 publishedAt}: what sessions of that version walk
//   ems/<ems>                     an embedded session {id, tenantId, environment, sessionId,
//                                 allowedOrigins, openedBy, keyId, createdAt, mountedAt,
//                                 parentOrigin}: the policy route reads it before any credential
//   atok/<hash>                   an applicant token {tenantId, environment, sessionId,
//                                 embeddedSessionId ("" for a hosted link's)} (the hash: HMAC-SHA256
//                                 under the key-lookup key)
//   link/<hash>                   a link session by its link token's hash {tenantId, environment,
//                                 sessionId, locale, steps, livenessMode, redirectUrl}: the hosted
//                                 page finds it

#include <cstdint>
#include <string>
#include <string_view>

#include "projections/view_key.h"

namespace svc::projections {

struct EmbeddedView {
  static constexpr std::string_view kName = "embedded";

  static std::string Flows(std::string_view tenant) { return "flow/" + std::string(tenant) + "/"; }
  static std::string Flow(std::string_view tenant, std::string_view flow_id) {
    return Flows(tenant) + std::string(flow_id);
  }
  static std::string FlowVersions(std::string_view tenant, std::string_view flow_id) {
    return "flowv/" + std::string(tenant) + "/" + std::string(flow_id) + "/";
  }
  static std::string FlowVersion(std::string_view tenant, std::string_view flow_id, int64_t version) {
    std::string k = FlowVersions(tenant, flow_id);
    eventstore::PutFixed64BE(k, static_cast<uint64_t>(version));
    return k;
  }
  static std::string Embedded(std::string_view embedded_id) { return "ems/" + std::string(embedded_id); }
  static std::string ApplicantToken(std::string_view hash_hex) { return "atok/" + std::string(hash_hex); }
  static std::string Link(std::string_view hash_hex) { return "link/" + std::string(hash_hex); }
  // A link session's own link (its token hash), by the session: what a handoff link walks.
  static std::string SessionLink(std::string_view session_id) { return "slink/" + std::string(session_id); }
  static std::string Abs(std::string_view relative) { return AbsoluteKey(kName, relative); }
};

}  // namespace svc::projections
