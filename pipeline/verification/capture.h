#pragma once
// POST /v1/verification-sessions/{id}/media as a use case, HTTP-free: the rules on the bytes,
// what the session admits (read before anything is stored, so a refused upload never writes a
// blob; the session aggregate decides again, and wins, when the capture is appended), sealing
// and storing the bytes, the optional analysis, and the capture's answer read back with what was
// read from it unsealed for the integrator who sent it.

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "commands/verification/session_events.h"
#include "core/byte_budget.h"
#include "core/clock.h"
#include "core/ids.h"
#include "core/json.h"
#include "core/status.h"
#include "eventstore/blob_store.h"
#include "eventstore/key_store.h"
#include "eventstore/kv_store.h"
#include "pipeline/verification/engines.h"
#include "pipeline/verification/injection.h"
#include "pipeline/verification/sealed_media.h"

namespace svc::pipeline::verification {

// One upload, parsed. `bytes` views the request's body, which must outlive every call below.
struct CaptureUpload {
  std::string tenant, environment, session_id;
  std::string kind;
  std::string mime;  // the file part's declared Content-Type
  std::string_view bytes;
  std::optional<std::string> challenge_id;
  std::string capture_source;  // camera | file | "" (not said)
  std::optional<CaptureFacts> facts;  // the captureFacts part: how the client made the capture
  bool analyze = false;
};

// The rules on the bytes themselves: a known kind (UNKNOWN_MEDIA_KIND), the kind's size limit
// (PAYLOAD_TOO_LARGE), not empty, a declared type the kind accepts, and bytes that are of that
// type (MEDIA_CONTENT_INVALID).
core::Status CheckCaptureContent(const CaptureUpload& u);
// The rules that need no byte: a known kind and a declared type it accepts.
core::Status CheckCaptureType(const CaptureUpload& u);
// The largest capture any kind takes.
size_t LargestCaptureBytes();

// What the session admits, from the read models: it exists (SESSION_NOT_FOUND), is live and open
// for captures, the checks that use the kind are on (CAPTURE_NOT_ALLOWED), and for a
// liveness_video in active mode the challenge was issued to this session, is unused and unexpired
// (CHALLENGE_ID_REQUIRED, CAPTURE_CREDENTIAL_INVALID); a challenge in passive mode is
// CHECK_NOT_ENABLED_FOR_FLOW.
struct CaptureAdmission {
  core::Json settings;               // the session's settings row (null when none)
  std::vector<std::string> actions;  // the challenge's actions (active liveness), else empty
};
core::Result<CaptureAdmission> AdmitCapture(const eventstore::KvStore& views, core::Timestamp now,
                                            const CaptureUpload& u);

// What sealing and analysing a capture uses.
struct CaptureDeps {
  eventstore::KeyStore* keys = nullptr;
  eventstore::BlobStore* blobs = nullptr;
  core::IdSource* ids = nullptr;
  core::Clock* clock = nullptr;
  VerificationEngine* engine = nullptr;          // live keys and test keys without a test outcome
  VerificationEngine* sandbox_engine = nullptr;  // test keys whose policy asks for an outcome
  // The bytes of captures held in memory (an analysed capture, a file sent before its kind) come
  // out of it; past it an upload is refused 503 ADMISSION_FULL. Null: unlimited.
  core::ByteBudget* memory = nullptr;
};

// The status of an upload refused because the captures held in memory took the whole budget.
core::Status CaptureMemoryFull();

// A capture sealed as its bytes arrive (a streamed upload): Start once the kind and the declared
// type passed CheckCaptureType and the session admitted it, Write the bytes as they come (the
// kind's size limit holds as they pass), Finish at their end: the bytes are checked (not empty,
// of the declared type), the sealed object made durable in the blob store and, when asked,
// analysed (an engine that fails or is missing gives status=error, never an error of the call);
// the MediaCaptured to append. Only an analysed capture is held in memory (the engine decodes it
// whole), under CaptureDeps::memory; bytes already in memory (CaptureUpload::bytes) are analysed
// where they are. Dropped before Finish, it leaves nothing behind. Blocking: run it off the I/O
// threads.
class CaptureSealing {
 public:
  static core::Result<std::unique_ptr<CaptureSealing>> Start(const CaptureDeps& deps, const CaptureUpload& u);
  core::Status Write(std::string_view bytes);
  core::Result<commands::verification::MediaCaptured> Finish(const CaptureUpload& u, const CaptureAdmission& admitted);

 private:
  CaptureSealing(const CaptureDeps& deps, size_t max_bytes)
      : deps_(deps), max_bytes_(max_bytes), kept_(deps.memory) {}
  CaptureDeps deps_;
  size_t max_bytes_;
  commands::verification::MediaCaptured m_;
  std::unique_ptr<MediaSealer> sealer_;
  std::string dek_;
  std::string head_;  // the first bytes, for the type's magic number
  core::HeldBytes kept_;  // the whole capture, when it is to be analysed (keep_), out of deps_.memory
  bool keep_ = false;
  size_t size_ = 0;
};

// The same for bytes in memory: Start, one Write, Finish.
core::Result<commands::verification::MediaCaptured> SealCapture(const CaptureDeps& deps, const CaptureUpload& u,
                                                                const CaptureAdmission& admitted);

// The capture's answer (MediaCapture of the spec) from the read model, with the data read from
// it unsealed; Unavailable while the read model does not have it yet.
core::Result<core::Json> CaptureAnswer(const eventstore::KvStore& views, eventstore::KeyStore& keys,
                                       std::string_view tenant, std::string_view environment,
                                       std::string_view session_id, std::string_view media_id);

}  // namespace svc::pipeline::verification
