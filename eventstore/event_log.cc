#include "eventstore/event_log.h"

#include <future>

namespace svc::eventstore {

core::Result<AppendResult> EventLog::AppendAndWait(uint32_t partition,
                                                   std::vector<EventEnvelope> events) {
  std::promise<core::Result<AppendResult>> promise;
  auto future = promise.get_future();
  Append(partition, std::move(events),
         [&promise](core::Result<AppendResult> r) { promise.set_value(std::move(r)); });
  return future.get();
}

}  // namespace svc::eventstore
