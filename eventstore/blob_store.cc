#include "eventstore/blob_store.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <sys/stat.h>

#include "core/crypto.h"
#include "core/ids.h"
#include "core/log.h"

namespace svc::eventstore {

namespace fs = std::filesystem;

namespace {

core::Status FsyncPath(const std::string& path, int flags) {
  int fd = ::open(path.c_str(), flags);
  if (fd < 0) return core::Unavailable("cannot open " + path + ": " + std::strerror(errno));
  int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0) return core::Unavailable("fsync " + path + ": " + std::strerror(errno));
  return core::Status::Ok();
}


core::Status DataMismatch(std::string_view address, uint64_t bytes) {
  core::LogError("a stored object does not match its address",
                 {{"expected", std::string(address)}, {"bytes", static_cast<int64_t>(bytes)}});
  return core::DataLoss("blob " + std::string(address) + " does not match its address");
}

// The local backend's pieces: a file read with pread, and a spool renamed into place.
class LocalReader final : public BlobReader {
 public:
  LocalReader(std::string address, uint64_t size, int fd) : BlobReader(std::move(address), size), fd_(fd) {}
  ~LocalReader() override { ::close(fd_); }

 protected:
  core::Result<std::string> ReadAt(uint64_t offset, size_t max) override {
    std::string out(max, '\0');
    size_t done = 0;
    while (done < max) {
      ssize_t n = ::pread(fd_, out.data() + done, max - done, static_cast<off_t>(offset + done));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return core::Unavailable(std::string("cannot read a blob: ") + std::strerror(errno));
      if (n == 0) break;
      done += static_cast<size_t>(n);
    }
    out.resize(done);
    return out;
  }

 private:
  int fd_;
};

class LocalWriter final : public BlobWriter {
 public:
  LocalWriter(std::string dir, std::unique_ptr<BlobSpool> spool) : dir_(std::move(dir)), spool_(std::move(spool)) {}
  core::Status Write(std::string_view bytes) override { return spool_->Write(bytes); }
  uint64_t size() const override { return spool_->size(); }
  core::Result<std::string> Commit() override {
    SVC_RETURN_IF_ERROR(spool_->Sync());
    std::string address = spool_->FinishHash();
    fs::path sub = fs::path(dir_) / address.substr(0, 2);
    std::error_code ec;
    if (fs::exists(sub / address, ec)) return address;  // content-addressed: already stored
    fs::create_directories(sub, ec);
    if (ec) return core::Unavailable("cannot create " + sub.string() + ": " + ec.message());
    fs::rename(spool_->path(), sub / address, ec);
    if (ec) return core::Unavailable("cannot place a blob: " + ec.message());
    spool_->Release();
    SVC_RETURN_IF_ERROR(FsyncPath(sub.string(), O_RDONLY | O_DIRECTORY));
    return address;
  }

 private:
  std::string dir_;
  std::unique_ptr<BlobSpool> spool_;
};

}  // namespace

core::Result<std::string> BlobReader::Read(size_t max) {
  if (checked_) return std::string();
  if (offset_ >= size_) {
    if (hash_.FinalHex() != address_) return DataMismatch(address_, size_);
    checked_ = true;
    return std::string();
  }
  const size_t n = static_cast<size_t>(std::min<uint64_t>(std::max<size_t>(max, 1), size_ - offset_));
  SVC_ASSIGN_OR_RETURN(std::string bytes, ReadAt(offset_, n));
  if (bytes.size() != n) return DataMismatch(address_, offset_ + bytes.size());  // shorter than it was
  hash_.Update(bytes);
  offset_ += n;
  return bytes;
}

core::Result<std::unique_ptr<BlobSpool>> BlobSpool::Create(const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return core::Unavailable("cannot create " + dir + ": " + ec.message());
  std::string path = (fs::path(dir) / (core::HexEncode(core::RandomBytes(12)) + ".spool")).string();
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return core::Unavailable("cannot write " + path + ": " + std::strerror(errno));
  return std::unique_ptr<BlobSpool>(new BlobSpool(std::move(path), fd));
}

BlobSpool::~BlobSpool() {
  if (fd_ >= 0) ::close(fd_);
  if (!path_.empty()) ::unlink(path_.c_str());
}

core::Status BlobSpool::Write(std::string_view bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd_, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return core::Unavailable(std::string("cannot write a blob: ") + std::strerror(errno));
    done += static_cast<size_t>(n);
  }
  hash_.Update(bytes);
  size_ += bytes.size();
  return core::Status::Ok();
}

core::Status BlobSpool::Sync() {
  if (::fsync(fd_) != 0) return core::Unavailable(std::string("cannot fsync a blob: ") + std::strerror(errno));
  return core::Status::Ok();
}

size_t BlobSpool::Sweep(const std::string& dir) {
  size_t removed = 0;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() == ".spool" && fs::remove(it->path(), ec)) ++removed;
  }
  return removed;
}

bool ValidBlobAddress(std::string_view a) {
  if (a.size() != 64) return false;
  for (char c : a) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

LocalBlobStore::LocalBlobStore(std::string dir) : dir_(std::move(dir)) {}

core::Result<std::string> LocalBlobStore::Put(std::string_view bytes) {
  std::string address = core::Sha256Hex(bytes);
  std::error_code ec;
  // Already stored: no spool file written and synced for nothing (Commit checks again, for the
  // writers whose address is known only at their end).
  if (fs::exists(fs::path(dir_) / address.substr(0, 2) / address, ec)) return address;
  SVC_ASSIGN_OR_RETURN(auto writer, Create());
  SVC_RETURN_IF_ERROR(writer->Write(bytes));
  return writer->Commit();
}

core::Result<std::unique_ptr<BlobWriter>> LocalBlobStore::Create() {
  SVC_ASSIGN_OR_RETURN(auto spool, BlobSpool::Create((fs::path(dir_) / "spool").string()));
  return std::unique_ptr<BlobWriter>(new LocalWriter(dir_, std::move(spool)));
}

core::Result<std::unique_ptr<BlobReader>> LocalBlobStore::Open(std::string_view address) const {
  if (!ValidBlobAddress(address)) return core::InvalidArgument("not a blob address");
  fs::path p = fs::path(dir_) / std::string(address.substr(0, 2)) / std::string(address);
  int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT) return core::NotFound("no blob " + std::string(address));
  if (fd < 0) return core::Unavailable("cannot open " + p.string() + ": " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    return core::Unavailable("cannot stat " + p.string());
  }
  return std::unique_ptr<BlobReader>(new LocalReader(std::string(address), static_cast<uint64_t>(st.st_size), fd));
}

core::Result<std::string> LocalBlobStore::Get(std::string_view address) const {
  if (!ValidBlobAddress(address)) return core::InvalidArgument("not a blob address");
  fs::path p = fs::path(dir_) / std::string(address.substr(0, 2)) / std::string(address);
  std::ifstream in(p, std::ios::binary);
  if (!in) return core::NotFound("no blob " + std::string(address));
  std::ostringstream ss;
  ss << in.rdbuf();
  std::string bytes = std::move(ss).str();
  if (core::Sha256Hex(bytes) != address) return DataMismatch(address, bytes.size());
  return bytes;
}

core::Result<bool> LocalBlobStore::Delete(std::string_view address) {
  if (!ValidBlobAddress(address)) return core::InvalidArgument("not a blob address");
  fs::path sub = fs::path(dir_) / std::string(address.substr(0, 2));
  std::error_code ec;
  bool removed = fs::remove(sub / std::string(address), ec);
  if (ec) return core::Unavailable("cannot remove a blob: " + ec.message());
  if (removed) SVC_RETURN_IF_ERROR(FsyncPath(sub.string(), O_RDONLY | O_DIRECTORY));
  return removed;
}

core::Status LocalBlobStore::List(const std::function<core::Status(const BlobInfo&)>& each) const {
  std::error_code ec;
  for (fs::directory_iterator shard(dir_, ec), end; !ec && shard != end; shard.increment(ec)) {
    const std::string prefix = shard->path().filename().string();
    if (prefix.size() != 2 || !shard->is_directory(ec)) continue;
    for (fs::directory_iterator file(shard->path(), ec); !ec && file != end; file.increment(ec)) {
      const std::string address = file->path().filename().string();
      if (!ValidBlobAddress(address) || address.compare(0, 2, prefix) != 0) continue;
      std::error_code fe;
      BlobInfo info{address, static_cast<uint64_t>(file->file_size(fe)), 0};
      const auto written = file->last_write_time(fe);
      if (fe) continue;  // removed meanwhile
      info.modified_unix = std::chrono::duration_cast<std::chrono::seconds>(
                               std::chrono::file_clock::to_sys(written).time_since_epoch())
                               .count();
      SVC_RETURN_IF_ERROR(each(info));
    }
  }
  if (ec && ec != std::errc::no_such_file_or_directory) {
    return core::Unavailable("cannot list " + dir_ + ": " + ec.message());
  }
  return core::Status::Ok();
}

core::Result<bool> LocalBlobStore::Exists(std::string_view address) const {
  if (!ValidBlobAddress(address)) return false;
  std::error_code ec;
  return fs::exists(fs::path(dir_) / std::string(address.substr(0, 2)) / std::string(address), ec);
}

}  // namespace svc::eventstore
