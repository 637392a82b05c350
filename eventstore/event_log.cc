#include "eventstore/event_log.h"

#include <future>

#include "eventstore/kv_store.h"

namespace svc::eventstore {

core::Result<AppendResult> EventLog::AppendAndWait(uint32_t partition,
                                                   std::vector<EventEnvelope> events) {
  std::promise<core::Result<AppendResult>> promise;
  auto future = promise.get_future();
  Append(partition, std::move(events),
         [&promise](core::Result<AppendResult> r) { promise.set_value(std::move(r)); });
  return future.get();
}

bool EventLog::AnswerTrivialAppend(uint32_t partition, const std::vector<EventEnvelope>& events,
                                   AppendCallback& done) const {
  if (partition >= PartitionCount()) {
    done(core::InvalidArgument("partition out of range"));
    return true;
  }
  if (events.empty()) {
    done(AppendResult{});
    return true;
  }
  return false;
}

PartitionCheckpoint CheckpointAfter(const RecordedEvent& e) {
  return PartitionCheckpoint{e.position.offset + 1, e.backend_cursor, e.backend_epoch};
}

std::string EncodeCheckpoint(const PartitionCheckpoint& c) {
  std::string v;
  PutFixed64BE(v, c.next_offset);
  PutFixed64BE(v, static_cast<uint64_t>(c.backend_cursor));
  PutFixed64BE(v, c.backend_epoch);
  return v;
}

PartitionCheckpoint DecodeCheckpoint(std::string_view v) {
  PartitionCheckpoint c;
  if (v.size() >= 16) {
    c.next_offset = GetFixed64BE(v);
    c.backend_cursor = static_cast<int64_t>(GetFixed64BE(v.substr(8)));
  }
  if (v.size() >= 24) c.backend_epoch = GetFixed64BE(v.substr(16));
  return c;
}

}  // namespace svc::eventstore
