#include "pipeline/adapters/tsa_http.h"

#include "core/log.h"

namespace svc::pipeline::adapters {

core::Result<std::unique_ptr<HttpTsa>> HttpTsa::Create(Options options) {
  if (options.clock == nullptr) return core::InvalidArgument("the TSA client needs a clock");
  rfc3161::Trust trust{options.roots_pem, options.policy_oid, options.max_skew};
  if (auto st = rfc3161::CheckTrust(trust); !st.ok()) return core::InvalidArgument("--tsa-roots: " + st.message());
  SVC_ASSIGN_OR_RETURN(auto client, GatewayClient::Create("--tsa-url", options.url, "", options.timeout,
                                                          options.ca_file));
  client->UseBasicAuth(options.user_password);
  auto tsa = std::unique_ptr<HttpTsa>(new HttpTsa(std::move(options)));
  tsa->trust_ = std::move(trust);
  tsa->client_ = std::move(client);
  return tsa;
}

core::Result<rfc3161::Token> HttpTsa::Stamp(std::string_view sha256) {
  SVC_ASSIGN_OR_RETURN(rfc3161::Request request, rfc3161::MakeRequest(sha256, options_.policy_oid));
  net::SendResult r = client_->Call("POST", "", request.der,
                                    {"application/timestamp-query", "application/timestamp-reply"});
  if (r.status == 0) {
    return core::Unavailable("the TSA could not be reached: " + r.error + (r.detail.empty() ? "" : " (" + r.detail + ")"),
                             "TIMESTAMP_UNAVAILABLE");
  }
  if (r.status != 200) {
    return core::Unavailable("the TSA answered HTTP " + std::to_string(r.status), "TIMESTAMP_UNAVAILABLE");
  }
  for (const auto& [name, value] : r.headers) {
    if (name == "content-type" && value.rfind("application/timestamp-reply", 0) != 0) {
      return core::InvalidArgument("time-stamp token refused: the TSA answered " + value, "TIMESTAMP_INVALID");
    }
  }
  return rfc3161::VerifyResponse(r.body, request, trust_, options_.clock->Now());
}

}  // namespace svc::pipeline::adapters
