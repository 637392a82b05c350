// AWS Signature Version 4 against AWS's published vectors: the generic test suite (credentials
// AKIDEXAMPLE, 2015-08-30T12:36:00Z, us-east-1, service "service") and the S3 examples of the
// S3 API reference (AKIAIOSFODNN7EXAMPLE, 2013-05-24, examplebucket). A signing mistake is
// almost always in the canonical request, so the S3 cases compare it line by line too.
#include <doctest/doctest.h>

#include "core/crypto.h"
#include "pipeline/net/sigv4.h"

namespace pipeline_net_sigv4_test {

using namespace svc;
using pipeline::net::PathRule;
using pipeline::net::SigV4Request;

namespace {

const pipeline::net::AwsCredentials kSuite{"AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", ""};
const pipeline::net::AwsCredentials kS3{"AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", ""};
const std::string kEmpty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

// A request of the generic suite: host and x-amz-date, plus the case's own headers.
pipeline::net::SigV4Signature Suite(std::string method, std::string path,
                                    std::vector<std::pair<std::string, std::string>> query,
                                    std::vector<std::pair<std::string, std::string>> headers = {},
                                    std::string body = "",
                                    const pipeline::net::AwsCredentials& credentials = kSuite) {
  SigV4Request r{.method = std::move(method), .path = std::move(path), .query = std::move(query)};
  r.headers = {{"Host", "example.amazonaws.com"}, {"X-Amz-Date", "20150830T123600Z"}};
  for (auto& h : headers) r.headers.push_back(std::move(h));
  r.payload_sha256 = core::Sha256Hex(body);
  return pipeline::net::SignV4(r, credentials, {"us-east-1", "service"}, "20150830T123600Z",
                               PathRule::kOtherServices);
}

pipeline::net::SigV4Signature S3(std::string method, std::string path,
                                 std::vector<std::pair<std::string, std::string>> query,
                                 std::vector<std::pair<std::string, std::string>> headers, std::string payload) {
  SigV4Request r{.method = std::move(method), .path = std::move(path), .query = std::move(query)};
  r.headers = {{"Host", "examplebucket.s3.amazonaws.com"},
               {"x-amz-content-sha256", payload},
               {"x-amz-date", "20130524T000000Z"}};
  for (auto& h : headers) r.headers.push_back(std::move(h));
  r.payload_sha256 = payload;
  return pipeline::net::SignV4(r, kS3, {"us-east-1", "s3"}, "20130524T000000Z");
}

}  // namespace

TEST_CASE("sigv4: the generic test suite's vectors") {
  auto vanilla = Suite("GET", "/", {});
  CHECK(vanilla.canonical_request ==
        "GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\n" + kEmpty);
  CHECK(vanilla.authorization ==
        "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, "
        "SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31");
  CHECK(Suite("GET", "/-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", {}).signature ==
        "07ef7494c76fa4850883e2b006601f940f8a34d404d0cfa977f52a65bbf5f24f");  // get-unreserved
  CHECK(Suite("GET", "//example//", {}).signature ==
        "9a624bd73a37c9a373b5312afbebe7a714a789de108f0bdfe846570885f57e84");  // get-slashes
  CHECK(Suite("GET", "/", {{"Param2", "value2"}, {"Param1", "value1"}}).signature ==
        "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500");  // get-vanilla-query-order-key-case
  CHECK(Suite("GET", "/", {{"Param1", "value2"}, {"Param1", "value1"}}).signature ==
        "5772eed61e12b33fae39ee5e7012498b51d56abc0abb7c60486157bd471c4694");  // get-vanilla-query-order-value
  CHECK(Suite("GET", "/", {{"\xE1\x88\xB4", "bar"}}).signature ==
        "2cdec8eed098649ff3a119c94853b13c643bcf08f8b0a1d91e12c9027818dd04");  // get-vanilla-utf8-query
  CHECK(Suite("GET", "/", {},
              {{"My-Header1", "value4"}, {"My-Header1", "value1"}, {"My-Header1", "value3"}, {"My-Header1", "value2"}})
            .signature == "08c7e5a9acfcfeb3ab6b2185e75ce8b1deb5e634ec47601a50643f830c755c01");  // get-header-value-order
  CHECK(Suite("GET", "/", {}, {{"My-Header1", "value2"}, {"My-Header1", "value2"}, {"My-Header1", "value1"}})
            .signature == "c9d5ea9f3f72853aea855b47ea873832890dbdd183b4468f858259531a5138ea");  // get-header-key-duplicate
  auto trim = Suite("GET", "/", {}, {{"My-Header1", " value1"}, {"My-Header2", "\"a   b   c\""}});
  CHECK(trim.canonical_request.find("my-header1:value1\nmy-header2:\"a b c\"\n") != std::string::npos);
  CHECK(trim.signature == "acc3ed3afb60bb290fc8d2dd0098b9911fcaa05412b367055dee359757a9c736");  // get-header-value-trim
  auto form = Suite("POST", "/", {}, {{"Content-Type", "application/x-www-form-urlencoded"}}, "Param1=value1");
  CHECK(form.signed_headers == "content-type;host;x-amz-date");
  CHECK(form.signature == "ff11897932ad3f4e8b18135d722051e5ac45fc38421b1da7b9d196a0fe09473a");  // post-x-www-form-urlencoded
  // Temporary credentials: the session token is a signed header.
  const std::string token = "6e86291e8372ff2a2260956d9b8aae1d763fbf315fa00fa31553b73ebf194267";
  auto temporary = Suite("GET", "/", {}, {{"X-Amz-Security-Token", token}});
  CHECK(temporary.signed_headers == "host;x-amz-date;x-amz-security-token");
  CHECK(temporary.signature == "07ec1639c89043aa0e3e2de82b96708f198cceab042d4a97044c66dd9f74e7f8");
}

TEST_CASE("sigv4: the S3 API reference's examples") {
  auto get = S3("GET", "/test.txt", {}, {{"Range", "bytes=0-9"}}, kEmpty);
  CHECK(get.canonical_request ==
        "GET\n/test.txt\n\nhost:examplebucket.s3.amazonaws.com\nrange:bytes=0-9\nx-amz-content-sha256:" + kEmpty +
            "\nx-amz-date:20130524T000000Z\n\nhost;range;x-amz-content-sha256;x-amz-date\n" + kEmpty);
  CHECK(get.string_to_sign ==
        "AWS4-HMAC-SHA256\n20130524T000000Z\n20130524/us-east-1/s3/aws4_request\n"
        "7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972");
  CHECK(get.signature == "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");

  const std::string body_hash = core::Sha256Hex("Welcome to Amazon S3.");
  CHECK(body_hash == "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072");
  auto put = S3("PUT", "/test$file.text", {},
                {{"Date", "Fri, 24 May 2013 00:00:00 GMT"}, {"x-amz-storage-class", "REDUCED_REDUNDANCY"}}, body_hash);
  CHECK(put.canonical_request.starts_with("PUT\n/test%24file.text\n\n"));  // "$" encoded once
  CHECK(put.string_to_sign.ends_with("9e0e90d9c76de8fa5b200d8c849cd5b8dc7a3be3951ddb7f6a76b4158342019d"));
  CHECK(put.signed_headers == "date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class");
  CHECK(put.signature == "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd");

  auto lifecycle = S3("GET", "/", {{"lifecycle", ""}}, {}, kEmpty);
  CHECK(lifecycle.canonical_request.starts_with("GET\n/\nlifecycle=\n"));
  CHECK(lifecycle.signature == "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543");

  auto list = S3("GET", "/", {{"prefix", "J"}, {"max-keys", "2"}}, {}, kEmpty);
  CHECK(list.canonical_request.starts_with("GET\n/\nmax-keys=2&prefix=J\n"));
  CHECK(list.signature == "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7");
}

TEST_CASE("sigv4: S3 paths are encoded once and never normalised") {
  using pipeline::net::AwsWirePath;
  CHECK(AwsWirePath("/bucket/a key/b+c") == "/bucket/a%20key/b%2Bc");
  CHECK(AwsWirePath("/bucket//x/../y") == "/bucket//x/../y");  // an object key is not a path to tidy
  CHECK(AwsWirePath("") == "/");
  CHECK(pipeline::net::AwsCanonicalQuery({{"uploadId", "a/b=c"}, {"partNumber", "2"}}) ==
        "partNumber=2&uploadId=a%2Fb%3Dc");
  CHECK(pipeline::net::AmzDate(1369353600) == "20130524T000000Z");
}

}  // namespace pipeline_net_sigv4_test
