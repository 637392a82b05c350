#include "commands/tenancy/tenant_decider.h"

#include "commands/event_codec.h"

#include <algorithm>
#include <set>

#include "commands/embedded/origins.h"
#include "commands/tenancy/scopes.h"
#include "core/crypto.h"

namespace svc::commands::tenancy {

const KeyState* TenantState::FindKey(std::string_view key_id) const {
  for (const auto& k : keys) {
    if (k.id == key_id) return &k;
  }
  return nullptr;
}

const ApplicationState* TenantState::DefaultApplication() const {
  for (const auto& a : applications) {
    if (a.is_default) return &a;
  }
  return nullptr;
}

const ApplicationState* TenantState::FindApplication(std::string_view application_id) const {
  for (const auto& a : applications) {
    if (a.id == application_id) return &a;
  }
  return nullptr;
}

const UserState* TenantState::FindUser(std::string_view user_id) const {
  for (const auto& u : users) {
    if (u.id == user_id) return &u;
  }
  return nullptr;
}

bool TenantState::IsReviewer(std::string_view user_id) const {
  const UserState* u = FindUser(user_id);
  return u != nullptr && !u->disabled && (u->role == "reviewer" || u->role == "supervisor");
}

namespace {

NewEvent Make(const TenancyEvent& e) {
  return NewEvent{std::string(TypeOf(e)), SchemaOf(e), EncodeData(e)};
}

core::Status ValidateName(std::string_view field, const std::string& name) {
  if (name.empty() || name.size() > 200) {
    return core::InvalidArgument(std::string(field) + " must be 1 to 200 characters",
                                 "VALIDATION_ERROR");
  }
  for (unsigned char c : name) {
    if (c < 0x20 || c == 0x7f) {
      return core::InvalidArgument(std::string(field) + " must not contain control characters",
                                   "VALIDATION_ERROR");
    }
  }
  return core::Status::Ok();
}

core::Status TenantMustExist(const TenantState& s) {
  if (!s.exists) return core::NotFound("no such tenant", "TENANT_NOT_FOUND");
  return core::Status::Ok();
}

core::Result<Decision> DecideCreateTenant(const TenantState& s, const CreateTenant& c,
                                          const CommandContext& ctx) {
  if (s.exists) return core::AlreadyExists("the tenant already exists", "CONFLICT");
  SVC_RETURN_IF_ERROR(ValidateName("name", c.name));
  SVC_RETURN_IF_ERROR(core::ValidateId(core::IdKind::kApplication, c.default_application_id));
  Decision d;
  d.events.push_back(Make(TenantCreated{c.name}));
  d.events.push_back(Make(ApplicationCreated{c.default_application_id, "Default", true}));
  d.result = {{"defaultApplicationId", c.default_application_id}};
  (void)ctx;
  return d;
}

core::Result<Decision> DecideCreateApplication(const TenantState& s, const CreateApplication& c) {
  SVC_RETURN_IF_ERROR(TenantMustExist(s));
  SVC_RETURN_IF_ERROR(ValidateName("name", c.name));
  for (const auto& a : s.applications) {
    if (a.name == c.name) {
      return core::AlreadyExists("an application with this name exists",
                                 "APPLICATION_NAME_TAKEN");
    }
  }
  Decision d;
  d.events.push_back(Make(ApplicationCreated{c.application_id, c.name, false}));
  d.result = {{"applicationId", c.application_id}};
  return d;
}

core::Result<Decision> DecideCreateApiKey(const TenantState& s, const CreateApiKey& c) {
  SVC_RETURN_IF_ERROR(TenantMustExist(s));
  if (c.environment != "live" && c.environment != "test") {
    return core::InvalidArgument("environment must be live or test", "VALIDATION_ERROR");
  }
  if (c.key_type != "secret" && c.key_type != "publishable") {
    return core::InvalidArgument("key type must be secret or publishable", "VALIDATION_ERROR");
  }
  if (c.scopes.empty()) {
    return core::InvalidArgument("a key needs at least one scope", "VALIDATION_ERROR");
  }
  std::set<std::string> seen;
  for (const auto& scope : c.scopes) {
    SVC_RETURN_IF_ERROR(ValidateScope(scope));
    if (c.key_type == "publishable" && !ScopeAllowedForPublishable(scope)) {
      return core::InvalidArgument("a publishable key cannot hold scope " + scope,
                                   "SCOPE_NOT_ALLOWED_FOR_KEY_TYPE");
    }
    seen.insert(scope);
  }
  std::string app_id = c.application_id;
  if (app_id.empty()) {
    const ApplicationState* def = s.DefaultApplication();
    if (def == nullptr) return core::Internal("tenant has no default application");
    app_id = def->id;
  } else {
    const ApplicationState* app = s.FindApplication(app_id);
    if (app == nullptr) return core::NotFound("no such application", "APPLICATION_NOT_FOUND");
    if (app->archived) return core::PermissionDenied("the application is archived", "APPLICATION_ARCHIVED");
  }
  std::set<std::string> flows(c.flows.begin(), c.flows.end());
  for (const auto& f : flows) SVC_RETURN_IF_ERROR(core::ValidateId(core::IdKind::kFlow, f));
  if (s.FindKey(c.key_id) != nullptr) return core::AlreadyExists("key id in use", "CONFLICT");
  if (c.secret_hash.size() != 64) return core::Internal("key hash must be 64 hex characters");
  ApiKeyCreated e;
  e.key_id = c.key_id;
  e.application_id = app_id;
  e.environment = c.environment;
  e.key_type = c.key_type;
  e.scopes.assign(seen.begin(), seen.end());  // sorted, de-duplicated
  e.secret_hash = c.secret_hash;
  e.last4 = c.last4;
  e.name = c.name;
  e.flows.assign(flows.begin(), flows.end());
  Decision d;
  d.result = {{"keyId", c.key_id}, {"applicationId", app_id}, {"scopes", e.scopes}, {"flows", e.flows}};
  d.events.push_back(Make(e));
  return d;
}

core::Result<Decision> DecideRevokeApiKey(const TenantState& s, const RevokeApiKey& c) {
  SVC_RETURN_IF_ERROR(TenantMustExist(s));
  const KeyState* k = s.FindKey(c.key_id);
  if (k == nullptr) return core::NotFound("no such API key", "API_KEY_NOT_FOUND");
  Decision d;
  if (k->revoked_micros != 0) {
    // Idempotent: the first revocation stands and nothing new is recorded.
    d.result = {{"keyId", c.key_id}, {"alreadyRevoked", true}};
    return d;
  }
  d.events.push_back(Make(ApiKeyRevoked{c.key_id, c.reason}));
  d.result = {{"keyId", c.key_id}, {"alreadyRevoked", false}};
  return d;
}

core::Result<Decision> DecideSetExportKey(const TenantState& s, const SetExportKey& c) {
  SVC_RETURN_IF_ERROR(TenantMustExist(s));
  auto raw = core::Base64UrlDecode(c.public_key);
  if (!raw.ok() || raw->size() != core::kX25519KeyBytes) {
    return core::InvalidArgument("publicKey must be a 32-byte X25519 public key, base64url without padding",
                                 "VALIDATION_ERROR");
  }
  ExportKeySet e{"xk_" + core::Sha256Hex(*raw).substr(0, 16), core::Base64UrlEncode(*raw)};
  Decision d;
  d.result = {{"exportKeyId", e.key_id}, {"publicKey", e.public_key}};
  if (e.key_id == s.export_key_id) return d;  // the key in force: nothing to record
  d.events.push_back(Make(e));
  return d;
}

core::Result<Decision> DecideCreateUser(const TenantState& s, const CreateUser& c) {
  SVC_RETURN_IF_ERROR(TenantMustExist(s));
  SVC_RETURN_IF_ERROR(ValidateName("label", c.label));
  if (c.role != "reviewer" && c.role != "supervisor") {
    return core::InvalidArgument("role must be reviewer or supervisor", "VALIDATION_ERROR");
  }
  SVC_RETURN_IF_ERROR(core::ValidateId(core::IdKind::kUser, c.user_id));
  if (s.FindUser(c.user_id) != nullptr) return core::AlreadyExists("user id in use", "CONFLICT");
  if (c.secret_hash.size() != 64) return core::Internal("secret hash must be 64 hex characters");
  Decision d;
  d.events.push_back(Make(UserCreated{c.user_id, c.role, c.label, c.secret_hash, c.last4}));
  d.result = {{"userId", c.user_id}};
  return d;
}

core::Result<Decision> DecideDisableUser(const TenantState& s, const DisableUser& c) {
  SVC_RETURN_IF_ERROR(TenantMustExist(s));
  const UserState* u = s.FindUser(c.user_id);
  if (u == nullptr) return core::InvalidArgument("no such user of the tenant", "NOT_A_REVIEWER");
  Decision d;
  d.result = {{"userId", c.user_id}, {"alreadyDisabled", u->disabled}};
  if (!u->disabled) d.events.push_back(Make(UserDisabled{c.user_id}));
  return d;
}

core::Result<Decision> DecideSetReviewPolicy(const TenantState& s, const SetReviewPolicy& c) {
  SVC_RETURN_IF_ERROR(TenantMustExist(s));
  if (c.double_approval != "none" && c.double_approval != "declines" && c.double_approval != "all") {
    return core::InvalidArgument("doubleApproval must be none, declines or all", "VALIDATION_ERROR");
  }
  if (!(c.trust_below >= 0 && c.trust_below <= 1)) {
    return core::InvalidArgument("trustBelow must be between 0 and 1", "VALIDATION_ERROR");
  }
  Decision d;
  d.events.push_back(Make(ReviewPolicySet{c.double_approval, c.trust_below}));
  d.result = {{"doubleApproval", c.double_approval}, {"trustBelow", c.trust_below}};
  return d;
}

core::Result<Decision> DecideArchiveApplication(const TenantState& s, const ArchiveApplication& c) {
  SVC_RETURN_IF_ERROR(TenantMustExist(s));
  const ApplicationState* app = s.FindApplication(c.application_id);
  if (app == nullptr) return core::NotFound("no such application", "APPLICATION_NOT_FOUND");
  if (app->is_default) {
    return core::FailedPrecondition("the default application cannot be archived", "CANNOT_ARCHIVE_DEFAULT");
  }
  Decision d;
  d.result = {{"applicationId", c.application_id}, {"archived", true}, {"alreadyArchived", app->archived}};
  if (!app->archived) d.events.push_back(Make(ApplicationArchived{c.application_id}));
  return d;
}

core::Result<Decision> DecideSetApplicationSettings(const TenantState& s, const SetApplicationSettings& c) {
  SVC_RETURN_IF_ERROR(TenantMustExist(s));
  const ApplicationState* app = s.FindApplication(c.application_id);
  if (app == nullptr) return core::NotFound("no such application", "APPLICATION_NOT_FOUND");
  if (app->archived) return core::PermissionDenied("the application is archived", "APPLICATION_ARCHIVED");
  if (c.allowed_flows.size() > 100 || c.allowed_origins.size() > 50) {
    return core::InvalidArgument("at most 100 allowed flows and 50 allowed origins", "VALIDATION_ERROR");
  }
  ApplicationSettingsSet e;
  e.application_id = c.application_id;
  for (const auto& f : c.allowed_flows) {
    SVC_RETURN_IF_ERROR(core::ValidateId(core::IdKind::kFlow, f));
    if (std::find(e.allowed_flows.begin(), e.allowed_flows.end(), f) == e.allowed_flows.end()) {
      e.allowed_flows.push_back(f);
    }
  }
  if (!c.default_flow.empty()) {
    SVC_RETURN_IF_ERROR(core::ValidateId(core::IdKind::kFlow, c.default_flow));
    if (!e.allowed_flows.empty() &&
        std::find(e.allowed_flows.begin(), e.allowed_flows.end(), c.default_flow) == e.allowed_flows.end()) {
      return core::InvalidArgument("defaultFlow must be one of allowedFlows", "DEFAULT_FLOW_NOT_IN_ALLOWED");
    }
  }
  e.default_flow = c.default_flow;
  if (!c.privacy_notice_url.empty()) {
    const std::string& u = c.privacy_notice_url;
    const bool https = u.rfind("https://", 0) == 0 && u.size() > 8;
    const bool local = u.rfind("http://localhost", 0) == 0 || u.rfind("http://127.0.0.1", 0) == 0;
    const bool clean = u.size() <= 2048 && u.find_first_of(" \t\r\n\"<>") == std::string::npos;
    if (!(https || local) || !clean) {
      return core::InvalidArgument("privacyNoticeUrl must be an https URL (http only on localhost) of up to 2048 characters",
                                   "VALIDATION_ERROR");
    }
    e.privacy_notice_url = u;
  }
  SVC_ASSIGN_OR_RETURN(e.allowed_origins, embedded::NormalizeOrigins(c.allowed_origins, "allowedOrigins"));
  for (const auto& other : s.applications) {
    if (other.id == c.application_id || other.archived) continue;
    for (const auto& o : e.allowed_origins) {
      if (std::find(other.allowed_origins.begin(), other.allowed_origins.end(), o) != other.allowed_origins.end()) {
        return core::AlreadyExists("the origin " + o + " is already allowed for the application " + other.id,
                                   "ORIGIN_CONFLICT");
      }
    }
  }
  Decision d;
  d.result = {{"applicationId", c.application_id}, {"allowedFlows", e.allowed_flows},
              {"defaultFlow", e.default_flow.empty() ? core::Json(nullptr) : core::Json(e.default_flow)},
              {"allowedOrigins", e.allowed_origins},
              {"privacyNoticeUrl", e.privacy_notice_url.empty() ? core::Json(nullptr) : core::Json(e.privacy_notice_url)}};
  if (app->allowed_flows != e.allowed_flows || app->default_flow != e.default_flow ||
      app->allowed_origins != e.allowed_origins || app->privacy_notice_url != e.privacy_notice_url) {
    d.events.push_back(Make(e));
  }
  return d;
}

}  // namespace

core::Result<Decision> TenantDecider::Decide(const TenantState& state,
                                             const TenancyCommand& command,
                                             const CommandContext& ctx) {
  return std::visit(
      [&](const auto& c) -> core::Result<Decision> {
        using T = std::decay_t<decltype(c)>;
        if constexpr (std::is_same_v<T, CreateTenant>) return DecideCreateTenant(state, c, ctx);
        if constexpr (std::is_same_v<T, CreateApplication>) return DecideCreateApplication(state, c);
        if constexpr (std::is_same_v<T, CreateApiKey>) return DecideCreateApiKey(state, c);
        if constexpr (std::is_same_v<T, RevokeApiKey>) return DecideRevokeApiKey(state, c);
        if constexpr (std::is_same_v<T, SetExportKey>) return DecideSetExportKey(state, c);
        if constexpr (std::is_same_v<T, CreateUser>) return DecideCreateUser(state, c);
        if constexpr (std::is_same_v<T, DisableUser>) return DecideDisableUser(state, c);
        if constexpr (std::is_same_v<T, SetReviewPolicy>) return DecideSetReviewPolicy(state, c);
        if constexpr (std::is_same_v<T, ArchiveApplication>) return DecideArchiveApplication(state, c);
        if constexpr (std::is_same_v<T, SetApplicationSettings>) return DecideSetApplicationSettings(state, c);
      },
      command);
}

void TenantDecider::EvolveDecoded(TenantState& s, const TenancyEvent& event,
                                  core::Timestamp occurred_at, std::string_view tenant_id) {
  std::visit(
      [&](const auto& e) {
        using T = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<T, TenantCreated>) {
          s.exists = true;
          s.id = std::string(tenant_id);
          s.name = e.name;
          s.created_micros = occurred_at.micros;
        } else if constexpr (std::is_same_v<T, ApplicationCreated>) {
          ApplicationState a;
          a.id = e.application_id;
          a.name = e.name;
          a.is_default = e.is_default;
          s.applications.push_back(std::move(a));
        } else if constexpr (std::is_same_v<T, ApiKeyCreated>) {
          KeyState k;
          k.id = e.key_id;
          k.application_id = e.application_id;
          k.environment = e.environment;
          k.key_type = e.key_type;
          k.scopes = e.scopes;
          k.secret_hash = e.secret_hash;
          k.last4 = e.last4;
          k.name = e.name;
          k.flows = e.flows;
          k.created_micros = occurred_at.micros;
          s.keys.push_back(std::move(k));
        } else if constexpr (std::is_same_v<T, ApiKeyRevoked>) {
          for (auto& k : s.keys) {
            if (k.id == e.key_id && k.revoked_micros == 0) k.revoked_micros = occurred_at.micros;
          }
        } else if constexpr (std::is_same_v<T, ExportKeySet>) {
          s.export_key_id = e.key_id;
          s.export_public_key = e.public_key;
        } else if constexpr (std::is_same_v<T, UserCreated>) {
          s.users.push_back(UserState{e.user_id, e.role, e.label, e.secret_hash, false});
        } else if constexpr (std::is_same_v<T, UserDisabled>) {
          for (auto& u : s.users) {
            if (u.id == e.user_id) u.disabled = true;
          }
        } else if constexpr (std::is_same_v<T, ReviewPolicySet>) {
          s.review_double_approval = e.double_approval;
          s.review_trust_below = e.trust_below;
        } else if constexpr (std::is_same_v<T, ApplicationArchived>) {
          for (auto& a : s.applications) {
            if (a.id == e.application_id) a.archived = true;
          }
        } else if constexpr (std::is_same_v<T, ApplicationSettingsSet>) {
          for (auto& a : s.applications) {
            if (a.id != e.application_id) continue;
            a.allowed_flows = e.allowed_flows;
            a.default_flow = e.default_flow;
            a.allowed_origins = e.allowed_origins;
            a.privacy_notice_url = e.privacy_notice_url;
          }
        }
      },
      event);
}

core::Status TenantDecider::Evolve(TenantState& state, const eventstore::EventEnvelope& event) {
  SVC_ASSIGN_OR_RETURN(TenancyEvent e, Decode(event));
  EvolveDecoded(state, e, event.occurred_at, event.tenant_id);
  return core::Status::Ok();
}

}  // namespace svc::commands::tenancy
