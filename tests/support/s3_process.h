#pragma once
// The tests' S3-compatible server (tests/s3/server.mjs: s3rver behind a front that checks every
// request's Signature Version 4 with the AWS SDK's signer) as a child process on loopback, with
// one bucket, and the AWS SDK for JavaScript (tests/s3/sdk.mjs) to read and write it the way an
// outside tool would. Credentials S3RVER / S3RVER.

#include <memory>
#include <string>
#include <vector>

#include "tests/support/child_process.h"

namespace svc::testing {

class S3Process {
 public:
  static constexpr const char* kBucket = "svc-test";
  static constexpr const char* kAccessKey = "S3RVER";
  static constexpr const char* kSecretKey = "S3RVER";

  explicit S3Process(const std::string& dir);
  int port() const { return port_; }
  std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(port_); }
  // The next requests fail in this order: "500", "503" (SlowDown), "stall", "reset".
  void InjectFaults(const std::vector<std::string>& next);
  // The requests the server saw: [{method, path, status}].
  std::string LogJson() const;
  // Through the AWS SDK: "<sha256 hex> <size>" of the object at `key`, or "" when absent; its
  // bytes are written to `save_to` when given.
  std::string SdkGet(const std::string& key, const std::string& save_to = "") const;
  void SdkPut(const std::string& key, const std::string& file) const;
  std::vector<std::string> SdkList(const std::string& prefix) const;
  // The flags of a `svc serve` whose blobs are in this server's bucket (prefix "media"), with the
  // credentials written to a shared credentials file at `credentials_path`. (Extracted at its
  // third copy: the blobs suite, the test environment, the cluster suite.)
  std::vector<std::string> ServerFlags(const std::string& credentials_path) const;

 private:
  std::unique_ptr<ChildProcess> child_;
  int port_ = 0;
};

}  // namespace svc::testing
