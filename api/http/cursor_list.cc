#include "api/http/cursor_list.h"

#include <map>

#include "api/http/pagination.h"
#include "api/http/problem.h"
#include "core/clock.h"
#include "projections/projector.h"

namespace svc::api {

namespace {

core::Result<std::string> ListBody(Runtime& rt, const CursorList& list, const PageRequest& req) {
  const eventstore::KvStore& store = rt.store();
  const int cf = store.Cf(projections::kViewsCf);
  std::map<std::string, std::string, std::less<>> rows;  // entry -> stored row
  auto row_of = [&](const std::string& entry) -> core::Result<const std::string*> {
    auto it = rows.find(entry);
    if (it == rows.end()) {
      SVC_ASSIGN_OR_RETURN(auto row, store.Get(cf, list.row_key(entry)));
      if (!row.has_value()) return core::DataLoss("index entry without its row: " + list.index + entry);
      it = rows.emplace(entry, std::move(*row)).first;
    }
    return &it->second;
  };
  std::function<core::Result<bool>(const std::string&, std::string_view)> accept;
  if (list.accept) {
    accept = [&](const std::string& entry, std::string_view value) -> core::Result<bool> {
      if (list.covering) return list.accept(core::ParseJsonOrDiscarded(value));
      SVC_ASSIGN_OR_RETURN(const std::string* r, row_of(entry));
      return list.accept(core::ParseJsonOrDiscarded(*r));
    };
  }
  SVC_ASSIGN_OR_RETURN(Page page, ReadPage(store, cf, list.index, req, accept, list.covering));
  std::vector<std::string> data;
  data.reserve(page.keys.size());
  if (list.covering) {  // the index held the rows
    data = std::move(page.values);
  } else if (accept) {  // the filter already read the page's rows
    for (const auto& k : page.keys) {
      SVC_ASSIGN_OR_RETURN(const std::string* r, row_of(k));
      data.push_back(*r);
    }
  } else {  // one batched lookup for the page's rows
    std::vector<std::string> keys;
    keys.reserve(page.keys.size());
    for (const auto& k : page.keys) keys.push_back(list.row_key(k));
    SVC_ASSIGN_OR_RETURN(auto got, store.MultiGet(cf, keys));
    for (auto& r : got) {
      if (!r.has_value()) return core::DataLoss("index entry without its row: " + list.index);
      data.push_back(std::move(*r));
    }
  }
  std::optional<int64_t> total;
  if (req.include_total) {
    if (!list.counter.empty() && !accept) {
      SVC_ASSIGN_OR_RETURN(auto c, store.Get(cf, list.counter));
      total = c.has_value() ? std::stoll(*c) : 0;
    } else {  // no counter for this filter: count the index (documented in docs/api.md)
      int64_t n = 0;
      auto it = store.NewIterator(cf, list.index, eventstore::PrefixEnd(list.index));
      for (it->Seek(list.index); it->Valid(); it->Next()) {
        if (!accept) {
          ++n;
          continue;
        }
        SVC_ASSIGN_OR_RETURN(bool m, accept(std::string(it->key().substr(list.index.size())), it->value()));
        n += m ? 1 : 0;
      }
      SVC_RETURN_IF_ERROR(it->status());
      total = n;
    }
  }
  if (list.render) {
    for (auto& d : data) d = list.render(std::move(d));
  }
  return ListEnvelopeWithRows(data, page, req, rt.cursor_key(), list.scope, total);
}

}  // namespace

void ServeCursorList(Runtime& rt, const ApiContext& options, ApiCall& call,
                     const CursorList& list, Respond respond) {
  HttpRequest& req = *call.request;
  auto page_req = ParsePageRequest(ParseQuery(req.query), list.filters, rt.cursor_key(), list.scope,
                                   options.limits.page_limit_default, options.limits.page_limit_max);
  if (!page_req.ok()) return respond(StatusToProblem(req, page_req.status()));
  if (!list.errors.empty()) return respond(ValidationProblem(req, list.errors));
  auto body = ListBody(rt, list, *page_req);
  if (!body.ok()) return respond(StatusToProblem(req, body.status()));
  HttpResponse out;
  out.body = std::move(*body);
  respond(std::move(out));
}

CreatedWindow CreatedWindow::Parse(const std::map<std::string, std::string>& query, const std::string& gte_name,
                                   const std::string& lte_name, std::vector<FieldError>& errors) {
  CreatedWindow w;
  for (auto [name, slot] : {std::pair{&gte_name, &w.gte}, std::pair{&lte_name, &w.lte}}) {
    auto it = query.find(*name);
    if (it == query.end()) continue;
    auto t = core::ParseRfc3339(it->second);
    if (!t.ok()) {
      errors.push_back({*name, "", "invalid_format", *name + " must be an RFC 3339 date-time"});
    } else {
      *slot = t->micros;
    }
  }
  return w;
}

bool CreatedWindow::Contains(const core::Json& row) const {
  if (!Any()) return true;
  auto t = core::ParseRfc3339(core::StringOr(row, "createdAt"));
  if (!t.ok()) return false;
  if (gte && t->micros < *gte) return false;
  if (lte && t->micros > *lte) return false;
  return true;
}

std::string CreatedWindow::Text() const {
  return (gte ? std::to_string(*gte) : "") + "|" + (lte ? std::to_string(*lte) : "");
}

}  // namespace svc::api
