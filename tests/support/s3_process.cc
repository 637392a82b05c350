#include "tests/support/s3_process.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "api/http/http_client.h"
#include "tests/support/loopback.h"
#include "tests/support/svc_process.h"

namespace svc::testing {
namespace {

std::string Script(const char* name) { return std::string(SVC_TEST_SOURCE_DIR) + "/s3/" + name; }

}  // namespace

S3Process::S3Process(const std::string& dir) {
  child_ = std::make_unique<ChildProcess>(std::vector<std::string>{"node", Script("server.mjs"), dir, kBucket});
  std::string s = child_->ReadLine();
  if (s.rfind("port ", 0) != 0) throw std::runtime_error("unexpected S3 server output: " + s);
  port_ = std::stoi(s.substr(5));
}

void S3Process::InjectFaults(const std::vector<std::string>& next) {
  std::string body = "{\"next\":[";
  for (size_t i = 0; i < next.size(); ++i) body += (i ? ",\"" : "\"") + next[i] + "\"";
  body += "]}";
  api::ClientTarget t;
  t.port = static_cast<uint16_t>(port_);
  auto r = api::HttpCall(t, "POST", "/__faults", {{"content-type", "application/json"}}, body);
  if (!r.ok() || r->status != 200) throw std::runtime_error("the S3 server took no faults");
}

std::string S3Process::LogJson() const { return LoopbackGet(port_, "/__log"); }

std::string S3Process::SdkGet(const std::string& key, const std::string& save_to) const {
  std::vector<std::string> args = {Script("sdk.mjs"), endpoint(), kBucket, "get", key};
  if (!save_to.empty()) args.push_back(save_to);
  auto r = RunProgram("node", args);
  if (r.exit_code != 0) {
    if (r.err.find("NoSuchKey") != std::string::npos) return "";
    throw std::runtime_error("sdk get " + key + ": " + r.err);
  }
  std::string out = r.out;
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

void S3Process::SdkPut(const std::string& key, const std::string& file) const {
  auto r = RunProgram("node", {Script("sdk.mjs"), endpoint(), kBucket, "put", key, file});
  if (r.exit_code != 0) throw std::runtime_error("sdk put " + key + ": " + r.err);
}

std::vector<std::string> S3Process::SdkList(const std::string& prefix) const {
  auto r = RunProgram("node", {Script("sdk.mjs"), endpoint(), kBucket, "list", prefix});
  if (r.exit_code != 0) throw std::runtime_error("sdk list " + prefix + ": " + r.err);
  std::vector<std::string> keys;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) keys.push_back(line);
  }
  return keys;
}

std::vector<std::string> S3Process::ServerFlags(const std::string& credentials_path) const {
  std::ofstream(credentials_path) << "[default]\naws_access_key_id = " << kAccessKey
                                  << "\naws_secret_access_key = " << kSecretKey << "\n";
  return {"--blob-store", "s3", "--s3-endpoint", endpoint(), "--s3-bucket", kBucket,
          "--s3-prefix", "media", "--s3-path-style", "--s3-credentials-file", credentials_path};
}

}  // namespace svc::testing
