#pragma once
// Server-Sent Events streams over rows of the read models. A stream (an SseFeed) is the rows under
// one key prefix of the views column family, in key order; each row key ends in a fixed-size
// suffix the feed turns into the event's `id:`, so a client that reconnects with `Last-Event-ID`
// gets exactly the rows after it. Idle streams get a `: keep-alive` comment every heartbeat; a
// feed with an end (`is_final`) stops after its final row, and a reconnect after that row is
// answered 204 No Content by the route (the SSE way to say "do not reconnect").
//
// One hub thread serves every open stream: woken when a projector it listens to commits (Hold)
// and at the earliest heartbeat deadline. Users: the verification progress stream
// (api/sessions/sse.h) and the review console's queue feed (api/review/console.cc).

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "api/http/http.h"
#include "core/json.h"
#include "eventstore/kv_store.h"
#include "projections/listeners.h"

namespace svc::api {

struct SseFeed {
  std::string prefix;     // absolute key prefix of the rows (views column family)
  std::string after_key;  // full key of the last row the client saw ("" = from the start)
  size_t suffix_bytes = 0;  // rows whose key suffix has another size are skipped
  // The `id:` of a row, from its key suffix.
  std::function<std::string(std::string_view suffix)> id_of;
  // The `event:` of a row, from its JSON.
  std::function<std::string(const core::Json& row)> event_of;
  // True for the row after which the stream ends; null: it never ends.
  std::function<bool(const core::Json& row)> is_final;
};

class SseHub {
 public:
  SseHub(const eventstore::KvStore* store, std::chrono::milliseconds heartbeat);
  ~SseHub();

  // The wake-up call to register with a projector (`Hold(projector.AddListener(hub.Waker()))`).
  std::function<void()> Waker();
  // Keeps a projector's registration until Stop.
  void Hold(projections::Listeners::Subscription subscription);

  std::shared_ptr<ResponseStream> Open(SseFeed feed);
  // True when the feed has ended for a client that has seen `feed.after_key`: its last row is
  // final and at or before it.
  bool Ended(const SseFeed& feed) const;
  void Stop();
  size_t OpenStreams() const;

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
  void Wake();

  const eventstore::KvStore* store_;
  std::vector<projections::Listeners::Subscription> held_;  // reset on Stop
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
