#pragma once
// What every `<x>_view.h` shares: a read model's keys are built in one unit, which both its
// projector (relative keys, through its ViewWriter) and its readers (absolute keys, with the
// view's name in front) use. No other file builds a key of a read model by hand.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "eventstore/kv_store.h"

namespace svc::projections {

// "<tenant>/<environment>": the scope most rows are kept under.
inline std::string TenantEnv(std::string_view tenant, std::string_view environment) {
  std::string s;
  s.reserve(tenant.size() + 1 + environment.size());
  s.append(tenant).append("/").append(environment);
  return s;
}

// "<tenant>/<environment>/<id>", the tail of keys that list rows of many tenants (pending
// submissions, expiry timers), read back.
struct ScopedId {
  std::string tenant, environment, id;
};
inline std::optional<ScopedId> ParseScopedId(std::string_view rest) {
  size_t a = rest.find('/');
  if (a == std::string_view::npos) return std::nullopt;
  size_t b = rest.find('/', a + 1);
  if (b == std::string_view::npos) return std::nullopt;
  return ScopedId{std::string(rest.substr(0, a)), std::string(rest.substr(a + 1, b - a - 1)),
                  std::string(rest.substr(b + 1))};
}

// "<kind><te>/<rest>": most rows of a view.
inline std::string ScopedKey(std::string_view kind, std::string_view te, std::string_view rest) {
  std::string k;
  k.reserve(kind.size() + te.size() + 1 + rest.size());
  k.append(kind).append(te).append("/").append(rest);
  return k;
}

// "<prefix><micros 8B BE>/<te>/<id>": rows of many tenants ordered by a time (timers, queues),
// and the entry read back from the key after the prefix.
inline std::string TimedKey(std::string_view prefix, int64_t micros, std::string_view te,
                            std::string_view id) {
  std::string k(prefix);
  eventstore::PutFixed64BE(k, static_cast<uint64_t>(micros));
  k.append("/").append(te).append("/").append(id);
  return k;
}
struct TimedEntry {
  int64_t micros = 0;
  ScopedId id;
};
inline std::optional<TimedEntry> ParseTimedKey(std::string_view rest) {
  if (rest.size() < 9) return std::nullopt;
  auto id = ParseScopedId(rest.substr(9));  // after "<8 bytes>/"
  if (!id) return std::nullopt;
  return TimedEntry{static_cast<int64_t>(eventstore::GetFixed64BE(rest)), std::move(*id)};
}

// The absolute key (column family "views") of a view's relative key.
inline std::string AbsoluteKey(std::string_view view_name, std::string_view relative) {
  std::string s;
  s.reserve(view_name.size() + 1 + relative.size());
  s.append(view_name).append("/").append(relative);
  return s;
}

}  // namespace svc::projections
