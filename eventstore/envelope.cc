#include "eventstore/envelope.h"

#include <simdjson.h>

#include <cstring>

#include "core/json.h"

namespace svc::eventstore {

std::string EncodeEnvelope(const EventEnvelope& e) {
  core::Json j;
  j["id"] = e.id;
  j["type"] = e.type;
  j["schemaVersion"] = e.schema_version;
  j["tenantId"] = e.tenant_id;
  j["environment"] = e.environment;
  j["aggregateType"] = e.aggregate_type;
  j["aggregateId"] = e.aggregate_id;
  j["aggregateVersion"] = e.aggregate_version;
  j["occurredAt"] = core::FormatRfc3339Micros(e.occurred_at);
  j["actor"] = core::Json{{"type", e.actor.type}, {"id", e.actor.id}};
  j["requestId"] = e.request_id;
  j["correlationId"] = e.correlation_id;
  j["causationId"] = e.causation_id;
  if (!e.idempotency_key.empty()) {
    j["idempotencyKey"] = e.idempotency_key;
    j["requestFingerprint"] = e.request_fingerprint;
  }
  if (!e.command_ref.empty()) j["commandRef"] = e.command_ref;
  // `data` is already JSON text (a decider's JSON writer made it): it is checked to be one JSON
  // object (simdjson validates the whole document) and placed as the last member as it is,
  // rather than parsed and serialised again (that was a tenth of a write's CPU).
  static thread_local simdjson::dom::parser validator;
  bool object = false;
  if (!e.data.empty()) {
    simdjson::dom::element doc;
    object = validator.parse(e.data).get(doc) == simdjson::SUCCESS && doc.is_object();
  }
  std::string out = core::DumpJson(j);
  out.pop_back();  // the closing brace of the envelope object
  out.append(",\"data\":").append(object ? std::string_view(e.data) : std::string_view("{}"));
  out.push_back('}');
  return out;
}

namespace {

thread_local simdjson::ondemand::parser t_parser;
thread_local std::string t_buffer;

core::Status Corrupt(std::string_view what) {
  return core::DataLoss("event envelope is not valid: " + std::string(what));
}

}  // namespace

core::Result<EventEnvelope> DecodeEnvelope(std::string_view json) {
  EventEnvelope e;
  SVC_RETURN_IF_ERROR(DecodeEnvelopeInto(json, e));
  return e;
}

core::Status DecodeEnvelopeInto(std::string_view json, EventEnvelope& e) {
  using namespace simdjson;
  e = EventEnvelope{};
  if (t_buffer.size() < json.size() + SIMDJSON_PADDING) t_buffer.resize(json.size() + SIMDJSON_PADDING);
  std::memcpy(t_buffer.data(), json.data(), json.size());
  ondemand::document doc;
  if (t_parser.iterate(padded_string_view(t_buffer.data(), json.size(), t_buffer.size()))
          .get(doc) != SUCCESS) {
    return Corrupt("not JSON");
  }
  ondemand::object obj;
  if (doc.get_object().get(obj) != SUCCESS) return Corrupt("not an object");
  bool saw_data = false;
  for (auto field : obj) {
    std::string_view key;
    if (field.unescaped_key().get(key) != SUCCESS) return Corrupt("bad key");
    ondemand::value v = field.value();
    auto str = [&](std::string& out) -> bool {
      std::string_view s;
      if (v.get_string().get(s) != SUCCESS) return false;
      out.assign(s);
      return true;
    };
    bool ok = true;
    if (key == "id") ok = str(e.id);
    else if (key == "type") ok = str(e.type);
    else if (key == "schemaVersion") {
      int64_t n = 0;
      ok = v.get_int64().get(n) == SUCCESS;
      e.schema_version = static_cast<int>(n);
    } else if (key == "tenantId") ok = str(e.tenant_id);
    else if (key == "environment") ok = str(e.environment);
    else if (key == "aggregateType") ok = str(e.aggregate_type);
    else if (key == "aggregateId") ok = str(e.aggregate_id);
    else if (key == "aggregateVersion") ok = v.get_int64().get(e.aggregate_version) == SUCCESS;
    else if (key == "occurredAt") {
      std::string t;
      ok = str(t);
      if (ok) {
        auto ts = core::ParseRfc3339(t);
        ok = ts.ok();
        if (ok) e.occurred_at = *ts;
      }
    }
    else if (key == "actor") {
      ondemand::object a;
      ok = v.get_object().get(a) == SUCCESS;
      for (auto af : a) {
        if (!ok) break;
        std::string_view ak, av;
        ok = af.unescaped_key().get(ak) == SUCCESS && af.value().get_string().get(av) == SUCCESS;
        if (ak == "type") e.actor.type.assign(av);
        else if (ak == "id") e.actor.id.assign(av);
      }
    } else if (key == "requestId") ok = str(e.request_id);
    else if (key == "correlationId") ok = str(e.correlation_id);
    else if (key == "causationId") ok = str(e.causation_id);
    else if (key == "idempotencyKey") ok = str(e.idempotency_key);
    else if (key == "requestFingerprint") ok = str(e.request_fingerprint);
    else if (key == "commandRef") ok = str(e.command_ref);
    else if (key == "data") {
      ondemand::object d;
      std::string_view raw;
      ok = v.get_object().get(d) == SUCCESS && d.raw_json().get(raw) == SUCCESS;
      e.data.assign(raw);
      saw_data = true;
    }
    if (!ok) return Corrupt(key);
  }
  if (e.id.empty() || e.type.empty() || e.tenant_id.empty() || !saw_data) {
    return Corrupt("missing required member");
  }
  return core::Status::Ok();
}

uint32_t PartitionForTenant(std::string_view tenant_id, uint32_t partition_count) {
  // FNV-1a, 64 bit: stable across platforms and releases (never change it: it places data).
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : tenant_id) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return partition_count == 0 ? 0 : static_cast<uint32_t>(h % partition_count);
}

}  // namespace svc::eventstore
