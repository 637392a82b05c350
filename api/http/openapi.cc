#include "api/http/openapi.h"

#include <map>
#include <set>

#include "core/error_catalogue.h"

namespace svc::api {

namespace schema {

core::Json Nullable(core::Json schema) {
  // OpenAPI 3.1 = JSON Schema 2020-12: nullable is a type union.
  if (schema.contains("type") && schema["type"].is_string()) {
    schema["type"] = core::Json::array({schema["type"], "null"});
    // `enum` constrains every type of the union: without null among its values a null is refused
    // (found by the typed client's run-time check, tests/typed-client).
    if (schema.contains("enum") && schema["enum"].is_array()) schema["enum"].push_back(nullptr);
  } else {
    schema = {{"anyOf", core::Json::array({schema, {{"type", "null"}}})}};
  }
  return schema;
}
core::Json Str() { return {{"type", "string"}}; }
core::Json DateTime() { return {{"type", "string"}, {"format", "date-time"}}; }
core::Json Id(const std::string& prefix) {
  return {{"type", "string"}, {"pattern", "^" + prefix + "_[0-9a-f]{32}$"}};
}
core::Json Enum(std::vector<std::string> values) { return {{"type", "string"}, {"enum", values}}; }
core::Json Ref(const std::string& name) { return {{"$ref", "#/components/schemas/" + name}}; }
core::Json Obj(core::Json props, std::vector<std::string> required) {
  if (required.empty()) {
    for (auto it = props.begin(); it != props.end(); ++it) required.push_back(it.key());
  }
  return core::Json{{"type", "object"}, {"required", required}, {"properties", props}};
}
core::Json Num() { return {{"type", "number"}}; }
core::Json Strs() { return {{"type", "array"}, {"items", Str()}}; }
core::Json List(const std::string& item) {
  return {{"type", "object"},
          {"required", {"object", "data", "hasMore", "limit"}},
          {"properties",
           {{"object", {{"const", "list"}}},
            {"data", {{"type", "array"}, {"items", Ref(item)}}},
            {"hasMore", {{"type", "boolean"}}},
            {"nextCursor", Nullable(Str())},
            {"previousCursor", Nullable(Str())},
            {"limit", {{"type", "integer"}, {"minimum", 1}, {"maximum", 100}}},
            {"totalCount", Nullable({{"type", "integer"}})}}}};
}

}  // namespace schema

namespace {

using namespace schema;

// The schemas every area uses: problem details and field errors.
core::Json CommonSchemas() {
  core::Json s;
  s["Problem"] = {
      {"type", "object"},
      {"description", "RFC 9457 problem details; `code` is the stable catalogue code."},
      {"required", {"type", "title", "status", "detail", "instance", "code", "requestId"}},
      {"properties",
       {{"type", {{"type", "string"}, {"format", "uri"}}},
        {"title", Str()},
        {"status", {{"type", "integer"}}},
        {"detail", Str()},
        {"instance", Str()},
        {"code", Str()},
        {"requestId", Str()},
        {"requiredScope", Str()},
        {"minimum", {{"type", "integer"}}},
        {"maximum", {{"type", "integer"}}},
        {"errors", {{"type", "array"}, {"items", Ref("FieldError")}}}}}};
  s["FieldError"] = {{"type", "object"},
                     {"required", {"field", "pointer", "code", "detail"}},
                     {"properties",
                      {{"field", Str()}, {"pointer", Str()}, {"code", Str()}, {"detail", Str()}}}};
  // A trusted timestamp (RFC 3161) of a document's content hash: certificates and published
  // checkpoints carry them (docs/audit.md#trusted-timestamps).
  s["EvidenceTimestamp"] = Obj({{"status", Enum({"granted", "pending"})},
                                {"hashAlgorithm", {{"const", "sha256"}}},
                                {"digest", {{"type", "string"}, {"pattern", "^[0-9a-f]{64}$"}}},
                                {"genTime", DateTime()},
                                {"serialNumber", Str()},
                                {"policy", Str()},
                                {"tsaName", Str()},
                                {"tsaUrl", Str()},
                                {"token", {{"type", "string"}, {"description", "the TimeStampToken (CMS SignedData), DER, base64"}}}},
                               {"status", "hashAlgorithm", "digest"});
  return s;
}


core::Json ProblemResponse(const std::set<std::string>& codes) {
  std::string list;
  for (const auto& c : codes) list += (list.empty() ? "" : ", ") + c;
  return {{"description", "Problem: " + list},
          {"content", {{"application/problem+json", {{"schema", Ref("Problem")}}}}}};
}

core::Json PathParameter(const std::string& name) {
  std::map<std::string, std::pair<std::string, std::string>> known = {
      {"session_id", {"vrf", "the verification session"}},
      {"endpoint_id", {"whe", "the webhook endpoint"}},
      {"delivery_id", {"whd", "the webhook delivery"}}};
  core::Json schema = Str();
  std::string description = name;
  if (auto it = known.find(name); it != known.end()) {
    schema = Id(it->second.first);
    description = it->second.second;
  }
  return {{"name", name}, {"in", "path"}, {"required", true}, {"description", description},
          {"schema", schema}};
}

}  // namespace

core::Json BuildOpenApi(const std::vector<ApiRoute>& routes, const std::vector<OpenApiArea>& areas,
                        const std::string& server_url) {
  core::Json doc;
  doc["openapi"] = "3.1.0";
  doc["info"] = {
      {"title", "Identity verification and compliance service"},
      {"version", "1.0.0"},
      {"description",
       "Generated from the server's route table. Every error is RFC 9457 problem+json with a "
       "stable `code` (catalogue at /docs/errors). The API key fixes the environment (test or "
       "live). Lists use cursor pagination (`limit`, `startingAfter`, `endingBefore`)."},
      {"contact", {{"name", "svc API support"}, {"url", server_url + "/docs/errors"}}},
      {"license", {{"name", "Proprietary"}, {"identifier", "LicenseRef-Proprietary"}}}};
  doc["servers"] = core::Json::array({{{"url", server_url}, {"description", "this server"}}});
  core::Json tags = core::Json::array();
  for (const auto& area : areas) {
    for (const auto& [name, description] : area.tags) {
      tags.push_back({{"name", name}, {"description", description}});
    }
  }
  tags.push_back({{"name", "Meta"}, {"description", "This document."}});
  doc["tags"] = tags;
  core::Json paths = core::Json::object();
  // Every route answers these, on top of its own codes.
  const std::vector<std::string> common = {"AUTHENTICATION_REQUIRED", "API_KEY_INVALID",
                                           "INSUFFICIENT_SCOPE", "RATE_LIMITED",
                                           "METHOD_NOT_ALLOWED", "INTERNAL_ERROR",
                                           "PAYLOAD_TOO_LARGE"};
  for (const auto& r : routes) {
    core::Json op;
    op["operationId"] = r.operation_id;
    op["tags"] = {r.tag};
    op["summary"] = r.summary;
    op["description"] = r.description.empty() ? r.summary : r.description;
    op["security"] = r.link_credential ? core::Json::array()  // the signed link is the credential
                                       : core::Json::array({{{"bearerAuth", core::Json::array()}}});
    if (!r.link_credential) op["x-required-scope"] = r.scope;  // absent: public (a signed link)
    core::Json params = core::Json::array();
    size_t pos = 0;
    while ((pos = r.path.find('{', pos)) != std::string::npos) {
      size_t end = r.path.find('}', pos);
      params.push_back(PathParameter(r.path.substr(pos + 1, end - pos - 1)));
      pos = end;
    }
    for (const auto& q : r.query) {
      params.push_back({{"name", q.name}, {"in", "query"}, {"required", false},
                        {"description", q.description}, {"schema", q.schema}});
    }
    if (r.idempotency != IdempotencyRule::kNone) {
      params.push_back({{"name", "Idempotency-Key"},
                        {"in", "header"},
                        {"required", r.idempotency == IdempotencyRule::kRequired},
                        {"description", "1-255 printable ASCII characters; a retry with the same "
                                        "key and body answers the same result"},
                        {"schema", {{"type", "string"}, {"minLength", 1}, {"maxLength", 255}}}});
    }
    if (r.versioned) {
      params.push_back({{"name", "Service-Version"}, {"in", "header"}, {"required", false},
                        {"description", "payload version; default 2026-01-01"},
                        {"schema", Str()}});
    }
    for (const auto& h : r.headers) {
      params.push_back({{"name", h}, {"in", "header"}, {"required", false},
                        {"description", "the id of the last event received (resume)"},
                        {"schema", Str()}});
    }
    if (!params.empty()) op["parameters"] = params;
    if (!r.request_schema.empty()) {
      op["requestBody"] = {{"required", !r.body_optional},
                           {"content", {{r.request_content_type, {{"schema", Ref(r.request_schema)}}}}}};
    }
    core::Json ok_content = {{"schema", Ref(r.response_schema)}};
    core::Json response_headers = {
        {"Service-Request-Id", {{"description", "this request's id (also `requestId` in errors)"},
                                {"schema", Str()}}}};
    if (r.idempotency != IdempotencyRule::kNone) {
      response_headers["Idempotent-Replayed"] = {
          {"description", "`true` on the answer to a retry with the same Idempotency-Key"},
          {"schema", {{"type", "string"}, {"enum", {"true"}}}}};
    }
    core::Json responses;
    responses[std::to_string(r.success_status)] = {{"description", "Success"}, {"headers", response_headers}};
    // A route without a response schema answers no body (204).
    if (!r.response_schema.empty()) {
      responses[std::to_string(r.success_status)]["content"] = {{r.response_content_type, ok_content}};
    }
    if (r.response_content_type == "text/event-stream") {
      responses["204"] = {{"description", "The stream is over and the client has its final event "
                                          "(Last-Event-ID): do not reconnect"}};
    }
    std::map<int, std::set<std::string>> by_status;
    for (const auto& c : common) by_status[core::FindErrorCode(c)->http_status].insert(c);
    for (const auto& c : r.error_codes) {
      const core::ErrorCodeInfo* info = core::FindErrorCode(c);
      if (info != nullptr) by_status[info->http_status].insert(c);
    }
    for (const auto& [status, codes] : by_status) {
      responses[std::to_string(status)] = ProblemResponse(codes);
    }
    op["responses"] = responses;
    std::string method = r.method;
    for (auto& c : method) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    paths[r.path][method] = op;
  }
  paths["/v1/openapi.json"]["get"] = {
      {"operationId", "getOpenApiDocument"},
      {"tags", {"Meta"}},
      {"summary", "This document"},
      {"description", "The OpenAPI 3.1 document of this server, generated from its route table."},
      {"security", core::Json::array()},
      {"responses", {{"200", {{"description", "The OpenAPI document"},
                              {"content", {{"application/json", {{"schema", {{"type", "object"}}}}}}}}},
                     {"400", ProblemResponse({"BAD_REQUEST"})}}}};
  paths["/v1/asyncapi.json"]["get"] = {
      {"operationId", "getAsyncApiDocument"},
      {"tags", {"Meta"}},
      {"summary", "The event topics' contract"},
      {"description", "The AsyncAPI 3 document of the public event topics: channels, Kafka keys, CloudEvents headers and "
                      "each event type's payload schema by version (docs/events.md)."},
      {"security", core::Json::array()},
      {"responses", {{"200", {{"description", "The AsyncAPI document"},
                              {"content", {{"application/json", {{"schema", {{"type", "object"}}}}}}}}},
                     {"400", ProblemResponse({"BAD_REQUEST"})}}}};
  doc["paths"] = paths;
  core::Json webhooks = core::Json::object();
  core::Json schemas = CommonSchemas();
  for (const auto& area : areas) {
    for (auto it = area.webhooks.begin(); it != area.webhooks.end(); ++it) webhooks[it.key()] = *it;
    for (auto it = area.schemas.begin(); it != area.schemas.end(); ++it) schemas[it.key()] = *it;
  }
  doc["webhooks"] = webhooks;
  doc["components"]["schemas"] = schemas;
  doc["components"]["securitySchemes"] = {
      {"bearerAuth", {{"type", "http"}, {"scheme", "bearer"},
                      {"description", "svc_{live|test}_{sk|pk}_... API key"}}},
      {"webhookSignature",
       {{"type", "apiKey"}, {"in", "header"}, {"name", "webhook-signature"},
        {"description", "How a receiver authenticates our deliveries: verify the Standard "
                        "Webhooks signature with the endpoint's secret (`whsec_…`)"}}}};
  return doc;
}

}  // namespace svc::api
