// svc audit export | verify: the access log out of the service and checked without it
// (docs/audit.md#offline-verification).
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>

#include "api/http/http_client.h"
#include "api/http/cli.h"
#include "api/http/module.h"
#include "api/http/flags.h"
#include "core/canonical_json.h"
#include "eventstore/embedded_log.h"
#include "pipeline/audit/checkpoints.h"
#include "pipeline/audit/history.h"
#include "pipeline/certificate.h"
#include "projections/audit/as_of.h"
#include "pipeline/audit/data_dir_check.h"
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
// are left for the next export) and the checkpoints published up to it, through the public API
// with a compliance:read key. Written as it is read: JSON lines, the header then one entry each.
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

  // Every page of a list route, as its rows' JSON text, until `keep` says stop.
  auto pages = [&](const std::string& path, const std::function<bool(const core::Json&)>& keep) -> core::Status {
    std::string cursor;
    for (;;) {
      SVC_ASSIGN_OR_RETURN(HttpResponse page, Get(*target, key, path + "?limit=100" + (cursor.empty() ? "" : "&startingAfter=" + cursor)));
      core::Json body = core::ParseJsonOrDiscarded(page.body);
      if (!body.is_object() || !body["data"].is_array()) return core::DataLoss("GET " + path + " answered no list");
      for (const auto& row : body["data"]) {
        if (!keep(row)) return core::Status::Ok();
      }
      if (!body.value("hasMore", false) || !body["nextCursor"].is_string()) return core::Status::Ok();
      cursor = body["nextCursor"].get<std::string>();
    }
  };
  core::Json published = core::Json::array();
  auto st = pages("/v1/audit-logs/verify/checkpoints", [&](const core::Json& row) {
    if (row.value("treeSize", int64_t{0}) > size) return false;
    published.push_back(row);
    return true;
  });
  if (!st.ok()) return Fail(st);

  const std::string out_path = f.Get("out");
  std::ofstream file;
  if (!out_path.empty()) {
    file.open(out_path, std::ios::binary | std::ios::trunc);
    if (!file) return Fail(core::Internal("cannot write " + out_path));
  }
  std::ostream& out = out_path.empty() ? std::cout : file;
  // JSON lines: the header, then one entry per line.
  out << core::DumpJson({{"format", pipeline::audit::kExportFormat},
                         {"origin", key_doc.value("origin", "")},
                         {"verifierKey", key_doc.value("verifierKey", "")},
                         {"checkpoint", note},
                         {"checkpoints", published}})
      << "\n";
  int64_t written = 0;
  core::Status bad_entry;
  st = pages("/v1/audit-logs", [&](const core::Json& row) {
    if (written >= size) return false;
    // Each entry in its RFC 8785 form: the bytes the chain hashes, so a verifier need not parse them.
    auto canonical = core::CanonicalJson(row);
    if (!canonical.ok()) {
      bad_entry = canonical.status();
      return false;
    }
    out << *canonical << "\n";
    return ++written < size;
  });
  if (!st.ok()) return Fail(st);
  if (!bad_entry.ok()) return Fail(bad_entry);
  out.flush();
  if (!out) return Fail(core::Internal("cannot write the export"));
  if (!out_path.empty()) {
    std::cerr << "svc: " << written << " entries, " << published.size()
              << " published checkpoints and the checkpoint written to " << out_path << "\n";
  }
  return 0;
}

// svc audit verify --data-dir: every chain of a data directory's audit read model (opened read
// only), with its published checkpoints, the stored Merkle tree, and the keys derived from the
// directory's working root.
// --data-dir opened read only: its working root (from the master key the flags name) and its store.
struct StoppedDir {
  std::string working_root;
  std::unique_ptr<eventstore::KvStore> store;
};
core::Result<StoppedDir> OpenStoppedDir(Flags& f) {
  const std::string data_dir = f.Get("data-dir");
  KeySources ks = KeySourcesFrom(f);
  ks.read_existing_dev_keys = true;
  StoppedDir out;
  SVC_ASSIGN_OR_RETURN(out.working_root, LoadWorkingRoot(data_dir, ks));
  eventstore::KvStore::Options so;
  so.path = (std::filesystem::path(data_dir) / "db").string();
  so.column_families = StoreColumnFamilies();
  so.read_only = true;
  auto store = eventstore::KvStore::Open(so);
  if (!store.ok()) {
    core::SecureZero(out.working_root);
    return store.status();
  }
  out.store = std::move(*store);
  return out;
}

int VerifyDataDir(Flags& f) {
  auto dir = OpenStoppedDir(f);
  if (!dir.ok()) return Fail(dir.status());
  std::string root_key = pipeline::audit::CheckpointRootKey(dir->working_root);
  core::SecureZero(dir->working_root);
  auto& store = dir->store;
  auto checks = pipeline::audit::CheckDataDir(*store, root_key, f.Get("tenant"), f.Get("env"));
  core::SecureZero(root_key);
  if (!checks.ok()) return Fail(checks.status());
  bool all_valid = true;
  core::Json chains = core::Json::array();
  for (const auto& c : *checks) {
    all_valid &= c.valid();
    chains.push_back(c.ToJson());
  }
  Print({{"valid", all_valid}, {"chains", chains}});
  return all_valid ? 0 : 1;
}

// svc audit history --data-dir: what a stopped node's log says about a subject at a moment, as the
// route answers it (docs/audit.md, "History as of a moment"), signed with the key derived from the
// directory's working root. The directory is opened read only: this replay writes nothing, so no
// access-log entry records it (the route's replays are recorded).
int HistoryOfDataDir(const std::vector<const Module*>& modules, Flags& f) {
  const std::string type = f.Get("subject-type");
  if (projections::FindStateTopic(type) == nullptr) {
    return Fail(core::InvalidArgument("--subject-type must be verification_session, person, review_case or company"));
  }
  projections::AsOfQuery q{f.Get("tenant"), f.Get("env"), f.Get("subject-id"), core::SystemClock().Now()};
  if (q.tenant.empty() || q.subject_id.empty() || (q.environment != "test" && q.environment != "live")) {
    return Fail(core::InvalidArgument("--tenant, --env (test|live) and --subject-id are required"));
  }
  if (!f.Get("as-of").empty()) {
    auto t = core::ParseRfc3339(f.Get("as-of"));
    if (!t.ok()) return Fail(core::InvalidArgument("--as-of must be an RFC 3339 date-time"));
    q.as_of = *t;
  }
  auto dir = OpenStoppedDir(f);
  if (!dir.ok()) return Fail(dir.status());
  pipeline::audit::HistoryKeys keys{pipeline::audit::CheckpointRootKey(dir->working_root),
                                    pipeline::CertificateRootKey(dir->working_root)};
  core::SecureZero(dir->working_root);
  auto& store = dir->store;
  eventstore::EmbeddedLog::Options lo;
  lo.store = store.get();
  auto log = eventstore::EmbeddedLog::Open(lo);
  if (!log.ok()) return Fail(log.status());
  ProjectorList projectors;
  for (const Module* m : modules) {
    if (m->projectors != nullptr) m->projectors(projectors);
  }
  std::vector<projections::Projector*> all;
  for (auto& p : projectors) all.push_back(p.get());
  // The scratch store in the temporary directory, never in the data directory (opened read only).
  auto history = pipeline::audit::ReplayHistory(**log, all, std::filesystem::temp_directory_path().string(), type, q, keys);
  core::SecureZero(keys.checkpoint_root_key);
  core::SecureZero(keys.certificate_root_key);
  if (!history.ok()) return Fail(history.status());
  if (history->bundle.is_null()) return Fail(core::NotFound("no such " + type + " at " + core::FormatRfc3339(q.as_of)));
  if (f.Get("out").empty()) {
    Print(history->bundle);
  } else {
    std::ofstream(f.Get("out")) << core::DumpJson(history->bundle) << "\n";
  }
  return 0;
}

}  // namespace

// svc audit export --url http://host:port --key K [--out FILE]
// svc audit verify FILE [--verifier-key VKEY]
// svc audit verify --data-dir DIR [--tenant T] [--env E]
int Audit(const std::vector<const Module*>& modules, int argc, char** argv) {
  const std::string usage =
      "svc audit export --url http://host:port --key KEY [--out FILE]\n"
      "       svc audit history --data-dir DIR --tenant ten_… --env test|live --subject-type TYPE --subject-id ID "
      "[--as-of T] [--out FILE]\n"
      "       svc audit verify FILE [--verifier-key VKEY] [--threads N]\n"
      "       svc audit verify --data-dir DIR [--tenant ten_…] [--env test|live]";
  std::string verb = argc >= 3 ? argv[2] : "";
  Flags f;
  f.Declare({"url", "http://127.0.0.1:8080", "export: the service's public address"});
  f.Declare({"key", "", "export: an API key with compliance:read (or SVC_API_KEY)"});
  f.Declare({"out", "", "export: the file to write (default: standard output)"});
  f.Declare({"verifier-key", "",
             "verify: the C2SP verifier key you trust (GET /v1/audit-logs/verify/checkpoint-key, kept "
             "apart from the export); without it the export's own key is used and reported"});
  f.Declare({"threads", "0", "verify: threads hashing entries (0: one per core)"});
  f.Declare({"data-dir", "", "verify: a data directory (opened read only) instead of an export"});
  f.Declare({"tenant", "", "verify --data-dir: only this tenant's chains"});
  f.Declare({"env", "", "verify --data-dir: only this environment's chains; history: the subject's environment"});
  f.Declare({"subject-type", "", "history: verification_session, person, review_case or company"});
  f.Declare({"subject-id", "", "history: the subject's id"});
  f.Declare({"as-of", "", "history: the moment (RFC 3339; default: now)"});
  DeclareKeys(f);
  if (verb == "export") {
    if (auto st = f.Parse(argc, argv, 3); !st.ok()) return Fail(st);
    return Export(f);
  }
  if (verb == "history") {
    if (auto st = f.Parse(argc, argv, 3); !st.ok()) return Fail(st);
    if (f.Get("data-dir").empty()) {
      std::cerr << "usage: " << usage << "\n";
      return 2;
    }
    return HistoryOfDataDir(modules, f);
  }
  const bool file_given = argc >= 4 && std::string_view(argv[3]).rfind("--", 0) != 0;
  if (verb != "verify" || argc < 4) {
    std::cerr << "usage: " << usage << "\n";
    return 2;
  }
  if (auto st = f.Parse(argc, argv, file_given ? 4 : 3); !st.ok()) return Fail(st);
  if (!file_given) {
    if (f.Get("data-dir").empty()) {
      std::cerr << "usage: " << usage << "\n";
      return 2;
    }
    return VerifyDataDir(f);
  }
  unsigned threads = 0;
  try {
    threads = static_cast<unsigned>(std::stoul(f.Get("threads")));
  } catch (...) {
    return Fail(core::InvalidArgument("--threads must be a number"));
  }
  auto check = pipeline::audit::CheckExportFile(argv[3], f.Get("verifier-key"), threads);
  if (!check.ok()) return Fail(check.status());
  Print(check->ToJson());
  return check->valid() ? 0 : 1;
}

}  // namespace svc::api::cli
