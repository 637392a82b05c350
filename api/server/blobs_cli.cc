// svc blobs gc: deletes the objects no event refers to, older than a grace period (below).
// svc blobs migrate: copies the blobs of a data directory (<data-dir>/media, LocalBlobStore's
// layout <dir>/<aa>/<sha256>) into the store the flags name (--blob-store s3 ...), so that an
// existing installation moves its captures and list files into a bucket.
//
// Each blob (LocalBlobStore::List: spool and temporary files are not blobs) is skipped when the
// target already has it (a HEAD), else streamed across with its hash checked on both sides and its
// address compared; nothing is deleted. Resumable: objects are content-addressed,
// so a second run copies only what the first did not (one that failed, or one written since).
// Safe while the server runs on the directory (blobs never change); the switch is: migrate,
// stop, migrate again (quick: only what came since), start with --blob-store s3
// (docs/operations.md#object-storage). Prints {"target", "copied", "skipped", "failed"}; exit 1
// when any blob failed, so a script reruns it.

#include <filesystem>
#include <iostream>

#include "api/http/module.h"
#include "api/server/cli.h"
#include "api/server/commands.h"
#include "core/log.h"
#include "eventstore/blob_store.h"
#include "pipeline/adapters/s3_blob_store.h"
#include "pipeline/retention/blob_collector.h"

namespace svc::api::cli {

namespace {

// svc blobs gc: one run of the garbage collector (pipeline/retention/blob_collector.h), here on a
// stopped data directory, or by the running server through its admin socket.
int BlobsGc(int argc, char** argv) {
  Flags f;
  DeclareCommon(f);
  DeclareAdminSocket(f);
  f.Declare({"dry-run", "false", "report what would be deleted; delete nothing", true});
  f.Declare({"grace-seconds", "86400", "keep unreferenced objects younger than this"});
  if (auto st = f.Parse(argc, argv, 3); !st.ok()) return Fail(st);
  ApplyLogLevel(f);
  long long grace = -1;
  try {
    grace = std::stoll(f.Get("grace-seconds"));
  } catch (...) {
  }
  if (grace < 0) return Fail(core::InvalidArgument("--grace-seconds must be 0 or more seconds"));
  auto ro = RuntimeOptionsFrom(f);
  if (!ro.ok()) return Fail(ro.status());
  ro->keys.read_existing_dev_keys = true;  // an operator command: never creates keys
  auto rt = Runtime::Open(*ro);
  if (rt.ok()) {
    pipeline::retention::BlobCollector::Options o;
    LendRuntime(**rt, o);
    o.blobs = &(*rt)->blobs();
    o.caught_up = [&] { return (*rt)->CatchUpProjections(); };
    pipeline::retention::BlobCollector collector(std::move(o));
    return RunLocally(**rt, [&]() -> core::Result<core::Json> {
      SVC_ASSIGN_OR_RETURN(auto run, collector.RunOnce(f.GetBool("dry-run"), std::chrono::seconds(grace)));
      return run.ToJson();
    });
  }
  if (!HeldByServer(rt.status())) return Fail(rt.status());
  auto resp = CallAdminSocket(f, *ro, "POST", "/admin/blobs/gc",
                              core::DumpJson({{"dryRun", f.GetBool("dry-run")}, {"graceSeconds", grace}}));
  if (!resp.ok()) return Fail(resp.status());
  return PrintAdminAnswer(*resp);
}

}  // namespace

int Blobs(int argc, char** argv) {
  if (argc >= 3 && std::string(argv[2]) == "gc") return BlobsGc(argc, argv);
  if (argc < 3 || std::string(argv[2]) != "migrate") {
    std::cerr << "usage: svc blobs migrate --data-dir DIR --blob-store s3 --s3-endpoint URL --s3-bucket B "
                 "[--s3-prefix P] [--from DIR]\n"
                 "       svc blobs gc --data-dir DIR [--dry-run] [--grace-seconds N] [the blob store's flags]\n";
    return 2;
  }
  Flags f;
  DeclareCommon(f);
  f.Declare({"from", "", "the directory to copy from (default <data-dir>/media)"});
  if (auto st = f.Parse(argc, argv, 3); !st.ok()) return Fail(st);
  ApplyLogLevel(f);
  auto ro = RuntimeOptionsFrom(f);
  if (!ro.ok()) return Fail(ro.status());
  if (ro->blob_store != "s3") return Fail(core::InvalidArgument("blobs migrate copies into --blob-store s3"));
  namespace fs = std::filesystem;
  const std::string from = f.Get("from").empty() ? (fs::path(ro->data_dir) / "media").string() : f.Get("from");
  eventstore::LocalBlobStore source(from);
  pipeline::adapters::S3BlobStore target(ro->s3);
  int64_t copied = 0, skipped = 0, failed = 0;
  // Each blob streamed across (a piece at a time, hashed on the way out and on the way in), so a
  // large capture is never whole in memory.
  auto copy = [&](const std::string& address) -> core::Result<std::string> {
    SVC_ASSIGN_OR_RETURN(auto in, source.Open(address));
    SVC_ASSIGN_OR_RETURN(auto out, target.Create());
    for (;;) {
      SVC_ASSIGN_OR_RETURN(std::string piece, in->Read(1 << 20));
      if (piece.empty()) break;
      SVC_RETURN_IF_ERROR(out->Write(piece));
    }
    return out->Commit();
  };
  std::error_code ec;
  if (fs::is_directory(from, ec)) {
    auto listed = source.List([&](const eventstore::BlobInfo& b) {
      auto there = target.Exists(b.address);
      if (there.ok() && *there) {
        ++skipped;
        return core::Status::Ok();
      }
      auto stored = copy(b.address);
      if (stored.ok() && *stored == b.address) {
        ++copied;
        return core::Status::Ok();
      }
      ++failed;
      core::LogWarn("blob not migrated",
                    {{"address", b.address}, {"error", stored.ok() ? "address mismatch" : stored.status().ToString()}});
      return core::Status::Ok();
    });
    if (!listed.ok()) return Fail(listed);
  }
  Print({{"target", target.Describe()}, {"copied", copied}, {"skipped", skipped}, {"failed", failed}});
  return failed == 0 ? 0 : 1;
}

}  // namespace svc::api::cli
