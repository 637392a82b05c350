#include "core/log.h"

#include <atomic>
#include <cstdio>
#include <mutex>

#include "core/clock.h"

namespace svc::core {
namespace {
std::atomic<int> g_level{static_cast<int>(LogLevel::kInfo)};
std::mutex g_mu;
std::string_view LevelName(LogLevel l) {
  switch (l) {
    case LogLevel::kDebug: return "debug";
    case LogLevel::kInfo: return "info";
    case LogLevel::kWarn: return "warn";
    case LogLevel::kError: return "error";
  }
  return "info";
}
}  // namespace

void SetLogLevel(LogLevel level) { g_level.store(static_cast<int>(level)); }
bool LogEnabled(LogLevel level) { return static_cast<int>(level) >= g_level.load(); }

void Log(LogLevel level, std::string_view msg,
         std::initializer_list<std::pair<std::string_view, Json>> fields) {
  if (static_cast<int>(level) < g_level.load()) return;
  Json line;
  line["ts"] = FormatRfc3339(SystemClock().Now());
  line["level"] = LevelName(level);
  line["msg"] = msg;
  for (const auto& [k, v] : fields) line[std::string(k)] = v;
  std::string text = DumpJson(line);
  text += '\n';
  std::lock_guard lock(g_mu);
  std::fwrite(text.data(), 1, text.size(), stderr);
  std::fflush(stderr);
}

}  // namespace svc::core
