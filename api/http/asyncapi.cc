#include "api/http/asyncapi.h"

#include <set>

#include "commands/event_catalogue.h"
#include "projections/state_records.h"

namespace svc::api {

namespace cm = commands;

namespace {

core::Json StringHeader(const char* description) {
  return core::Json{{"type", "string"}, {"description", description}};
}

// The CloudEvents 1.0 attributes of a record in Kafka's binary mode (each a `ce_` header) and the
// service's extensions: the same for every message.
core::Json RecordHeaders() {
  core::Json props = {
      {"ce_specversion", {{"type", "string"}, {"const", "1.0"}}},
      {"ce_id", StringHeader("The event's id (evt_…): unique; a consumer that sees an id twice keeps the first.")},
      {"ce_source", StringHeader("/tenants/{tenantId}: the tenant whose fact it is.")},
      {"ce_type", StringHeader("The event type, e.g. persons.person_created (never renamed).")},
      {"ce_time", StringHeader("When it happened (RFC 3339, UTC).")},
      {"ce_subject", StringHeader("The aggregate's id (vrf_…, cas_…), or for a person their pseudonym (psn_…): the record's key.")},
      {"ce_dataschema", StringHeader("The payload's JSON Schema and its version: {publicBaseUrl}/v1/asyncapi.json#/components/schemas/{type}.v{version}.")},
      {"content-type", {{"type", "string"}, {"const", "application/json"}}},
      {"ce_svcseq", StringHeader("The event's number within its subject (decimal), increasing: the order of a subject's events. An internal event not published leaves its number out.")},
      {"ce_svcpos", StringHeader("Where the event sits in the service's own log: partition:offset.")},
      {"ce_svcaggregate", StringHeader("The subject's aggregate type (verification_session, person, …).")},
      {"ce_svcenv", StringHeader("live or test; empty for a tenant-level fact (published on both environments' tenancy topics).")},
  };
  core::Json required = core::Json::array();
  for (const char* h : {"ce_specversion", "ce_id", "ce_source", "ce_type", "ce_time", "ce_subject", "ce_dataschema",
                        "ce_svcseq", "ce_svcpos", "ce_svcaggregate"}) {
    required.push_back(h);
  }
  return core::Json{{"type", "object"}, {"properties", props}, {"required", required}};
}

std::string SchemaName(std::string_view type, int version) {
  return std::string(type) + ".v" + std::to_string(version);
}

std::string MessageId(std::string_view type) {
  std::string id(type);
  for (auto& c : id) {
    if (c == '.') c = '_';
  }
  return id;
}

}  // namespace

core::Json AsyncApiDocument(std::string_view public_base_url) {
  core::Json doc;
  doc["asyncapi"] = "3.0.0";
  doc["info"] = {
      {"title", "svc event topics"},
      {"version", "1.0.0"},
      {"description",
       "The service's committed history, published for analytics: one topic per area and environment, "
       "keyed by the aggregate's id, a record per event in CloudEvents binary mode. Only facts the service "
       "kept are published (what a writer lost on a take-over never appears), each once per topic; "
       "de-duplicate on ce_id. Payloads say which personal fields exist, never their values. "
       "Types not meant for analytics (x-svc-internal-types) stay in the service's own log. A person id never "
       "appears: wherever one would (key, subject, payload), the person's pseudonym psn_… stands, the same in all "
       "their records, and computable by nobody once their keys are destroyed. The state topics ({area}.state, "
       "compacted) hold the latest state of each session, person, review case and company. See docs/events.md."},
  };
  doc["defaultContentType"] = "application/json";
  doc["servers"] = {{"kafka", {{"host", "{bootstrap}"},
                               {"protocol", "kafka"},
                               {"description", "The cluster the service writes to (its --kafka-brokers)."},
                               {"variables", {{"bootstrap", {{"default", "localhost:9092"}}}}}}}};
  core::Json channels = core::Json::object();
  core::Json operations = core::Json::object();
  core::Json messages = core::Json::object();
  core::Json schemas = core::Json::object();
  core::Json internal = core::Json::array();
  core::Json erasure = core::Json::array();
  for (const std::string& area : cm::EventAreas()) {
    core::Json channel_messages = core::Json::object();
    core::Json op_messages = core::Json::array();
    for (const auto& info : cm::EventCatalogue()) {
      if (info.area != area || info.audience != cm::Audience::kPublic) continue;
      const std::string id = MessageId(info.type);
      core::Json aggregates = core::Json::array();
      for (const auto& a : info.aggregate_types) aggregates.push_back(a);
      messages[id] = {
          {"name", info.type},
          {"title", info.type},
          {"summary", info.erasure ? "Erasure: a consumer deletes what it derived from the subject (docs/events.md)."
                                   : "A " + info.aggregate_types.front() + " event."},
          {"contentType", "application/json"},
          {"headers", RecordHeaders()},
          {"payload", {{"$ref", "#/components/schemas/" + SchemaName(info.type, info.schema_version)}}},
          {"bindings", {{"kafka", {{"key", {{"type", "string"}, {"description", "The aggregate's id, a person's pseudonym (= ce_subject)."}}},
                                   {"bindingVersion", "0.5.0"}}}}},
          {"x-svc-schema-version", info.schema_version},
          {"x-svc-dataschema", cm::EventSchemaUri(public_base_url, info.type, info.schema_version)},
          {"x-svc-aggregate-types", aggregates},
          {"x-svc-erasure", info.erasure},
      };
      schemas[SchemaName(info.type, info.schema_version)] = info.public_schema;
      channel_messages[id] = {{"$ref", "#/components/messages/" + id}};
      op_messages.push_back({{"$ref", "#/channels/" + area + "/messages/" + id}});
      if (info.erasure) erasure.push_back(info.type);
    }
    channels[area] = {
        {"address", "{prefix}.{environment}." + area},
        {"title", area},
        {"description", "The " + area + " area's public events of one environment, keyed by aggregate id."},
        {"parameters", {{"prefix", {{"default", "svc"}, {"description", "The service's --kafka-topic-prefix."}}},
                        {"environment", {{"enum", {"live", "test"}}, {"description", "Test and live never share a topic."}}}}},
        {"messages", channel_messages},
        {"bindings", {{"kafka", {{"bindingVersion", "0.5.0"},
                                 {"topicConfiguration", {{"cleanup.policy", {"delete"}}, {"retention.ms", -1}}}}}}},
        {"x-svc-kind", "events"},
    };
    operations["receive_" + area] = {
        {"action", "receive"},
        {"channel", {{"$ref", "#/channels/" + area}}},
        {"summary", "Read the " + area + " events (any consumer group)."},
        {"messages", op_messages},
    };
  }
  // The state topics (projections/state_records.h): the latest state per subject, compacted.
  for (const auto& st : projections::StateTopics()) {
    const std::string id = MessageId(st.type);
    const std::string channel = st.area + "_state";
    messages[id] = {
        {"name", st.type},
        {"title", st.type},
        {"summary", "The latest state of a " + st.aggregate_type + "; a null value (tombstone) once it is erased or "
                    "no longer held."},
        {"contentType", "application/json"},
        {"headers", RecordHeaders()},
        {"payload", {{"$ref", "#/components/schemas/" + SchemaName(st.type, st.schema_version)}}},
        {"bindings", {{"kafka", {{"key", {{"type", "string"}, {"description", "The subject's id, a person's pseudonym (= ce_subject)."}}},
                                 {"bindingVersion", "0.5.0"}}}}},
        {"x-svc-schema-version", st.schema_version},
        {"x-svc-dataschema", cm::EventSchemaUri(public_base_url, st.type, st.schema_version)},
        {"x-svc-aggregate-types", {st.aggregate_type}},
    };
    schemas[SchemaName(st.type, st.schema_version)] = st.schema;
    channels[channel] = {
        {"address", "{prefix}.{environment}." + st.area + ".state"},
        {"title", channel},
        {"description", "The latest state of each " + st.aggregate_type + " of one environment, keyed by its id: a "
                        "compacted topic a new consumer reads instead of the whole history. A record is published "
                        "with the events that changed the subject, in the same transaction."},
        {"parameters", {{"prefix", {{"default", "svc"}, {"description", "The service's --kafka-topic-prefix."}}},
                        {"environment", {{"enum", {"live", "test"}}, {"description", "Test and live never share a topic."}}}}},
        {"messages", {{id, {{"$ref", "#/components/messages/" + id}}}}},
        {"bindings", {{"kafka", {{"bindingVersion", "0.5.0"}, {"topicConfiguration", {{"cleanup.policy", {"compact"}}}}}}}},
        {"x-svc-kind", "state"},
    };
    operations["receive_" + channel] = {
        {"action", "receive"},
        {"channel", {{"$ref", "#/channels/" + channel}}},
        {"summary", "Read the latest " + st.aggregate_type + " states (any consumer group)."},
        {"messages", {{{"$ref", "#/channels/" + channel + "/messages/" + id}}}},
    };
  }
  for (const auto& info : cm::EventCatalogue()) {
    if (info.audience == cm::Audience::kInternal) internal.push_back(info.type);
  }
  doc["channels"] = channels;
  doc["operations"] = operations;
  doc["components"] = {{"schemas", schemas}, {"messages", messages}};
  doc["x-svc-internal-types"] = internal;
  doc["x-svc-erasure-types"] = erasure;
  core::Json unpublished = {"sealed", "index", "*Sealed"};
  for (std::string_view m : cm::kUnpublishedMembers) unpublished.push_back(std::string(m));
  doc["x-svc-unpublished-members"] = unpublished;
  return doc;
}

}  // namespace svc::api
