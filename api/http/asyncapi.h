#pragma once
// The AsyncAPI 3 document of the public event topics (docs/events.md), written from the event
// catalogue (commands/event_catalogue.h): a channel per area and environment, a message per
// public event type with its CloudEvents headers, its Kafka key and its payload schema, derived
// from the event's field list. `svc asyncapi` prints it and GET /v1/asyncapi.json serves it; each
// payload schema is a versioned entry of its components/schemas, which a record's ce_dataschema
// names (commands/event_catalogue.h, EventSchemaUri).

#include <string>
#include <string_view>

#include "core/json.h"

namespace svc::api {

core::Json AsyncApiDocument(std::string_view public_base_url);

}  // namespace svc::api
