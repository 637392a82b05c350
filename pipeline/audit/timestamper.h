#pragma once
// The timestamper (issue 35; NOM-151 evidence): a process manager that obtains a trusted
// timestamp (RFC 3161) for every piece of evidence the timestamps read model queues
// (projections/audit/timestamps_projector.h): verification certificates, deletion certificates
// and published audit checkpoints. For each entry it waits until the read models have applied the
// event that queued it, computes the evidence's digest as they show it (the certificate's
// contentHash; the checkpoint note's SHA-256), asks the TSA, whose answer is checked in full
// before it is kept (pipeline/audit/tsa.h), and records the token (commands/audit/timestamps.h).
//
// A TSA that is down never blocks anything: the verdict, the purge and the checkpoint are
// recorded before their entry is queued, and their documents say `pending` until the token is
// there. A failed attempt is tried again after 1 s, doubling to at most 5 minutes (the queue
// is durable: a restart tries every entry at once). In a cluster each entry is handled by the
// node that writes its tenant's partition (ManagerRuntime::Owns).

#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "core/json.h"
#include "core/metrics.h"
#include "eventstore/kv_store.h"
#include "pipeline/audit/tsa.h"
#include "pipeline/manager_runtime.h"
#include "pipeline/queue_manager.h"
#include "projections/audit/timestamps_projector.h"

namespace svc::pipeline::audit {

class Timestamper final : public QueueManager {
 public:
  struct Options : ManagerRuntime {
    projections::TimestampsProjector* projector = nullptr;
    TimeStampAuthority* tsa = nullptr;
    std::chrono::milliseconds first_retry{1000};
    std::chrono::milliseconds max_retry{300000};
  };
  explicit Timestamper(Options options);
  ~Timestamper();

 private:
  void Pass() override;
  bool NothingDue() override;
  core::Status Process(const core::Json& row);
  bool InBackoff(const std::string& key, int64_t now_micros);

  Options options_;
  std::mutex mu_;
  struct Backoff {
    int64_t due_micros = 0;
    int64_t delay_ms = 0;
  };
  std::map<std::string, Backoff> backoff_;  // by queue entry (tenant/env/kind/subject)
  core::Counter* obtained_ = nullptr;
  core::Counter* failed_ = nullptr;
  core::Histogram* delay_ = nullptr;
};

// The digest (hex) one piece of evidence has as the read models show it now; nullopt when it does
// not exist or is not final (yet). Audit checkpoints carry theirs in the queue entry.
core::Result<std::optional<std::string>> EvidenceDigest(const eventstore::KvStore& store, const std::string& kind,
                                                        const std::string& tenant, const std::string& environment,
                                                        const std::string& subject);

// A document's `timestamps` (docs/audit.md#trusted-timestamps): the tokens recorded for
// `digest_hex`, each {status "granted", hashAlgorithm, digest, genTime, serialNumber, policy,
// tsaName, tsaUrl, token (base64 DER)}; with none, [{status "pending", hashAlgorithm, digest}] when a
// TSA is configured (`enabled`), [] when not.
core::Result<core::Json> EvidenceTimestamps(const eventstore::KvStore& store, const std::string& te,
                                            std::string_view kind, const std::string& subject,
                                            const std::string& digest_hex, bool enabled);

// A signed certificate of `content` (pipeline/certificate.h: RFC 8785 form, contentHash, HMAC and
// Ed25519 signatures under `root_key`) with its `timestamps` for evidence `kind` of `subject`:
// the bytes served for a verification certificate and for a deletion certificate, the same on
// every request. (Extracted at the third: sessions, persons, KYB members.)
core::Result<std::string> SignEvidence(const eventstore::KvStore& store, const std::string& te, std::string_view kind,
                                       const std::string& subject, core::Json content, std::string_view root_key,
                                       bool timestamps_enabled);

// The receipt of an ARCO access bundle answered to `person_id` (docs/persons.md#export-receipts):
// {object "person.export_receipt", id, personId, generatedAt, recordedAt, sha256, sizeBytes,
// timestamps}. INVALID_ID for an id that is not pxb_…, EXPORT_NOT_FOUND for one of another person,
// tenant or environment (or none).
core::Result<core::Json> ExportReceipt(const eventstore::KvStore& store, const std::string& te,
                                       const std::string& person_id, const std::string& export_id, bool enabled);

}  // namespace svc::pipeline::audit
