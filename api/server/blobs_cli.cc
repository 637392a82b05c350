// svc blobs gc: deletes the objects no event refers to, older than a grace period (below).
// svc blobs migrate: copies the blobs of a data directory (<data-dir>/media, LocalBlobStore's
// layout <dir>/<aa>/<sha256>) into the store the flags name (--blob-store s3 ...), so that an
// existing installation moves its captures and list files into a bucket.
//
// Each blob is read with its hash checked, skipped when the target already has it (a HEAD), else
// stored and its address compared; nothing is deleted. Resumable: objects are content-addressed,
// so a second run copies only what the first did not (one that failed, or one written since).
// Safe while the server runs on the directory (blobs never change); the switch is: migrate,
// stop, migrate again (quick: only what came since), start with --blob-store s3
// (docs/operations.md#object-storage). Prints {"target", "copied", "skipped", "failed"}; exit 1
// when any blob failed, so a script reruns it.

#include <filesystem>
#include <iostream>

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
    o.store = &(*rt)->store();
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
  std::error_code ec;
  if (fs::is_directory(from, ec)) {
    for (const auto& shard : fs::directory_iterator(from, ec)) {
      const std::string prefix = shard.path().filename().string();
      if (!shard.is_directory() || prefix.size() != 2) continue;
      for (const auto& file : fs::directory_iterator(shard.path(), ec)) {
        const std::string address = file.path().filename().string();
        // Temporary files of an interrupted write (<address>.tmp.*) and strays are not blobs.
        if (!eventstore::ValidBlobAddress(address) || address.compare(0, 2, prefix) != 0) continue;
        auto there = target.Exists(address);
        if (there.ok() && *there) {
          ++skipped;
          continue;
        }
        auto bytes = source.Get(address);
        auto stored = bytes.ok() ? target.Put(*bytes) : core::Result<std::string>(bytes.status());
        if (stored.ok() && *stored == address) {
          ++copied;
          continue;
        }
        ++failed;
        core::LogWarn("blob not migrated",
                      {{"address", address}, {"error", stored.ok() ? "address mismatch" : stored.status().ToString()}});
      }
    }
  }
  if (ec) return Fail(core::Unavailable("cannot read " + from + ": " + ec.message()));
  Print({{"target", target.Describe()}, {"copied", copied}, {"skipped", skipped}, {"failed", failed}});
  return failed == 0 ? 0 : 1;
}

}  // namespace svc::api::cli
