#include "pipeline/verification/requested_input.h"

#include <string.h>  // memmem (GNU)

#include "core/crypto.h"

namespace svc::pipeline::verification {

namespace {

// Whether a stored record or body holds a sealed message at all: every row of a list page is
// checked, so glibc's memmem (a skip search on byte pairs), not std::string::find (which stops at
// every '"' of the JSON: a tenth of a list page's CPU, issue 70) nor std::boyer_moore_horspool_searcher
// (156 ns a 524-byte row against memmem's 66).
bool HoldsSealedMessage(std::string_view stored) {
  static constexpr std::string_view kMember = "\"messageSealed\"";
  return memmem(stored.data(), stored.size(), kMember.data(), kMember.size()) != nullptr;
}

std::string Aad(std::string_view tenant, std::string_view environment, std::string_view session_id) {
  return "svc/applicant-message/v1|" + std::string(tenant) + "|" + std::string(environment) + "|" +
         std::string(session_id);
}

}  // namespace

core::Result<std::string> SealApplicantMessage(eventstore::KeyStore& keys, std::string_view tenant,
                                               std::string_view environment, std::string_view session_id,
                                               std::string_view text) {
  if (text.empty()) return std::string();
  if (session_id.empty()) {
    return core::FailedPrecondition("the case has no session to ask more of", "CASE_HAS_NO_SESSION");
  }
  SVC_ASSIGN_OR_RETURN(auto key, keys.Get(eventstore::KeyStore::SessionKeyName(tenant, environment, session_id)));
  if (!key.has_value()) {
    return core::FailedPrecondition("the session's data was erased: it takes no message", "CASE_CLOSED");
  }
  std::string sealed = core::Base64Encode(core::AeadSeal(*key, text, Aad(tenant, environment, session_id)));
  core::SecureZero(*key);
  return sealed;
}

std::optional<std::string> OpenApplicantMessage(eventstore::KeyStore& keys, std::string_view tenant,
                                                std::string_view environment, std::string_view session_id,
                                                std::string_view sealed) {
  if (sealed.empty()) return std::nullopt;
  auto key = keys.Get(eventstore::KeyStore::SessionKeyName(tenant, environment, session_id));
  if (!key.ok() || !key->has_value()) return std::nullopt;
  auto raw = core::Base64Decode(sealed);
  std::optional<std::string> out;
  if (raw.ok()) {
    auto text = core::AeadOpen(**key, *raw, Aad(tenant, environment, session_id));
    if (text.ok()) out = std::move(*text);
  }
  core::SecureZero(**key);
  return out;
}

void OpenRequestedInput(eventstore::KeyStore& keys, std::string_view tenant, std::string_view environment,
                        std::string_view session_id, core::Json& requested_input) {
  if (!requested_input.is_object()) return;
  auto text = OpenApplicantMessage(keys, tenant, environment, session_id,
                                   core::StringOr(requested_input, "messageSealed"));
  requested_input["message"] = text.has_value() ? core::Json(std::move(*text)) : core::Json(nullptr);
  requested_input.erase("messageSealed");
}

std::string ServedSessionRecord(eventstore::KeyStore& keys, std::string_view tenant, std::string_view environment,
                                std::string stored) {
  if (!HoldsSealedMessage(stored)) return stored;
  core::Json record = core::ParseJsonOrDiscarded(stored);
  if (!record.is_object() || !record.contains("requestedInput")) return stored;
  OpenRequestedInput(keys, tenant, environment, core::StringOr(record, "id"), record["requestedInput"]);
  return core::DumpJson(record);
}

std::string WebhookBodyAsSent(eventstore::KeyStore& keys, std::string_view tenant, std::string_view environment,
                              std::string stored) {
  if (!HoldsSealedMessage(stored)) return stored;
  core::Json body = core::ParseJsonOrDiscarded(stored);
  if (!body.is_object() || !body.contains("data") || !body["data"].is_object() ||
      !body["data"].contains("requestedInput")) {
    return stored;
  }
  core::Json& data = body["data"];
  OpenRequestedInput(keys, tenant, environment, core::StringOr(data, "sessionId"), data["requestedInput"]);
  return core::DumpJson(body);
}

}  // namespace svc::pipeline::verification
