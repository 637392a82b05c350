#pragma once
// The prose of the OpenAPI document: each area writes what its operations do in
// api/<area>/operations.md (compiled in, Module::operations), a section per operation headed by
// its operationId:
//
//   ## createCompany
//
//   Create a company record (draft)            <- the summary: the section's first line
//
//   Nothing is verified yet: add members,      <- the description: the paragraphs after it, a
//   documents and ownership nodes, ...            paragraph's lines joined with single spaces,
//                                                 paragraphs with a blank line ("\n\n")
//
// Anything before the first section (a title, a comment) is not read. The route declarations
// (api/<area>/*_api.cc) hold what the code enforces: path, scope, schemas, error codes, handler.

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "api/http/route.h"
#include "core/status.h"

namespace svc::api {

struct RouteDoc {
  std::string summary;
  std::string description;  // "" when the section has only a summary
};

// The sections of an operations document by operationId. INVALID_ARGUMENT for a section named
// twice or one without a summary.
core::Result<std::map<std::string, RouteDoc>> ParseRouteDocs(std::string_view markdown);

// Fills each route's summary and description from the document by its operation_id. Every route
// must have a section and every section must name one of `routes` (INVALID_ARGUMENT names the
// operationId): an undocumented route, or prose left behind by a removed route, is a build defect
// that `svc serve`, `svc openapi` and the tests refuse.
core::Status DocumentRoutes(std::vector<ApiRoute>& routes, std::string_view markdown);

}  // namespace svc::api
