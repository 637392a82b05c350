// Benchmarks of the access log (not tests; scripts/bench): the audit projection's rate over a
// log of access events, the signed checkpoint and the proofs read from the stored tree, and the
// offline verification of an export of every entry (svc audit verify's code, in process; run.sh
// also times the binary on the same file). Results go to BENCHMARKS.md by hand.
//
//   svc_bench_audit DIR ENTRIES
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>

#include "commands/persons/access_events.h"
#include "core/canonical_json.h"
#include "core/crypto.h"
#include "core/ids.h"
#include "core/log.h"
#include "core/merkle.h"
#include "eventstore/embedded_log.h"
#include "pipeline/audit/checkpoints.h"
#include "pipeline/audit/export_check.h"
#include "projections/audit/audit_projector.h"
#include "projections/audit/audit_reads.h"
#include "projections/runner.h"

using namespace svc;
using Clock = std::chrono::steady_clock;

namespace {

double Since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

void Die(const core::Status& st) {
  std::fprintf(stderr, "%s\n", st.ToString().c_str());
  std::exit(1);
}

}  // namespace

int main(int argc, char** argv) {
  if (!core::InitCrypto().ok()) return 1;
  core::SetLogLevel(core::LogLevel::kWarn);
  const std::string dir = argc > 1 ? argv[1] : "/tmp/svc-audit-bench";
  const uint64_t total = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1000000;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);

  eventstore::KvStore::Options so;
  so.path = dir + "/db";
  so.column_families = {"log", "views", "projections"};
  auto store = eventstore::KvStore::Open(so);
  if (!store.ok()) Die(store.status());
  eventstore::EmbeddedLog::Options lo;
  lo.store = store->get();
  lo.partitions = 4;
  lo.durability = eventstore::Durability::kOs;  // loading the data set; not what is measured
  auto log = eventstore::EmbeddedLog::Open(lo);
  if (!log.ok()) Die(log.status());

  // One tenant's access events, as the vault records them (one per person revealed).
  const std::string tenant = "ten_" + std::string(31, '0') + "1";
  core::RandomIdSource ids;
  auto t0 = Clock::now();
  constexpr uint64_t kBatch = 1000;
  const char* channels[] = {"decrypt", "batch_decrypt", "expand", "export"};
  for (uint64_t i = 0; i < total; i += kBatch) {
    std::vector<eventstore::EventEnvelope> batch;
    for (uint64_t j = i; j < std::min(total, i + kBatch); ++j) {
      commands::persons::PiiAccessed a;
      a.person_id = ids.NewIdString(core::IdKind::kPerson);
      a.application_id = "app_" + std::string(31, '0') + "1";
      a.actor_type = "api_key";
      a.actor_id = "key_" + std::string(31, '0') + "2";
      a.channel = channels[j % 4];
      a.fields = {"curp", "email"};
      a.purpose = "identity_verification";
      a.reason = "onboarding check #" + std::to_string(j);
      a.redaction = "plain";
      eventstore::EventEnvelope e;
      e.id = ids.NewIdString(core::IdKind::kEvent);
      e.type = std::string(commands::persons::PiiAccessed::kType);
      e.tenant_id = tenant;
      e.environment = "test";
      e.aggregate_type = std::string(commands::persons::kRevealBudgetAggregate);
      e.aggregate_id = "test-20261125";
      e.aggregate_version = static_cast<int64_t>(j + 1);
      e.occurred_at = core::Timestamp{1795000000000000 + static_cast<int64_t>(j) * 1000};
      e.actor = {"api_key", a.actor_id};
      e.request_id = ids.NewIdString(core::IdKind::kRequest);
      e.data = commands::persons::EncodeAccessData(commands::persons::AccessEvent(a));
      batch.push_back(std::move(e));
    }
    if (auto st = (*log)->AppendAndWait((*log)->PartitionFor(tenant), std::move(batch)); !st.ok()) Die(st.status());
  }
  std::printf("audit: loaded %llu access events in %.1fs\n", static_cast<unsigned long long>(total), Since(t0));

  // 1. The audit projection alone, from the log (read, decode, chain, tree, rows, commit).
  projections::AuditProjector projector;
  projections::ProjectionRunner::Options po;
  po.projectors = {&projector};
  po.log = log->get();
  po.store = store->get();
  po.batch_events = 5000;
  projections::ProjectionRunner runner(po);
  if (auto st = runner.Prepare(); !st.ok()) Die(st);
  auto t1 = Clock::now();
  if (auto st = runner.RunUntilCaughtUp(); !st.ok()) Die(st);
  double secs = Since(t1);
  std::printf("audit: projection: %llu access events in %.2fs = %.0f events/s (target >= 20,000)\n",
              static_cast<unsigned long long>(total), secs, total / secs);

  // 1b. GET /v1/audit-logs/verify: the chain walked whole (as every call did before issue 31), then
  // verified incrementally: the first call walks everything, a call with nothing new reads the
  // mark's entry (a call after k new entries walks those: k at the full walk's rate).
  const std::string te = tenant + "/test";
  {
    auto tf = Clock::now();
    auto full = projections::VerifyStoredChain(**store, te);
    if (!full.ok() || full->broken_at.has_value()) Die(core::Internal("the chain does not verify"));
    const double full_secs = Since(tf);
    projections::IncrementalChainVerifier verifier;
    auto first = verifier.Verify(**store, te);
    if (!first.ok()) Die(first.status());
    constexpr int kCalls = 1000;
    auto tn = Clock::now();
    for (int i = 0; i < kCalls; ++i) {
      auto again = verifier.Verify(**store, te);
      if (!again.ok() || again->walked != 0) Die(core::Internal("an idle verify walked entries"));
    }
    const double idle_us = Since(tn) / kCalls * 1e6;
    std::printf("audit: verify of %llu entries: full walk %.2fs; incremental: %.1f us a call with nothing new\n",
                static_cast<unsigned long long>(full->count), full_secs, idle_us);
  }

  // 2. The signed checkpoint of the whole tree, and proofs, read from the stored subtrees.
  auto tree = projections::ReadStoredTree(**store, te);
  if (!tree.ok()) Die(tree.status());
  const std::string root_key = pipeline::audit::CheckpointRootKey(core::RandomBytes(32));
  constexpr int kReps = 2000;
  std::string note;
  auto t2 = Clock::now();
  for (int i = 0; i < kReps; ++i) {
    auto root = core::merkle::Root(static_cast<uint64_t>(tree->size), tree->nodes);
    if (!root.ok()) Die(root.status());
    auto signed_note = pipeline::audit::SignedCheckpoint(root_key, tenant, "test", static_cast<uint64_t>(tree->size), *root);
    if (!signed_note.ok()) Die(signed_note.status());
    note = *signed_note;
  }
  std::printf("audit: signed checkpoint of %llu entries (head read + Ed25519): %.1f us each\n",
              static_cast<unsigned long long>(tree->size), Since(t2) / kReps * 1e6);
  std::mt19937_64 rng(42);
  const uint64_t n = static_cast<uint64_t>(tree->size);
  auto root = core::merkle::Root(n, tree->nodes);
  auto t3 = Clock::now();
  size_t hashes = 0;
  for (int i = 0; i < kReps; ++i) {
    uint64_t index = rng() % n;
    auto proof = core::merkle::InclusionProof(index, n, tree->nodes);
    if (!proof.ok()) Die(proof.status());
    hashes += proof->size();
    if (i == 0) {
      auto leaf = tree->nodes(0, index);
      if (!leaf.ok() || !core::merkle::VerifyInclusion(*leaf, index, n, *proof, *root)) Die(core::Internal("bad proof"));
    }
  }
  std::printf("audit: inclusion proof in a tree of %llu: %.1f us each (%.1f hashes)\n",
              static_cast<unsigned long long>(n), Since(t3) / kReps * 1e6, double(hashes) / kReps);
  auto t4 = Clock::now();
  hashes = 0;
  for (int i = 0; i < kReps; ++i) {
    uint64_t from = 1 + rng() % n;
    auto proof = core::merkle::ConsistencyProof(from, n, tree->nodes);
    if (!proof.ok()) Die(proof.status());
    hashes += proof->size();
  }
  std::printf("audit: consistency proof to a tree of %llu: %.1f us each (%.1f hashes)\n",
              static_cast<unsigned long long>(n), Since(t4) / kReps * 1e6, double(hashes) / kReps);

  // 3. An export of every entry (as `svc audit export` writes it), then its offline check.
  const std::string file = dir + "/export.jsonl";
  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out << core::DumpJson({{"format", pipeline::audit::kExportFormat},
                           {"origin", pipeline::audit::Origin(tenant, "test")},
                           {"verifierKey", pipeline::audit::VerifierKeyOf(root_key, tenant, "test")},
                           {"checkpoint", note},
                           {"checkpoints", core::Json::array()}})
        << "\n";
    const int cf = (*store)->Cf("views");
    const std::string prefix = "audit/e/" + te + "/";
    auto it = (*store)->NewIterator(cf, prefix, eventstore::PrefixEnd(prefix));
    // As `svc audit export` writes them: each entry in its RFC 8785 form.
    for (it->Seek(prefix); it->Valid(); it->Next()) {
      auto canonical = core::CanonicalJson(core::ParseJsonOrDiscarded(it->value()));
      if (!canonical.ok()) Die(canonical.status());
      out << *canonical << "\n";
    }
  }
  std::printf("audit: export of %llu entries: %.0f MB\n", static_cast<unsigned long long>(total),
              std::filesystem::file_size(file) / 1e6);
  {
    // The floor under any verifier: SHA-256 alone over the bytes it must hash (each entry's
    // canonical form after its previous hash, then the 33-byte leaf), one thread.
    std::ifstream in(file);
    std::string line;
    std::getline(in, line);  // the header
    std::vector<std::string> canon;
    while (std::getline(in, line)) {
      core::Json e = core::ParseJsonOrDiscarded(line);
      e.erase("hash");
      e.erase("prevHash");
      canon.push_back(core::CanonicalJson(e).value());
    }
    char out[32];
    const std::string prev(32, '\1');
    size_t bytes = 0;
    auto t = Clock::now();
    for (const auto& c : canon) {
      core::Sha256Into({prev, c}, out);
      core::Sha256Into({std::string_view("\0", 1), std::string_view(out, 32)}, out);
      bytes += c.size() + 32 + 33;
    }
    double s = Since(t);
    std::printf("audit: SHA-256 alone over the same bytes (%.0f B per entry), 1 thread: %.2fs = %.0f entries/s\n",
                double(bytes) / canon.size(), s, canon.size() / s);
  }
  for (unsigned threads : {1u, 0u}) {
    auto t5 = Clock::now();
    auto check = pipeline::audit::CheckExportFile(file, "", threads);
    double s = Since(t5);
    if (!check.ok()) Die(check.status());
    if (!check->valid()) Die(core::Internal("the export did not verify: " + check->ToJson().dump()));
    std::printf("audit: verify the export (%s): %llu entries in %.2fs = %.0f entries/s (target >= 2,000,000)\n",
                threads == 1 ? "1 thread" : "every core", static_cast<unsigned long long>(check->count), s,
                check->count / s);
  }
  std::printf("audit: export kept at %s for `svc audit verify`\n", file.c_str());
  (*log)->Close();
  return 0;
}
