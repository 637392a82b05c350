#pragma once
// Captures sealed in chunks, so that an upload is hashed and sealed as it arrives and a view,
// a media link or the pipeline's read opens it piece by piece, never whole in memory twice.
//
// Format 2 (now):  0x02 || secretstream header (24 bytes) || chunk 1 || … || chunk n
//   Each chunk seals 64 KiB of the capture (libsodium secretstream, XChaCha20-Poly1305) under
//   the session's data key, with MediaAd() as additional data; every chunk but the last is full,
//   and the last (empty only for an empty capture) carries the final tag. So a chunk opens only
//   in its own place of its own capture: a truncated, reordered, duplicated or swapped chunk, or
//   bytes after the last, fail to open.
// Format 1 (captures stored before): nonce || XChaCha20-Poly1305 of the whole capture, the same
//   additional data. A blob opens as format 2 when its first byte is 2 and its header and first
//   chunk open (a format-1 nonce that starts with 2 fails that, unforgeably, and opens as format
//   1), else as format 1.
//
// The reader holds back the last chunk until the blob store has checked the whole object against
// its address (eventstore/blob_store.h), so a stream that ends cleanly ends on the very object
// the event named.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "core/crypto.h"
#include "core/status.h"
#include "eventstore/blob_store.h"

namespace svc::pipeline::verification {

inline constexpr char kSealedMediaVersion = 2;
inline constexpr size_t kMediaChunkBytes = 64 * 1024;

// The additional data a capture is sealed with: "media|<tenant>/<environment>/<session>|<media id>".
std::string MediaAd(std::string_view tenant, std::string_view environment, std::string_view session,
                    std::string_view media_id);

// Seals a capture into a new object of `store` as its bytes arrive.
class MediaSealer {
 public:
  static core::Result<std::unique_ptr<MediaSealer>> Start(eventstore::BlobStore& store, std::string_view dek,
                                                          std::string ad);
  core::Status Write(std::string_view plain);
  struct Sealed {
    std::string address;  // of the sealed object, durable in the store
    std::string sha256;   // hex, of the capture's own bytes
    int64_t size = 0;     // the capture's bytes
  };
  core::Result<Sealed> Finish();

 private:
  MediaSealer(std::unique_ptr<eventstore::BlobWriter> out, std::string_view dek, std::string ad);
  core::Status PushFull();
  std::unique_ptr<eventstore::BlobWriter> out_;
  core::StreamSealer sealer_;
  std::string ad_;
  std::string pending_;
  core::Sha256Stream hash_;
  int64_t size_ = 0;
};

// Opens a capture piece by piece.
class MediaReader {
 public:
  // NOT_FOUND when the object is gone; DATA_LOSS when it does not open.
  static core::Result<std::unique_ptr<MediaReader>> Open(const eventstore::BlobStore& store, std::string_view address,
                                                         std::string_view dek, std::string ad);
  // The next piece of the capture; "" at its end, once every chunk opened and the object was
  // checked. DATA_LOSS (logged with the address) when a chunk does not open.
  core::Result<std::string> Next();
  int format() const { return format_; }

 private:
  MediaReader() = default;
  core::Status Refused(std::string_view why) const;
  std::unique_ptr<eventstore::BlobReader> in_;
  std::string address_, ad_;
  int format_ = 2;
  std::unique_ptr<core::StreamOpener> opener_;
  std::string ready_;  // an opened piece not yet handed out
  bool final_seen_ = false;
  bool done_ = false;
};

// The whole capture (the pipeline's analysis decodes it whole).
core::Result<std::string> OpenMediaWhole(const eventstore::BlobStore& store, std::string_view address,
                                         std::string_view dek, std::string ad);

}  // namespace svc::pipeline::verification
