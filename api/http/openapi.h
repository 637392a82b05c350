#pragma once
// The OpenAPI 3.1 document of the public API, generated from the route declarations (so it
// cannot drift from what the server does) and the schemas each area adds. Served at
// GET /v1/openapi.json and printed by `svc openapi`.

#include <string>
#include <utility>
#include <vector>

#include "api/http/route.h"
#include "core/json.h"

namespace svc::api {

// JSON Schema helpers for the areas' component schemas.
namespace schema {
core::Json Nullable(core::Json schema);  // OpenAPI 3.1: a type union with null
core::Json Str();
core::Json DateTime();
core::Json Id(const std::string& prefix);  // <prefix>_<32 lowercase hex>
core::Json Enum(std::vector<std::string> values);
core::Json Ref(const std::string& name);  // #/components/schemas/<name>
// An object; `required` empty = every property is required.
core::Json Obj(core::Json props, std::vector<std::string> required);
core::Json Num();
core::Json Strs();  // an array of strings
core::Json List(const std::string& item);  // the cursor-list envelope of `item`
}  // namespace schema

// What an area adds to the document: its tags, its component schemas and its `webhooks` entries.
struct OpenApiArea {
  std::vector<std::pair<std::string, std::string>> tags;  // name, description
  core::Json schemas = core::Json::object();
  core::Json webhooks = core::Json::object();
};

core::Json BuildOpenApi(const std::vector<ApiRoute>& routes, const std::vector<OpenApiArea>& areas,
                        const std::string& server_url);

}  // namespace svc::api
