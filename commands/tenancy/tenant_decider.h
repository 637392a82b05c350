#pragma once
// The tenant aggregate: a tenant, its applications and its API keys. One aggregate per tenant
// (aggregate id = tenant id), so "application name taken" and "key already revoked" are decided
// against one consistent state.

#include <string>
#include <variant>
#include <vector>

#include "commands/command.h"
#include "commands/decider.h"
#include "commands/tenancy/tenancy_events.h"

namespace svc::commands::tenancy {

struct KeyState {
  std::string id;
  std::string application_id;
  std::string environment;
  std::string key_type;
  std::vector<std::string> scopes;
  std::string secret_hash;
  std::string last4;
  std::string name;
  int64_t created_micros = 0;
  int64_t revoked_micros = 0;  // 0 = active
  std::vector<std::string> flows;  // empty: any flow

  static constexpr auto Fields() {
    using T = KeyState;
    return std::tuple{core::Field("id", &T::id), core::Field("applicationId", &T::application_id),
                      core::Field("environment", &T::environment),
                      core::Field("keyType", &T::key_type), core::Field("scopes", &T::scopes),
                      core::Field("secretHash", &T::secret_hash), core::Field("last4", &T::last4),
                      core::Field("name", &T::name),
                      core::Field("createdMicros", &T::created_micros),
                      core::Field("revokedMicros", &T::revoked_micros),
                      core::Field("flows", &T::flows, core::Empty::kOmit)};
  }
};

struct ApplicationState {
  std::string id;
  std::string name;
  bool is_default = false;
  bool archived = false;
  std::vector<std::string> allowed_flows;  // empty: any
  std::string default_flow;
  std::vector<std::string> allowed_origins;
  std::string privacy_notice_url;

  static constexpr auto Fields() {
    using T = ApplicationState;
    return std::tuple{core::Field("id", &T::id), core::Field("name", &T::name),
                      core::Field("isDefault", &T::is_default),
                      core::Field("archived", &T::archived, core::Empty::kOmit),
                      core::Field("allowedFlows", &T::allowed_flows, core::Empty::kOmit),
                      core::Field("defaultFlow", &T::default_flow, core::Empty::kOmit),
                      core::Field("allowedOrigins", &T::allowed_origins, core::Empty::kOmit),
                      core::Field("privacyNoticeUrl", &T::privacy_notice_url, core::Empty::kOmit)};
  }
};

struct UserState {
  std::string id;
  std::string role;
  std::string label;
  std::string secret_hash;
  bool disabled = false;
  static constexpr auto Fields() {
    using T = UserState;
    return std::tuple{core::Field("id", &T::id), core::Field("role", &T::role),
                      core::Field("label", &T::label), core::Field("secretHash", &T::secret_hash),
                      core::Field("disabled", &T::disabled)};
  }
};

struct TenantState {
  bool exists = false;
  std::string id;
  std::string name;
  int64_t created_micros = 0;
  std::vector<ApplicationState> applications;
  std::vector<KeyState> keys;
  std::vector<UserState> users;
  std::string export_key_id;      // "" = none set
  std::string export_public_key;  // base64url
  // The review policy (tenancy.review_policy_set): none | declines | all; approvals under this
  // trust score need a second reviewer (0: off). Read by the review case's resolution.
  std::string review_double_approval;
  double review_trust_below = 0;

  const KeyState* FindKey(std::string_view key_id) const;
  const ApplicationState* DefaultApplication() const;
  const ApplicationState* FindApplication(std::string_view application_id) const;
  const UserState* FindUser(std::string_view user_id) const;
  // An active (not disabled) user who may work review cases.
  bool IsReviewer(std::string_view user_id) const;

  // The snapshot's members (TenantDecider::ToJson / FromJson).
  static constexpr auto Fields() {
    using T = TenantState;
    return std::tuple{
        core::Field("exists", &T::exists),
        core::Field("id", &T::id),
        core::Field("name", &T::name),
        core::Field("createdMicros", &T::created_micros),
        core::Field("applications", &T::applications),
        core::Field("keys", &T::keys),
        core::Field("users", &T::users, core::Empty::kOmit),
        core::Field("reviewDoubleApproval", &T::review_double_approval, core::Empty::kOmit),
        core::Field("reviewTrustBelow", &T::review_trust_below, core::Empty::kOmit),
        core::Field("exportKeyId", &T::export_key_id, core::Empty::kOmit),
        core::Field("exportPublicKey", &T::export_public_key, core::Empty::kOmit)};
  }
};

struct CreateTenant {
  std::string name;
  std::string default_application_id;  // minted by the handler
  static constexpr std::string_view kCommand = "CreateTenant";
  static constexpr auto Fields() {
    using T = CreateTenant;
    return std::tuple{core::Field("name", &T::name),
                      core::Field("defaultApplicationId", &T::default_application_id)};
  }
};
struct CreateApplication {
  std::string application_id;
  std::string name;
  static constexpr std::string_view kCommand = "CreateApplication";
  static constexpr auto Fields() {
    using T = CreateApplication;
    return std::tuple{core::Field("applicationId", &T::application_id),
                      core::Field("name", &T::name)};
  }
};
struct CreateApiKey {
  std::string key_id;
  std::string application_id;  // empty: the default application
  std::string environment;
  std::string key_type;
  std::vector<std::string> scopes;
  std::string secret_hash;
  std::string last4;
  std::string name;
  std::vector<std::string> flows;  // flow ids the key is restricted to (checked to exist by the caller)
  static constexpr std::string_view kCommand = "CreateApiKey";
  static constexpr auto Fields() {
    using T = CreateApiKey;
    return std::tuple{core::Field("keyId", &T::key_id),
                      core::Field("applicationId", &T::application_id),
                      core::Field("environment", &T::environment),
                      core::Field("keyType", &T::key_type),
                      core::Field("scopes", &T::scopes),
                      core::Field("secretHash", &T::secret_hash),
                      core::Field("last4", &T::last4),
                      core::Field("name", &T::name),
                      core::Field("flows", &T::flows)};
  }
};
// Archive an application (CANNOT_ARCHIVE_DEFAULT for the default one; archiving again is a no-op).
struct ArchiveApplication {
  std::string application_id;
  static constexpr std::string_view kCommand = "ArchiveApplication";
  static constexpr auto Fields() {
    using T = ArchiveApplication;
    return std::tuple{core::Field("applicationId", &T::application_id)};
  }
};
// Replace an application's embedded settings. Flow ids are checked to exist by the caller (flows
// are their own aggregates); the decider checks the default is among the allowed, the origins'
// form and that no other application of the tenant holds one of them.
struct SetApplicationSettings {
  std::string application_id;
  std::vector<std::string> allowed_flows;
  std::string default_flow;
  std::vector<std::string> allowed_origins;
  std::string privacy_notice_url;  // https (http only for localhost); "" = none
  static constexpr std::string_view kCommand = "SetApplicationSettings";
  static constexpr auto Fields() {
    using T = SetApplicationSettings;
    return std::tuple{core::Field("applicationId", &T::application_id),
                      core::Field("allowedFlows", &T::allowed_flows),
                      core::Field("defaultFlow", &T::default_flow),
                      core::Field("allowedOrigins", &T::allowed_origins),
                      core::Field("privacyNoticeUrl", &T::privacy_notice_url, core::Empty::kOmit)};
  }
};
struct RevokeApiKey {
  std::string key_id;
  std::string reason;
  static constexpr std::string_view kCommand = "RevokeApiKey";
  static constexpr auto Fields() {
    using T = RevokeApiKey;
    return std::tuple{core::Field("keyId", &T::key_id),
                      core::Field("reason", &T::reason)};
  }
};
// Sets the tenant's export key (a 32-byte X25519 public key, base64url).
struct SetExportKey {
  std::string public_key;
  static constexpr std::string_view kCommand = "SetExportKey";
  static constexpr auto Fields() {
    using T = SetExportKey;
    return std::tuple{core::Field("publicKey", &T::public_key)};
  }
};
struct CreateUser {
  std::string user_id;  // minted by the handler
  std::string role;     // reviewer | supervisor
  std::string label;
  std::string secret_hash;
  std::string last4;
  static constexpr std::string_view kCommand = "CreateUser";
  static constexpr auto Fields() {
    using T = CreateUser;
    return std::tuple{core::Field("userId", &T::user_id),
                      core::Field("role", &T::role),
                      core::Field("label", &T::label),
                      core::Field("secretHash", &T::secret_hash),
                      core::Field("last4", &T::last4)};
  }
};
struct DisableUser {
  std::string user_id;
  static constexpr std::string_view kCommand = "DisableUser";
  static constexpr auto Fields() {
    using T = DisableUser;
    return std::tuple{core::Field("userId", &T::user_id)};
  }
};
struct SetReviewPolicy {
  std::string double_approval;
  double trust_below = 0;
  static constexpr std::string_view kCommand = "SetReviewPolicy";
  static constexpr auto Fields() {
    using T = SetReviewPolicy;
    return std::tuple{core::Field("doubleApproval", &T::double_approval),
                      core::Field("trustBelow", &T::trust_below)};
  }
};
using TenancyCommand = std::variant<CreateTenant, CreateApplication, CreateApiKey, RevokeApiKey, SetExportKey,
                                    CreateUser, DisableUser, SetReviewPolicy, ArchiveApplication,
                                    SetApplicationSettings>;

struct TenantDecider : FieldSnapshots<TenantDecider, TenantState> {
  using CommandType = TenancyCommand;
  static constexpr std::string_view kName = "tenant";
  // No route or manager runs its commands with an Idempotency-Key: their answers are given live
  // only, never told again after a crash (the writer logs a keyed one whose answer its events
  // cannot tell; tests/support/decider_spec.h checks the others).
  static constexpr bool kNeverKeyed = true;

  static core::Result<Decision> Decide(const TenantState& state, const TenancyCommand& command,
                                       const CommandContext& ctx);
  static core::Status Evolve(TenantState& state, const eventstore::EventEnvelope& event);
  // Pure evolution over a decoded event (what Evolve uses after decoding).
  static void EvolveDecoded(TenantState& state, const TenancyEvent& event,
                            core::Timestamp occurred_at, std::string_view tenant_id);
};

}  // namespace svc::commands::tenancy
