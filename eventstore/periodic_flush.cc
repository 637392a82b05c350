#include "eventstore/periodic_flush.h"

#include "core/log.h"

namespace svc::eventstore {

PeriodicFlush::PeriodicFlush(KvStore& store, std::chrono::milliseconds interval) : store_(store), interval_(interval) {
  if (interval_.count() > 0) thread_ = std::thread([this] { Run(); });
}

PeriodicFlush::~PeriodicFlush() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void PeriodicFlush::Run() {
  std::unique_lock lock(mu_);
  for (;;) {
    if (cv_.wait_for(lock, interval_, [this] { return stop_; })) return;
    lock.unlock();
    // A failed flush leaves the rows in the memtables (a later one, or RocksDB, writes them);
    // the store refuses writes itself if the failure is one it cannot go on from.
    if (auto st = store_.Flush(); !st.ok()) core::LogWarn("periodic flush failed", {{"error", st.ToString()}});
    lock.lock();
  }
}

}  // namespace svc::eventstore
