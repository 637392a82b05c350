#pragma once
// AWS Signature Version 4, as the S3 API (and every S3-compatible store: Ceph RGW, MinIO, GCS's
// interoperability mode) requires it on every request: the canonical request, the string to
// sign, the signing key and the Authorization header, as pure functions of the request, the
// credentials, the scope and the time. No I/O and no clock: the caller passes `amz_date` and
// sends X-Amz-Date with the same value. Checked against AWS's published test vectors
// (tests/pipeline/sigv4_test.cc): the generic suite and the S3 examples.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace svc::pipeline::net {

struct AwsCredentials {
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;  // "" none; temporary credentials sign and send X-Amz-Security-Token
};

struct SigV4Scope {
  std::string region;            // us-east-1
  std::string service = "s3";
};

// How the path is made canonical. S3 signs the path as sent: each segment percent-encoded once,
// slashes and dot segments kept (an object key may hold "//" or ".."). Every other service
// normalises the path (dot segments resolved, repeated slashes collapsed) and encodes it twice.
enum class PathRule { kS3, kOtherServices };

struct SigV4Request {
  std::string method = {};
  std::string path = "/";  // decoded: the bucket and object key as they are ("/b/a key/x$y")
  std::vector<std::pair<std::string, std::string>> query = {};    // decoded names and values
  std::vector<std::pair<std::string, std::string>> headers = {};  // every header signed, Host included
  std::string payload_sha256 = {};  // hex SHA-256 of the body, or "UNSIGNED-PAYLOAD"
};

struct SigV4Signature {
  std::string canonical_request;
  std::string string_to_sign;
  std::string signature;      // 64 hex characters
  std::string signed_headers; // "host;x-amz-content-sha256;x-amz-date"
  std::string authorization;  // the Authorization header's value
};

SigV4Signature SignV4(const SigV4Request& request, const AwsCredentials& credentials, const SigV4Scope& scope,
                      std::string_view amz_date, PathRule rule = PathRule::kS3);

// RFC 3986 percent-encoding as SigV4 defines it: every byte but A-Z a-z 0-9 - . _ ~ (and "/"
// when `keep_slash`) as %XY with upper-case hex.
std::string AwsUriEncode(std::string_view s, bool keep_slash);
// The path as it goes on the request line (S3: each segment encoded once, "/" kept).
std::string AwsWirePath(std::string_view decoded_path);
// The query string as it goes on the request line: canonical (sorted, encoded), "" when none.
std::string AwsCanonicalQuery(const std::vector<std::pair<std::string, std::string>>& query);
// "YYYYMMDDTHHMMSSZ" for a Unix time.
std::string AmzDate(int64_t unix_seconds);

}  // namespace svc::pipeline::net
