#include "pipeline/persons/export_dump.h"

#include <openssl/evp.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>

#include "core/ids.h"

namespace svc::pipeline::persons {

namespace {

constexpr size_t kChunkBytes = 64 * 1024;

std::string U32(size_t n) {
  std::string out(4, '\0');
  out[0] = static_cast<char>((n >> 24) & 0xff);
  out[1] = static_cast<char>((n >> 16) & 0xff);
  out[2] = static_cast<char>((n >> 8) & 0xff);
  out[3] = static_cast<char>(n & 0xff);
  return out;
}

// Reads a u32-prefixed part at `*pos`.
core::Result<std::string_view> Part(std::string_view bytes, size_t* pos) {
  if (bytes.size() - *pos < 4) return core::InvalidArgument("the dump is cut short");
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data() + *pos);
  const size_t n = (size_t{p[0]} << 24) | (size_t{p[1]} << 16) | (size_t{p[2]} << 8) | size_t{p[3]};
  *pos += 4;
  if (bytes.size() - *pos < n) return core::InvalidArgument("the dump is cut short");
  std::string_view out = bytes.substr(*pos, n);
  *pos += n;
  return out;
}

EVP_MD_CTX* Sha(void* p) { return static_cast<EVP_MD_CTX*>(p); }

}  // namespace

core::Result<std::unique_ptr<DumpWriter>> DumpWriter::Create(const std::string& final_path, const core::Json& header,
                                                             std::string_view recipient_public_key) {
  if (recipient_public_key.size() != core::kX25519KeyBytes) {
    return core::InvalidArgument("the export key is not a 32-byte X25519 public key");
  }
  std::unique_ptr<DumpWriter> w(new DumpWriter());
  w->final_path_ = final_path;
  w->tmp_path_ = final_path + ".tmp";
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(final_path).parent_path(), ec);
  if (ec) return core::Unavailable("cannot create the exports directory: " + ec.message());
  w->file_ = std::fopen(w->tmp_path_.c_str(), "wb");
  if (w->file_ == nullptr) return core::Unavailable("cannot write the dump: " + std::string(std::strerror(errno)));
  w->sha_ = EVP_MD_CTX_new();
  EVP_DigestInit_ex(Sha(w->sha_), EVP_sha256(), nullptr);
  const std::string head = core::DumpJson(header);
  w->ad_ = core::Sha256(head);
  std::string key = core::RandomBytes(core::kAeadKeyBytes);
  w->sealer_ = std::make_unique<core::StreamSealer>(key);
  const std::string sealed_key = core::SealToRecipient(recipient_public_key, key);
  core::SecureZero(key);
  SVC_RETURN_IF_ERROR(w->Write(kDumpMagic));
  SVC_RETURN_IF_ERROR(w->Write(U32(head.size()) + head));
  SVC_RETURN_IF_ERROR(w->Write(U32(sealed_key.size()) + sealed_key));
  SVC_RETURN_IF_ERROR(w->Write(w->sealer_->header()));
  return w;
}

DumpWriter::~DumpWriter() {
  if (file_ != nullptr) {
    std::fclose(file_);
    std::error_code ec;
    std::filesystem::remove(tmp_path_, ec);  // never finished: no partial dump stays
  }
  if (sha_ != nullptr) EVP_MD_CTX_free(Sha(sha_));
  core::SecureZero(pending_);
}

core::Status DumpWriter::Write(std::string_view bytes) {
  if (std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size()) {
    return core::Unavailable("cannot write the dump: " + std::string(std::strerror(errno)));
  }
  EVP_DigestUpdate(Sha(sha_), bytes.data(), bytes.size());
  size_ += static_cast<int64_t>(bytes.size());
  return core::Status::Ok();
}

core::Status DumpWriter::Flush(bool final) {
  std::string sealed = sealer_->Push(pending_, final, ad_);
  core::SecureZero(pending_);
  pending_.clear();
  return Write(U32(sealed.size()) + sealed);
}

core::Status DumpWriter::Add(const core::Json& record) {
  std::string line = core::DumpJson(record);
  line.push_back('\n');
  if (!pending_.empty() && pending_.size() + line.size() > kChunkBytes) SVC_RETURN_IF_ERROR(Flush(false));
  pending_ += line;
  core::SecureZero(line);
  ++records_;
  return core::Status::Ok();
}

core::Result<DumpSummary> DumpWriter::Finish() {
  SVC_RETURN_IF_ERROR(Flush(true));
  if (std::fflush(file_) != 0 || ::fsync(fileno(file_)) != 0) {
    return core::Unavailable("cannot sync the dump: " + std::string(std::strerror(errno)));
  }
  std::fclose(file_);
  file_ = nullptr;
  std::error_code ec;
  std::filesystem::rename(tmp_path_, final_path_, ec);
  if (ec) return core::Unavailable("cannot put the dump in place: " + ec.message());
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_DigestFinal_ex(Sha(sha_), digest, &len);
  DumpSummary s;
  s.size_bytes = size_;
  s.sha256 = core::HexEncode(std::string_view(reinterpret_cast<const char*>(digest), len));
  s.records = records_;
  return s;
}

core::Result<DumpContents> OpenDump(std::string_view bytes, const core::X25519KeyPair& key) {
  if (bytes.substr(0, kDumpMagic.size()) != kDumpMagic) return core::InvalidArgument("not a bulk export dump");
  size_t pos = kDumpMagic.size();
  SVC_ASSIGN_OR_RETURN(std::string_view head, Part(bytes, &pos));
  DumpContents out;
  out.header = core::ParseJsonOrDiscarded(head);
  if (!out.header.is_object()) return core::InvalidArgument("the dump's header is not JSON");
  SVC_ASSIGN_OR_RETURN(std::string_view sealed_key, Part(bytes, &pos));
  SVC_ASSIGN_OR_RETURN(std::string stream_key, core::OpenSealedBox(key, sealed_key));
  if (bytes.size() - pos < core::kStreamHeaderBytes) return core::InvalidArgument("the dump is cut short");
  auto opener = core::StreamOpener::Start(stream_key, bytes.substr(pos, core::kStreamHeaderBytes));
  core::SecureZero(stream_key);
  if (!opener.ok()) return opener.status();
  pos += core::kStreamHeaderBytes;
  const std::string ad = core::Sha256(head);
  bool final = false;
  while (!final) {
    if (pos == bytes.size()) return core::InvalidArgument("the dump is cut short: its last chunk is missing");
    SVC_ASSIGN_OR_RETURN(std::string_view chunk, Part(bytes, &pos));
    SVC_ASSIGN_OR_RETURN(std::string text, opener->Pull(chunk, &final, ad));
    size_t start = 0;
    while (start < text.size()) {
      size_t nl = text.find('\n', start);
      if (nl == std::string::npos) nl = text.size();
      out.records.push_back(core::ParseJsonOrDiscarded(std::string_view(text).substr(start, nl - start)));
      start = nl + 1;
    }
    core::SecureZero(text);
  }
  if (pos != bytes.size()) return core::InvalidArgument("bytes follow the dump's final chunk");
  return out;
}

}  // namespace svc::pipeline::persons
