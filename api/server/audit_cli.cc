// svc audit export | verify: the access log out of the service and checked without it
// (docs/audit.md#offline-verification).
#include <fstream>
#include <iostream>
#include <sstream>

#include "api/http/http_client.h"
#include "api/server/cli.h"
#include "api/server/commands.h"
#include "api/server/flags.h"
#include "pipeline/audit/export_check.h"

namespace svc::api::cli {

namespace {

// "http://host:port" (loopback or any host the operator names; plain HTTP, as `svc serve`).
core::Result<ClientTarget> TargetOf(const std::string& url) {
  const std::string scheme = "http://";
  if (url.rfind(scheme, 0) != 0) return core::InvalidArgument("--url must be http://host:port");
  std::string rest = url.substr(scheme.size());
  while (!rest.empty() && rest.back() == '/') rest.pop_back();
  size_t colon = rest.rfind(':');
  if (colon == std::string::npos || colon == 0) return core::InvalidArgument("--url must be http://host:port");
  ClientTarget t;
  t.host = rest.substr(0, colon);
  int port = 0;
  for (char c : rest.substr(colon + 1)) {
    if (c < '0' || c > '9' || port > 65535) return core::InvalidArgument("--url has a bad port");
    port = port * 10 + (c - '0');
  }
  if (port <= 0 || port > 65535) return core::InvalidArgument("--url has a bad port");
  t.port = static_cast<uint16_t>(port);
  return t;
}

core::Result<HttpResponse> Get(const ClientTarget& t, const std::string& key, const std::string& path) {
  SVC_ASSIGN_OR_RETURN(HttpResponse r, HttpCall(t, "GET", path, {{"Authorization", "Bearer " + key}}));
  if (r.status != 200) return core::FailedPrecondition("GET " + path + " answered " + std::to_string(r.status) + ": " + r.body);
  return r;
}

// The export: the checkpoint first, then the entries up to its size (entries appended meanwhile
// are left for the next export), through the public API with a compliance:read key.
int Export(Flags& f) {
  auto target = TargetOf(f.Get("url"));
  if (!target.ok()) return Fail(target.status());
  std::string key = f.Get("key");
  if (key.empty()) {
    if (const char* env = std::getenv("SVC_API_KEY")) key = env;
  }
  if (key.empty()) return Fail(core::InvalidArgument("give --key (or SVC_API_KEY): a key with compliance:read"));
  auto vkey = Get(*target, key, "/v1/audit-logs/verify/checkpoint-key");
  if (!vkey.ok()) return Fail(vkey.status());
  auto checkpoint = Get(*target, key, "/v1/audit-logs/verify/checkpoint");
  if (!checkpoint.ok()) return Fail(checkpoint.status());
  core::Json key_doc = core::ParseJsonOrDiscarded(vkey->body);
  // The size the checkpoint commits to: the second line of the note.
  const std::string& note = checkpoint->body;
  size_t l1 = note.find('\n');
  size_t l2 = l1 == std::string::npos ? l1 : note.find('\n', l1 + 1);
  if (l2 == std::string::npos) return Fail(core::DataLoss("the checkpoint is malformed"));
  int64_t size = 0;
  for (char c : note.substr(l1 + 1, l2 - l1 - 1)) size = size * 10 + (c - '0');
  core::Json entries = core::Json::array();
  std::string cursor;
  while (static_cast<int64_t>(entries.size()) < size) {
    std::string path = "/v1/audit-logs?limit=100" + (cursor.empty() ? "" : "&startingAfter=" + cursor);
    auto page = Get(*target, key, path);
    if (!page.ok()) return Fail(page.status());
    core::Json body = core::ParseJsonOrDiscarded(page->body);
    for (auto& e : body["data"]) {
      if (static_cast<int64_t>(entries.size()) < size) entries.push_back(std::move(e));
    }
    if (!body.value("hasMore", false) || !body["nextCursor"].is_string()) break;
    cursor = body["nextCursor"].get<std::string>();
  }
  core::Json doc = {{"format", pipeline::audit::kExportFormat},
                    {"origin", key_doc.value("origin", "")},
                    {"verifierKey", key_doc.value("verifierKey", "")},
                    {"checkpoint", note},
                    {"entries", std::move(entries)}};
  std::string text = doc.dump(1) + "\n";
  if (f.Get("out").empty()) {
    std::cout << text;
  } else {
    std::ofstream out(f.Get("out"), std::ios::binary | std::ios::trunc);
    out << text;
    if (!out) return Fail(core::Internal("cannot write " + f.Get("out")));
    std::cerr << "svc: " << doc["entries"].size() << " entries and the checkpoint written to " << f.Get("out") << "\n";
  }
  return 0;
}

}  // namespace

// svc audit export --url http://host:port --key K [--out FILE]
// svc audit verify FILE [--verifier-key VKEY]
int Audit(int argc, char** argv) {
  const std::string usage =
      "svc audit export --url http://host:port --key KEY [--out FILE]\n"
      "       svc audit verify FILE [--verifier-key VKEY]";
  std::string verb = argc >= 3 ? argv[2] : "";
  Flags f;
  f.Declare({"url", "http://127.0.0.1:8080", "export: the service's public address"});
  f.Declare({"key", "", "export: an API key with compliance:read (or SVC_API_KEY)"});
  f.Declare({"out", "", "export: the file to write (default: standard output)"});
  f.Declare({"verifier-key", "",
             "verify: the C2SP verifier key you trust (GET /v1/audit-logs/verify/checkpoint-key, kept "
             "apart from the export); without it the export's own key is used and reported"});
  if (verb == "export") {
    if (auto st = f.Parse(argc, argv, 3); !st.ok()) return Fail(st);
    return Export(f);
  }
  if (verb != "verify" || argc < 4) {
    std::cerr << "usage: " << usage << "\n";
    return 2;
  }
  if (auto st = f.Parse(argc, argv, 4); !st.ok()) return Fail(st);
  auto input = ReadInputFile(argv[3]);
  if (!input.ok()) return Fail(input.status());
  auto check = pipeline::audit::CheckExport(*input, f.Get("verifier-key"));
  if (!check.ok()) return Fail(check.status());
  Print(check->ToJson());
  return check->valid() ? 0 : 1;
}

}  // namespace svc::api::cli
