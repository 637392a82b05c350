#include "pipeline/adapters/s3_blob_store.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <random>
#include <thread>
#include <utility>
#include <vector>

#include "core/clock.h"
#include "core/crypto.h"
#include "core/log.h"
#include "pipeline/net/outbound_client.h"
#include "pipeline/net/url_guard.h"

namespace svc::pipeline::adapters {
namespace {

using Headers = std::vector<std::pair<std::string, std::string>>;

std::string HeaderOf(const net::SendResult& r, std::string_view name) {
  for (const auto& [k, v] : r.headers) {
    if (k == name) return v;
  }
  return "";
}

// The text of the first <tag>…</tag> of an S3 answer (its XML has no attributes on these).
std::string XmlValue(std::string_view xml, std::string_view tag) {
  const std::string open = "<" + std::string(tag) + ">", close = "</" + std::string(tag) + ">";
  size_t a = xml.find(open);
  if (a == std::string_view::npos) return "";
  a += open.size();
  size_t b = xml.find(close, a);
  return b == std::string_view::npos ? "" : std::string(xml.substr(a, b - a));
}

// Worth another call: no answer at all (a timeout, a refused or dropped connection), a 5xx (503
// SlowDown among them) or 429.
bool Retryable(const net::SendResult& r) {
  if (r.status == 0) return r.error != "invalid_url";
  return r.status == 429 || r.status >= 500;
}

bool Ok(const net::SendResult& r) { return r.status >= 200 && r.status < 300; }

std::string Trim(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\r' || s.back() == '\t')) s.pop_back();
  size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  return s.substr(i);
}

}  // namespace

struct S3BlobStore::Impl {
  struct Request {
    std::string method;
    std::string key;
    Headers query = {};
    std::string body = {};
    std::string body_sha256 = {};  // hex, when the caller has it already (a PUT: the address)
    std::string body_file = {};    // the body is this file's bytes, read as they are sent
    Headers unsigned_headers = {};  // sent, not signed (Range)
  };

  explicit Impl(S3Options options) : o(std::move(options)) {
    send.allow_private = true;  // the operator's own endpoint (a store on a private network, tests)
    send.connect_timeout = o.connect_timeout;
    send.total_timeout = o.request_timeout;
    send.max_response_bytes = o.max_object_bytes;
    send.ca_file = o.ca_file;
    send.user_agent = "svc-blobs/1";
    auto parsed = net::ParseHttpUrl(o.endpoint);
    if (parsed.ok()) {
      endpoint = *parsed;
      const bool default_port = endpoint.port == (endpoint.scheme == "https" ? 443 : 80);
      const std::string host = o.path_style ? endpoint.host : o.bucket + "." + endpoint.host;
      host_header = host + (default_port ? "" : ":" + std::to_string(endpoint.port));
      base_url = endpoint.scheme + "://" + host_header;
      path_prefix = o.path_style ? "/" + o.bucket : "";
    } else {
      endpoint_error = parsed.status().message();
    }
  }

  std::unique_ptr<net::OutboundClient> Take() {
    std::lock_guard lock(mu);
    if (idle.empty()) return std::make_unique<net::OutboundClient>(send, /*keep_alive=*/true);
    auto c = std::move(idle.back());
    idle.pop_back();
    return c;
  }
  void Give(std::unique_ptr<net::OutboundClient> c) {
    std::lock_guard lock(mu);
    if (idle.size() < 8) idle.push_back(std::move(c));
  }

  // One S3 call, signed afresh and retried per the header's rules. `attempts` is set to the
  // number of calls made.
  net::SendResult Call(const Request& q, int& attempts) {
    const std::string payload = q.body_sha256.empty() ? core::Sha256Hex(q.body) : q.body_sha256;
    const std::string path = path_prefix + "/" + q.key;
    const std::string target =
        net::AwsWirePath(path) + (q.query.empty() ? "" : "?" + net::AwsCanonicalQuery(q.query));
    net::SendResult r;
    for (attempts = 1;; ++attempts) {
      const int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                              std::chrono::system_clock::now().time_since_epoch())
                              .count();
      const std::string amz_date = net::AmzDate(now);
      net::SigV4Request s{.method = q.method, .path = path, .query = q.query};
      s.headers = {{"host", host_header}, {"x-amz-content-sha256", payload}, {"x-amz-date", amz_date}};
      if (!o.credentials.session_token.empty()) s.headers.emplace_back("x-amz-security-token", o.credentials.session_token);
      s.payload_sha256 = payload;
      const auto signature = net::SignV4(s, o.credentials, {o.region, "s3"}, amz_date);
      Headers headers(s.headers.begin() + 1, s.headers.end());  // Host is set by the client, the same
      headers.emplace_back("authorization", signature.authorization);
      headers.insert(headers.end(), q.unsigned_headers.begin(), q.unsigned_headers.end());
      auto client = Take();
      r = q.body_file.empty() ? client->Send(q.method, base_url + target, headers, q.body, now)
                              : client->SendFile(q.method, base_url + target, headers, q.body_file, now);
      Give(std::move(client));
      if (!Retryable(r) || attempts >= o.max_attempts) return r;
      // Full jitter (AWS's backoff advice): a wait drawn from [0, min(cap, base * 2^(n-1))].
      const auto ceiling = std::min(o.max_backoff, o.first_backoff * (1 << std::min(attempts - 1, 16)));
      thread_local std::mt19937_64 rng{std::random_device{}()};
      std::uniform_int_distribution<int64_t> pick(0, std::max<int64_t>(1, ceiling.count()));
      std::this_thread::sleep_for(std::chrono::milliseconds(pick(rng)));
    }
  }

  core::Status Failure(const Request& q, const net::SendResult& r, int attempts) const {
    const std::string code = XmlValue(r.body, "Code");
    core::LogWarn("object store call failed",
                  {{"method", q.method},
                   {"key", q.key},
                   {"status", r.status},
                   {"code", code},
                   {"requestId", HeaderOf(r, "x-amz-request-id")},
                   {"error", r.error},
                   {"attempts", attempts}});
    std::string what = r.status != 0 ? std::to_string(r.status) + (code.empty() ? "" : " " + code) : r.error;
    return core::Unavailable("the object store refused " + q.method + " " + q.key + " (" + what + ", " +
                             std::to_string(attempts) + " attempt" + (attempts == 1 ? "" : "s") + ")");
  }

  core::Result<net::SendResult> Run(const Request& q, std::initializer_list<int> accepted = {}) {
    if (!endpoint_error.empty()) return core::InvalidArgument("--s3-endpoint: " + endpoint_error);
    int attempts = 0;
    net::SendResult r = Call(q, attempts);
    if (Ok(r) || std::find(accepted.begin(), accepted.end(), r.status) != accepted.end()) return r;
    return Failure(q, r, attempts);
  }

  core::Status PutMultipart(const std::string& key, std::string_view bytes) {
    SVC_ASSIGN_OR_RETURN(auto created, Run({"POST", key, {{"uploads", ""}}}));
    const std::string upload = XmlValue(created.body, "UploadId");
    if (upload.empty()) return core::Unavailable("the object store answered a multipart upload without its id");
    std::string complete = "<CompleteMultipartUpload>";
    core::Status failed = core::Status::Ok();
    int part = 1;
    for (size_t at = 0; at < bytes.size(); at += o.part_size, ++part) {
      Request up{"PUT", key, {{"partNumber", std::to_string(part)}, {"uploadId", upload}},
                 std::string(bytes.substr(at, o.part_size))};
      auto sent = Run(up);
      if (!sent.ok()) {
        failed = sent.status();
        break;
      }
      complete += "<Part><PartNumber>" + std::to_string(part) + "</PartNumber><ETag>" + HeaderOf(*sent, "etag") +
                  "</ETag></Part>";
    }
    if (failed.ok()) {
      complete += "</CompleteMultipartUpload>";
      auto done = Run({"POST", key, {{"uploadId", upload}}, complete});
      // S3 may answer 200 and still fail the completion (an <Error> body).
      if (done.ok() && done->body.find("<Error>") == std::string::npos) return core::Status::Ok();
      failed = done.ok() ? core::Unavailable("the object store failed to complete a multipart upload: " +
                                             XmlValue(done->body, "Code"))
                         : done.status();
    }
    // Nothing half stored stays billed: the parts are dropped (best effort; a bucket lifecycle
    // rule for incomplete multipart uploads is the backstop, docs/operations.md).
    (void)Run({"DELETE", key, {{"uploadId", upload}}}, {404});
    return failed;
  }

  S3Options o;
  net::SendOptions send;
  net::ParsedUrl endpoint;
  std::string endpoint_error;
  std::string host_header, base_url, path_prefix;
  std::mutex mu;
  std::vector<std::unique_ptr<net::OutboundClient>> idle;
};

namespace {

// Ranged GETs of a window (1 MiB): a reader asks for a sealed chunk at a time, a call fetches
// a window of them.
class S3Reader final : public eventstore::BlobReader {
 public:
  S3Reader(std::string address, uint64_t size, S3BlobStore::Impl* impl, std::string key)
      : BlobReader(std::move(address), size), impl_(impl), key_(std::move(key)) {}

 protected:
  core::Result<std::string> ReadAt(uint64_t offset, size_t max) override;

 private:
  core::Result<std::string> Fetch(uint64_t offset, size_t max);
  static constexpr size_t kWindow = 1u << 20;
  S3BlobStore::Impl* impl_;
  std::string key_;
  uint64_t window_at_ = 0;
  std::string window_;
};

class S3Writer final : public eventstore::BlobWriter {
 public:
  S3Writer(S3BlobStore::Impl* impl, const S3BlobStore* store, std::unique_ptr<eventstore::BlobSpool> spool)
      : impl_(impl), store_(store), spool_(std::move(spool)) {}
  core::Status Write(std::string_view bytes) override { return spool_->Write(bytes); }
  uint64_t size() const override { return spool_->size(); }
  core::Result<std::string> Commit() override;

 private:
  S3BlobStore::Impl* impl_;
  const S3BlobStore* store_;
  std::unique_ptr<eventstore::BlobSpool> spool_;
};

}  // namespace

S3BlobStore::S3BlobStore(S3Options options) : impl_(std::make_unique<Impl>(std::move(options))) {}
S3BlobStore::~S3BlobStore() = default;

std::string S3BlobStore::KeyOf(std::string_view address) const {
  return impl_->o.prefix + std::string(address.substr(0, 2)) + "/" + std::string(address);
}

std::string S3BlobStore::Describe() const { return "s3://" + impl_->o.bucket + "/" + impl_->o.prefix; }

core::Result<std::string> S3BlobStore::Put(std::string_view bytes) {
  std::string address = core::Sha256Hex(bytes);
  const std::string key = KeyOf(address);
  if (bytes.size() > impl_->o.multipart_threshold) {
    SVC_RETURN_IF_ERROR(impl_->PutMultipart(key, bytes));
    return address;
  }
  // S3 answers a PUT once the object is durably stored (strong read-after-write since 2020).
  SVC_RETURN_IF_ERROR(impl_->Run({"PUT", key, {}, std::string(bytes), address}).status());
  return address;
}

core::Result<std::string> S3BlobStore::Get(std::string_view address) const {
  if (!eventstore::ValidBlobAddress(address)) return core::InvalidArgument("not a blob address");
  const std::string key = KeyOf(address);
  SVC_ASSIGN_OR_RETURN(auto r, impl_->Run({"GET", key}, {404}));
  if (r.status == 404) return core::NotFound("no blob " + std::string(address));
  if (core::Sha256Hex(r.body) != address) {
    core::LogError("an object of the store does not match its address",
                   {{"key", key}, {"expected", std::string(address)}, {"bytes", r.body.size()}});
    return core::DataLoss("blob " + std::string(address) + " does not match its address");
  }
  return std::move(r.body);
}

core::Result<std::unique_ptr<eventstore::BlobReader>> S3BlobStore::Open(std::string_view address) const {
  if (!eventstore::ValidBlobAddress(address)) return core::InvalidArgument("not a blob address");
  std::string key = KeyOf(address);
  SVC_ASSIGN_OR_RETURN(auto r, impl_->Run({"HEAD", key}, {404}));
  if (r.status == 404) return core::NotFound("no blob " + std::string(address));
  uint64_t size = 0;
  try {
    size = std::stoull(HeaderOf(r, "content-length"));
  } catch (const std::exception&) {
    return core::Unavailable("the object store answered a HEAD without Content-Length");
  }
  return std::unique_ptr<eventstore::BlobReader>(new S3Reader(std::string(address), size, impl_.get(), std::move(key)));
}

core::Result<std::unique_ptr<eventstore::BlobWriter>> S3BlobStore::Create() {
  SVC_ASSIGN_OR_RETURN(auto spool, eventstore::BlobSpool::Create(impl_->o.spool_dir));
  return std::unique_ptr<eventstore::BlobWriter>(new S3Writer(impl_.get(), this, std::move(spool)));
}

core::Result<std::string> S3Reader::ReadAt(uint64_t offset, size_t max) {
  if (offset >= window_at_ && offset + max <= window_at_ + window_.size()) {
    return window_.substr(static_cast<size_t>(offset - window_at_), max);
  }
  const uint64_t want = std::min<uint64_t>(std::max(max, kWindow), size() - offset);
  SVC_ASSIGN_OR_RETURN(window_, Fetch(offset, static_cast<size_t>(want)));
  window_at_ = offset;
  return window_.substr(0, max);
}

core::Result<std::string> S3Reader::Fetch(uint64_t offset, size_t max) {
  const std::string range = "bytes=" + std::to_string(offset) + "-" + std::to_string(offset + max - 1);
  SVC_ASSIGN_OR_RETURN(auto r, impl_->Run({.method = "GET", .key = key_, .unsigned_headers = {{"range", range}}}));
  if (r.status == 200 && offset == 0 && r.body.size() >= max) r.body.resize(max);  // a store that ignores Range
  if (r.status != 206 && !(r.status == 200 && offset == 0)) {
    return core::Unavailable("the object store answered a ranged GET with " + std::to_string(r.status));
  }
  return std::move(r.body);
}

core::Result<std::string> S3Writer::Commit() {
  std::string address = spool_->FinishHash();
  // One PUT whose body is read from the spool as it is sent (S3 takes up to 5 GiB in one PUT);
  // it answers once the object is durable.
  SVC_RETURN_IF_ERROR(impl_->Run({.method = "PUT", .key = store_->KeyOf(address), .body_sha256 = address,
                                  .body_file = spool_->path()})
                          .status());
  return address;
}

core::Status S3BlobStore::List(const std::function<core::Status(const eventstore::BlobInfo&)>& each) const {
  std::string token;
  for (;;) {
    Impl::Request q{.method = "GET", .key = "", .query = {{"list-type", "2"}, {"prefix", impl_->o.prefix}}};
    if (!token.empty()) q.query.emplace_back("continuation-token", token);
    std::sort(q.query.begin(), q.query.end());
    SVC_ASSIGN_OR_RETURN(auto r, impl_->Run(q));
    std::string_view xml = r.body;
    for (size_t at = xml.find("<Contents>"); at != std::string_view::npos; at = xml.find("<Contents>", at + 1)) {
      const size_t end = xml.find("</Contents>", at);
      if (end == std::string_view::npos) break;
      const std::string_view entry = xml.substr(at, end - at);
      const std::string key = XmlValue(entry, "Key");
      const std::string address = key.substr(key.rfind('/') + 1);
      if (!eventstore::ValidBlobAddress(address) || key != KeyOf(address)) continue;
      eventstore::BlobInfo info{address, 0, 0};
      try {
        info.size = std::stoull(XmlValue(entry, "Size"));
      } catch (const std::exception&) {
      }
      if (auto when = core::ParseRfc3339(XmlValue(entry, "LastModified")); when.ok()) {
        info.modified_unix = when->micros / 1'000'000;
      }
      SVC_RETURN_IF_ERROR(each(info));
    }
    if (XmlValue(xml, "IsTruncated") != "true") return core::Status::Ok();
    token = XmlValue(xml, "NextContinuationToken");
    if (token.empty()) return core::Unavailable("the object store cut a listing without a continuation token");
  }
}

core::Result<bool> S3BlobStore::Exists(std::string_view address) const {
  if (!eventstore::ValidBlobAddress(address)) return false;
  SVC_ASSIGN_OR_RETURN(auto r, impl_->Run({"HEAD", KeyOf(address)}, {404}));
  return r.status != 404;
}

core::Result<bool> S3BlobStore::Delete(std::string_view address) {
  if (!eventstore::ValidBlobAddress(address)) return core::InvalidArgument("not a blob address");
  // S3 answers a DELETE 204 whether or not the object was there: a HEAD says which.
  SVC_ASSIGN_OR_RETURN(bool existed, Exists(address));
  SVC_RETURN_IF_ERROR(impl_->Run({"DELETE", KeyOf(address)}, {404}).status());
  return existed;
}

core::Result<net::AwsCredentials> LoadAwsCredentials(std::string file, std::string profile) {
  auto env = [](const char* name) {
    const char* v = std::getenv(name);
    return std::string(v ? v : "");
  };
  net::AwsCredentials c{env("AWS_ACCESS_KEY_ID"), env("AWS_SECRET_ACCESS_KEY"), env("AWS_SESSION_TOKEN")};
  if (!c.access_key_id.empty() && !c.secret_access_key.empty()) return c;
  if (file.empty()) file = env("AWS_SHARED_CREDENTIALS_FILE");
  if (file.empty() && !env("HOME").empty()) file = env("HOME") + "/.aws/credentials";
  if (profile.empty()) profile = env("AWS_PROFILE");
  if (profile.empty()) profile = "default";
  std::ifstream in(file);
  if (!in) {
    return core::InvalidArgument("no S3 credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or name a "
                                 "credentials file (--s3-credentials-file)");
  }
  c = {};
  std::string line, section;
  while (std::getline(in, line)) {
    line = Trim(line);
    if (line.empty() || line[0] == '#' || line[0] == ';') continue;
    if (line.front() == '[' && line.back() == ']') {
      section = Trim(line.substr(1, line.size() - 2));
      continue;
    }
    if (section != profile) continue;
    const size_t eq = line.find('=');
    if (eq == std::string::npos) continue;
    const std::string k = Trim(line.substr(0, eq)), v = Trim(line.substr(eq + 1));
    if (k == "aws_access_key_id") c.access_key_id = v;
    if (k == "aws_secret_access_key") c.secret_access_key = v;
    if (k == "aws_session_token") c.session_token = v;
  }
  if (c.access_key_id.empty() || c.secret_access_key.empty()) {
    return core::InvalidArgument("the credentials file " + file + " has no key pair for the profile " + profile);
  }
  return c;
}

}  // namespace svc::pipeline::adapters
