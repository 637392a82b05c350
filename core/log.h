#pragma once
// Structured logs: one JSON object per line on stderr. Never log personal data: fields carry ids,
// counts, codes and durations, not names, CURPs, e-mails or request bodies.

#include <initializer_list>
#include <string_view>
#include <utility>

#include "core/json.h"

namespace svc::core {

enum class LogLevel { kDebug, kInfo, kWarn, kError };

void SetLogLevel(LogLevel level);
// True when a line at `level` would be written: check it before building fields on hot paths.
bool LogEnabled(LogLevel level);
void Log(LogLevel level, std::string_view msg,
         std::initializer_list<std::pair<std::string_view, Json>> fields = {});

inline void LogInfo(std::string_view msg,
                    std::initializer_list<std::pair<std::string_view, Json>> f = {}) {
  Log(LogLevel::kInfo, msg, f);
}
inline void LogWarn(std::string_view msg,
                    std::initializer_list<std::pair<std::string_view, Json>> f = {}) {
  Log(LogLevel::kWarn, msg, f);
}
inline void LogError(std::string_view msg,
                     std::initializer_list<std::pair<std::string_view, Json>> f = {}) {
  Log(LogLevel::kError, msg, f);
}

}  // namespace svc::core
