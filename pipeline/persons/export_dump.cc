#include "pipeline/persons/export_dump.h"

#include <filesystem>
#include <fstream>
#include <utility>

#include "core/ids.h"
#include "core/log.h"

namespace svc::pipeline::persons {

namespace {

constexpr size_t kChunkBytes = 64 * 1024;
constexpr size_t kReadPiece = 256 * 1024;  // what a download or a move reads at a time

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

}  // namespace

core::Result<std::unique_ptr<DumpWriter>> DumpWriter::Create(eventstore::BlobStore& blobs, const core::Json& header,
                                                             std::string_view recipient_public_key) {
  if (recipient_public_key.size() != core::kX25519KeyBytes) {
    return core::InvalidArgument("the export key is not a 32-byte X25519 public key");
  }
  std::unique_ptr<DumpWriter> w(new DumpWriter());
  SVC_ASSIGN_OR_RETURN(w->out_, blobs.Create());
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

DumpWriter::~DumpWriter() { core::SecureZero(pending_); }

core::Status DumpWriter::Write(std::string_view bytes) { return out_->Write(bytes); }

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
  DumpSummary s;
  s.size_bytes = static_cast<int64_t>(out_->size());
  SVC_ASSIGN_OR_RETURN(s.sha256, out_->Commit());
  s.records = records_;
  return s;
}

core::Result<std::unique_ptr<DumpReader>> DumpReader::Open(const eventstore::BlobStore& blobs, std::string_view address) {
  SVC_ASSIGN_OR_RETURN(auto in, blobs.Open(address));
  return std::unique_ptr<DumpReader>(new DumpReader(std::move(in)));
}

core::Result<std::string> DumpReader::Next() {
  if (done_) return std::string();
  while (true) {
    SVC_ASSIGN_OR_RETURN(std::string piece, in_->Read(kReadPiece));
    if (piece.empty()) {  // the whole object hashed to its address: the held piece may go
      done_ = true;
      return std::exchange(held_, std::string());
    }
    if (held_.empty()) {
      held_ = std::move(piece);
      continue;
    }
    return std::exchange(held_, std::move(piece));
  }
}

core::Result<size_t> AdoptLegacyDumps(const std::string& exports_dir, eventstore::BlobStore& blobs) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(exports_dir, ec)) return size_t{0};
  std::vector<fs::path> dumps, unfinished;
  for (auto it = fs::recursive_directory_iterator(exports_dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (!it->is_regular_file()) continue;
    const std::string ext = it->path().extension().string();
    if (ext == ".svcx") dumps.push_back(it->path());
    if (ext == ".tmp") unfinished.push_back(it->path());
  }
  if (ec) return core::Unavailable("cannot list " + exports_dir + ": " + ec.message());
  size_t moved = 0;
  for (const auto& path : dumps) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return core::Unavailable("cannot read " + path.string());
    SVC_ASSIGN_OR_RETURN(auto out, blobs.Create());
    std::string buf(kReadPiece, '\0');
    while (in) {
      in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
      if (in.gcount() > 0) SVC_RETURN_IF_ERROR(out->Write(std::string_view(buf.data(), static_cast<size_t>(in.gcount()))));
    }
    if (!in.eof()) return core::Unavailable("cannot read " + path.string());
    SVC_ASSIGN_OR_RETURN(std::string address, out->Commit());
    fs::remove(path, ec);
    if (ec) return core::Unavailable("cannot remove " + path.string() + ": " + ec.message());
    core::LogInfo("export: a dump kept as a file moved into the blob store",
                  {{"file", path.filename().string()}, {"address", address}, {"store", blobs.Describe()}});
    ++moved;
  }
  for (const auto& path : unfinished) fs::remove(path, ec);
  return moved;
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
