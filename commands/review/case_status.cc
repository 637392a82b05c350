#include "commands/review/case_status.h"

#include <type_traits>

namespace svc::commands::review {

std::optional<std::string_view> CaseStatusAfter(const CaseEvent& event, int64_t escalation_level) {
  // Back in the queue: where an escalated case waits, or where a new one does.
  const std::string_view back = escalation_level > 0 ? "escalated" : "open";
  return std::visit(
      [&](const auto& e) -> std::optional<std::string_view> {
        using T = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<T, CaseOpened>) return "open";
        if constexpr (std::is_same_v<T, CaseClaimed> || std::is_same_v<T, CaseReassigned>) return "in_progress";
        if constexpr (std::is_same_v<T, CaseReleased> || std::is_same_v<T, ResolutionProposed>) return back;
        if constexpr (std::is_same_v<T, CaseEscalated>) return "escalated";
        if constexpr (std::is_same_v<T, CaseResolved>) {
          return e.action == "request_more_info" ? std::string_view("closed") : std::string_view("resolved");
        }
        return std::nullopt;
      },
      event);
}

}  // namespace svc::commands::review
