#pragma once
// Verification session events. Type names are stable and never renamed. No plaintext personal
// data: the consenting subject's IP address and user agent, the integrator's free-form `meta`
// and the link token are sealed (XChaCha20-Poly1305 under a server key, AAD = session id) before
// they enter an event.

#include <optional>
#include <string>
#include <variant>

#include "core/json.h"
#include "core/status.h"
#include "eventstore/envelope.h"

namespace svc::commands::verification {

struct SessionCreated {
  static constexpr std::string_view kType = "verification.session_created";
  static constexpr int kSchema = 1;
  std::string public_id;
  std::string channel;
  std::string application_id;
  std::string flow_id;   // "" = null
  std::string flow;      // "" = null
  std::string person_id;  // "" = null
  std::string client_reference;  // "" = null
  bool has_client_reference = false;
  std::string country;
  std::string locale;
  std::string notifications_mode;
  std::string callback_url;  // "" = null
  std::string redirect_url;  // "" = null
  core::Json checks;         // object or null
  core::Json policy;         // object or null
  std::string meta_sealed;   // base64 of sealed JSON, "" = none
  std::string link_token_sealed;  // base64 of sealed token, "" = none
  int64_t expires_at_micros = 0;
};

struct ConsentRecorded {
  static constexpr std::string_view kType = "verification.consent_recorded";
  static constexpr int kSchema = 1;
  bool accepted = false;
  int64_t consented_at_micros = 0;  // the subject's time, or the record time when not given
  std::string policy_version;
  std::string subject_sealed;  // base64 of sealed {"ip":…, "userAgent":…}, "" = none
};

struct SessionExpired {
  static constexpr std::string_view kType = "verification.session_expired";
  static constexpr int kSchema = 1;
};

using SessionEvent = std::variant<SessionCreated, ConsentRecorded, SessionExpired>;

std::string_view TypeOf(const SessionEvent& e);
int SchemaOf(const SessionEvent& e);
std::string EncodeData(const SessionEvent& e);
core::Result<SessionEvent> Decode(const eventstore::EventEnvelope& envelope);

}  // namespace svc::commands::verification
