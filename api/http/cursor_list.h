#pragma once
// One cursor list over an index of a read model, for every list route of every area: the paging
// parameters (pagination.h), cursors bound to the list's scope, the rows the index entries name
// (read with the index where it holds them; else one batched lookup, or one by one, cached, when
// a second filter must read them), includeTotal
// (a counter row, else a count of the index), and the List envelope with the rows as stored.
// A list route is its own filter parsing plus one ServeCursorList call.

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/http/json_input.h"
#include "api/http/public_api.h"
#include "api/http/route.h"
#include "api/http/runtime.h"

namespace svc::api {

struct CursorList {
  // Binds cursors to the tenant, environment, list and filter they came from.
  std::string scope;
  // Absolute prefix of the index; its entries sort in list order.
  std::string index;
  // The absolute key of the row an index entry (the suffix after `index`) names.
  std::function<std::string(std::string_view entry)> row_key;
  // The index entries' values are the rows themselves (its projector keeps them current): the
  // page is read with the index, without a lookup of its rows (`row_key` is then unused).
  bool covering = false;
  // A second filter, on the row; empty = every entry of the index.
  std::function<bool(const core::Json& row)> accept;
  // Absolute key of a counter row for includeTotal (when there is no second filter); empty:
  // the total is counted on the index.
  std::string counter;
  // How a stored row is served (opened, trimmed); empty = as stored. It is given the row itself
  // (moved), so a row served as stored is not copied.
  std::function<std::string(std::string stored)> render;
  // The query parameters the list accepts besides paging (others are 400 BAD_REQUEST).
  std::vector<std::string> filters;
  // The filters' own field errors: reported (422/400) after the paging parameters are checked.
  std::vector<FieldError> errors;
};

void ServeCursorList(Runtime& rt, const ApiContext& options, ApiCall& call,
                     const CursorList& list, Respond respond);

// A list's window on its rows' `createdAt`: two RFC 3339 query parameters (at or after, at or
// before; their field errors go to `errors`), and the test on a row. (Extracted when the second
// list needed it: persons, the access log.)
struct CreatedWindow {
  std::optional<int64_t> gte, lte;  // micros
  static CreatedWindow Parse(const std::map<std::string, std::string>& query, const std::string& gte_name,
                             const std::string& lte_name, std::vector<FieldError>& errors);
  bool Any() const { return gte.has_value() || lte.has_value(); }
  bool Contains(const core::Json& row) const;
  // For a cursor's scope: the window as text.
  std::string Text() const;
};

}  // namespace svc::api
