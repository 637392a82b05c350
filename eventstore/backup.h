#pragma once
// Backups of a data directory (docs/operations.md#backup-and-restore).
//
// A backup is a directory:
//   db/             a RocksDB checkpoint of the node's one store (KvStore::Checkpoint): the
//                   embedded log, the write model, every read model, the key store (data keys
//                   wrapped under the master key) and the configuration rows, as of one moment;
//   media/aa/<sha>  every object of the blob store present once the checkpoint was taken
//                   (LocalBlobStore's layout, whatever the node's store was): a superset of the
//                   objects the checkpoint refers to, since an object is stored before the event
//                   naming it is appended;
//   MANIFEST.json   written last: every file's path, size and SHA-256, what the caller recorded
//                   (`about`), a digest of all that and an HMAC of the digest under a key derived
//                   from the node's working root, which only the master key opens.
// A directory without MANIFEST.json is an unfinished backup. The master key is never in a backup
// (nor the development key file, nor the admin service key): only db/ and media/ are copied.
//
// A restore checks every file against the manifest, refuses any other file, copies into a new
// data directory through a temporary sibling renamed into place, and (api/server/backup_cli.cc)
// checks the HMAC with the master key before the rename.

#include <cstdint>
#include <string>

#include "core/json.h"
#include "core/status.h"
#include "eventstore/blob_store.h"
#include "eventstore/kv_store.h"

namespace svc::eventstore {

inline constexpr std::string_view kBackupFormat = "svc-backup/1";
inline constexpr std::string_view kBackupManifest = "MANIFEST.json";

struct BackupRequest {
  KvStore* store = nullptr;
  const BlobStore* blobs = nullptr;
  std::string to;            // must not exist, or be an empty directory
  core::Json about;          // recorded as the manifest's "about"
  std::string manifest_key;  // 32 bytes: the HMAC key of the manifest
};

// Takes the backup. The answer is the manifest without its file list, plus "files" and "bytes".
// A failure leaves `to` without a manifest (an unfinished backup a restore refuses).
core::Result<core::Json> WriteBackup(const BackupRequest& request);

// A manifest's text, checked on its own: the format, the digest, every file entry well formed
// (a path under db/ or media/ of plain characters, a size, a SHA-256), no path twice, a
// checkpoint's CURRENT among them. DATA_LOSS naming what does not match.
inline constexpr size_t kMaxBackupManifestBytes = size_t{1} << 30;
core::Result<core::Json> ParseBackupManifest(std::string_view text);

// Reads `dir`'s manifest and checks its digest, that every file it names is there with its size
// and SHA-256, and that no other file is: the manifest, or DATA_LOSS naming the first mismatch
// (FAILED_PRECONDITION when there is no manifest: an unfinished backup).
core::Result<core::Json> VerifyBackup(const std::string& dir);

// The manifest's HMAC under `manifest_key`: DATA_LOSS when it does not match (the manifest was
// changed, or the backup is of another installation than the master key's).
core::Status VerifyBackupMac(const core::Json& manifest, std::string_view manifest_key);

// Copies a verified backup's files (db/ and media/) into `into`, which must not exist; every
// file and directory fsynced.
core::Status CopyBackupFiles(const std::string& from, const core::Json& manifest, const std::string& into);

}  // namespace svc::eventstore
