#pragma once
// The sessions read model's keys (prefix "sessions/"), for SessionsProjector and its readers.
//
//   rec/<ten>/<env>/<vrf>                      the VerificationSessionResponse record
//   created/<ten>/<env>/<vrf>                  the record as created (+ sealed link token): what
//                                              an idempotent retry of the create answers
//   idx/<ten>/<env>/all/<order>                one index per list filter; order = 8-byte
//   idx/<ten>/<env>/status/<s>/<order>         (2^64-1 - createdAt micros) big-endian + id, so
//   idx/<ten>/<env>/app/<app_id>/<order>       a forward scan is newest first. The "all" index's
//                                              value is the record (a copy of rec/, written with
//                                              it): the unfiltered list reads its page with the
//                                              index. The filters' values are empty.
//   idx/<ten>/<env>/ref/<sha256 hex>/<order>   sessions by clientReference (no counter)
//   cnt/<ten>/<env>/{all|status/<s>|app/<a>}   counters for includeTotal
//   consent/<ten>/<env>/<vrf>                  the consent answer (no personal data)
//   exp/<expiresAt micros BE>/<ten>/<env>/<vrf>  open sessions by expiry, for the expiry timer
//   vol/<ten>/<env>/<YYYY-MM-DD>/<what>        sessions created that UTC day (what = "created"),
//                                              and that reached a status that day (what = it):
//                                              the compliance report's verification volume
//   ret/<completedAt micros BE>/<ten>/<env>/<vrf>  completed sessions whose captures are still
//                                               kept, by completion, for the retention sweeper
//
// `te` is "<ten>/<env>" (TenantEnv). A list filter is "all", "status/<s>" or "app/<app_id>".

#include "core/crypto.h"
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "eventstore/kv_store.h"
#include "projections/view_key.h"

namespace svc::projections {

struct SessionsView {
  static constexpr std::string_view kName = "sessions";
  static constexpr size_t kOrderBytes = 8;  // an index suffix: order bytes, then the id

  static std::string Record(std::string_view te, std::string_view id) { return Key("rec/", te, id); }
  static std::string Created(std::string_view te, std::string_view id) { return Key("created/", te, id); }
  static std::string Consent(std::string_view te, std::string_view id) { return Key("consent/", te, id); }
  // The list filters (an index and a counter each).
  static std::string All() { return "all"; }
  static std::string ByStatus(std::string_view status) { return "status/" + std::string(status); }
  static std::string ByApplication(std::string_view app) { return "app/" + std::string(app); }
  // The sessions an integrator labelled with one clientReference (an index only, no counter; the
  // reference enters the key as its SHA-256, so a reference holding '/' cannot reach into another's
  // range).
  static std::string ByClientReference(std::string_view ref) { return "ref/" + core::Sha256Hex(ref); }
  static std::string Index(std::string_view te, std::string_view filter) {
    return Key("idx/", te, filter) + "/";
  }
  static std::string Counter(std::string_view te, std::string_view filter) { return Key("cnt/", te, filter); }
  // Index suffix ordering newest first.
  static std::string Order(int64_t created_micros, std::string_view id) {
    std::string k;
    eventstore::PutFixed64BE(k, std::numeric_limits<uint64_t>::max() -
                                    static_cast<uint64_t>(created_micros));
    k.append(id);
    return k;
  }
  static std::string_view IdOfOrder(std::string_view order) { return order.substr(kOrderBytes); }
  static std::string ExpiryPrefix() { return "exp/"; }
  static std::string Expiry(int64_t expires_micros, std::string_view tenant, std::string_view env,
                            std::string_view id) {
    return TimedKey(ExpiryPrefix(), expires_micros, TenantEnv(tenant, env), id);
  }
  static std::string Volumes(std::string_view te) { return Key("vol/", te, ""); }
  static std::string Volume(std::string_view te, std::string_view day, std::string_view what) {
    return Volumes(te) + std::string(day) + "/" + std::string(what);
  }
  static std::string RetentionPrefix() { return "ret/"; }
  static std::string Retention(int64_t completed_micros, std::string_view tenant, std::string_view env,
                               std::string_view id) {
    return TimedKey(RetentionPrefix(), completed_micros, TenantEnv(tenant, env), id);
  }
  // An expiry entry (its time and session), from the key after ExpiryPrefix().
  static std::optional<TimedEntry> ParseExpiry(std::string_view rest) { return ParseTimedKey(rest); }

  static std::string Abs(std::string_view relative) { return AbsoluteKey(kName, relative); }

 private:
  static std::string Key(std::string_view kind, std::string_view te, std::string_view rest) {
    return ScopedKey(kind, te, rest);
  }
};

}  // namespace svc::projections
