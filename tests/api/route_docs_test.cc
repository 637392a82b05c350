// An area's operations document (api/<area>/operations.md) read into the routes' summaries and
// descriptions, and the mismatches that refuse a start.
#include <doctest/doctest.h>

#include "api/http/route_docs.h"
#include "api/server/modules.h"

namespace api_route_docs_test {

using namespace svc;

namespace {

api::ApiRoute Route(std::string operation) {
  api::ApiRoute r;
  r.operation_id = std::move(operation);
  return r;
}

}  // namespace

TEST_CASE("route docs: a section's first line is the summary, its paragraphs the description") {
  auto docs = api::ParseRouteDocs(
      "# Title\n\nA preamble, not read.\n## listThings\n\nList the things\n\nFirst paragraph, wrapped\n"
      "over two lines.\n\nSecond one.\n\n## getThing\nOne thing\n");
  REQUIRE(docs.ok());
  REQUIRE(docs->size() == 2);
  CHECK(docs->at("listThings").summary == "List the things");
  CHECK(docs->at("listThings").description == "First paragraph, wrapped over two lines.\n\nSecond one.");
  CHECK(docs->at("getThing").summary == "One thing");
  CHECK(docs->at("getThing").description.empty());
}

TEST_CASE("route docs: a section named twice or without a summary is refused") {
  CHECK(api::ParseRouteDocs("## a\nx\n## a\ny\n").status().message().find("two sections") != std::string::npos);
  CHECK(api::ParseRouteDocs("## a\n\n## b\ny\n").status().message().find("a has no summary") != std::string::npos);
  CHECK(api::ParseRouteDocs("## a\n").status().code() == core::StatusCode::kInvalidArgument);
}

TEST_CASE("route docs: every route needs a section, every section a route") {
  std::vector<api::ApiRoute> routes{Route("a"), Route("b")};
  CHECK(api::DocumentRoutes(routes, "## a\nThe a\n\nMore on a.\n## b\nThe b\n").ok());
  CHECK(routes[0].summary == "The a");
  CHECK(routes[0].description == "More on a.");
  auto missing = api::DocumentRoutes(routes, "## a\nThe a\n");
  CHECK(missing.message() == "the operation b has no section");
  auto extra = api::DocumentRoutes(routes, "## a\nThe a\n## b\nThe b\n## c\nThe c\n");
  CHECK(extra.message() == "the section c names no route of the area");
}

TEST_CASE("route docs: every area's document matches its routes, and every route has a summary") {
  auto documented = api::DocumentedRoutes();
  REQUIRE_MESSAGE(documented.ok(), documented.status().message());
  for (const auto& r : documented->routes) CHECK_MESSAGE(!r.summary.empty(), r.operation_id);
}

}  // namespace api_route_docs_test
