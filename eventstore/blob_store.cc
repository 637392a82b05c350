#include "eventstore/blob_store.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/crypto.h"
#include "core/ids.h"

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

}  // namespace

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
  fs::path sub = fs::path(dir_) / address.substr(0, 2);
  fs::path final_path = sub / address;
  std::error_code ec;
  if (fs::exists(final_path, ec)) return address;  // content-addressed: already stored
  fs::create_directories(sub, ec);
  if (ec) return core::Unavailable("cannot create " + sub.string() + ": " + ec.message());
  fs::path tmp = sub / (address + ".tmp." + core::HexEncode(core::RandomBytes(6)));
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
  if (fd < 0) return core::Unavailable("cannot write " + tmp.string() + ": " + std::strerror(errno));
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      std::string err = std::strerror(errno);
      ::close(fd);
      fs::remove(tmp, ec);
      return core::Unavailable("cannot write a blob: " + err);
    }
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) {
    std::string err = std::strerror(errno);
    ::close(fd);
    fs::remove(tmp, ec);
    return core::Unavailable("cannot fsync a blob: " + err);
  }
  ::close(fd);
  fs::rename(tmp, final_path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    return core::Unavailable("cannot place a blob: " + ec.message());
  }
  SVC_RETURN_IF_ERROR(FsyncPath(sub.string(), O_RDONLY | O_DIRECTORY));
  return address;
}

core::Result<std::string> LocalBlobStore::Get(std::string_view address) const {
  if (!ValidBlobAddress(address)) return core::InvalidArgument("not a blob address");
  fs::path p = fs::path(dir_) / std::string(address.substr(0, 2)) / std::string(address);
  std::ifstream in(p, std::ios::binary);
  if (!in) return core::NotFound("no blob " + std::string(address));
  std::ostringstream ss;
  ss << in.rdbuf();
  std::string bytes = std::move(ss).str();
  if (core::Sha256Hex(bytes) != address) {
    return core::DataLoss("blob " + std::string(address) + " does not match its address");
  }
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

core::Result<bool> LocalBlobStore::Exists(std::string_view address) const {
  if (!ValidBlobAddress(address)) return false;
  std::error_code ec;
  return fs::exists(fs::path(dir_) / std::string(address.substr(0, 2)) / std::string(address), ec);
}

}  // namespace svc::eventstore
