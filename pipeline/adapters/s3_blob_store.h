#pragma once
// The blob store on the S3 API: AWS S3, or any S3-compatible service (Ceph RGW, MinIO, Google
// Cloud Storage's XML API). A blob is the object <prefix><first two hex>/<address> of one bucket,
// written with PUT (one request up to `multipart_threshold`, a multipart upload above it), read
// with GET and checked against its address on every read (eventstore/blob_store.h).
//
//  - Every request is signed with Signature Version 4 (pipeline/net/sigv4.h), dated by the wall
//    clock: never a test's fake clock, since S3 refuses a request 15 minutes off.
//  - 5xx answers (503 SlowDown among them), 429, timeouts and dropped connections are retried
//    with exponential backoff and full jitter, up to `max_attempts` calls; a call that still
//    fails is UNAVAILABLE, and its log line names the method, the object key, the status, S3's
//    error code and request id (never a credential, never a byte of the object).
//  - No personal data reaches the store: objects are sealed before Put, keys are content hashes,
//    and no metadata is set.
//  - Virtual-host addressing (https://bucket.endpoint/key) by default, path style
//    (https://endpoint/bucket/key) with `path_style`, for stores on an address or behind one name.
//
// Thread-safe: each call takes one of a small pool of kept-alive connections.

#include <chrono>
#include <memory>
#include <string>

#include "eventstore/blob_store.h"
#include "pipeline/net/sigv4.h"

namespace svc::pipeline::adapters {

struct S3Options {
  std::string endpoint;  // scheme://host[:port]: https://s3.us-east-1.amazonaws.com
  std::string bucket;
  std::string prefix;    // "" or a path ending in "/": "svc/media/"
  std::string region = "us-east-1";
  bool path_style = false;
  std::string ca_file;   // an extra trust anchor (a private CA), PEM
  net::AwsCredentials credentials;
  int max_attempts = 5;
  std::chrono::milliseconds first_backoff{200};  // the first retry's ceiling, doubled per retry
  std::chrono::milliseconds max_backoff{5000};
  std::chrono::milliseconds connect_timeout{5000};
  std::chrono::milliseconds request_timeout{60000};  // one call, sending and reading included
  size_t multipart_threshold = 16u << 20;  // larger objects go up in parts
  size_t part_size = 8u << 20;             // at least 5 MiB (S3's least, but for the last part)
  size_t max_object_bytes = 256u << 20;    // the largest object a Get reads
  // Where an object written in pieces (Create) waits, sealed, until it goes up in one streamed
  // PUT: <data-dir>/spool when the server runs.
  std::string spool_dir = "/tmp/svc-spool";
};

class S3BlobStore final : public eventstore::BlobStore {
 public:
  explicit S3BlobStore(S3Options options);
  ~S3BlobStore() override;

  core::Result<std::string> Put(std::string_view bytes) override;
  core::Result<std::string> Get(std::string_view address) const override;
  core::Result<bool> Delete(std::string_view address) override;
  core::Result<bool> Exists(std::string_view address) const override;
  core::Result<std::unique_ptr<eventstore::BlobReader>> Open(std::string_view address) const override;
  core::Result<std::unique_ptr<eventstore::BlobWriter>> Create() override;
  // ListObjectsV2 under the prefix, page by page (needs s3:ListBucket on the bucket).
  core::Status List(const std::function<core::Status(const eventstore::BlobInfo&)>& each) const override;
  std::string Describe() const override;

  // The object key of an address: <prefix><aa>/<address>.
  std::string KeyOf(std::string_view address) const;

 struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// Credentials as the AWS tools find them: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and
// AWS_SESSION_TOKEN from the environment when set, else `profile` (AWS_PROFILE, else "default")
// of the shared credentials file `file` (AWS_SHARED_CREDENTIALS_FILE, else ~/.aws/credentials).
// INVALID_ARGUMENT when neither gives a key pair.
core::Result<net::AwsCredentials> LoadAwsCredentials(std::string file = {}, std::string profile = {});

}  // namespace svc::pipeline::adapters
