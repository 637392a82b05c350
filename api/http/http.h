#pragma once
// HTTP types and the route table, free of Boost: handlers and routes never see Beast or Asio
// (those live only in http_server.cc).

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"
#include "core/status.h"

namespace svc::api {

// A request body read as it arrives, on routes that take large uploads
// (HttpServer::Options::streamed_body_suffixes): the server reads the socket ahead of the route
// by a bounded window, so an upload of any size holds a few hundred KiB.
class BodyReader {
 public:
  virtual ~BodyReader() = default;
  // Blocks (call it off the I/O threads): the body's next bytes, at most `max`; "" at its end.
  // PAYLOAD_TOO_LARGE past the route's limit, BAD_REQUEST for a malformed body, UNAVAILABLE when
  // the client went away or stalled past the read timeout.
  virtual core::Result<std::string> Read(size_t max) = 0;
};

// A body already in memory, read the same way.
class StringBodyReader final : public BodyReader {
 public:
  explicit StringBodyReader(std::string_view body) : body_(body) {}
  core::Result<std::string> Read(size_t max) override {
    std::string out(body_.substr(0, max));
    body_.remove_prefix(out.size());
    return out;
  }

 private:
  std::string_view body_;
};

struct HttpRequest {
  std::string method;  // "GET"
  std::string target;  // "/v1/x?y=1"
  std::string path;    // "/v1/x"
  std::string query;   // "y=1"
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;
  // Set instead of `body` on a streamed route (read it off the I/O threads, before answering or
  // not at all: an answer given before the end closes the connection after it).
  std::shared_ptr<BodyReader> body_stream;
  std::string remote;  // peer address, for logs
  std::map<std::string, std::string> path_params;  // filled by the router
  std::string request_id;                          // ours, "req_…"

  std::string Header(std::string_view name) const;  // "" when absent
};

// A response body produced over time (Server-Sent Events). The server writes the head with
// chunked transfer encoding, then asks for chunks until the stream ends.
class ResponseStream {
 public:
  virtual ~ResponseStream() = default;
  // Asks for the next chunk: `deliver` is called exactly once, from any thread, with the bytes
  // to write, or with nullopt when the stream is over.
  virtual void Next(std::function<void(std::optional<std::string>)> deliver) = 0;
  // The server stops or the client went away: a pending (or the next) Next answers nullopt soon.
  virtual void Finish() = 0;
  // Asked once Next answered nullopt: true when the stream broke off rather than ended, and the
  // connection is then closed without the last chunk, so the client sees an incomplete answer
  // instead of a short one.
  virtual bool Failed() const { return false; }
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  std::shared_ptr<ResponseStream> stream;  // when set, `body` is ignored
};

using Respond = std::function<void(HttpResponse)>;
// A handler answers exactly once, from any thread (so a write can answer after its fsync
// without holding an I/O thread).
using Handler = std::function<void(HttpRequest&, Respond)>;
using SyncHandler = std::function<HttpResponse(HttpRequest&)>;
Handler Sync(SyncHandler h);

HttpResponse JsonResponse(int status, const core::Json& body);
// Where problem `type` links point: <base>#<CODE>. Set once at start-up.
void SetProblemTypeBase(std::string base);
// The error catalogue as Markdown (served at /docs/errors, checked in as docs/errors.md).
std::string ErrorCatalogueMarkdown();

// application/problem+json (RFC 9457) for a catalogue code.
HttpResponse Problem(const HttpRequest& req, std::string_view code, std::string detail,
                     core::Json extensions = core::Json::object());

// Route table of path templates: "/v1/persons/{person_id}". A known path with a wrong method
// gets 405 METHOD_NOT_ALLOWED with Allow; an unknown path 404 RESOURCE_NOT_FOUND.
class Router {
 public:
  // Sees every request before its route does (paths in `open` excepted): calls `proceed` to let
  // it through (from any thread, now or later) or answers it with `respond` itself. The start-up
  // recovery gate (recovery_gate.h) holds requests this way until the read models caught up.
  using Gate = std::function<void(HttpRequest& req, std::function<void()> proceed, const Respond& respond)>;
  void SetGate(Gate gate, std::vector<std::string> open_paths);

  void Add(std::string method, std::string path_template, Handler handler);
  void Dispatch(HttpRequest& req, Respond respond) const;

 private:
  void DispatchRoute(HttpRequest& req, Respond respond) const;
  struct Route {
    std::string method;
    std::vector<std::string> segments;  // "{name}" = parameter
    Handler handler;
  };
  static bool Match(const Route& r, const std::vector<std::string_view>& parts,
                    std::map<std::string, std::string>* params);
  std::vector<Route> routes_;
  Gate gate_;
  std::vector<std::string> open_paths_;
};

}  // namespace svc::api
