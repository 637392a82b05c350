// SSRF guard: which addresses count as public, and URL syntax.
#include <doctest/doctest.h>

#include "pipeline/net/url_guard.h"

namespace pipeline_net_url_guard_test {

using namespace svc::pipeline::net;

TEST_CASE("url guard: public and non-public addresses") {
  for (const char* ip : {"93.184.216.34", "8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "2001:4860:4860::8888",
                         "::ffff:8.8.8.8", "64:ff9b::808:808"}) {
    CAPTURE(ip);
    CHECK(IsPublicAddress(ip));
  }
  for (const char* ip : {"127.0.0.1", "127.255.255.254", "10.0.0.1", "172.16.0.1", "172.31.255.255", "192.168.0.1",
                         "169.254.169.254", "100.64.0.1", "0.0.0.0", "224.0.0.1", "255.255.255.255", "192.0.2.1",
                         "198.51.100.7", "203.0.113.9", "198.18.0.1", "::", "::1", "fd00::1", "fc00::1", "fe80::1",
                         "ff02::1", "2001:db8::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "64:ff9b::a00:1",
                         "2002:7f00:1::", "::127.0.0.1", "not an ip", "",
                         // issue 68, item 4: the translated and the local-use NAT64 forms of 127.0.0.1
                         "::ffff:0:7f00:1", "::ffff:0:127.0.0.1", "64:ff9b:1::7f00:1", "64:ff9b:1::808:808",
                         "::ffff:0:a00:1", "2001:0:4136:e378:8000:63bf:80ff:fffe", "2001:2::1", "2001:10::1",
                         "2001:20::1"}) {
    CAPTURE(ip);
    CHECK_FALSE(IsPublicAddress(ip));
  }
  CHECK(IsPublicAddress("::ffff:0:808:808"));  // the translated form of a public address
  CHECK(IsPublicAddress("2001:4860::1"));      // 2001::/23's public neighbours
  CHECK(IsPublicAddress("2001:30::1"));
  CHECK(IsPublicAddress("172.32.0.1"));  // just outside 172.16/12
  CHECK(IsPublicAddress("100.128.0.1"));  // just outside 100.64/10
}

TEST_CASE("url guard: URL syntax") {
  auto p = ParseHttpUrl("HTTPS://Example.COM:8443/a/b?c=d");
  REQUIRE(p.ok());
  CHECK(p->scheme == "https");
  CHECK(p->host == "example.com");
  CHECK(p->port == 8443);
  CHECK(p->target == "/a/b?c=d");
  auto v6 = ParseHttpUrl("https://[2001:db8::1]/x");
  REQUIRE(v6.ok());
  CHECK(v6->host == "2001:db8::1");
  CHECK(v6->port == 443);
  CHECK(ParseHttpUrl("https://example.com?x=1")->target == "/?x=1");
  for (const char* bad : {"example.com/x", "ftp://example.com/", "https://", "https://u@example.com/",
                          "https://example.com/#f", "https://exa mple.com/", "https://example.com:0/",
                          "https://example.com:70000/", "https://example.com:8a/", "https://[::1/"}) {
    CAPTURE(bad);
    CHECK_FALSE(ParseHttpUrl(bad).ok());
  }
  // With the development switch anything syntactically fine passes; without it, names resolve.
  CHECK(CheckWebhookUrl("http://127.0.0.1:9/x", true).ok());
  CHECK(CheckWebhookUrl("https://localhost/x", false).status().api_code() == "URL_NOT_PUBLIC");
}

}  // namespace pipeline_net_url_guard_test
