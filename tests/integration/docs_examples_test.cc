// The command blocks of docs/*.md marked runnable (```bash runnable) run against a real svc, so
// that an example an integrator copies cannot answer 415 or 409 unnoticed (docs/README.md,
// "Runnable examples"). Each block runs in a fresh bash with `set -e` and a `curl` that fails on
// any HTTP error (--fail-with-body), after `localhost:8080` is replaced with this server's
// address. What the blocks may use, made here first:
//
//   $KEY       a test secret key with every scope
//   $PERSON    a person with a CURP (PEPJ800101HDFRRN03), a name, a birth date and an e-mail
//   $SESSION   a verification session of that person sent to review
//   $CASE      its review case, open and free
//   $CASE2     a second open case, for the reassignment example
//   $REVIEWER  a reviewer user of the tenant (usr_…), $REVIEWER_SECRET its secret (usk_…)
//   $SVC_SECRET_KEY  the same key as $KEY, under the name embedded.md gives it
//   $EMS       an embedded session (ems_…), for the confirmation example
//
// `https://svc.example` (embedded.md's host) is replaced with the server's address as well.
//
// The blocks of one file run in their order, on one server; the files in name order. `svc` (the
// binary under test, for its client commands) and jq are on the PATH; the working directory is
// the test's own, with `docs` there naming the repository's docs (for docs/verify_*.py).
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

namespace integration_docs_examples_test {

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

// Every command block (```sh or ```bash) of docs/*.md: runnable or not.
struct AnyBlock {
  Block block;
  bool runnable = false;
  bool excused = false;  // preceded by <!-- not runnable: <why> -->
};

std::vector<AnyBlock> CommandBlocks(const std::filesystem::path& docs) {
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(docs)) {
    if (e.path().extension() == ".md") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  std::vector<AnyBlock> out;
  for (const auto& f : files) {
    std::ifstream in(f);
    std::string line;
    int n = 0;
    std::optional<AnyBlock> open;
    bool in_other = false;  // inside a fence of another language
    std::string before;     // the last non-empty line before this one
    while (std::getline(in, line)) {
      ++n;
      if (!open && !in_other && line.rfind("```", 0) == 0) {
        const std::string lang = line.substr(3);
        if (lang == "sh" || lang == "bash" || lang == "bash runnable") {
          open = AnyBlock{Block{f.filename().string(), n, ""}, lang == "bash runnable",
                          before.rfind("<!-- not runnable: ", 0) == 0};
        } else {
          in_other = true;
        }
      } else if ((open || in_other) && line == "```") {
        if (open) out.push_back(std::move(*open));
        open.reset();
        in_other = false;
      } else if (open) {
        open->block.code += line + "\n";
      }
      if (!line.empty()) before = line;
    }
  }
  return out;
}

// The runnable ones, in file then line order.
std::vector<Block> RunnableBlocks(const std::filesystem::path& docs) {
  std::vector<Block> out;
  for (auto& b : CommandBlocks(docs)) {
    if (b.runnable) out.push_back(std::move(b.block));
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

TEST_CASE("docs: every command block of docs/*.md that calls the API is runnable, unless it needs an operator's shell") {
  int runnable = 0;
  for (const auto& b : CommandBlocks(std::filesystem::path(SVC_TEST_SOURCE_DIR) / ".." / "docs")) {
    if (b.runnable) {
      ++runnable;
      continue;
    }
    if (b.block.code.find("curl ") == std::string::npos) continue;
    INFO(b.block.file << ":" << b.block.line << "\n" << b.block.code);
    // Left unmarked only for what the test cannot do: an operator's command on the server's data
    // directory or admin socket, or what the line before the block excuses with its reason.
    CHECK((b.excused || b.block.code.find("svc admin ") != std::string::npos ||
           b.block.code.find("--data-dir") != std::string::npos));
  }
  CHECK(runnable >= 25);
}

TEST_CASE("docs: every runnable command block of docs/*.md runs against a real svc") {
  Env env(false, {"--rate-reveals", "0", "--rate-reads", "0", "--rate-writes", "0"}, Sharing::kIsolated);
  const std::string k = env.test_key;
  auto person = env.Call(k, "POST", "/v1/persons",
                         R"({"pii":{"curp":"PEPJ800101HDFRRN03","fullName":"JUAN PEREZ PEREZ","birthDate":"1980-01-01","email":"juan@example.mx"}})");
  REQUIRE_MESSAGE(person.status == 201, person.body);
  const std::string per = Body(person)["id"];
  const std::string s1 = testing::SandboxSession(env, k, "docs-1", "review", per);
  const std::string c1 = testing::ReviewCaseOf(env, k, s1);
  const std::string s2 = testing::SandboxSession(env, k, "docs-2", "review");
  const std::string c2 = testing::ReviewCaseOf(env, k, s2);
  auto user = env.Admin("POST", "/admin/tenants/" + env.tenant + "/users", {{"role", "reviewer"}, {"label", "docs"}});
  REQUIRE_MESSAGE(user.status == 201, user.body);
  const std::string reviewer = Body(user)["id"];
  const std::string reviewer_secret = Body(user)["secret"];
  auto embedded = env.Call(k, "POST", "/v1/embedded/sessions", R"({"allowedOrigins":["https://shop.example"]})",
                           {{"Idempotency-Key", "docs-ems"}});
  REQUIRE_MESSAGE(embedded.status == 201, embedded.body);
  const std::string ems = Body(embedded)["id"];

  const std::string address = "127.0.0.1:" + std::to_string(env.server->target().port);
  std::filesystem::create_directory_symlink(std::filesystem::path(SVC_TEST_SOURCE_DIR) / ".." / "docs", env.dir.path() + "/docs");
  const std::string prelude =
      "set -euo pipefail\n"
      "cd '" + env.dir.path() + "'\n"
      "PATH='" + std::filesystem::path(SVC_BINARY).parent_path().string() + "':\"$PATH\"\n"
      "curl() { local rc=0; command curl --fail-with-body --silent --show-error \"$@\" || rc=$?; echo; return $rc; }\n"
      "KEY='" + k + "' PERSON='" + per + "' SESSION='" + s1 + "' CASE='" + c1 + "' CASE2='" + c2 +
      "' REVIEWER='" + reviewer + "' SVC_SECRET_KEY='" + k + "' EMS='" + ems + "' REVIEWER_SECRET='" + reviewer_secret + "'\n";
  const auto blocks = RunnableBlocks(std::filesystem::path(SVC_TEST_SOURCE_DIR) / ".." / "docs");
  REQUIRE(blocks.size() >= 5);
  for (const auto& b : blocks) {
    const std::string code = std::regex_replace(std::regex_replace(b.code, std::regex("localhost:8080"), address),
                                                std::regex("https://svc\\.example"), "http://" + address);
    auto [status, output] = RunBash(env.dir.path(), prelude + code);
    INFO(b.file << ":" << b.line << "\n" << code << "\n--- output ---\n" << output);
    CHECK(status == 0);
  }
  // What the review examples did is what the API shows.
  core::Json c = Body(env.Call(k, "GET", "/v1/review/cases/" + c1 + "/state"));
  CHECK(c["case"]["status"] == "resolved");
  CHECK(Body(env.Call(k, "GET", "/v1/review/cases/" + c2 + "/state"))["case"]["assigneeUserId"] == reviewer);
}

}  // namespace integration_docs_examples_test
