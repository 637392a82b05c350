#pragma once
// The List envelope and cursor pagination over an ordered index (newest first).
//
// Cursors are opaque: base64url of {scope, order key, id} plus an HMAC-SHA256 tag under a server
// key. The scope binds a cursor to the tenant, environment, list and filter it came from, so an
// altered cursor, or one replayed on another list, is 400 INVALID_CURSOR, never a wrong page.

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/http/http.h"
#include "core/json.h"
#include "core/status.h"
#include "eventstore/kv_store.h"

namespace svc::api {

std::map<std::string, std::string> ParseQuery(std::string_view query);
std::string UrlDecode(std::string_view s);

struct PageRequest {
  int limit = 20;
  std::string starting_after;  // decoded order key (index suffix)
  std::string ending_before;
  bool include_total = false;
};

// Reads limit/startingAfter/endingBefore/includeTotal. Rejects offset/page (400), both cursors
// (400), a limit outside 1..max (422 LIMIT_OUT_OF_RANGE with minimum/maximum), altered cursors
// (400 INVALID_CURSOR), and any parameter not in `allowed` (400 BAD_REQUEST).
core::Result<PageRequest> ParsePageRequest(const std::map<std::string, std::string>& query,
                                           const std::vector<std::string>& allowed,
                                           std::string_view cursor_key, std::string_view scope,
                                           int default_limit, int max_limit);

std::string EncodeCursor(std::string_view cursor_key, std::string_view scope,
                         std::string_view order_key);

struct Page {
  std::vector<std::string> keys;    // index suffixes, in list order
  std::vector<std::string> values;  // with `with_values`: each entry's stored value, in the same order
  bool has_more = false;
  bool has_previous = false;
};

// Walks the index under `prefix` (keys sort in list order). `accept` filters entries, given the
// suffix and the stored value (e.g. a second filter); it may be empty. `with_values` keeps each
// page entry's value (an index whose values are its rows).
core::Result<Page> ReadPage(
    const eventstore::KvStore& store, int cf, const std::string& prefix, const PageRequest& req,
    const std::function<core::Result<bool>(const std::string&, std::string_view)>& accept,
    bool with_values = false);

// The List envelope, with `rows` as the data: each row is a JSON object our JSON writer produced
// when it stored the read model, placed into the array as stored (no parse and re-serialise on
// the read path).
std::string ListEnvelopeWithRows(const std::vector<std::string>& rows, const Page& page,
                                 const PageRequest& req, std::string_view cursor_key,
                                 std::string_view scope, std::optional<int64_t> total);

// The List envelope.
core::Json ListEnvelope(core::Json data, const Page& page, const PageRequest& req,
                        std::string_view cursor_key, std::string_view scope,
                        std::optional<int64_t> total);

}  // namespace svc::api
