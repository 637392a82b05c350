#include "commands/event_catalogue.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>
#include <variant>

#include "commands/audit/checkpoint.h"
#include "commands/audit/timestamps.h"
#include "commands/claims/claim_events.h"
#include "commands/compliance/blob_gc.h"
#include "commands/compliance/breach.h"
#include "commands/compliance/retention.h"
#include "commands/embedded/flow_events.h"
#include "commands/event_codec.h"
#include "commands/kyb/company_events.h"
#include "commands/kyb/screening_events.h"
#include "commands/persons/access_events.h"
#include "commands/persons/arco_request.h"
#include "commands/persons/client_token.h"
#include "commands/persons/export_job.h"
#include "commands/persons/import_job.h"
#include "commands/persons/person_events.h"
#include "commands/review/case_events.h"
#include "commands/tenancy/tenancy_events.h"
#include "commands/verification/efirma_challenge.h"
#include "commands/verification/session_events.h"
#include "commands/webhooks/endpoint_events.h"
#include "core/json_schema.h"

namespace svc::commands {

namespace {

// The types kept out of the public topics: control records and the steps of a process, whose
// outcome is another (public) event. Data, in one place; the test names each.
const std::set<std::string_view> kInternal = {
    "claims.claim_taken",               // uniqueness claims (a CURP, an external reference)
    "claims.claim_released",
    "webhook.delivery_attempt_started",  // a delivery's attempts: the webhook log serves them
    "webhook.delivery_attempted",
    "webhook.delivery_retried",
    "compliance.rows_swept",            // retention's sweeps of read-model rows
    "compliance.blobs_collected",       // object storage's garbage collection
    "evidence.timestamped",             // a NOM-151 request and its settling; evidence.recorded is public
    "evidence.timestamp_settled",
    "verification.embedded_mounted",    // the widget's frame handshake
    "verification.liveness_challenge_issued",  // the challenge a capture must answer
    "efirma.challenge_issued",          // the nonce an e.firma signs; efirma.checked is public
    "tenancy.api_key_created",          // credentials' lookup hashes
    "tenancy.export_key_set",           // the tenant's export public key
    "persons.client_token_issued",      // a one-use token's lookup hash
    "persons.merge_started",            // a merge's first step; persons.merged is public
};

// The types after which a consumer must delete what it derived from their subject (a person, a
// company's member, a session's media): docs/events.md, "Erasure downstream".
const std::set<std::string_view> kErasure = {
    "persons.forget_requested", "persons.person_purged", "persons.keys_destroyed", "persons.merged",
    "verification.media_purged", "kyb.subject_forgotten", "kyb.subject_keys_destroyed",
};

// Adds `type`, written by alternative T of an aggregate's events.
template <class T>
void AddType(std::map<std::string, EventTypeInfo>& out, const std::string& type, std::string_view aggregate,
             std::string_view area) {
  auto [it, fresh] = out.try_emplace(type);
  EventTypeInfo& info = it->second;
  if (fresh) {
    info.type = type;
    info.schema_version = kSchemaOf<T>;
    info.area = std::string(area);
    info.audience = kInternal.contains(type) ? Audience::kInternal : Audience::kPublic;
    info.erasure = kErasure.contains(type);
    info.data_schema = core::FieldsSchema<T>();
    info.public_schema = PublicSchema(info.data_schema);
  }
  if (std::find(info.aggregate_types.begin(), info.aggregate_types.end(), aggregate) == info.aggregate_types.end()) {
    info.aggregate_types.emplace_back(aggregate);
  }
}

// Every alternative of an aggregate's event variant that has its kType (one without writes
// several types, added by Build).
template <class Variant, size_t I = 0>
void AddVariant(std::map<std::string, EventTypeInfo>& out, std::string_view aggregate, std::string_view area) {
  if constexpr (I < std::variant_size_v<Variant>) {
    using T = std::variant_alternative_t<I, Variant>;
    if constexpr (requires { T::kType; }) AddType<T>(out, std::string(T::kType), aggregate, area);
    AddVariant<Variant, I + 1>(out, aggregate, area);
  }
}

std::vector<EventTypeInfo> Build() {
  std::map<std::string, EventTypeInfo> by_type;
  // Area by area: the public topics (docs/events.md says why these).
  AddVariant<verification::SessionEvent>(by_type, verification::kSessionAggregate, "verification");
  // A verdict's type follows from its outcome (session_events.h, kVerdictTypes).
  for (std::string_view t : verification::kVerdictTypes) {
    AddType<verification::VerdictReached>(by_type, std::string(t), verification::kSessionAggregate, "verification");
  }
  AddVariant<verification::EfirmaEvent>(by_type, verification::kEfirmaAggregate, "verification");
  AddVariant<persons::PersonEvent>(by_type, persons::kPersonAggregate, "persons");
  AddVariant<persons::AccessEvent>(by_type, persons::kRevealBudgetAggregate, "persons");
  AddVariant<persons::ClientTokenEvent>(by_type, persons::kClientTokenAggregate, "persons");
  AddVariant<persons::ArcoEvent>(by_type, persons::kArcoAggregate, "persons");
  AddVariant<persons::ExportEvent>(by_type, persons::kExportAggregate, "persons");
  AddVariant<persons::ImportEvent>(by_type, persons::kImportAggregate, "persons");
  AddVariant<review::CaseEvent>(by_type, "review_case", "review");
  AddVariant<kyb::CompanyEvent>(by_type, kyb::kCompanyAggregate, "kyb");
  AddVariant<kyb::AmlListEvent>(by_type, kyb::kAmlListAggregate, "kyb");
  AddVariant<kyb::ScreeningEvent>(by_type, kyb::kScreeningAggregate, "kyb");
  AddVariant<kyb::HitEvent>(by_type, kyb::kHitAggregate, "kyb");
  AddVariant<tenancy::TenancyEvent>(by_type, "tenant", "tenancy");
  AddVariant<embedded::FlowEvent>(by_type, embedded::kFlowAggregate, "tenancy");
  AddVariant<webhooks::EndpointEvent>(by_type, webhooks::kEndpointAggregate, "tenancy");
  AddVariant<webhooks::DeliveryEvent>(by_type, webhooks::kDeliveryAggregate, "tenancy");
  AddVariant<compliance::BreachEvent>(by_type, compliance::kBreachAggregate, "compliance");
  AddVariant<compliance::RetentionEvent>(by_type, compliance::kRetentionAggregate, "compliance");
  AddVariant<compliance::BlobGcEvent>(by_type, compliance::kBlobGcAggregate, "compliance");
  AddVariant<audit::TimestampsEvent>(by_type, audit::kTimestampsAggregate, "compliance");
  AddVariant<audit::AuditLogEvent>(by_type, audit::kAuditLogAggregate, "compliance");
  AddVariant<claims::ClaimEvent>(by_type, claims::kClaimAggregate, "claims");
  std::vector<EventTypeInfo> out;
  for (auto& [type, info] : by_type) out.push_back(std::move(info));
  const auto& areas = EventAreas();
  auto rank = [&](const std::string& area) { return std::find(areas.begin(), areas.end(), area) - areas.begin(); };
  std::stable_sort(out.begin(), out.end(), [&](const EventTypeInfo& a, const EventTypeInfo& b) {
    return rank(a.area) < rank(b.area);
  });
  return out;
}

}  // namespace

std::string EventSchemaUri(std::string_view public_base_url, std::string_view type, int version) {
  std::string base(public_base_url);
  while (!base.empty() && base.back() == '/') base.pop_back();
  return base + "/v1/asyncapi.json#/components/schemas/" + std::string(type) + ".v" + std::to_string(version);
}

bool IsUnpublishedMember(std::string_view name) {
  if (name == "sealed" || name == "index" || name.ends_with("Sealed")) return true;
  return std::find(std::begin(kUnpublishedMembers), std::end(kUnpublishedMembers), name) != std::end(kUnpublishedMembers);
}

core::Json PublicData(const core::Json& data) {
  if (data.is_object()) {
    core::Json out = core::Json::object();
    for (auto it = data.begin(); it != data.end(); ++it) {
      if (!IsUnpublishedMember(it.key())) out[it.key()] = PublicData(*it);
    }
    return out;
  }
  if (data.is_array()) {
    core::Json out = core::Json::array();
    for (const auto& v : data) out.push_back(PublicData(v));
    return out;
  }
  return data;
}

core::Json PublicSchema(const core::Json& schema) {
  if (!schema.is_object()) return schema;
  core::Json out = core::Json::object();
  for (auto it = schema.begin(); it != schema.end(); ++it) {
    const std::string& k = it.key();
    if (k == "properties" && it->is_object()) {
      core::Json props = core::Json::object();
      for (auto p = it->begin(); p != it->end(); ++p) {
        if (!IsUnpublishedMember(p.key())) props[p.key()] = PublicSchema(*p);
      }
      out[k] = std::move(props);
    } else if (k == "required" && it->is_array()) {
      core::Json req = core::Json::array();
      for (const auto& name : *it) {
        if (!IsUnpublishedMember(name.get<std::string>())) req.push_back(name);
      }
      if (!req.empty()) out[k] = std::move(req);
    } else if (k == "items" || k == "additionalProperties") {
      out[k] = PublicSchema(*it);
    } else if (k == "anyOf" && it->is_array()) {
      core::Json any = core::Json::array();
      for (const auto& v : *it) any.push_back(PublicSchema(v));
      out[k] = std::move(any);
    } else {
      out[k] = *it;
    }
  }
  return out;
}

const std::vector<std::string>& EventAreas() {
  // "claims" holds only internal types: it has no public topic and sorts last.
  static const std::vector<std::string> areas = {"verification", "persons", "review", "kyb", "tenancy", "compliance"};
  return areas;
}

const std::vector<EventTypeInfo>& EventCatalogue() {
  static const std::vector<EventTypeInfo> catalogue = Build();
  return catalogue;
}

std::vector<std::string> UnknownListedTypes() {
  std::vector<std::string> out;
  for (const auto* list : {&kInternal, &kErasure}) {
    for (std::string_view t : *list) {
      if (FindEventType(t) == nullptr) out.emplace_back(t);
    }
  }
  return out;
}

const EventTypeInfo* FindEventType(std::string_view type) {
  // Asked once for every event the publisher reads: a hash lookup, not a scan of the 105 types.
  static const auto* const by_type = [] {
    auto* m = new std::unordered_map<std::string_view, const EventTypeInfo*>();
    for (const auto& info : EventCatalogue()) m->emplace(info.type, &info);
    return m;
  }();
  auto it = by_type->find(type);
  return it == by_type->end() ? nullptr : it->second;
}

}  // namespace svc::commands
