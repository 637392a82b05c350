#pragma once
// The review case aggregate. Opening is idempotent: the pipeline derives the case id from the
// submission's tracking id, so a pipeline resumed after a crash opens the same case, once.

#include "commands/command.h"
#include "commands/review/case_events.h"

namespace svc::commands::review {

struct CaseState {
  bool exists = false;
  std::string status;
  std::string session_id;

  static constexpr auto Fields() {
    using core::Field;
    using T = CaseState;
    return std::tuple{Field("exists", &T::exists),
                      Field("status", &T::status),
                      Field("sessionId", &T::session_id)};
  }
};

struct OpenCase {
  CaseOpened opened;
};
using CaseCommand = std::variant<OpenCase>;

struct CaseDecider {
  using State = CaseState;
  static constexpr std::string_view kName = "review_case";
  static core::Result<Decision> Decide(const CaseState& s, const CaseCommand& c,
                                       const CommandContext& ctx);
  static core::Status Evolve(CaseState& s, const eventstore::EventEnvelope& e);
  static core::Json ToJson(const CaseState& s);
  static core::Result<CaseState> FromJson(std::string_view text);
};

// The case id the pipeline uses for a submission: cas_ + 32 hex of SHA-256(tracking id).
std::string CaseIdForTracking(std::string_view tracking_id);

}  // namespace svc::commands::review
