#include "pipeline/queue_manager.h"

namespace svc::pipeline {

void QueueManager::Start() {
  listener_ = subscribe_([this] { loop_.Wake(); });
  loop_.Start();
}

void QueueManager::Stop() {
  listener_.Reset();
  loop_.Stop();
}

}  // namespace svc::pipeline
