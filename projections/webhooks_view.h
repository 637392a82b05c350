#pragma once
// The webhooks read model's keys (prefix "webhooks/"), for WebhooksProjector and its readers
// (the webhook routes, the dispatcher).
//
//   ep/<ten>/<env>/<whe>                           WebhookEndpointResponse, as served
//   sec/<ten>/<env>/<whe>                          the sealed secrets (never served)
//   eps/<ten>/<env>                                the endpoint ids (fan-out)
//   idx/<ten>/<env>/<inverted created 8B BE><whe>  endpoints, newest first
//   dl/<ten>/<env>/<whd>                           WebhookDeliveryResponse, as served
//   dlx/<ten>/<env>/<whd>                          the body to send and the due key (never served)
//   dli/<ten>/<env>/all/<inverted 8B><whd>         deliveries, newest first
//   dli/<ten>/<env>/ep/<whe>/<inverted 8B><whd>    one endpoint's deliveries
//   at/<ten>/<env>/<whd>/<attempt 4B BE>           attempt entries
//   due/<micros 8B BE>/<ten>/<env>/<whd> = <whe>   deliveries waiting for an attempt, by time
//   iss/<ten>/<env>/<whe>/<version 20 digits>      the sealed secret issued by the creation or
//                                                  rotation that made that version (never served;
//                                                  idempotent replays answer the same secret)
//   cb/<ten>/<env>/<vrf>                           a session's callback: {url, secretSealed} (never
//                                                  served; sessions created with a callbackUrl)
//   swept/<ten>/<env>                              the last retention cutoff (micros): finished
//                                                  deliveries created before it were removed
//
// `te` is "<ten>/<env>" (TenantEnv).

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "eventstore/kv_store.h"
#include "projections/view_key.h"

namespace svc::projections {

struct WebhooksView {
  static constexpr std::string_view kName = "webhooks";
  static constexpr size_t kOrderBytes = 8;  // an index entry: inverted time, then the id

  static std::string Endpoint(std::string_view te, std::string_view whe) { return Key("ep/", te, whe); }
  static std::string Secret(std::string_view te, std::string_view whe) { return Key("sec/", te, whe); }
  static std::string EndpointIds(std::string_view te) { return "eps/" + std::string(te); }
  static std::string Endpoints(std::string_view te) { return Key("idx/", te, ""); }
  static std::string Delivery(std::string_view te, std::string_view whd) { return Key("dl/", te, whd); }
  static std::string DeliveryBody(std::string_view te, std::string_view whd) { return Key("dlx/", te, whd); }
  static std::string Deliveries(std::string_view te) { return Key("dli/", te, "all/"); }
  static std::string EndpointDeliveries(std::string_view te, std::string_view whe) {
    return Key("dli/", te, "ep/") + std::string(whe) + "/";
  }
  static std::string Attempts(std::string_view te, std::string_view whd) { return Key("at/", te, whd) + "/"; }
  static std::string Attempt(std::string_view te, std::string_view whd, uint32_t attempt) {
    std::string k = Attempts(te, whd);
    eventstore::PutFixed32BE(k, attempt);
    return k;
  }
  static std::string DuePrefix() { return "due/"; }
  static std::string Due(int64_t micros, std::string_view te, std::string_view whd) {
    return TimedKey(DuePrefix(), std::max<int64_t>(0, micros), te, whd);
  }
  // A due entry (its time and delivery), from the key after DuePrefix().
  static std::optional<TimedEntry> ParseDue(std::string_view rest) { return ParseTimedKey(rest); }
  static std::string IssuedSecret(std::string_view te, std::string_view whe, int64_t aggregate_version) {
    std::string v = std::to_string(aggregate_version);
    return Key("iss/", te, whe) + "/" + std::string(20 - std::min<size_t>(20, v.size()), '0') + v;
  }
  static std::string Swept(std::string_view te) { return "swept/" + std::string(te); }
  static std::string Callback(std::string_view te, std::string_view vrf) { return Key("cb/", te, vrf); }
  // Newest first: the 8-byte inverted time an index entry starts with.
  static std::string Inverted(int64_t micros) {
    std::string k;
    eventstore::PutFixed64BE(k, static_cast<uint64_t>(INT64_MAX - micros));
    return k;
  }
  static std::string_view IdOfEntry(std::string_view entry) { return entry.substr(kOrderBytes); }

  static std::string Abs(std::string_view relative) { return AbsoluteKey(kName, relative); }

 private:
  static std::string Key(std::string_view kind, std::string_view te, std::string_view rest) {
    return ScopedKey(kind, te, rest);
  }
};

}  // namespace svc::projections
