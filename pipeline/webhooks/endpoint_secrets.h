#pragma once
// An endpoint's signing secrets at rest: sealed under the endpoint's own data key (a key-store
// entry: shredding it destroys every secret the endpoint had), bound to the endpoint. The routes
// seal what they issue; the dispatcher opens what it signs with.

#include <cstdint>
#include <string>
#include <string_view>

#include "core/status.h"
#include "eventstore/key_store.h"
#include "eventstore/kv_store.h"

namespace svc::pipeline::webhooks {

// Seals `secret` for the endpoint (its key made on first use): base64.
core::Result<std::string> SealEndpointSecret(eventstore::KeyStore& keys, const std::string& tenant,
                                             const std::string& environment, const std::string& endpoint_id,
                                             const std::string& secret);
// Opens a secret SealEndpointSecret sealed; DataLoss when the endpoint's key is gone.
core::Result<std::string> OpenEndpointSecret(eventstore::KeyStore& keys, const std::string& tenant,
                                             const std::string& environment, const std::string& endpoint_id,
                                             const std::string& sealed_base64);
// The secret the creation or rotation that made `version` of the endpoint issued, from its sealed
// copy in the read model (an idempotent replay answers with it); Unavailable until projected.
core::Result<std::string> IssuedSecret(const eventstore::KvStore& views, eventstore::KeyStore& keys,
                                       const std::string& tenant, const std::string& environment,
                                       const std::string& endpoint_id, int64_t version);

// The endpoint's secret in force (what a delivery is signed with now); Unavailable until projected.
core::Result<std::string> CurrentEndpointSecret(const eventstore::KvStore& views, eventstore::KeyStore& keys,
                                                const std::string& tenant, const std::string& environment,
                                                const std::string& endpoint_id);

// A verification session's callback secret (its `callbackSecret`, a whsec_ secret the session's
// callbackUrl deliveries are signed with): sealed under a key derived from the service's seal key
// (`seal_key`, the runtime's), bound to the tenant, environment and session. It is no personal
// data and has no key of its own: it lives as long as the session's events.
std::string SealCallbackSecret(std::string_view seal_key, const std::string& tenant, const std::string& environment,
                               const std::string& session_id, const std::string& secret);
core::Result<std::string> OpenCallbackSecret(std::string_view seal_key, const std::string& tenant,
                                             const std::string& environment, const std::string& session_id,
                                             const std::string& sealed_base64);

}  // namespace svc::pipeline::webhooks
