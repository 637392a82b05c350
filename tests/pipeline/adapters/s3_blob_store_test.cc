// The S3 blob store against the tests' S3 server, which checks every request's Signature
// Version 4 with the AWS SDK's own signer; what we store is read back with the AWS SDK for
// JavaScript, and what the SDK stores is read by us. Faults (500, 503 SlowDown, a stalled answer,
// a dropped connection) are injected by the server.
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>

#include "core/crypto.h"
#include "pipeline/adapters/s3_blob_store.h"
#include "tests/support/s3_process.h"
#include "tests/support/temp_dir.h"

namespace pipeline_adapters_s3_blob_store_test {

using namespace svc;
using pipeline::adapters::S3BlobStore;
using pipeline::adapters::S3Options;

namespace {

S3Options OptionsFor(const testing::S3Process& s3) {
  S3Options o;
  o.endpoint = s3.endpoint();
  o.bucket = testing::S3Process::kBucket;
  o.prefix = "media/";
  o.path_style = true;
  o.credentials = {testing::S3Process::kAccessKey, testing::S3Process::kSecretKey, ""};
  o.first_backoff = std::chrono::milliseconds(5);
  o.max_backoff = std::chrono::milliseconds(20);
  return o;
}

size_t Count(const std::string& log, const std::string& needle) {
  size_t n = 0;
  for (size_t at = log.find(needle); at != std::string::npos; at = log.find(needle, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("s3 blobs: stored, read back, checked, deleted; the AWS SDK reads what we wrote and we read what it wrote") {
  testing::TempDir dir;
  testing::S3Process s3(dir.Sub("s3"));
  S3BlobStore blobs(OptionsFor(s3));
  CHECK(blobs.Describe() == "s3://svc-test/media/");

  const std::string bytes = core::RandomBytes(100 * 1024);
  auto address = blobs.Put(bytes);
  REQUIRE(address.ok());
  CHECK(*address == core::Sha256Hex(bytes));
  CHECK(blobs.KeyOf(*address) == "media/" + address->substr(0, 2) + "/" + *address);
  CHECK(s3.SdkGet(blobs.KeyOf(*address)) == *address + " " + std::to_string(bytes.size()));
  CHECK(blobs.Put(bytes).value() == *address);  // idempotent
  auto read = blobs.Get(*address);
  REQUIRE(read.ok());
  CHECK(*read == bytes);
  CHECK(blobs.Exists(*address).value());

  // Written by the SDK under the key of its hash: read and checked by us.
  const std::string other = "bytes an outside tool stored";
  const std::string other_address = core::Sha256Hex(other);
  std::ofstream(dir.Sub("other.bin"), std::ios::binary) << other;
  s3.SdkPut(blobs.KeyOf(other_address), dir.Sub("other.bin"));
  CHECK(blobs.Get(other_address).value() == other);

  // Bytes that do not hash to their key are never handed out.
  const std::string forged = core::Sha256Hex("what the key promises");
  s3.SdkPut(blobs.KeyOf(forged), dir.Sub("other.bin"));
  CHECK(blobs.Get(forged).status().code() == core::StatusCode::kDataLoss);

  CHECK(blobs.Delete(*address).value());
  CHECK_FALSE(blobs.Delete(*address).value());  // already gone: not an error
  CHECK(blobs.Get(*address).status().code() == core::StatusCode::kNotFound);
  CHECK_FALSE(blobs.Exists(*address).value());
  CHECK(s3.SdkGet(blobs.KeyOf(*address)).empty());
  CHECK(blobs.Get("not-an-address").status().code() == core::StatusCode::kInvalidArgument);
}

TEST_CASE("s3 blobs: a wrong secret is refused by the server's signature check, not retried") {
  testing::TempDir dir;
  testing::S3Process s3(dir.Sub("s3"));
  S3Options o = OptionsFor(s3);
  o.credentials.secret_access_key = "not-the-secret";
  S3BlobStore blobs(o);
  auto put = blobs.Put("x");
  CHECK(put.status().code() == core::StatusCode::kUnavailable);
  CHECK(put.status().message().find("403 SignatureDoesNotMatch") != std::string::npos);
  CHECK(Count(s3.LogJson(), "\"method\":\"PUT\"") == 1);
}

TEST_CASE("s3 blobs: 500, 503 SlowDown, a stalled answer and a dropped connection are retried") {
  testing::TempDir dir;
  testing::S3Process s3(dir.Sub("s3"));
  S3Options o = OptionsFor(s3);
  o.request_timeout = std::chrono::milliseconds(1500);
  S3BlobStore blobs(o);
  s3.InjectFaults({"500", "503", "stall", "reset"});
  auto address = blobs.Put("survives four failures");
  REQUIRE_MESSAGE(address.ok(), address.status().message());
  CHECK(Count(s3.LogJson(), "\"method\":\"PUT\"") == 5);
  CHECK(blobs.Get(*address).value() == "survives four failures");

  // More failures than attempts: UNAVAILABLE, naming the status and the attempts.
  s3.InjectFaults({"503", "503", "503", "503", "503"});
  auto refused = blobs.Put("never stored");
  CHECK(refused.status().code() == core::StatusCode::kUnavailable);
  CHECK(refused.status().message().find("503 SlowDown, 5 attempts") != std::string::npos);
  CHECK(s3.SdkGet(blobs.KeyOf(core::Sha256Hex("never stored"))).empty());
}

TEST_CASE("s3 blobs: a large object goes up in parts and reads back whole") {
  testing::TempDir dir;
  testing::S3Process s3(dir.Sub("s3"));
  S3Options o = OptionsFor(s3);
  o.multipart_threshold = 6u << 20;
  o.part_size = 5u << 20;
  S3BlobStore blobs(o);
  const std::string bytes = core::RandomBytes(11u << 20);  // three parts: 5, 5 and 1 MiB
  auto address = blobs.Put(bytes);
  REQUIRE_MESSAGE(address.ok(), address.status().message());
  const std::string log = s3.LogJson();
  CHECK(Count(log, "?uploads") == 1);
  CHECK(Count(log, "partNumber=") == 3);
  CHECK(s3.SdkGet(blobs.KeyOf(*address)) == *address + " " + std::to_string(bytes.size()));
  CHECK(blobs.Get(*address).value() == bytes);

  // A part that fails for good aborts the upload: nothing is stored under the key.
  const std::string other = core::RandomBytes(11u << 20);
  s3.InjectFaults({"ok", "503", "503", "503", "503", "503"});
  CHECK(blobs.Put(other).status().code() == core::StatusCode::kUnavailable);
  CHECK(s3.SdkGet(blobs.KeyOf(core::Sha256Hex(other))).empty());
}

TEST_CASE("s3 credentials: the environment first, else the shared credentials file's profile") {
  testing::TempDir dir;
  const std::string file = dir.Sub("credentials");
  std::ofstream(file) << "[default]\naws_access_key_id = AKDEFAULT\naws_secret_access_key = s1\n\n"
                         "# a comment\n[ops]\naws_access_key_id=AKOPS\naws_secret_access_key=s2\n"
                         "aws_session_token = tok\n";
  unsetenv("AWS_ACCESS_KEY_ID");
  unsetenv("AWS_SECRET_ACCESS_KEY");
  unsetenv("AWS_SESSION_TOKEN");
  auto d = pipeline::adapters::LoadAwsCredentials(file, "default");
  REQUIRE(d.ok());
  CHECK(d->access_key_id == "AKDEFAULT");
  CHECK(d->session_token.empty());
  auto ops = pipeline::adapters::LoadAwsCredentials(file, "ops");
  REQUIRE(ops.ok());
  CHECK(ops->secret_access_key == "s2");
  CHECK(ops->session_token == "tok");
  CHECK(pipeline::adapters::LoadAwsCredentials(file, "missing").status().code() ==
        core::StatusCode::kInvalidArgument);
  setenv("AWS_ACCESS_KEY_ID", "AKENV", 1);
  setenv("AWS_SECRET_ACCESS_KEY", "senv", 1);
  CHECK(pipeline::adapters::LoadAwsCredentials(file, "ops").value().access_key_id == "AKENV");
  unsetenv("AWS_ACCESS_KEY_ID");
  unsetenv("AWS_SECRET_ACCESS_KEY");
}

}  // namespace pipeline_adapters_s3_blob_store_test
