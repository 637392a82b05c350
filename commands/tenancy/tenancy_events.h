#pragma once
// Tenancy events: tenants, their applications and their API keys. Type names are stable and
// never renamed; each has an explicit schema version. No secret is ever in an event: an API key
// travels only as a keyed hash (HMAC-SHA256 under a server key) plus its last four characters.

#include <string>
#include <variant>
#include <vector>

#include "core/json.h"
#include "core/json_fields.h"
#include "core/status.h"
#include "eventstore/envelope.h"

namespace svc::commands::tenancy {

struct TenantCreated {
  static constexpr std::string_view kType = "tenancy.tenant_created";
  std::string name;

  static constexpr auto Fields() {
    using T = TenantCreated;
    return std::tuple{core::Field("name", &T::name)};
  }
};

struct ApplicationCreated {
  static constexpr std::string_view kType = "tenancy.application_created";
  std::string application_id;
  std::string name;
  bool is_default = false;

  static constexpr auto Fields() {
    using T = ApplicationCreated;
    return std::tuple{core::Field("applicationId", &T::application_id),
                      core::Field("name", &T::name), core::Field("isDefault", &T::is_default)};
  }
};

struct ApiKeyCreated {
  static constexpr std::string_view kType = "tenancy.api_key_created";
  std::string key_id;
  std::string application_id;
  std::string environment;  // "live" | "test"
  std::string key_type;     // "secret" | "publishable"
  std::vector<std::string> scopes;
  std::string secret_hash;  // hex HMAC-SHA256 of the full key string under the lookup key
  std::string last4;
  std::string name;
  // The flows the key may open sessions with (flow ids; empty: any flow its application allows).
  // An independent guard beside the application's (FLOW_NOT_ALLOWED_FOR_KEY).
  std::vector<std::string> flows;

  static constexpr auto Fields() {
    using T = ApiKeyCreated;
    return std::tuple{core::Field("keyId", &T::key_id),
                      core::Field("applicationId", &T::application_id),
                      core::Field("environment", &T::environment),
                      core::Field("keyType", &T::key_type), core::Field("scopes", &T::scopes),
                      core::Field("secretHash", &T::secret_hash), core::Field("last4", &T::last4),
                      core::Field("name", &T::name),
                      core::Field("flows", &T::flows, core::Empty::kOmit)};
  }
};

// An application archived (docs/embedded.md#applications): its keys stop working
// (APPLICATION_ARCHIVED); the default application is never archived (CANNOT_ARCHIVE_DEFAULT).
struct ApplicationArchived {
  static constexpr std::string_view kType = "tenancy.application_archived";
  std::string application_id;
  static constexpr auto Fields() { return std::tuple{core::Field("applicationId", &ApplicationArchived::application_id)}; }
};

// An application's embedded settings, replaced whole: the flows its sessions may use (empty: any
// published flow), the flow a session without one gets (one of the allowed), and the web origins
// its widget may be mounted on (an origin belongs to one application of a tenant).
struct ApplicationSettingsSet {
  static constexpr std::string_view kType = "tenancy.application_settings_set";
  std::string application_id;
  std::vector<std::string> allowed_flows;
  std::string default_flow;  // "" = none
  std::vector<std::string> allowed_origins;
  // The integrator's privacy notice (aviso de privacidad, LFPDPPP): linked from the consent the
  // applicant gives in the widget and the hosted page; required for live sessions of those channels.
  std::string privacy_notice_url;  // "" = none
  static constexpr auto Fields() {
    using T = ApplicationSettingsSet;
    return std::tuple{core::Field("applicationId", &T::application_id),
                      core::Field("allowedFlows", &T::allowed_flows),
                      core::Field("defaultFlow", &T::default_flow, core::Empty::kNull),
                      core::Field("allowedOrigins", &T::allowed_origins),
                      core::Field("privacyNoticeUrl", &T::privacy_notice_url, core::Empty::kOmit)};
  }
};

struct ApiKeyRevoked {
  static constexpr std::string_view kType = "tenancy.api_key_revoked";
  std::string key_id;
  std::string reason;

  static constexpr auto Fields() {
    using T = ApiKeyRevoked;
    return std::tuple{core::Field("keyId", &T::key_id), core::Field("reason", &T::reason)};
  }
};

// The tenant's export key: the X25519 public key every bulk export dump of the tenant is sealed
// to (docs/persons.md#bulk-export). Its secret key never reaches the service. A new one replaces
// the old for dumps written from then on.
struct ExportKeySet {
  static constexpr std::string_view kType = "tenancy.export_key_set";
  std::string key_id;      // xk_ + the first 16 hex digits of SHA-256(public key)
  std::string public_key;  // base64url, 32 bytes

  static constexpr auto Fields() {
    using T = ExportKeySet;
    return std::tuple{core::Field("keyId", &T::key_id), core::Field("publicKey", &T::public_key)};
  }
};

// A user of the tenant: a person who signs in to the review console (docs/review.md#reviewers).
// No personal data: `label` is a handle the operator chooses (a team name, "reviewer 3"), and the
// sign-in secret travels only as a keyed hash, like an API key.
struct UserCreated {
  static constexpr std::string_view kType = "tenancy.user_created";
  std::string user_id;
  std::string role;  // reviewer | supervisor
  std::string label;
  std::string secret_hash;  // hex HMAC-SHA256 of the sign-in secret under the lookup key
  std::string last4;
  static constexpr auto Fields() {
    using T = UserCreated;
    return std::tuple{core::Field("userId", &T::user_id), core::Field("role", &T::role),
                      core::Field("label", &T::label), core::Field("secretHash", &T::secret_hash),
                      core::Field("last4", &T::last4)};
  }
};

struct UserDisabled {
  static constexpr std::string_view kType = "tenancy.user_disabled";
  std::string user_id;
  static constexpr auto Fields() { return std::tuple{core::Field("userId", &UserDisabled::user_id)}; }
};

// The tenant's review policy (docs/review.md#double-approval): which resolutions need a second,
// different reviewer.
struct ReviewPolicySet {
  static constexpr std::string_view kType = "tenancy.review_policy_set";
  std::string double_approval;  // none | declines | all
  double trust_below = 0;       // approvals of sessions whose trust score is under this need two (0: off)
  static constexpr auto Fields() {
    using T = ReviewPolicySet;
    return std::tuple{core::Field("doubleApproval", &T::double_approval),
                      core::Field("trustBelow", &T::trust_below)};
  }
};

using TenancyEvent = std::variant<TenantCreated, ApplicationCreated, ApiKeyCreated, ApiKeyRevoked, ExportKeySet,
                                  UserCreated, UserDisabled, ReviewPolicySet, ApplicationArchived,
                                  ApplicationSettingsSet>;

// Codec: event <-> (type, schema version, data JSON), driven by each event's field list.
std::string_view TypeOf(const TenancyEvent& e);
int SchemaOf(const TenancyEvent& e);
std::string EncodeData(const TenancyEvent& e);
core::Result<TenancyEvent> Decode(const eventstore::EventEnvelope& envelope);

}  // namespace svc::commands::tenancy
