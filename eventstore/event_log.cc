#include "eventstore/event_log.h"

#include <future>

namespace svc::eventstore {

core::Result<std::vector<LogPosition>> EventLog::AppendAndWait(uint32_t partition,
                                                               std::vector<EventEnvelope> events) {
  std::promise<core::Result<std::vector<LogPosition>>> promise;
  auto future = promise.get_future();
  Append(partition, std::move(events),
         [&promise](core::Result<std::vector<LogPosition>> r) { promise.set_value(std::move(r)); });
  return future.get();
}

}  // namespace svc::eventstore
