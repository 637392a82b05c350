#include "api/http/route_docs.h"

#include <set>

#include "api/http/module.h"

namespace svc::api {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

}  // namespace

core::Result<std::map<std::string, RouteDoc>> ParseRouteDocs(std::string_view markdown) {
  std::map<std::string, RouteDoc> docs;
  RouteDoc* doc = nullptr;  // the open section
  std::string section;
  bool paragraph_open = false;
  auto close = [&]() -> core::Status {
    if (doc != nullptr && doc->summary.empty()) {
      return core::InvalidArgument("the operation " + section + " has no summary");
    }
    return core::Status::Ok();
  };
  while (!markdown.empty()) {
    const size_t eol = markdown.find('\n');
    const std::string_view line = Trim(markdown.substr(0, eol));
    markdown.remove_prefix(eol == std::string_view::npos ? markdown.size() : eol + 1);
    if (line.starts_with("## ")) {
      SVC_RETURN_IF_ERROR(close());
      section = std::string(Trim(line.substr(3)));
      auto [it, inserted] = docs.try_emplace(section);
      if (!inserted) return core::InvalidArgument("the operation " + section + " has two sections");
      doc = &it->second;
      paragraph_open = false;
      continue;
    }
    if (doc == nullptr) continue;  // the preamble
    if (line.empty()) {
      paragraph_open = false;
    } else if (doc->summary.empty()) {
      doc->summary = line;
    } else if (paragraph_open) {
      doc->description.append(" ").append(line);
    } else {
      if (!doc->description.empty()) doc->description.append("\n\n");
      doc->description.append(line);
      paragraph_open = true;
    }
  }
  SVC_RETURN_IF_ERROR(close());
  return docs;
}

core::Status DocumentRoutes(std::vector<ApiRoute>& routes, std::string_view markdown) {
  SVC_ASSIGN_OR_RETURN(auto docs, ParseRouteDocs(markdown));
  std::set<std::string> used;
  for (ApiRoute& r : routes) {
    auto it = docs.find(r.operation_id);
    if (it == docs.end()) return core::InvalidArgument("the operation " + r.operation_id + " has no section");
    r.summary = it->second.summary;
    r.description = it->second.description;
    used.insert(r.operation_id);
  }
  for (const auto& [operation, doc] : docs) {
    if (!used.contains(operation)) {
      return core::InvalidArgument("the section " + operation + " names no route of the area");
    }
  }
  return core::Status::Ok();
}

core::Result<std::vector<ApiRoute>> AreaRoutes(const Module& module, AreaServices& services, Runtime* rt,
                                               const ApiContext& api) {
  std::vector<ApiRoute> routes = services.Routes(rt, api);
  if (auto st = DocumentRoutes(routes, module.operations ? *module.operations : std::string_view());
      !st.ok()) {
    return core::Status(st.code(), std::string(module.name) + "/operations.md: " + st.message());
  }
  return routes;
}

}  // namespace svc::api
