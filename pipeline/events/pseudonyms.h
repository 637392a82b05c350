#pragma once
// The pseudonymous person ids of the public topics (docs/events.md, "Persons' pseudonyms"). A
// person's id (`per_…`) is the integrator's handle on a named human: the public topics never carry
// it. Each person id in a public record (its key, its headers, any string of its payload) is
// replaced by the person's pseudonym `psn_<32 hex>`: HMAC-SHA-256 of the person's names under a
// random key of the person's own in the key store ("pseudonym/<tenant>/<env>/<per_…>"), cut to 16
// bytes. The same person has the same pseudonym in every record, so an analyst counts and joins;
// nobody can compute it from a person id without that key.
//
// The key lives exactly as long as the publisher needs it: it is drawn when the publisher first
// meets a person whose data key exists, and destroyed by the publisher once the transaction that
// carries the person's `persons.keys_destroyed` is committed (eventstore/public_sink.h keeps the
// pending destructions in that transaction, so a crash between the commit and the destruction
// finishes it on restart). A publisher that lags behind a forget still has the key: the erasure
// events carry the pseudonym a consumer must erase. A person whose data key was gone before the
// publisher ever met them (history published from the start after their forget) is `psn_erased`.
//
// Thread-compatible: one publisher thread uses it.

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "eventstore/key_store.h"

namespace svc::pipeline::events {

inline constexpr std::string_view kErasedPseudonym = "psn_erased";

class PersonPseudonyms {
 public:
  explicit PersonPseudonyms(eventstore::KeyStore* keys, size_t cache_entries = 100000)
      : keys_(keys), cache_cap_(cache_entries) {}

  static std::string KeyName(std::string_view tenant, std::string_view env, std::string_view person);

  // The person's pseudonym (drawing their pseudonym key if their data key exists), or
  // kErasedPseudonym when neither key exists.
  core::Result<std::string> Of(std::string_view tenant, std::string_view env, std::string_view person);
  // `text` with every person id in it (`per_` and 32 hex digits) replaced by its pseudonym.
  core::Result<std::string> Replace(std::string_view tenant, std::string_view env, std::string_view text);
  // Resolves at once the pseudonyms of every person id in `texts` (pairs of tenant and
  // environment with a text), drawing the missing keys in one group commit of the key store rather
  // than one durable write each: what the publisher does for a batch before Replace.
  struct Text {
    std::string_view tenant, env, text;
  };
  core::Status Prefetch(const std::vector<Text>& texts);
  // Destroys the pseudonym keys named (for good: compacted away) and forgets them.
  core::Status Destroy(const std::vector<std::string>& key_names);

 private:
  eventstore::KeyStore* keys_;
  size_t cache_cap_;
  // Calls `fn(person id, position)` for each person id in `text`.
  static void ForEachPersonId(std::string_view text, const std::function<void(std::string_view, size_t)>& fn);
  std::string Compute(std::string_view key, std::string_view tenant, std::string_view env, std::string_view person);
  void Remember(std::string name, std::string pseudonym);
  std::map<std::string, std::string, std::less<>> cache_;  // key name -> pseudonym
};

}  // namespace svc::pipeline::events
