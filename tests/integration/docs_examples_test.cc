// The command blocks of docs/*.md marked runnable (```bash runnable) run against a real svc, so
// that an example an integrator copies cannot answer 415 or 409 unnoticed (docs/README.md,
// "Runnable examples"). Each block runs in a fresh bash with `set -e` and a `curl` that fails on
// any HTTP error (--fail-with-body), after `localhost:8080` is replaced with this server's
// address. What the blocks may use, made here first:
//
//   $KEY       a test secret key with every scope
//   $PERSON    a person with a CURP, a name and a birth date
//   $SESSION   a verification session of that person sent to review
//   $CASE      its review case, open and free
//   $CASE2     a second open case, for the reassignment example
//   $REVIEWER  a reviewer user of the tenant (usr_…)
//
// The blocks of one file run in their order, on one server; the files in name order.
#include <doctest/doctest.h>

#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "core/json.h"
#include "tests/support/api_env.h"
#include "tests/support/session_flow.h"

using namespace svc;
using svc::testing::Body;
using svc::testing::Env;
using svc::testing::Sharing;

namespace {

struct Block {
  std::string file;
  int line = 0;  // of the opening fence
  std::string code;
};

std::vector<Block> RunnableBlocks(const std::filesystem::path& docs) {
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(docs)) {
    if (e.path().extension() == ".md") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  std::vector<Block> out;
  for (const auto& f : files) {
    std::ifstream in(f);
    std::string line;
    int n = 0;
    std::optional<Block> open;
    while (std::getline(in, line)) {
      ++n;
      if (!open && line == "```bash runnable") {
        open = Block{f.filename().string(), n, ""};
      } else if (open && line == "```") {
        out.push_back(std::move(*open));
        open.reset();
      } else if (open) {
        open->code += line + "\n";
      }
    }
  }
  return out;
}

// Runs `script` with bash; its exit status and what it printed (stdout and stderr).
std::pair<int, std::string> RunBash(const std::string& dir, const std::string& script) {
  const std::string path = dir + "/block.sh";
  { std::ofstream(path) << script; }
  FILE* p = popen(("bash " + path + " 2>&1").c_str(), "r");
  REQUIRE(p != nullptr);
  std::string output;
  char buf[4096];
  size_t got;
  while ((got = fread(buf, 1, sizeof buf, p)) > 0) output.append(buf, got);
  const int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

}  // namespace

TEST_CASE("docs: every runnable command block of docs/*.md runs against a real svc") {
  Env env(false, {"--rate-reveals", "0", "--rate-reads", "0", "--rate-writes", "0"}, Sharing::kIsolated);
  const std::string k = env.test_key;
  auto person = env.Call(k, "POST", "/v1/persons",
                         R"({"pii":{"curp":"PEPJ800101HDFRRN03","fullName":"JUAN PEREZ PEREZ","birthDate":"1980-01-01"}})");
  REQUIRE_MESSAGE(person.status == 201, person.body);
  const std::string per = Body(person)["id"];
  const std::string s1 = testing::SandboxSession(env, k, "docs-1", "review", per);
  const std::string c1 = testing::ReviewCaseOf(env, k, s1);
  const std::string s2 = testing::SandboxSession(env, k, "docs-2", "review");
  const std::string c2 = testing::ReviewCaseOf(env, k, s2);
  auto user = env.Admin("POST", "/admin/tenants/" + env.tenant + "/users", {{"role", "reviewer"}, {"label", "docs"}});
  REQUIRE_MESSAGE(user.status == 201, user.body);
  const std::string reviewer = Body(user)["id"];

  const std::string address = "127.0.0.1:" + std::to_string(env.server->target().port);
  const std::string prelude =
      "set -euo pipefail\n"
      "curl() { command curl --fail-with-body --silent --show-error \"$@\"; echo; }\n"
      "KEY='" + k + "' PERSON='" + per + "' SESSION='" + s1 + "' CASE='" + c1 + "' CASE2='" + c2 +
      "' REVIEWER='" + reviewer + "'\n";
  const auto blocks = RunnableBlocks(std::filesystem::path(SVC_TEST_SOURCE_DIR) / ".." / "docs");
  REQUIRE(blocks.size() >= 5);
  for (const auto& b : blocks) {
    const std::string code = std::regex_replace(b.code, std::regex("localhost:8080"), address);
    auto [status, output] = RunBash(env.dir.path(), prelude + code);
    INFO(b.file << ":" << b.line << "\n" << code << "\n--- output ---\n" << output);
    CHECK(status == 0);
  }
  // What the review examples did is what the API shows.
  core::Json c = Body(env.Call(k, "GET", "/v1/review/cases/" + c1 + "/state"));
  CHECK(c["case"]["status"] == "resolved");
  CHECK(Body(env.Call(k, "GET", "/v1/review/cases/" + c2 + "/state"))["case"]["assigneeUserId"] == reviewer);
}
