// svc backup --to DIR: a backup of a data directory (eventstore/backup.h), taken by the running
// server through its admin socket, or in-process on a stopped directory.
// svc restore --from DIR --data-dir NEW: checks the backup against its manifest (every file's
// size and SHA-256, no other file, the manifest's HMAC under the master key), copies it into a
// temporary sibling of NEW and renames that into place; NEW must not exist or be empty.
// docs/operations.md#backup-and-restore.

#include <filesystem>
#include <iostream>

#include "api/http/module.h"
#include "api/server/cli.h"
#include "api/server/commands.h"
#include "core/crypto.h"
#include "core/ids.h"
#include "core/log.h"
#include "eventstore/backup.h"

namespace svc::api::cli {

namespace fs = std::filesystem;

int Backup(int argc, char** argv) {
  Flags f;
  DeclareCommon(f);
  DeclareAdminSocket(f);
  f.Declare({"to", "", "the backup directory: must not exist, or be empty (on the server's machine)"});
  if (auto st = f.Parse(argc, argv, 2); !st.ok()) return Fail(st);
  if (f.HelpRequested()) {
    std::cout << f.Help("svc backup --to DIR [--data-dir DIR]");
    return 0;
  }
  ApplyLogLevel(f);
  if (f.Get("to").empty()) return Fail(core::InvalidArgument("--to is required"));
  const std::string to = fs::absolute(f.Get("to")).lexically_normal().string();
  auto ro = RuntimeOptionsFrom(f);
  if (!ro.ok()) return Fail(ro.status());
  ro->keys.read_existing_dev_keys = true;  // an operator command: never creates keys
  auto rt = Runtime::Open(*ro);
  if (rt.ok()) return RunLocally(**rt, [&] { return (*rt)->Backup(to); });
  if (!HeldByServer(rt.status())) return Fail(rt.status());
  auto resp = CallAdminSocket(f, *ro, "POST", "/admin/backup", core::DumpJson({{"to", to}}),
                              std::chrono::hours(24));
  if (!resp.ok()) return Fail(resp.status());
  return PrintAdminAnswer(*resp);
}

int Restore(int argc, char** argv) {
  Flags f;
  DeclareCommon(f);
  f.Declare({"from", "", "the backup directory (written by svc backup)"});
  if (auto st = f.Parse(argc, argv, 2); !st.ok()) return Fail(st);
  if (f.HelpRequested()) {
    std::cout << f.Help("svc restore --from DIR --data-dir NEW --master-key-file FILE");
    return 0;
  }
  ApplyLogLevel(f);
  if (f.Get("from").empty()) return Fail(core::InvalidArgument("--from is required"));
  auto ro = RuntimeOptionsFrom(f);
  if (!ro.ok()) return Fail(ro.status());
  const fs::path into = fs::absolute(ro->data_dir).lexically_normal();
  std::error_code ec;
  if (fs::exists(into, ec) && !(fs::is_directory(into, ec) && fs::is_empty(into, ec))) {
    return Fail(core::FailedPrecondition(into.string() + " is not empty: a restore goes into a new data directory"));
  }
  // The key that opens the backup: never in it. A development directory's master.key is named
  // with --master-key-file (and, with --dev-keys-in-data-dir, copied into NEW).
  KeySources keys = ro->keys;
  const bool dev_copy = keys.dev_keys_in_data_dir;
  keys.dev_keys_in_data_dir = false;
  keys.read_existing_dev_keys = false;
  const char* env = std::getenv("SVC_MASTER_KEY");
  if ((env == nullptr || *env == '\0') && keys.master_key_file.empty()) {
    return Fail(core::InvalidArgument(
        "a restore checks the backup with the master key of the installation it came from: set SVC_MASTER_KEY "
        "or --master-key-file (a development directory's key is its master.key file)"));
  }

  // 1. Every file against the manifest.
  auto manifest = eventstore::VerifyBackup(f.Get("from"));
  if (!manifest.ok()) return Fail(manifest.status());
  // 2. Copied (and hashed again) into a sibling of NEW, checked with the master key, renamed.
  const fs::path tmp = into.parent_path() / ("." + into.filename().string() + ".restoring-" +
                                             core::HexEncode(core::RandomBytes(6)));
  auto cleanup = [&] { fs::remove_all(tmp, ec); };
  if (auto st = eventstore::CopyBackupFiles(f.Get("from"), *manifest, tmp.string()); !st.ok()) {
    cleanup();
    return Fail(st);
  }
  auto root = LoadWorkingRoot(tmp.string(), keys);
  if (!root.ok()) {
    cleanup();
    return Fail(root.status());
  }
  auto mac = eventstore::VerifyBackupMac(*manifest, BackupManifestKey(*root));
  core::SecureZero(*root);
  if (!mac.ok()) {
    cleanup();
    return Fail(mac);
  }
  if (dev_copy) {
    fs::copy_file(keys.master_key_file, tmp / "master.key", ec);
    if (ec) {
      cleanup();
      return Fail(core::Unavailable("cannot copy the development master key: " + ec.message()));
    }
    fs::permissions(tmp / "master.key", fs::perms::owner_read | fs::perms::owner_write, ec);
  }
  if (fs::exists(into, ec)) fs::remove(into, ec);  // empty (checked above)
  fs::rename(tmp, into, ec);
  if (ec) {
    cleanup();
    return Fail(core::Unavailable("cannot move the restored directory into place: " + ec.message()));
  }
  core::Json out;
  out["restored"] = true;
  out["from"] = fs::absolute(f.Get("from")).lexically_normal().string();
  out["dataDir"] = into.string();
  out["about"] = (*manifest)["about"];
  out["totals"] = (*manifest)["totals"];
  out["next"] = dev_copy ? "svc serve --data-dir " + into.string() + " --dev-keys-in-data-dir"
                         : "svc serve --data-dir " + into.string() +
                               " with the same master key; the read models resume from the checkpoint";
  Print(out);
  return 0;
}

}  // namespace svc::api::cli
