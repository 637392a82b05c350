#include "api/http/pagination.h"

#include "api/http/route.h"

#include "core/crypto.h"

namespace svc::api {

namespace {
int HexVal(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
}  // namespace

std::string UrlDecode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '+') {
      out += ' ';
    } else if (s[i] == '%' && i + 2 < s.size() && HexVal(s[i + 1]) >= 0 && HexVal(s[i + 2]) >= 0) {
      out += static_cast<char>(HexVal(s[i + 1]) * 16 + HexVal(s[i + 2]));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

std::map<std::string, std::string> ParseQuery(std::string_view query) {
  std::map<std::string, std::string> out;
  size_t i = 0;
  while (i < query.size()) {
    size_t amp = query.find('&', i);
    if (amp == std::string_view::npos) amp = query.size();
    std::string_view part = query.substr(i, amp - i);
    if (!part.empty()) {
      size_t eq = part.find('=');
      std::string k = UrlDecode(part.substr(0, eq));
      std::string v = eq == std::string_view::npos ? "" : UrlDecode(part.substr(eq + 1));
      out[k] = v;
    }
    i = amp + 1;
  }
  return out;
}

std::string EncodeCursor(std::string_view cursor_key, std::string_view scope,
                         std::string_view order_key) {
  std::string payload = core::Base64UrlEncode(order_key);
  std::string mac = core::HmacSha256(cursor_key, std::string(scope) + "\n" + payload);
  return payload + "." + core::Base64UrlEncode(mac.substr(0, 16));
}

namespace {
core::Result<std::string> DecodeCursor(std::string_view cursor_key, std::string_view scope,
                                       std::string_view cursor) {
  auto bad = [] { return core::InvalidArgument("the cursor is not valid here", "INVALID_CURSOR"); };
  size_t dot = cursor.find('.');
  if (dot == std::string_view::npos || cursor.size() > 512) return bad();
  std::string_view payload = cursor.substr(0, dot);
  auto tag = core::Base64UrlDecode(cursor.substr(dot + 1));
  if (!tag.ok()) return bad();
  std::string mac = core::HmacSha256(cursor_key, std::string(scope) + "\n" + std::string(payload));
  if (!core::ConstantTimeEquals(*tag, mac.substr(0, 16))) return bad();
  auto key = core::Base64UrlDecode(payload);
  if (!key.ok() || key->empty()) return bad();
  return key;
}
}  // namespace

core::Result<PageRequest> ParsePageRequest(const std::map<std::string, std::string>& query,
                                           const std::vector<std::string>& allowed,
                                           std::string_view cursor_key, std::string_view scope,
                                           int default_limit, int max_limit) {
  PageRequest r;
  r.limit = default_limit;
  for (const auto& [k, v] : query) {
    if (k == "offset" || k == "page") {
      return core::InvalidArgument(
          "offset/page pagination is not supported; use startingAfter or endingBefore with the "
          "cursors of the previous page",
          "BAD_REQUEST");
    }
    bool known = k == "limit" || k == "startingAfter" || k == "endingBefore" ||
                 k == "includeTotal";
    for (const auto& a : allowed) known |= k == a;
    if (!known) return core::InvalidArgument("unknown query parameter: " + k, "BAD_REQUEST");
  }
  if (auto it = query.find("limit"); it != query.end()) {
    int64_t n = -1;
    bool digits = !it->second.empty() && it->second.size() <= 9;
    for (char c : it->second) digits &= c >= '0' && c <= '9';
    if (digits) n = std::stoll(it->second);
    if (n < 1 || n > max_limit) {
      core::Status st = core::InvalidArgument(
          "limit must be an integer from 1 to " + std::to_string(max_limit), "LIMIT_OUT_OF_RANGE");
      st.WithExtension("minimum", "1").WithExtension("maximum", std::to_string(max_limit));
      return st;
    }
    r.limit = static_cast<int>(n);
  }
  auto after = query.find("startingAfter");
  auto before = query.find("endingBefore");
  if (after != query.end() && before != query.end()) {
    return core::InvalidArgument("startingAfter and endingBefore are mutually exclusive",
                                 "BAD_REQUEST");
  }
  if (after != query.end()) {
    SVC_ASSIGN_OR_RETURN(r.starting_after, DecodeCursor(cursor_key, scope, after->second));
  }
  if (before != query.end()) {
    SVC_ASSIGN_OR_RETURN(r.ending_before, DecodeCursor(cursor_key, scope, before->second));
  }
  if (auto it = query.find("includeTotal"); it != query.end()) {
    if (it->second != "true" && it->second != "false") {
      return core::InvalidArgument("includeTotal must be true or false", "BAD_REQUEST");
    }
    r.include_total = it->second == "true";
  }
  return r;
}

core::Result<Page> ReadPage(
    const eventstore::KvStore& store, int cf, const std::string& prefix, const PageRequest& req,
    const std::function<core::Result<bool>(const std::string&, std::string_view)>& accept,
    bool with_values) {
  Page page;
  auto it = store.NewIterator(cf, prefix, eventstore::PrefixEnd(prefix));
  size_t want = static_cast<size_t>(req.limit) + 1;
  auto take = [&](std::vector<std::string>& keys, std::vector<std::string>& values, bool forward) -> core::Status {
    while (it->Valid() && keys.size() < want) {
      std::string suffix(it->key().substr(prefix.size()));
      bool ok = true;
      if (accept) {
        SVC_ASSIGN_OR_RETURN(ok, accept(suffix, it->value()));
      }
      if (ok) {
        keys.push_back(std::move(suffix));
        if (with_values) values.emplace_back(it->value());
      }
      if (forward) it->Next();
      else it->Prev();
    }
    return it->status();
  };
  if (!req.ending_before.empty()) {
    // Backwards from the cursor (exclusive), then flipped into list order.
    std::vector<std::string> back, back_values;
    it->SeekForPrev(prefix + req.ending_before);
    if (it->Valid() && it->key() == prefix + req.ending_before) it->Prev();
    SVC_RETURN_IF_ERROR(take(back, back_values, false));
    page.has_previous = back.size() == want;
    if (page.has_previous) {
      back.pop_back();
      if (with_values) back_values.pop_back();
    }
    page.keys.assign(std::make_move_iterator(back.rbegin()), std::make_move_iterator(back.rend()));
    page.values.assign(std::make_move_iterator(back_values.rbegin()), std::make_move_iterator(back_values.rend()));
    page.has_more = true;  // the cursor's row (and what follows it) remains after this page
    return page;
  }
  if (!req.starting_after.empty()) {
    it->Seek(prefix + req.starting_after);
    if (it->Valid() && it->key() == prefix + req.starting_after) it->Next();
    page.has_previous = true;
  } else {
    it->Seek(prefix);
  }
  SVC_RETURN_IF_ERROR(take(page.keys, page.values, true));
  page.has_more = page.keys.size() == want;
  if (page.has_more) {
    page.keys.pop_back();
    if (with_values) page.values.pop_back();
  }
  return page;
}

core::Json ListEnvelope(core::Json data, const Page& page, const PageRequest& req,
                        std::string_view cursor_key, std::string_view scope,
                        std::optional<int64_t> total) {
  core::Json j;
  j["object"] = "list";
  j["data"] = std::move(data);
  j["hasMore"] = page.has_more;
  j["nextCursor"] = page.has_more && !page.keys.empty()
                        ? core::Json(EncodeCursor(cursor_key, scope, page.keys.back()))
                        : core::Json(nullptr);
  j["previousCursor"] = page.has_previous && !page.keys.empty()
                            ? core::Json(EncodeCursor(cursor_key, scope, page.keys.front()))
                            : core::Json(nullptr);
  j["limit"] = req.limit;
  j["totalCount"] = total.has_value() ? core::Json(*total) : core::Json(nullptr);
  return j;
}

}  // namespace svc::api

namespace svc::api {

std::string ListEnvelopeWithRows(const std::vector<std::string>& rows, const Page& page,
                                 const PageRequest& req, std::string_view cursor_key,
                                 std::string_view scope, std::optional<int64_t> total) {
  std::string envelope =
      core::DumpJson(ListEnvelope(core::Json::array(), page, req, cursor_key, scope, total));
  static constexpr std::string_view kEmpty = "\"data\":[]";
  const size_t at = envelope.find(kEmpty);
  // One allocation and one copy of each row (a page of 20 sessions is about 11 KB).
  size_t size = envelope.size() + rows.size();
  for (const auto& r : rows) size += r.size();
  std::string out;
  out.reserve(size);
  out.append(envelope, 0, at + kEmpty.size() - 1);  // up to and with the '['
  for (size_t i = 0; i < rows.size(); ++i) {
    if (i > 0) out += ',';
    out += rows[i];
  }
  out.append(envelope, at + kEmpty.size() - 1, std::string::npos);  // the ']' and the rest
  return out;
}

}  // namespace svc::api

namespace svc::api {

const std::vector<std::string>& IdempotencyErrors() {
  static const std::vector<std::string> kCodes = {"IDEMPOTENCY_KEY_INVALID", "IDEMPOTENCY_KEY_REUSED",
                                                  "IDEMPOTENCY_KEY_IN_PROGRESS"};
  return kCodes;
}

std::vector<std::string> Codes(std::initializer_list<std::vector<std::string>> lists) {
  std::vector<std::string> out;
  for (const auto& l : lists) out.insert(out.end(), l.begin(), l.end());
  return out;
}

std::vector<QueryParam> PageParams(bool include_total) {
  std::vector<QueryParam> out = {
      {"limit", {{"type", "integer"}, {"minimum", 1}, {"maximum", 100}, {"default", 20}},
       "page size; the answer's `limit` is the size applied"},
      {"startingAfter", {{"type", "string"}}, "the `nextCursor` of the previous page"},
      {"endingBefore", {{"type", "string"}}, "the `previousCursor` of the next page"}};
  if (include_total) {
    out.push_back({"includeTotal", {{"type", "boolean"}, {"default", false}},
                   "fill `totalCount` (counting the whole filter)"});
  }
  return out;
}

}  // namespace svc::api
