// Benchmark (not a test): an open-loop load generator. Requests are due on a fixed schedule (one
// every 1/rate seconds from the start) whatever the server does, and each answer's latency is
// measured from the moment its request was due, not from when a connection got round to sending
// it: a server that stalls is charged for every request that queued behind the stall (what a
// closed-loop tool such as wrk hides: coordinated omission). wrk2 is not packaged in Debian; this
// is the same idea on Boost.Beast.
//
//   svc_bench_open_loop URL RATE SECONDS [CONNECTIONS] [METHOD] [BODY] [HEADER: VALUE]...
//
// METHOD defaults to GET. In BODY and in header values `{n}` becomes the request's number (a
// fresh Idempotency-Key per create). Prints a line: the rate asked and achieved, p50, p99,
// p99.9 and max in milliseconds, and the count of answers that were not 2xx; then where the tail
// came from (how late the generator itself sent, against the server's time from send to answer,
// and the worst 100 ms windows by when their requests were due: a periodic stall shows as evenly
// spaced windows); then the CPU the generator used and, with SVC_BENCH_SERVER_PID set, the
// server's.
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <utility>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <cstdio>
#include <deque>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using Clock = std::chrono::steady_clock;

namespace {

std::string Expand(std::string s, uint64_t n) {
  const std::string num = std::to_string(n);
  for (size_t at = s.find("{n}"); at != std::string::npos; at = s.find("{n}", at + num.size())) s.replace(at, 3, num);
  return s;
}

struct Target {
  std::string host, port, path, method = "GET", body;
  std::vector<std::pair<std::string, std::string>> headers;
};

class Generator;

class Conn : public std::enable_shared_from_this<Conn> {
 public:
  Conn(asio::io_context& io, Generator& g) : socket_(io), g_(g) {}
  void Send(uint64_t n, Clock::time_point due);
  bool busy = false;

 private:
  void Connect(uint64_t n, Clock::time_point due);
  void Write(uint64_t n, Clock::time_point due);
  asio::ip::tcp::socket socket_;
  Generator& g_;
  beast::flat_buffer buffer_;
  http::request<http::string_body> req_;
  http::response<http::string_body> res_;
  bool connected_ = false;
};

class Generator {
 public:
  Generator(asio::io_context& io, Target t, double rate, double seconds, int connections)
      : io_(io), timer_(io), target_(std::move(t)), rate_(rate), total_(static_cast<uint64_t>(rate * seconds)) {
    asio::ip::tcp::resolver resolver(io);
    endpoints_ = resolver.resolve(target_.host, target_.port);
    for (int i = 0; i < connections; ++i) conns_.push_back(std::make_shared<Conn>(io, *this));
    latencies_.reserve(total_);
  }
  void Start() {
    start_ = Clock::now();
    Tick();
  }
  Clock::time_point Due(uint64_t n) const {
    return start_ + std::chrono::nanoseconds(static_cast<int64_t>(1e9 * static_cast<double>(n) / rate_));
  }
  // A request is due: to an idle connection, else it waits (its latency keeps counting).
  void Tick() {
    const auto now = Clock::now();
    while (next_ < total_ && Due(next_) <= now) pending_.push_back(next_++);
    Dispatch();
    if (next_ < total_) {
      timer_.expires_at(Due(next_));
      timer_.async_wait([this](beast::error_code ec) {
        if (!ec) Tick();
      });
    }
  }
  void Dispatch() {
    for (auto& c : conns_) {
      if (pending_.empty()) return;
      if (c->busy) continue;
      const uint64_t n = pending_.front();
      pending_.pop_front();
      c->Send(n, Due(n));
    }
  }
  // `sent` is when the request was handed to the socket: due to sent is the generator's own lateness
  // (no idle connection, or this thread not scheduled), sent to now the server's and the network's.
  void Done(Clock::time_point due, Clock::time_point sent, bool ok) {
    const auto now = Clock::now();
    const double ms = std::chrono::duration<double, std::milli>(now - due).count();
    latencies_.push_back(ms);
    late_.push_back(std::chrono::duration<double, std::milli>(sent - due).count());
    service_.push_back(std::chrono::duration<double, std::milli>(now - sent).count());
    const auto window = static_cast<size_t>(std::chrono::duration<double>(due - start_).count() * 10);  // 100 ms
    if (window_max_.size() <= window) window_max_.resize(window + 1, 0.0);
    window_max_[window] = std::max(window_max_[window], ms);
    if (!ok) ++errors_;
    if (latencies_.size() == total_) end_ = Clock::now();
    Dispatch();
  }
  const Target& target() const { return target_; }
  const asio::ip::tcp::resolver::results_type& endpoints() const { return endpoints_; }
  static double Pct(std::vector<double> v, double p) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())))];
  }
  void Report() {
    std::vector<double> v = latencies_;
    std::sort(v.begin(), v.end());
    auto pct = [&](double p) { return Pct(v, p); };
    const double elapsed = std::chrono::duration<double>(end_ - start_).count();
    std::printf("open-loop %s %s: asked %.0f/s, achieved %.0f/s over %zu requests; p50 %.2f ms, p99 %.2f ms, "
                "p99.9 %.2f ms, max %.2f ms; %llu not 2xx\n",
                target_.method.c_str(), target_.path.c_str(), rate_, elapsed > 0 ? v.size() / elapsed : 0.0, v.size(),
                pct(0.50), pct(0.99), pct(0.999), v.empty() ? 0.0 : v.back(), static_cast<unsigned long long>(errors_));
    // Where the tail is: the generator's lateness against the server's time, and the worst 100 ms
    // windows by when their requests were due (a periodic stall shows as evenly spaced windows).
    std::printf("open-loop split: sent late p99 %.2f ms, max %.2f ms; server p50 %.2f ms, p99 %.2f ms, max %.2f ms\n",
                Pct(late_, 0.99), late_.empty() ? 0.0 : *std::max_element(late_.begin(), late_.end()),
                Pct(service_, 0.50), Pct(service_, 0.99),
                service_.empty() ? 0.0 : *std::max_element(service_.begin(), service_.end()));
    std::vector<size_t> order(window_max_.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return window_max_[a] > window_max_[b]; });
    std::printf("open-loop worst 100 ms windows:");
    for (size_t i = 0; i < std::min<size_t>(8, order.size()); ++i)
      std::printf(" t=%.1fs %.1fms", static_cast<double>(order[i]) / 10, window_max_[order[i]]);
    std::printf("\n");
  }

 private:
  asio::io_context& io_;
  asio::steady_timer timer_;
  Target target_;
  double rate_;
  uint64_t total_, next_ = 0, errors_ = 0;
  Clock::time_point start_, end_;
  asio::ip::tcp::resolver::results_type endpoints_;
  std::vector<std::shared_ptr<Conn>> conns_;
  std::deque<uint64_t> pending_;
  std::vector<double> latencies_, late_, service_, window_max_;
};

void Conn::Send(uint64_t n, Clock::time_point due) {
  busy = true;
  if (!connected_) return Connect(n, due);
  Write(n, due);
}

void Conn::Connect(uint64_t n, Clock::time_point due) {
  auto self = shared_from_this();
  asio::async_connect(socket_, g_.endpoints(), [self, n, due](beast::error_code ec, const asio::ip::tcp::endpoint&) {
    if (ec) {
      self->busy = false;
      self->g_.Done(due, Clock::now(), false);
      return;
    }
    self->socket_.set_option(asio::ip::tcp::no_delay(true));
    self->connected_ = true;
    self->Write(n, due);
  });
}

void Conn::Write(uint64_t n, Clock::time_point due) {
  const Target& t = g_.target();
  req_ = {};
  req_.method(http::string_to_verb(t.method));
  req_.target(t.path);
  req_.version(11);
  req_.set(http::field::host, t.host);
  for (const auto& [k, v] : t.headers) req_.set(k, Expand(v, n));
  if (!t.body.empty()) {
    req_.set(http::field::content_type, "application/json");
    req_.body() = Expand(t.body, n);
  }
  req_.prepare_payload();
  auto self = shared_from_this();
  const auto sent = Clock::now();
  http::async_write(socket_, req_, [self, due, sent](beast::error_code ec, size_t) {
    if (ec) {
      self->connected_ = false;
      self->socket_.close();
      self->busy = false;
      self->g_.Done(due, sent, false);
      return;
    }
    self->res_ = {};
    http::async_read(self->socket_, self->buffer_, self->res_, [self, due, sent](beast::error_code read_ec, size_t) {
      const bool ok = !read_ec && self->res_.result_int() / 100 == 2;
      if (read_ec || !self->res_.keep_alive()) {
        self->connected_ = false;
        beast::error_code ignored;
        self->socket_.close(ignored);
      }
      self->busy = false;
      self->g_.Done(due, sent, ok);
    });
  });
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::cerr << "usage: svc_bench_open_loop URL RATE SECONDS [CONNECTIONS] [METHOD] [BODY] [HEADER: VALUE]...\n";
    return 2;
  }
  std::string url = argv[1];
  const std::string scheme = "http://";
  if (url.rfind(scheme, 0) != 0) {
    std::cerr << "open-loop: only http:// URLs\n";
    return 2;
  }
  url = url.substr(scheme.size());
  Target t;
  const size_t slash = url.find('/');
  const std::string authority = url.substr(0, slash);
  t.path = slash == std::string::npos ? "/" : url.substr(slash);
  const size_t colon = authority.rfind(':');
  t.host = authority.substr(0, colon);
  t.port = colon == std::string::npos ? "80" : authority.substr(colon + 1);
  const double rate = std::atof(argv[2]);
  const double seconds = std::atof(argv[3]);
  const int connections = argc > 4 ? std::atoi(argv[4]) : 64;
  if (argc > 5) t.method = argv[5];
  if (argc > 6) t.body = argv[6];
  for (int i = 7; i < argc; ++i) {
    const std::string h = argv[i];
    const size_t c = h.find(':');
    if (c == std::string::npos) continue;
    t.headers.push_back({h.substr(0, c), h.substr(h.find_first_not_of(' ', c + 1))});
  }
  if (rate <= 0 || seconds <= 0 || connections <= 0) {
    std::cerr << "open-loop: RATE, SECONDS and CONNECTIONS must be positive\n";
    return 2;
  }
  // Where the two machines' worth of CPU went: this generator's (getrusage) and, when the script
  // names it (SVC_BENCH_SERVER_PID), the server's (/proc/PID/stat), in cores over the run. On a
  // machine where both share the cores, their sum near the core count says the tails are queueing
  // for a CPU (BENCHMARKS.md#open-loop).
  const char* server_pid = std::getenv("SVC_BENCH_SERVER_PID");
  const auto server_ticks = [server_pid]() -> double {
    if (server_pid == nullptr) return -1;
    std::ifstream in(std::string("/proc/") + server_pid + "/stat");
    std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t close = stat.rfind(')');
    if (close == std::string::npos) return -1;
    std::istringstream fields(stat.substr(close + 2));
    std::string f;
    double utime = 0, stime = 0;
    for (int i = 3; i <= 15 && fields >> f; ++i) {  // fields 14 and 15: utime, stime (clock ticks)
      if (i == 14) utime = std::atof(f.c_str());
      if (i == 15) stime = std::atof(f.c_str());
    }
    return utime + stime;
  };
  const auto own_seconds = [] {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
  };
  const double own_before = own_seconds(), server_before = server_ticks();
  const auto wall_before = std::chrono::steady_clock::now();
  asio::io_context io;
  Generator g(io, t, rate, seconds, connections);
  g.Start();
  io.run();
  g.Report();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_before).count();
  const double own = (own_seconds() - own_before) / wall;
  const double server_after = server_ticks();
  if (server_before >= 0 && server_after >= 0) {
    const double server = (server_after - server_before) / static_cast<double>(sysconf(_SC_CLK_TCK)) / wall;
    std::printf("open-loop cpu: generator %.2f cores, server %.2f cores, together %.2f of %ld\n", own, server,
                own + server, sysconf(_SC_NPROCESSORS_ONLN));
  } else {
    std::printf("open-loop cpu: generator %.2f cores\n", own);
  }
  return 0;
}
