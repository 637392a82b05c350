#pragma once
// The verification progress stream: GET /v1/verification-sessions/{id}/events as Server-Sent
// Events. Entries come from the verification read model's `sse/` rows, in log order; each
// carries `id:` = its log position ("<partition>-<offset>"), so a client that reconnects with
// `Last-Event-ID` gets exactly the entries after it. Idle streams get a `: keep-alive` comment
// every heartbeat; the stream ends after a final entry (a verdict, expiry, or refused consent),
// and a reconnect after that final entry is answered 204 No Content (the SSE way to say "do not
// reconnect").
//
// One hub thread serves every open stream: woken when the verification projector commits and
// at the earliest heartbeat deadline.

#include <chrono>
#include <condition_variable>
#include <list>
#include <memory>
#include <mutex>
#include <thread>

#include "api/http/http.h"
#include "eventstore/envelope.h"
#include "eventstore/kv_store.h"
#include "projections/verification_projector.h"

namespace svc::api {

class SseHub {
 public:
  SseHub(const eventstore::KvStore* store, projections::VerificationProjector* projector,
         std::chrono::milliseconds heartbeat);
  ~SseHub();

  // A stream of one session's entries after `after` (nullopt: from the start).
  std::shared_ptr<ResponseStream> Open(const std::string& tenant, const std::string& env,
                                       const std::string& session,
                                       std::optional<eventstore::LogPosition> after);
  // True when the session's stream is over for a client that has seen `after`: its final entry
  // is at or before `after`. Such a reconnect is answered 204 No Content, which tells a standard
  // EventSource client to stop reconnecting.
  bool Ended(const std::string& tenant, const std::string& env, const std::string& session,
             std::optional<eventstore::LogPosition> after) const;
  void Stop();
  size_t OpenStreams() const;

  // True for entry types after which the stream ends.
  static bool IsFinal(const core::Json& entry);

 private:
  class Stream;
  friend class Stream;
  struct Waiter {
    std::weak_ptr<Stream> stream;
    std::chrono::steady_clock::time_point deadline;
    std::function<void(std::optional<std::string>)> deliver;
  };
  void Park(std::shared_ptr<Stream> s, std::function<void(std::optional<std::string>)> deliver);
  void Loop();

  const eventstore::KvStore* store_;
  projections::Listeners::Subscription listener_;  // the projector's wake-up call, reset on Stop
  std::chrono::milliseconds heartbeat_;
  mutable std::mutex mu_;
  std::condition_variable wake_;
  std::list<Waiter> waiters_;
  bool dirty_ = false;
  bool stop_ = false;
  size_t open_ = 0;
  std::thread thread_;
};

}  // namespace svc::api
