#pragma once
// A small blocking HTTP/1.1 client (Beast) for the admin CLI and the tests: TCP or unix socket,
// one request per connection, with a timeout.

#include <chrono>
#include <map>
#include <string>

#include "api/http/http.h"
#include "core/status.h"

namespace svc::api {

struct ClientTarget {
  std::string host = "127.0.0.1";
  uint16_t port = 0;
  std::string unix_socket;  // when set, used instead of host:port
};

core::Result<HttpResponse> HttpCall(const ClientTarget& target, const std::string& method,
                                    const std::string& path_and_query,
                                    const std::map<std::string, std::string>& headers = {},
                                    const std::string& body = "",
                                    std::chrono::milliseconds timeout =
                                        std::chrono::milliseconds(30000));

}  // namespace svc::api
