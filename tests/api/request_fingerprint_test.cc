#include <doctest/doctest.h>

#include "api/http/request_fingerprint.h"
#include "core/crypto.h"

namespace api_request_fingerprint_test {

using svc::api::HttpRequest;
using svc::api::RequestFingerprint;

namespace {

const std::string kKey(32, 'k');

HttpRequest Req(std::string method, std::string path, std::string query, std::string body) {
  HttpRequest r;
  r.method = std::move(method);
  r.path = std::move(path);
  r.query = std::move(query);
  r.body = std::move(body);
  return r;
}

}  // namespace

TEST_CASE("request fingerprint: the same parameters in another form are the same request") {
  const auto a = RequestFingerprint(kKey, Req("PATCH", "/v1/persons/p1", "", R"({"pii":{"phone":"5587654321","curp":"X"}})"));
  CHECK(a.starts_with("m1:"));
  CHECK(a.size() == 3 + 64);
  // Spaces, member order and escapes do not change the parameters.
  CHECK(RequestFingerprint(kKey, Req("PATCH", "/v1/persons/p1", "", "{ \"pii\" : {\"curp\":\"\\u0058\", \"phone\": \"5587654321\"} }\n")) == a);
  // The query's parameters in any order, encoded or not.
  CHECK(RequestFingerprint(kKey, Req("POST", "/v1/x", "a=1&b=%20", "")) ==
        RequestFingerprint(kKey, Req("POST", "/v1/x", "b=+&a=1", "")));
}

TEST_CASE("request fingerprint: different parameters, another key or a body that is not JSON differ") {
  const auto base = RequestFingerprint(kKey, Req("POST", "/v1/persons", "", R"({"pii":{"phone":"5587654321"}})"));
  CHECK(RequestFingerprint(kKey, Req("POST", "/v1/persons", "", R"({"pii":{"phone":"5587654322"}})")) != base);
  CHECK(RequestFingerprint(kKey, Req("PUT", "/v1/persons", "", R"({"pii":{"phone":"5587654321"}})")) != base);
  CHECK(RequestFingerprint(kKey, Req("POST", "/v1/persons/", "", R"({"pii":{"phone":"5587654321"}})")) != base);
  CHECK(RequestFingerprint(kKey, Req("POST", "/v1/persons", "x=1", R"({"pii":{"phone":"5587654321"}})")) != base);
  CHECK(RequestFingerprint(std::string(32, 'j'), Req("POST", "/v1/persons", "", R"({"pii":{"phone":"5587654321"}})")) != base);
  // A number's form is its value (RFC 8785): 1.0 and 1 are one parameter.
  CHECK(RequestFingerprint(kKey, Req("POST", "/v1/x", "", R"({"n":1.0})")) == RequestFingerprint(kKey, Req("POST", "/v1/x", "", R"({"n":1})")));
  // Not JSON: the bytes themselves; a body that is the text of a JSON string is not that JSON.
  const auto raw = RequestFingerprint(kKey, Req("POST", "/v1/x", "", "{not json"));
  CHECK(raw != RequestFingerprint(kKey, Req("POST", "/v1/x", "", "{not json ")));
  CHECK(RequestFingerprint(kKey, Req("POST", "/v1/x", "", "")) != RequestFingerprint(kKey, Req("POST", "/v1/x", "", "\"\"")));
  // Parts cannot run into each other.
  CHECK(RequestFingerprint(kKey, Req("POST", "/v1/ab", "", "")) != RequestFingerprint(kKey, Req("POST", "/v1/a", "b", "")));
}

TEST_CASE("request fingerprint: no plain hash of the body or of the request is in it") {
  const std::string body = R"({"pii":{"curp":"ZAQC660707HDFNRN05"}})";
  const auto fp = RequestFingerprint(kKey, Req("PATCH", "/v1/persons/p1", "", body));
  CHECK(fp.find(svc::core::Sha256Hex(body)) == std::string::npos);
  CHECK(fp.find(svc::core::Sha256Hex("PATCH\n/v1/persons/p1\n" + body)) == std::string::npos);
}

}  // namespace api_request_fingerprint_test
