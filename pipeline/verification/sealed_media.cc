#include "pipeline/verification/sealed_media.h"

#include "core/log.h"

namespace svc::pipeline::verification {

namespace {
constexpr size_t kSealedChunkBytes = kMediaChunkBytes + core::kStreamChunkOverhead;
constexpr size_t kPreamble = 1 + core::kStreamHeaderBytes;

// Exactly `n` bytes of `in` (fewer only at its end).
core::Result<std::string> ReadUpTo(eventstore::BlobReader& in, size_t n) {
  std::string out;
  while (out.size() < n) {
    SVC_ASSIGN_OR_RETURN(std::string piece, in.Read(n - out.size()));
    if (piece.empty()) break;
    out += piece;
  }
  return out;
}
}  // namespace

std::string MediaAd(std::string_view tenant, std::string_view environment, std::string_view session,
                    std::string_view media_id) {
  std::string ad = "media|";
  ad.append(tenant).append("/").append(environment).append("/").append(session).append("|").append(media_id);
  return ad;
}

MediaSealer::MediaSealer(std::unique_ptr<eventstore::BlobWriter> out, std::string_view dek, std::string ad)
    : out_(std::move(out)), sealer_(dek), ad_(std::move(ad)) {}

core::Result<std::unique_ptr<MediaSealer>> MediaSealer::Start(eventstore::BlobStore& store, std::string_view dek,
                                                              std::string ad) {
  if (dek.size() != core::kAeadKeyBytes) return core::Internal("a capture is sealed under a 32-byte key");
  SVC_ASSIGN_OR_RETURN(auto out, store.Create());
  std::unique_ptr<MediaSealer> s(new MediaSealer(std::move(out), dek, std::move(ad)));
  SVC_RETURN_IF_ERROR(s->out_->Write(std::string(1, kSealedMediaVersion) + s->sealer_.header()));
  return s;
}

core::Status MediaSealer::PushFull() {
  // A full chunk is pushed only once a byte beyond it arrived: the last chunk carries the final
  // tag, and it is known to be the last only at Finish.
  while (pending_.size() > kMediaChunkBytes) {
    SVC_RETURN_IF_ERROR(out_->Write(sealer_.Push(std::string_view(pending_).substr(0, kMediaChunkBytes), false, ad_)));
    pending_.erase(0, kMediaChunkBytes);
  }
  return core::Status::Ok();
}

core::Status MediaSealer::Write(std::string_view plain) {
  hash_.Update(plain);
  size_ += static_cast<int64_t>(plain.size());
  while (!plain.empty()) {
    const size_t take = std::min(plain.size(), kMediaChunkBytes + 1 - std::min(pending_.size(), kMediaChunkBytes));
    pending_.append(plain.substr(0, take));
    plain.remove_prefix(take);
    SVC_RETURN_IF_ERROR(PushFull());
  }
  return core::Status::Ok();
}

core::Result<MediaSealer::Sealed> MediaSealer::Finish() {
  SVC_RETURN_IF_ERROR(out_->Write(sealer_.Push(pending_, true, ad_)));
  core::SecureZero(pending_);
  Sealed s;
  SVC_ASSIGN_OR_RETURN(s.address, out_->Commit());
  s.sha256 = hash_.FinalHex();
  s.size = size_;
  return s;
}

core::Status MediaReader::Refused(std::string_view why) const {
  core::LogError("a stored capture does not open", {{"blob", address_}, {"why", std::string(why)}});
  return core::DataLoss("a stored capture does not open");
}

core::Result<std::unique_ptr<MediaReader>> MediaReader::Open(const eventstore::BlobStore& store,
                                                             std::string_view address, std::string_view dek,
                                                             std::string ad) {
  std::unique_ptr<MediaReader> r(new MediaReader());
  r->address_ = std::string(address);
  r->ad_ = std::move(ad);
  SVC_ASSIGN_OR_RETURN(r->in_, store.Open(address));
  SVC_ASSIGN_OR_RETURN(std::string head, ReadUpTo(*r->in_, kPreamble));
  if (head.size() == kPreamble && head[0] == kSealedMediaVersion) {
    auto opener = core::StreamOpener::Start(dek, std::string_view(head).substr(1));
    if (opener.ok()) {
      SVC_ASSIGN_OR_RETURN(std::string first, ReadUpTo(*r->in_, kSealedChunkBytes));
      bool final = false;
      auto plain = opener->Pull(first, &final, r->ad_);
      if (plain.ok()) {
        r->opener_ = std::make_unique<core::StreamOpener>(std::move(*opener));
        r->ready_ = std::move(*plain);
        r->final_seen_ = final;
        return r;
      }
      head += first;  // not format 2 after all
    }
  }
  // Format 1: the whole object, then one AEAD open.
  r->format_ = 1;
  for (;;) {
    SVC_ASSIGN_OR_RETURN(std::string piece, r->in_->Read(1u << 20));
    if (piece.empty()) break;
    head += piece;
  }
  auto plain = core::AeadOpen(dek, head, r->ad_);
  if (!plain.ok()) return r->Refused("neither format opens it");
  r->ready_ = std::move(*plain);
  r->final_seen_ = true;
  r->in_.reset();
  return r;
}

core::Result<std::string> MediaReader::Next() {
  if (done_) return std::string();
  if (format_ == 1) {
    done_ = true;
    return std::move(ready_);
  }
  if (!final_seen_) {
    // Hand out the opened chunk and open the next one; the final one waits for the object check.
    std::string out = std::move(ready_);
    SVC_ASSIGN_OR_RETURN(std::string sealed, ReadUpTo(*in_, kSealedChunkBytes));
    if (sealed.empty()) return Refused("truncated: it ends before its final chunk");
    bool final = false;
    auto plain = opener_->Pull(sealed, &final, ad_);
    if (!plain.ok()) return Refused("a chunk does not open (altered, reordered or from another capture)");
    ready_ = std::move(*plain);
    final_seen_ = final;
    if (!out.empty()) return out;
    return Next();
  }
  // After the final chunk: nothing more, and the whole object checked against its address.
  SVC_ASSIGN_OR_RETURN(std::string rest, in_->Read(1));
  if (!rest.empty()) return Refused("bytes follow its final chunk");
  done_ = true;
  return std::move(ready_);
}

core::Result<std::string> OpenMediaWhole(const eventstore::BlobStore& store, std::string_view address,
                                         std::string_view dek, std::string ad) {
  SVC_ASSIGN_OR_RETURN(auto reader, MediaReader::Open(store, address, dek, std::move(ad)));
  std::string out;
  for (;;) {
    SVC_ASSIGN_OR_RETURN(std::string piece, reader->Next());
    if (piece.empty()) return out;
    out += piece;
  }
}

}  // namespace svc::pipeline::verification
