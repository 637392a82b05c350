#pragma once
// PeriodicFlush: flushes a store's memtables every interval, so that what a crash takes back is
// bounded in time. Rows derived from the log (the write model, the read models and their
// checkpoints: KvStore::WriteDerived) are written without a write-ahead log; after a kill -9
// they go back to the last flush, and their owners re-apply the log from there before the node
// answers (api/http/recovery_gate.h). Left to RocksDB, the memtables flush when one is full
// (16 MiB: every minute or two under the soak's load); re-applying that from the embedded log, a
// local file, takes a second or two, but re-reading it from a Kafka topic took 25-43 s
// (BENCHMARKS.md#soak-hour-kafka). A flush of memtables with nothing new costs nothing; one with a
// few seconds' rows writes a small table file per column family, which compaction merges.

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "eventstore/kv_store.h"

namespace svc::eventstore {

class PeriodicFlush {
 public:
  // `interval` zero: never (the memtables flush when full, as RocksDB does by itself).
  PeriodicFlush(KvStore& store, std::chrono::milliseconds interval);
  ~PeriodicFlush();  // stops; a flush under way finishes first
  PeriodicFlush(const PeriodicFlush&) = delete;
  PeriodicFlush& operator=(const PeriodicFlush&) = delete;

 private:
  void Run();
  KvStore& store_;
  const std::chrono::milliseconds interval_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace svc::eventstore
