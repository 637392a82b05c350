#include "api/http/http_server.h"
#include "core/executor.h"

#include <boost/asio.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <array>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "core/log.h"

namespace svc::api {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using asio::awaitable;
using asio::use_awaitable;

namespace {

// Runs `handler` and resumes the awaiting coroutine on its own executor when it responds.
template <typename Token>
auto AsyncHandle(const Router& router, HttpRequest& req, Token&& token) {
  return asio::async_initiate<Token, void(HttpResponse)>(
      [&router, &req](auto completion) {
        using C = decltype(completion);
        auto shared = std::make_shared<C>(std::move(completion));
        auto work = std::make_shared<asio::executor_work_guard<asio::any_io_executor>>(
            asio::make_work_guard(asio::any_io_executor(asio::get_associated_executor(*shared))));
        auto once = std::make_shared<std::atomic<bool>>(false);
        router.Dispatch(req, [shared, work, once](HttpResponse resp) {
          if (once->exchange(true)) return;  // a handler answers once
          auto ex = asio::get_associated_executor(*shared);
          asio::post(ex, [shared, work, resp = std::move(resp)]() mutable {
            (*shared)(std::move(resp));
            work->reset();
          });
        });
      },
      token);
}

// Waits for the next chunk of a streamed response, resuming on the session's executor.
template <typename Token>
auto AsyncNext(ResponseStream& stream, Token&& token) {
  return asio::async_initiate<Token, void(std::optional<std::string>)>(
      [&stream](auto completion) {
        using C = decltype(completion);
        auto shared = std::make_shared<C>(std::move(completion));
        auto work = std::make_shared<asio::executor_work_guard<asio::any_io_executor>>(
            asio::make_work_guard(asio::any_io_executor(asio::get_associated_executor(*shared))));
        auto once = std::make_shared<std::atomic<bool>>(false);
        stream.Next([shared, work, once](std::optional<std::string> chunk) {
          if (once->exchange(true)) return;
          auto ex = asio::get_associated_executor(*shared);
          asio::post(ex, [shared, work, chunk = std::move(chunk)]() mutable {
            (*shared)(std::move(chunk));
            work->reset();
          });
        });
      },
      token);
}

// What an early 413 reads and drops at most before closing: bytes and time.
constexpr size_t kDrainCap = 64u << 20;
constexpr std::chrono::seconds kDrainTime{5};

// Shuts down the write side and reads (dropping it) up to `budget` bytes, until the client
// closes, the budget is spent or kDrainTime has passed.
template <typename Stream>
awaitable<void> Drain(Stream& stream, size_t budget) {
  beast::error_code ec;
  beast::get_lowest_layer(stream).socket().shutdown(asio::socket_base::shutdown_send, ec);
  beast::get_lowest_layer(stream).expires_after(kDrainTime);
  std::array<char, 16384> scratch;
  size_t drained = 0;
  while (!ec && drained < budget) {
    size_t n = co_await beast::get_lowest_layer(stream).async_read_some(
        asio::buffer(scratch), asio::redirect_error(use_awaitable, ec));
    drained += n;
  }
}

// The body of a streamed request between the connection's coroutine, which reads the socket
// (Pump), and the route, which reads the pipe from a worker thread (BodyReader::Read). At most
// `window` bytes wait in between: the pump stops reading the socket until the route took some.
// The timers are touched on the connection's executor only.
class BodyPipe final : public BodyReader, public std::enable_shared_from_this<BodyPipe> {
 public:
  BodyPipe(asio::any_io_executor ex, size_t window) : room(ex), done(ex), ex_(ex), window_(window) {
    room.expires_at(asio::steady_timer::time_point::max());
    done.expires_at(asio::steady_timer::time_point::max());
  }

  core::Result<std::string> Read(size_t max) override {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return !queue_.empty() || ended_ || !error_.ok(); });
    if (queue_.empty()) {
      if (!error_.ok()) return error_;
      return std::string();
    }
    std::string out;
    if (queue_.front().size() <= max) {
      out = std::move(queue_.front());
      queue_.pop_front();
    } else {
      out = queue_.front().substr(0, max);
      queue_.front().erase(0, max);
    }
    buffered_ -= out.size();
    const bool wake = pump_waiting_ && buffered_ < window_;
    if (wake) pump_waiting_ = false;
    lock.unlock();
    if (wake) asio::post(ex_, [self = shared_from_this()] { self->room.cancel(); });
    return out;
  }

  // The pump's side, on the connection's executor.
  bool Full() {
    std::lock_guard lock(mu_);
    pump_waiting_ = buffered_ >= window_ && !abandoned_;
    return pump_waiting_;
  }
  void Push(std::string bytes) {
    std::lock_guard lock(mu_);
    if (abandoned_) return;
    buffered_ += bytes.size();
    queue_.push_back(std::move(bytes));
    cv_.notify_all();
  }
  void End(core::Status error) {
    std::lock_guard lock(mu_);
    ended_ = true;
    error_ = std::move(error);
    cv_.notify_all();
  }
  // The route answered: what it did not read is dropped.
  void Abandon() {
    {
      std::lock_guard lock(mu_);
      abandoned_ = true;
      queue_.clear();
      buffered_ = 0;
    }
    room.cancel();
  }
  bool Abandoned() {
    std::lock_guard lock(mu_);
    return abandoned_;
  }
  // The whole body was read off the socket: the connection can carry the next request.
  bool EndedCleanly() {
    std::lock_guard lock(mu_);
    return ended_ && error_.ok();
  }

  asio::steady_timer room;  // cancelled when the route made room
  asio::steady_timer done;  // cancelled when the pump has finished
  bool pump_done = false;

 private:
  asio::any_io_executor ex_;
  size_t window_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::string> queue_;
  size_t buffered_ = 0;
  bool pump_waiting_ = false;
  bool ended_ = false;
  bool abandoned_ = false;
  core::Status error_ = core::Status::Ok();
};

std::string LowerCase(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

struct HttpServer::Impl {
  Options options;
  std::shared_ptr<Router> router;
  core::IdSource* ids;
  // One io_context per I/O thread: a connection lives on one context and one thread from accept
  // to close, so there is no scheduler lock shared between threads and no strand per
  // connection (both were a fifth of a small GET's time). contexts[0] also runs the acceptors.
  std::vector<std::unique_ptr<asio::io_context>> contexts;
  std::vector<asio::executor_work_guard<asio::io_context::executor_type>> keep_running;
  std::atomic<size_t> next_context{0};
  asio::io_context& ioc() { return *contexts[0]; }
  asio::io_context& NextContext() {
    return *contexts[next_context.fetch_add(1, std::memory_order_relaxed) % contexts.size()];
  }
  std::unique_ptr<asio::ip::tcp::acceptor> tcp_acceptor;
  std::unique_ptr<asio::local::stream_protocol::acceptor> unix_acceptor;
  std::vector<std::thread> threads;
  std::atomic<bool> stopping{false};
  std::atomic<int> in_flight{0};
  std::atomic<int> sessions{0};  // connections not yet closed (Stop waits for them, bounded)
  std::atomic<uint16_t> bound_port{0};
  // Idle connections, closed at Stop (busy ones close after their response).
  std::mutex conn_mu;
  std::set<std::shared_ptr<std::function<void()>>> idle_closers;
  std::set<std::shared_ptr<ResponseStream>> streams;  // open streamed responses

  template <typename Stream>
  awaitable<void> Session(Stream stream, std::string remote);
  template <typename Stream>
  awaitable<void> EndPipe(Stream& stream, BodyPipe& pipe);
  template <typename Stream>
  awaitable<void> Pump(Stream& stream, beast::flat_buffer& buffer,
                       http::request_parser<http::buffer_body>& parser, std::shared_ptr<BodyPipe> pipe);
  template <typename Acceptor, typename Stream>
  awaitable<void> Accept(Acceptor& acceptor);
};

template <typename Stream>
awaitable<void> HttpServer::Impl::Pump(Stream& stream, beast::flat_buffer& buffer,
                                       http::request_parser<http::buffer_body>& parser,
                                       std::shared_ptr<BodyPipe> pipe) {
  std::vector<char> piece(64 * 1024);
  beast::error_code ec;
  // The stall deadline (Options::stream_grace, stream_min_bytes_per_second): time spent waiting
  // on the socket, and the body bytes it gave.
  std::chrono::steady_clock::duration waited{0};
  uint64_t received = 0;
  bool too_slow = false;
  while (!parser.is_done()) {
    while (pipe->Full()) {
      beast::error_code woken;
      co_await pipe->room.async_wait(asio::redirect_error(use_awaitable, woken));
    }
    if (pipe->Abandoned()) {
      ec = asio::error::operation_aborted;  // the route answered: nothing more is read
      break;
    }
    parser.get().body().data = piece.data();
    parser.get().body().size = piece.size();
    std::chrono::steady_clock::duration limit = options.read_timeout;
    if (options.stream_min_bytes_per_second > 0) {
      const auto allowed = std::chrono::duration_cast<std::chrono::steady_clock::duration>(options.stream_grace) +
                           std::chrono::milliseconds(received * 1000 / options.stream_min_bytes_per_second);
      if (allowed <= waited) {
        too_slow = true;
        break;
      }
      limit = std::min(limit, allowed - waited);
    }
    beast::get_lowest_layer(stream).expires_after(limit);
    const auto asked = std::chrono::steady_clock::now();
    co_await http::async_read(stream, buffer, parser, asio::redirect_error(use_awaitable, ec));
    waited += std::chrono::steady_clock::now() - asked;
    if (ec == http::error::need_buffer) ec = {};
    if (ec) break;
    const size_t n = piece.size() - parser.get().body().size;
    received += n;
    if (n > 0) pipe->Push(std::string(piece.data(), n));
  }
  if (too_slow || (ec == beast::error::timeout && options.stream_min_bytes_per_second > 0)) {
    pipe->End(core::Unavailable("the request body came slower than " +
                                std::to_string(options.stream_min_bytes_per_second / 1024) +
                                " KiB/s after its first seconds; send it again"));
  } else if (!ec) {
    pipe->End(core::Status::Ok());
  } else if (ec == http::error::body_limit) {
    pipe->End(core::InvalidArgument("the request body is too large", "PAYLOAD_TOO_LARGE"));
  } else if (ec == beast::error::timeout || ec == asio::error::operation_aborted || ec == asio::error::eof ||
             ec == http::error::end_of_stream || ec == http::error::partial_message ||
             ec == asio::error::connection_reset) {
    pipe->End(core::Unavailable("the client stopped sending the request body"));
  } else {
    pipe->End(core::InvalidArgument("malformed request body: " + ec.message(), "BAD_REQUEST"));
  }
  pipe->pump_done = true;
  pipe->done.cancel();
}

// Stops the pump (a read it has pending is cancelled) and waits until it has returned: it uses
// the connection's stream and buffer.
template <typename Stream>
awaitable<void> HttpServer::Impl::EndPipe(Stream& stream, BodyPipe& pipe) {
  if (!pipe.pump_done) beast::get_lowest_layer(stream).cancel();
  while (!pipe.pump_done) {
    beast::error_code woken;
    co_await pipe.done.async_wait(asio::redirect_error(use_awaitable, woken));
  }
}

template <typename Stream>
awaitable<void> HttpServer::Impl::Session(Stream stream, std::string remote) {
  beast::flat_buffer buffer;
  // Stop() closes idle connections through this; it runs on the session's own strand and does
  // nothing once the session has ended.
  auto alive = std::make_shared<bool>(true);
  sessions.fetch_add(1);
  auto ex = stream.get_executor();
  auto closer = std::make_shared<std::function<void()>>([alive, ex, &stream] {
    asio::post(ex, [alive, &stream] {
      if (!*alive) return;
      beast::error_code ignored;
      beast::get_lowest_layer(stream).socket().shutdown(asio::socket_base::shutdown_both,
                                                        ignored);
      beast::get_lowest_layer(stream).socket().close(ignored);
    });
  });
  for (;;) {
    if (stopping.load()) break;
    http::request_parser<http::string_body> parser;
    parser.header_limit(static_cast<std::uint32_t>(options.header_limit));
    // The header is read under the largest limit (Beast checks Content-Length against the
    // limit while parsing the header); the path's own limit is applied once the target is known.
    size_t largest = options.body_limit;
    for (const auto& [suffix, limit] : options.body_limit_by_suffix) largest = std::max(largest, limit);
    parser.body_limit(largest);
    beast::get_lowest_layer(stream).expires_after(options.read_timeout);
    beast::error_code ec;
    size_t drain_bytes = 0;      // body bytes still to come after an early 413
    bool drain_unknown = false;  // how many is unknown (chunked, or 100-continue not sent)
    bool framing_refused = false;  // a Transfer-Encoding this server will not read (RFC 9112 §6)
    {
      std::lock_guard lock(conn_mu);
      idle_closers.insert(closer);
    }
    if (buffer.size() == 0) {
      // Idle until the next request's first byte (read_timeout); then its header has
      // header_timeout to be whole.
      const size_t n = co_await stream.async_read_some(buffer.prepare(16 * 1024),
                                                       asio::redirect_error(use_awaitable, ec));
      buffer.commit(n);
    }
    if (!ec) {
      beast::get_lowest_layer(stream).expires_after(std::min(options.header_timeout, options.read_timeout));
      co_await http::async_read_header(stream, buffer, parser, asio::redirect_error(use_awaitable, ec));
    }
    if (!ec) {
      // RFC 9112 §6.1 and §6.3: chunked is the only transfer coding read here, and a request that
      // carries another one, or both Transfer-Encoding and Content-Length (the shape of request
      // smuggling), has no length a server may trust: 400, then the connection is closed.
      const auto te = parser.get().find(http::field::transfer_encoding);
      if (te != parser.get().end() &&
          (!beast::iequals(te->value(), "chunked") ||
           parser.get().find(http::field::content_length) != parser.get().end())) {
        framing_refused = true;
      }
    }
    size_t limit = options.body_limit;  // the path's own
    if (!ec && !framing_refused) {
      std::string_view target = parser.get().target();
      target = target.substr(0, target.find('?'));
      for (const auto& [suffix, l] : options.body_limit_by_suffix) {
        if (target.size() >= suffix.size() &&
            target.substr(target.size() - suffix.size()) == suffix) {
          limit = l;
        }
      }
      auto length = parser.content_length();
      const bool expects_continue =
          beast::iequals(parser.get()[http::field::expect], "100-continue");
      if (length.has_value() && *length > limit) {
        ec = http::error::body_limit;
        // The rest of the body is read and thrown away after the answer (see below), so the
        // client sees 413 instead of a reset. A client that waits for 100 Continue sends none.
        size_t buffered = buffer.size();
        drain_bytes = expects_continue ? 0 : (*length > buffered ? *length - buffered : 0);
        drain_unknown = expects_continue;
      } else {
        parser.body_limit(limit);
        if (expects_continue && !parser.is_done()) {
          // RFC 9110 §10.1.1: the client waits for this before it sends the body.
          static constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
          co_await asio::async_write(stream, asio::buffer(kContinue.data(), kContinue.size()),
                                     asio::redirect_error(use_awaitable, ec));
        }
      }
    }
    bool streamed = false;
    if (!ec && !framing_refused && !parser.is_done() && parser.get().method() == http::verb::post) {
      std::string_view target = parser.get().target();
      target = target.substr(0, target.find('?'));
      for (const auto& suffix : options.streamed_body_suffixes) {
        streamed |= target.size() >= suffix.size() && target.substr(target.size() - suffix.size()) == suffix;
      }
    }
    if (!ec && !framing_refused && !parser.is_done() && !streamed) {
      co_await http::async_read(stream, buffer, parser, asio::redirect_error(use_awaitable, ec));
    }
    std::optional<http::request_parser<http::buffer_body>> body_parser;
    std::shared_ptr<BodyPipe> pipe;
    {
      std::lock_guard lock(conn_mu);
      idle_closers.erase(closer);
    }
    HttpRequest req;
    req.request_id = ids->NewIdString(core::IdKind::kRequest);
    req.remote = remote;
    HttpResponse resp;
    bool close_after = false;
    if (ec == http::error::end_of_stream || ec == asio::error::eof ||
        ec == asio::error::operation_aborted || ec == beast::error::timeout ||
        ec == asio::error::connection_reset || ec == asio::error::bad_descriptor) {
      break;
    } else if (ec == http::error::body_limit || ec == http::error::header_limit ||
               ec == http::error::buffer_overflow) {
      req.path = "/";
      resp = Problem(req, "PAYLOAD_TOO_LARGE",
                     ec == http::error::body_limit ? "the request body is too large"
                                                   : "the request headers are too large");
      close_after = true;  // the rest of the oversized request is drained, then the socket closed
      // Unless the declared length told us how much follows: a chunked body over the limit,
      // or headers over theirs; what follows is unknown.
      if (drain_bytes == 0) drain_unknown = true;
    } else if (ec) {
      req.path = "/";
      resp = Problem(req, "BAD_REQUEST", "malformed HTTP request");
      close_after = true;
    } else if (framing_refused) {
      req.path = "/";
      resp = Problem(req, "BAD_REQUEST",
                     "Transfer-Encoding other than chunked, or with Content-Length, is not accepted (RFC 9112)");
      close_after = true;
      drain_unknown = true;
    } else {
      in_flight.fetch_add(1);
      auto fill = [&](const auto& msg) {
        req.method = std::string(msg.method_string());
        req.target = std::string(msg.target());
        auto q = req.target.find('?');
        req.path = req.target.substr(0, q);
        if (q != std::string::npos) req.query = req.target.substr(q + 1);
        for (const auto& f : msg) {
          req.headers[LowerCase(f.name_string())] = std::string(f.value());
        }
        close_after = !msg.keep_alive();
      };
      if (streamed) {
        // The body is read as the route reads it; the limit checked on the header still holds.
        body_parser.emplace(std::move(parser));
        body_parser->body_limit(limit);
        fill(body_parser->get());
        pipe = std::make_shared<BodyPipe>(stream.get_executor(), options.stream_window);
        req.body_stream = pipe;
        asio::co_spawn(stream.get_executor(), Pump(stream, buffer, *body_parser, pipe), asio::detached);
      } else {
        auto msg = parser.release();
        fill(msg);
        req.body = std::move(msg.body());
        beast::get_lowest_layer(stream).expires_never();
      }
      resp = co_await AsyncHandle(*router, req, use_awaitable);
      // What the route did not read is dropped; a body not read to its end is not read on: the
      // answer is written, then the connection closed gracefully (EndPipe, below).
      if (pipe != nullptr) pipe->Abandon();
      in_flight.fetch_sub(1);
    }
    if (resp.stream != nullptr) {
      auto stream_body = resp.stream;
      {
        std::lock_guard lock(conn_mu);
        streams.insert(stream_body);
      }
      if (stopping.load()) stream_body->Finish();
      http::response<http::empty_body> head;
      head.version(11);
      head.result(static_cast<unsigned>(resp.status));
      head.set(http::field::server, options.server_name);
      head.set(http::field::content_type, resp.content_type);
      head.set("Service-Request-Id", req.request_id);
      for (const auto& [k, v] : resp.headers) head.set(k, v);
      head.chunked(true);
      head.keep_alive(!close_after);
      http::response_serializer<http::empty_body> sr(head);
      beast::get_lowest_layer(stream).expires_never();
      co_await http::async_write_header(stream, sr, asio::redirect_error(use_awaitable, ec));
      while (!ec) {
        std::optional<std::string> chunk = co_await AsyncNext(*stream_body, use_awaitable);
        if (!chunk.has_value()) break;
        beast::get_lowest_layer(stream).expires_after(options.read_timeout);
        co_await asio::async_write(stream, http::make_chunk(asio::buffer(*chunk)),
                                   asio::redirect_error(use_awaitable, ec));
        beast::get_lowest_layer(stream).expires_never();
      }
      stream_body->Finish();
      {
        std::lock_guard lock(conn_mu);
        streams.erase(stream_body);
      }
      if (pipe != nullptr) {
        co_await EndPipe(stream, *pipe);
        if (!pipe->EndedCleanly()) close_after = true;
      }
      if (!ec && stream_body->Failed()) break;  // no last chunk: the answer is visibly incomplete
      if (!ec) {
        beast::get_lowest_layer(stream).expires_after(options.read_timeout);
        co_await asio::async_write(stream, http::make_chunk_last(),
                                   asio::redirect_error(use_awaitable, ec));
      }
      if (ec || close_after || stopping.load()) break;
      continue;
    }
    http::response<http::string_body> out;
    out.version(11);
    out.result(static_cast<unsigned>(resp.status));
    out.set(http::field::server, options.server_name);
    if (!resp.content_type.empty()) out.set(http::field::content_type, resp.content_type);
    out.set("Service-Request-Id", req.request_id);
    for (const auto& [k, v] : resp.headers) out.set(k, v);
    out.body() = std::move(resp.body);
    // A streamed body not read to its end leaves the connection without framing: closed after.
    const bool body_unfinished = pipe != nullptr && !(pipe->pump_done && pipe->EndedCleanly());
    if (close_after || stopping.load() || body_unfinished) out.keep_alive(false);
    else out.keep_alive(true);
    out.prepare_payload();
    beast::get_lowest_layer(stream).expires_after(options.read_timeout);
    co_await http::async_write(stream, out, asio::redirect_error(use_awaitable, ec));
    if (pipe != nullptr) {
      co_await EndPipe(stream, *pipe);
      if (!pipe->EndedCleanly()) drain_unknown = true;  // an answer before the body's end
    }
    if (!ec && (drain_bytes > 0 || drain_unknown)) {
      // Graceful close after an early answer: say we are done writing, then read and drop what
      // the client still sends (bounded in bytes and time) so that closing does not reset the
      // connection before the client has read the answer.
      co_await Drain(stream, drain_unknown ? kDrainCap : std::min(drain_bytes, kDrainCap));
      break;
    }
    if (ec || !out.keep_alive()) break;
  }
  beast::error_code ignored;
  beast::get_lowest_layer(stream).socket().shutdown(asio::socket_base::shutdown_both, ignored);
  beast::get_lowest_layer(stream).socket().close(ignored);
  {
    std::lock_guard lock(conn_mu);
    idle_closers.erase(closer);
  }
  *alive = false;
  sessions.fetch_sub(1);
}

template <typename Acceptor, typename Stream>
awaitable<void> HttpServer::Impl::Accept(Acceptor& acceptor) {
  for (;;) {
    beast::error_code ec;
    auto socket = co_await acceptor.async_accept(NextContext(),
                                                 asio::redirect_error(use_awaitable, ec));
    if (ec) {
      if (stopping.load() || ec == asio::error::operation_aborted) co_return;
      continue;  // e.g. too many open files: keep serving the others
    }
    std::string remote;
    if constexpr (std::is_same_v<Stream, beast::tcp_stream>) {
      beast::error_code e2;
      auto ep = socket.remote_endpoint(e2);
      if (!e2) remote = ep.address().to_string();
    } else {
      remote = "unix";
    }
    auto ex = socket.get_executor();
    asio::co_spawn(ex, Session(Stream(std::move(socket)), std::move(remote)), asio::detached);
  }
}

HttpServer::HttpServer(Options options, std::shared_ptr<Router> router, core::IdSource* ids)
    : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
  impl_->router = std::move(router);
  impl_->ids = ids;
  size_t n = std::max<size_t>(1, impl_->options.threads);
  for (size_t i = 0; i < n; ++i) {
    impl_->contexts.push_back(std::make_unique<asio::io_context>(1));  // one thread each
    impl_->keep_running.push_back(asio::make_work_guard(*impl_->contexts.back()));
  }
}

HttpServer::~HttpServer() { Stop(std::chrono::milliseconds(1000)); }

core::Result<int> HttpServer::Reserve(const std::string& host, uint16_t& port) {
  beast::error_code ec;
  auto addr = asio::ip::make_address(host, ec);
  if (ec) return core::InvalidArgument("bad listen address " + host);
  asio::io_context ioc;
  asio::ip::tcp::endpoint ep(addr, port);
  asio::ip::tcp::acceptor acceptor(ioc);
  acceptor.open(ep.protocol(), ec);
  if (!ec) acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor.bind(ep, ec);
  if (ec) return core::Unavailable("cannot listen on " + host + ":" + std::to_string(port) + ": " + ec.message());
  port = acceptor.local_endpoint().port();
  const int fd = acceptor.release(ec);
  if (ec) return core::Internal("cannot hand the listening socket over: " + ec.message());
  return fd;
}

core::Status HttpServer::Start() {
  auto& im = *impl_;
  beast::error_code ec;
  if (im.options.tcp) {
    auto addr = asio::ip::make_address(im.options.host, ec);
    if (ec) return core::InvalidArgument("bad listen address " + im.options.host);
    asio::ip::tcp::endpoint ep(addr, im.options.port);
    im.tcp_acceptor = std::make_unique<asio::ip::tcp::acceptor>(im.ioc());
    if (im.options.reserved_fd >= 0) {
      im.tcp_acceptor->assign(ep.protocol(), im.options.reserved_fd, ec);
      im.options.reserved_fd = -1;
    } else {
      im.tcp_acceptor->open(ep.protocol(), ec);
      if (!ec) im.tcp_acceptor->set_option(asio::socket_base::reuse_address(true), ec);
      if (!ec) im.tcp_acceptor->bind(ep, ec);
    }
    if (!ec) im.tcp_acceptor->listen(asio::socket_base::max_listen_connections, ec);
    if (ec) {
      return core::Unavailable("cannot listen on " + im.options.host + ":" +
                               std::to_string(im.options.port) + ": " + ec.message());
    }
    im.bound_port.store(im.tcp_acceptor->local_endpoint().port());
    asio::co_spawn(im.ioc(), im.Accept<asio::ip::tcp::acceptor, beast::tcp_stream>(*im.tcp_acceptor),
                   asio::detached);
  }
  if (!im.options.unix_socket.empty()) {
    ::unlink(im.options.unix_socket.c_str());
    asio::local::stream_protocol::endpoint ep(im.options.unix_socket);
    im.unix_acceptor = std::make_unique<asio::local::stream_protocol::acceptor>(im.ioc());
    im.unix_acceptor->open(ep.protocol(), ec);
    if (!ec) im.unix_acceptor->bind(ep, ec);
    if (!ec) im.unix_acceptor->listen(asio::socket_base::max_listen_connections, ec);
    if (ec) {
      return core::Unavailable("cannot listen on " + im.options.unix_socket + ": " +
                               ec.message());
    }
    ::chmod(im.options.unix_socket.c_str(), 0600);
    using UnixStream = beast::basic_stream<asio::local::stream_protocol>;
    asio::co_spawn(im.ioc(),
                   im.Accept<asio::local::stream_protocol::acceptor, UnixStream>(*im.unix_acceptor),
                   asio::detached);
  }
  for (auto& context : im.contexts) {
    im.threads.emplace_back([&im, c = context.get()] {
      core::SetThreadName(im.options.tcp ? "svc-http" : "svc-admin");
      c->run();
    });
  }
  return core::Status::Ok();
}

uint16_t HttpServer::BoundPort() const { return impl_->bound_port.load(); }

void HttpServer::Stop(std::chrono::milliseconds grace) {
  auto& im = *impl_;
  if (im.stopping.exchange(true)) {
    for (auto& t : im.threads) {
      if (t.joinable()) t.join();
    }
    return;
  }
  asio::post(im.ioc(), [&im] {
    beast::error_code ignored;
    if (im.tcp_acceptor) im.tcp_acceptor->close(ignored);
    if (im.unix_acceptor) im.unix_acceptor->close(ignored);
  });
  // Close idle connections now; busy ones close after writing their response.
  auto close_idle = [&im] {
    std::vector<std::shared_ptr<std::function<void()>>> closers;
    {
      std::lock_guard lock(im.conn_mu);
      closers.assign(im.idle_closers.begin(), im.idle_closers.end());
    }
    for (auto& c : closers) (*c)();
  };
  close_idle();
  {
    // Open streams end now (their sessions then write the last chunk and close).
    std::vector<std::shared_ptr<ResponseStream>> open;
    {
      std::lock_guard lock(im.conn_mu);
      open.assign(im.streams.begin(), im.streams.end());
    }
    for (auto& s : open) s->Finish();
  }
  auto deadline = std::chrono::steady_clock::now() + grace;
  while (im.in_flight.load() > 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));  // bounded shutdown drain
  }
  // Every connection closes on its own strand: an idle one through its closer, one that just
  // answered when it sees `stopping`. Wait for them all (within the grace), closing the idle ones
  // again as sessions go idle meanwhile. Stopping the contexts first could drop those closes, and
  // a client would keep a connection that this stopped server neither answers nor closes until
  // it is destroyed (seen as a lookup hanging until its own timeout).
  while (im.sessions.load() > 0 && std::chrono::steady_clock::now() < deadline) {
    close_idle();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));  // bounded shutdown drain
  }
  im.keep_running.clear();
  for (auto& c : im.contexts) c->stop();
  for (auto& t : im.threads) {
    if (t.joinable()) t.join();
  }
  if (!im.options.unix_socket.empty()) ::unlink(im.options.unix_socket.c_str());
}

}  // namespace svc::api
