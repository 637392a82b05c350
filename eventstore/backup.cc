#include "eventstore/backup.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "core/canonical_json.h"
#include "core/crypto.h"
#include "core/log.h"

namespace svc::eventstore {

namespace fs = std::filesystem;

namespace {

core::Status Fsync(const fs::path& path, bool directory) {
  int fd = ::open(path.c_str(), directory ? (O_RDONLY | O_DIRECTORY) : O_RDONLY);
  if (fd < 0) return core::Unavailable("cannot open " + path.string() + ": " + std::strerror(errno));
  int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0) return core::Unavailable("fsync " + path.string() + ": " + std::strerror(errno));
  return core::Status::Ok();
}

// SHA-256 (hex) and size of a file, read in pieces.
core::Result<std::pair<std::string, uint64_t>> HashFile(const fs::path& path) {
  int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return core::Unavailable("cannot open " + path.string() + ": " + std::strerror(errno));
  core::Sha256Stream hash;
  std::string buf(1 << 20, '\0');
  uint64_t size = 0;
  for (;;) {
    ssize_t n = ::read(fd, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      ::close(fd);
      return core::Unavailable("cannot read " + path.string() + ": " + std::strerror(errno));
    }
    if (n == 0) break;
    hash.Update(std::string_view(buf.data(), static_cast<size_t>(n)));
    size += static_cast<uint64_t>(n);
  }
  ::close(fd);
  return std::make_pair(hash.FinalHex(), size);
}

// A file written whole (or in pieces by `fill`), fsynced; 0600.
class OutFile {
 public:
  static core::Result<OutFile> Create(const fs::path& path) {
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) return core::Unavailable("cannot create " + path.string() + ": " + std::strerror(errno));
    return OutFile(path, fd);
  }
  OutFile(OutFile&& o) noexcept : path_(std::move(o.path_)), fd_(o.fd_) { o.fd_ = -1; }
  ~OutFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  core::Status Write(std::string_view bytes) {
    while (!bytes.empty()) {
      ssize_t n = ::write(fd_, bytes.data(), bytes.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return core::Unavailable("cannot write " + path_.string() + ": " + std::strerror(errno));
      bytes.remove_prefix(static_cast<size_t>(n));
    }
    return core::Status::Ok();
  }
  core::Status Close() {
    int rc = ::fsync(fd_);
    int crc = ::close(fd_);
    fd_ = -1;
    if (rc != 0 || crc != 0) return core::Unavailable("cannot sync " + path_.string() + ": " + std::strerror(errno));
    return core::Status::Ok();
  }

 private:
  OutFile(fs::path path, int fd) : path_(std::move(path)), fd_(fd) {}
  fs::path path_;
  int fd_;
};

// A manifest path: db/<name> or media/<aa>/<address>, of plain characters, no "..".
bool SafeRelativePath(const std::string& p) {
  if (p.empty() || p.size() > 512 || p.front() == '/') return false;
  for (char c : p) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
              c == '-' || c == '/';
    if (!ok) return false;
  }
  if (p.find("..") != std::string::npos || p.find("//") != std::string::npos || p.back() == '/') return false;
  if (p.rfind("db/", 0) == 0) return p.find('/', 3) == std::string::npos;  // a checkpoint is flat
  if (p.rfind("media/", 0) == 0) {
    std::string rest = p.substr(6);
    return rest.size() == 67 && rest[2] == '/' && ValidBlobAddress(rest.substr(3)) && rest.compare(0, 2, rest, 3, 2) == 0;
  }
  return false;
}

// The digest covers the manifest without "digest" and "mac", canonical (RFC 8785).
core::Result<std::string> ManifestDigest(const core::Json& manifest) {
  core::Json body = manifest;
  body.erase("digest");
  body.erase("mac");
  SVC_ASSIGN_OR_RETURN(std::string canonical, core::CanonicalJson(body));
  return core::Sha256Hex(canonical);
}

core::Status CheckEmptyOrAbsent(const fs::path& dir, const char* what) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) return core::Status::Ok();
  if (!fs::is_directory(dir, ec)) return core::FailedPrecondition(std::string(what) + " " + dir.string() + " is not a directory");
  if (!fs::is_empty(dir, ec)) return core::FailedPrecondition(std::string(what) + " " + dir.string() + " is not empty");
  return core::Status::Ok();
}

}  // namespace

core::Result<core::Json> WriteBackup(const BackupRequest& request) {
  if (request.store == nullptr || request.blobs == nullptr || request.manifest_key.size() != 32) {
    return core::InvalidArgument("a backup needs a store, a blob store and a manifest key");
  }
  if (request.to.empty()) return core::InvalidArgument("a backup needs a target directory (--to)");
  const fs::path to = fs::absolute(request.to);
  SVC_RETURN_IF_ERROR(CheckEmptyOrAbsent(to, "the backup directory"));
  std::error_code ec;
  // Not inside the store's own directory: that directory is RocksDB's alone.
  const fs::path store_dir = fs::absolute(request.store->path()).lexically_normal();
  const std::string rel = to.lexically_normal().lexically_relative(store_dir).string();
  if (!rel.empty() && rel.rfind("..", 0) != 0) return core::InvalidArgument("the backup directory is inside the store");
  fs::create_directories(to, ec);
  if (ec) return core::Unavailable("cannot create " + to.string() + ": " + ec.message());

  // 1. The store, as of one moment.
  SVC_RETURN_IF_ERROR(request.store->Checkpoint((to / "db").string()));

  core::Json files = core::Json::array();
  uint64_t bytes = 0, db_files = 0, blob_count = 0, blob_bytes = 0, vanished = 0;
  std::vector<fs::path> db_paths;
  for (fs::directory_iterator it(to / "db", ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file()) return core::Internal("the checkpoint holds something other than files: " + it->path().string());
    db_paths.push_back(it->path());
  }
  if (ec) return core::Unavailable("cannot list the checkpoint: " + ec.message());
  std::sort(db_paths.begin(), db_paths.end());
  for (const auto& p : db_paths) {
    SVC_RETURN_IF_ERROR(Fsync(p, false));
    SVC_ASSIGN_OR_RETURN(auto hashed, HashFile(p));
    files.push_back({{"path", "db/" + p.filename().string()}, {"size", hashed.second}, {"sha256", hashed.first}});
    bytes += hashed.second;
    ++db_files;
  }
  SVC_RETURN_IF_ERROR(Fsync(to / "db", true));

  // 2. The objects: every one present now (so every one the checkpoint names), copied through a
  // reader that checks each against its address. One the garbage collector removed meanwhile is
  // counted (it was not referred to when the collector ran, after the checkpoint).
  std::vector<BlobInfo> listed;
  SVC_RETURN_IF_ERROR(request.blobs->List([&](const BlobInfo& b) {
    listed.push_back(b);
    return core::Status::Ok();
  }));
  std::sort(listed.begin(), listed.end(), [](const BlobInfo& a, const BlobInfo& b) { return a.address < b.address; });
  std::set<std::string> shards;
  for (const BlobInfo& b : listed) {
    auto in = request.blobs->Open(b.address);
    if (!in.ok() && in.status().code() == core::StatusCode::kNotFound) {
      ++vanished;
      continue;
    }
    if (!in.ok()) return in.status();
    const fs::path shard = to / "media" / b.address.substr(0, 2);
    if (shards.insert(b.address.substr(0, 2)).second) {
      fs::create_directories(shard, ec);
      if (ec) return core::Unavailable("cannot create " + shard.string() + ": " + ec.message());
    }
    SVC_ASSIGN_OR_RETURN(OutFile out, OutFile::Create(shard / b.address));
    uint64_t size = 0;
    for (;;) {
      SVC_ASSIGN_OR_RETURN(std::string piece, (*in)->Read(1 << 20));
      if (piece.empty()) break;  // the whole object read and checked against its address
      SVC_RETURN_IF_ERROR(out.Write(piece));
      size += piece.size();
    }
    SVC_RETURN_IF_ERROR(out.Close());
    files.push_back({{"path", "media/" + b.address.substr(0, 2) + "/" + b.address}, {"size", size}, {"sha256", b.address}});
    bytes += size;
    blob_bytes += size;
    ++blob_count;
  }
  for (const auto& s : shards) SVC_RETURN_IF_ERROR(Fsync(to / "media" / s, true));
  if (!shards.empty()) SVC_RETURN_IF_ERROR(Fsync(to / "media", true));

  // 3. The manifest, last, through a temporary file renamed into place.
  core::Json manifest;
  manifest["format"] = kBackupFormat;
  manifest["about"] = request.about;
  manifest["totals"] = {{"files", files.size()}, {"bytes", bytes}, {"dbFiles", db_files},
                        {"blobs", blob_count}, {"blobBytes", blob_bytes}, {"blobsRemovedDuringBackup", vanished}};
  manifest["files"] = std::move(files);
  SVC_ASSIGN_OR_RETURN(std::string digest, ManifestDigest(manifest));
  manifest["digest"] = digest;
  manifest["mac"] = core::Base64Encode(core::HmacSha256(request.manifest_key, digest));
  {
    const fs::path tmp = to / "MANIFEST.json.tmp";
    SVC_ASSIGN_OR_RETURN(OutFile out, OutFile::Create(tmp));
    SVC_RETURN_IF_ERROR(out.Write(core::DumpJson(manifest)));
    SVC_RETURN_IF_ERROR(out.Close());
    fs::rename(tmp, to / std::string(kBackupManifest), ec);
    if (ec) return core::Unavailable("cannot write the manifest: " + ec.message());
    SVC_RETURN_IF_ERROR(Fsync(to, true));
  }
  core::Json summary = manifest;
  summary.erase("files");
  summary.erase("mac");
  summary["to"] = to.string();
  return summary;
}

core::Result<core::Json> ParseBackupManifest(std::string_view text) {
  auto bad = [&](const std::string& why) { return core::DataLoss("the backup's manifest does not match: " + why); };
  if (text.size() > kMaxBackupManifestBytes) return bad("it is larger than a manifest can be");
  core::Json manifest = core::ParseJsonOrDiscarded(text);
  if (!manifest.is_object() || !manifest.contains("format") || !manifest["format"].is_string() ||
      manifest["format"].get<std::string>() != kBackupFormat) {
    return bad("not a " + std::string(kBackupFormat) + " manifest");
  }
  if (!manifest.contains("files") || !manifest["files"].is_array()) return bad("no file list");
  if (!manifest.contains("digest") || !manifest["digest"].is_string()) return bad("no digest");
  auto digest = ManifestDigest(manifest);
  if (!digest.ok()) return bad(digest.status().message());
  if (!core::ConstantTimeEquals(*digest, manifest["digest"].get<std::string>())) return bad("its digest");
  std::set<std::string> paths;
  bool current = false;
  for (const auto& f : manifest["files"]) {
    if (!f.is_object() || !f.contains("path") || !f["path"].is_string() || !f.contains("size") ||
        !f["size"].is_number_unsigned() || !f.contains("sha256") || !f["sha256"].is_string() ||
        !ValidBlobAddress(f["sha256"].get<std::string>())) {
      return bad("a malformed file entry");
    }
    std::string p = f["path"].get<std::string>();
    if (!SafeRelativePath(p)) return bad("a file path outside db/ and media/: " + p.substr(0, 80));
    if (!paths.insert(p).second) return bad("a file named twice: " + p.substr(0, 80));
    current |= p == "db/CURRENT";
  }
  if (!current) return bad("no checkpoint (db/CURRENT) in it");
  return manifest;
}

core::Result<core::Json> VerifyBackup(const std::string& dir_text) {
  const fs::path dir = fs::absolute(dir_text);
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return core::NotFound("no backup at " + dir.string());
  const fs::path mpath = dir / std::string(kBackupManifest);
  if (!fs::exists(mpath, ec)) {
    return core::FailedPrecondition("no " + std::string(kBackupManifest) + " in " + dir.string() +
                                    ": an unfinished backup (the manifest is written last)");
  }
  if (fs::file_size(mpath, ec) > kMaxBackupManifestBytes) {
    return core::DataLoss("the backup's manifest does not match: it is larger than a manifest can be");
  }
  std::ifstream in(mpath, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  if (!in) return core::Unavailable("cannot read " + mpath.string());
  SVC_ASSIGN_OR_RETURN(core::Json manifest, ParseBackupManifest(ss.str()));
  auto bad = [&](const std::string& why) { return core::DataLoss("the backup's manifest does not match: " + why); };
  std::map<std::string, std::pair<uint64_t, std::string>> named;
  for (const auto& f : manifest["files"]) {
    named.emplace(f["path"].get<std::string>(), std::make_pair(f["size"].get<uint64_t>(), f["sha256"].get<std::string>()));
  }
  // Every file there is named, and nothing but regular files and their directories.
  size_t seen = 0;
  for (fs::recursive_directory_iterator it(dir, fs::directory_options::none, ec), end; !ec && it != end;
       it.increment(ec)) {
    const auto status = it->symlink_status(ec);
    if (ec) break;
    std::string rel = it->path().lexically_relative(dir).string();
    if (fs::is_directory(status)) {
      if (rel != "db" && rel != "media" && !(rel.rfind("media/", 0) == 0 && rel.size() == 8)) return bad("a directory it does not name: " + rel);
      continue;
    }
    if (rel == kBackupManifest) continue;
    if (!fs::is_regular_file(status)) return bad("something other than a file: " + rel);
    auto at = named.find(rel);
    if (at == named.end()) return bad("a file it does not name: " + rel);
    ++seen;
    SVC_ASSIGN_OR_RETURN(auto hashed, HashFile(it->path()));
    if (hashed.second != at->second.first) return bad("the size of " + rel);
    if (!core::ConstantTimeEquals(hashed.first, at->second.second)) return bad("the SHA-256 of " + rel);
  }
  if (ec) return core::Unavailable("cannot list " + dir.string() + ": " + ec.message());
  if (seen != named.size()) return bad(std::to_string(named.size() - seen) + " file(s) it names are missing");
  return manifest;
}

core::Status VerifyBackupMac(const core::Json& manifest, std::string_view manifest_key) {
  if (!manifest.contains("mac") || !manifest["mac"].is_string()) return core::DataLoss("the backup's manifest has no MAC");
  auto mac = core::Base64Decode(manifest["mac"].get<std::string>());
  const std::string want = core::HmacSha256(manifest_key, core::StringOr(manifest, "digest"));
  if (!mac.ok() || !core::ConstantTimeEquals(*mac, want)) {
    return core::DataLoss(
        "the backup's manifest MAC does not match: it was changed, or the master key is not the backed-up "
        "installation's");
  }
  return core::Status::Ok();
}

core::Status CopyBackupFiles(const std::string& from_text, const core::Json& manifest, const std::string& into_text) {
  const fs::path from = fs::absolute(from_text), into = fs::absolute(into_text);
  std::error_code ec;
  if (fs::exists(into, ec)) return core::FailedPrecondition(into.string() + " exists");
  std::set<fs::path> dirs;
  for (const auto& f : manifest["files"]) {
    const std::string rel = f["path"].get<std::string>();
    if (!SafeRelativePath(rel)) return core::DataLoss("a file path outside db/ and media/");
    const fs::path target = into / rel;
    if (dirs.insert(target.parent_path()).second) {
      fs::create_directories(target.parent_path(), ec);
      if (ec) return core::Unavailable("cannot create " + target.parent_path().string() + ": " + ec.message());
    }
    std::ifstream in(from / rel, std::ios::binary);
    if (!in) return core::Unavailable("cannot read " + (from / rel).string());
    SVC_ASSIGN_OR_RETURN(OutFile out, OutFile::Create(target));
    // Hashed again as it is copied: a file changed since VerifyBackup is not restored.
    core::Sha256Stream hash;
    uint64_t size = 0;
    std::string buf(1 << 20, '\0');
    while (in) {
      in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
      std::streamsize n = in.gcount();
      if (n <= 0) continue;
      std::string_view piece(buf.data(), static_cast<size_t>(n));
      hash.Update(piece);
      size += piece.size();
      SVC_RETURN_IF_ERROR(out.Write(piece));
    }
    if (in.bad()) return core::Unavailable("cannot read " + (from / rel).string());
    if (size != f["size"].get<uint64_t>() || hash.FinalHex() != f["sha256"].get<std::string>()) {
      return core::DataLoss("the backup's manifest does not match: " + rel + " changed while it was restored");
    }
    SVC_RETURN_IF_ERROR(out.Close());
  }
  for (const auto& d : dirs) SVC_RETURN_IF_ERROR(Fsync(d, true));
  if (fs::exists(into / "media", ec)) SVC_RETURN_IF_ERROR(Fsync(into / "media", true));
  return Fsync(into, true);
}

}  // namespace svc::eventstore
