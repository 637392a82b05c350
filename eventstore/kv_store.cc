#include "eventstore/kv_store.h"

#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <rocksdb/table.h>
#include <rocksdb/cache.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/utilities/table_properties_collectors.h>
#include <rocksdb/write_batch.h>
#include <rocksdb/utilities/checkpoint.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>

namespace svc::eventstore {

namespace {

// True when another process holds RocksDB's lock on `db_path` (a running server). Asked before
// DB::Open, because opening a directory another process holds, though refused, first moves that
// process's info log aside (LOG -> LOG.old.*): each `svc admin` call against a running server
// left one more. RocksDB locks with fcntl (POSIX record locks), which F_GETLK reports.
bool LockedByAnotherProcess(const std::string& db_path) {
  const std::string lock = db_path + "/LOCK";
  const int fd = ::open(lock.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;  // no database yet, or no lock file: nobody holds it
  struct flock fl {};
  fl.l_type = F_WRLCK;
  fl.l_whence = SEEK_SET;
  const bool held = ::fcntl(fd, F_GETLK, &fl) == 0 && fl.l_type != F_UNLCK;
  ::close(fd);
  return held;
}

core::Status FromRocks(const rocksdb::Status& s, std::string_view what) {
  if (s.ok()) return core::Status::Ok();
  std::string msg = std::string(what) + ": " + s.ToString();
  if (s.IsIOError() && msg.find("lock") != std::string::npos) {
    return core::Unavailable("database is locked by another process (" + msg + ")");
  }
  if (s.IsCorruption()) return core::DataLoss(msg);
  if (s.IsBusy() || s.IsTryAgain() || s.IsTimedOut()) return core::Unavailable(msg);
  return core::Internal(msg);
}
}  // namespace

struct KvStore::Impl {
  std::unique_ptr<rocksdb::DB> db;
  std::vector<std::string> names;
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  ~Impl() {
    if (db) {
      for (auto* h : handles) db->DestroyColumnFamilyHandle(h);
      db->Close();
    }
  }
};

struct KvStore::Batch::Rep {
  // Operations recorded by cf index; resolved against handles at Write time.
  struct Op {
    enum Kind { kPut, kDelete, kDeleteRange } kind;
    int cf;
    std::string a, b;
  };
  std::vector<Op> ops;
  size_t bytes = 0;
};

KvStore::Batch::Batch() : rep_(std::make_unique<Rep>()) {}
KvStore::Batch::~Batch() = default;
KvStore::Batch::Batch(Batch&&) noexcept = default;
KvStore::Batch& KvStore::Batch::operator=(Batch&&) noexcept = default;

void KvStore::Batch::Put(int cf, std::string_view key, std::string_view value) {
  rep_->bytes += key.size() + value.size();
  rep_->ops.push_back({Rep::Op::kPut, cf, std::string(key), std::string(value)});
}
void KvStore::Batch::Delete(int cf, std::string_view key) {
  rep_->bytes += key.size();
  rep_->ops.push_back({Rep::Op::kDelete, cf, std::string(key), {}});
}
void KvStore::Batch::DeleteRange(int cf, std::string_view begin, std::string_view end) {
  rep_->ops.push_back({Rep::Op::kDeleteRange, cf, std::string(begin), std::string(end)});
}
size_t KvStore::Batch::Count() const { return rep_->ops.size(); }
size_t KvStore::Batch::ByteSize() const { return rep_->bytes; }
void KvStore::Batch::Clear() {
  rep_->ops.clear();
  rep_->bytes = 0;
}

core::Result<std::unique_ptr<KvStore>> KvStore::Open(const Options& options) {
  rocksdb::Options db_opts;
  db_opts.create_if_missing = options.create_if_missing;
  db_opts.create_missing_column_families = true;
  db_opts.IncreaseParallelism(2);
  // Compactions run at the lowest CPU and I/O priority: on two cores a compaction of a few seconds
  // took a core from the request path and held durable creates up to ~100 ms (open-loop bench,
  // BENCHMARKS.md#open-loop). They still get every idle cycle, and RocksDB slows writes itself if
  // compaction falls behind. Flushes (the HIGH pool) keep normal priority: a late flush stalls
  // writes at once.
  db_opts.env->LowerThreadPoolCPUPriority(rocksdb::Env::Priority::LOW, rocksdb::CpuPriority::kLow)
      .PermitUncheckedError();
  db_opts.env->LowerThreadPoolIOPriority(rocksdb::Env::Priority::LOW);
  // Table files written by flushes and compactions go to disk a MiB at a time (sync_file_range)
  // instead of in one fsync at the file's end, which on the benchmark's VM queued the log's own
  // fsyncs behind tens of MiB: person create's open-loop p99 during a compaction went from
  // 34-65 ms to 16-17 ms (BENCHMARKS.md#open-loop).
  db_opts.bytes_per_sync = 1 << 20;
  db_opts.max_open_files = 512;
  // Each of our writers (log appender, write-model committer, one per projector) already
  // commits in batches; RocksDB's concurrent memtable inserts (a skip list insert that cannot use
  // its splice hint) and pipelined writes cost more CPU here than they save (BENCHMARKS.md).
  db_opts.enable_pipelined_write = false;
  db_opts.allow_concurrent_memtable_write = false;
  // Derived rows are written without the write-ahead log (WriteDerived); flushing every column
  // family together keeps them consistent with their checkpoints across a crash.
  db_opts.atomic_flush = true;
  db_opts.info_log_level = rocksdb::InfoLogLevel::WARN_LEVEL;
  db_opts.keep_log_file_num = 3;

  rocksdb::ColumnFamilyOptions cf_opts;
  rocksdb::BlockBasedTableOptions table;
  table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10, false));
  // Index and filter blocks live in the block cache, partitioned (4 KiB pieces, loaded as
  // needed, under a small top-level index pinned with its file), at high priority, and pinned
  // for level-0 files: memory bounded by the cache rather than growing with the tables
  // (docs/decisions.md, BENCHMARKS.md#soak-bounded).
  table.block_cache = rocksdb::NewLRUCache(std::max<size_t>(options.block_cache_bytes, 8 << 20), -1, false, 0.5);
  table.cache_index_and_filter_blocks = true;
  table.cache_index_and_filter_blocks_with_high_priority = true;
  table.pin_l0_filter_and_index_blocks_in_cache = true;
  table.index_type = rocksdb::BlockBasedTableOptions::kTwoLevelIndexSearch;
  table.partition_filters = true;
  table.pin_top_level_index_and_filter = true;
  table.metadata_block_size = 4096;
  cf_opts.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  // A table file with 512 or more deletions among 2,048 consecutive rows is compacted soon after
  // it is written. The process managers' queues (pending verifications, verified data to write,
  // review moves, due webhooks) are rows put and deleted within seconds; their deletions
  // otherwise stay until a compaction reaches the last level, and every scan of a queue steps over
  // them: ~240 a scan after a minute of the soak, ~2,000 after nine (BENCHMARKS.md#soak-bounded).
  cf_opts.table_properties_collector_factories.emplace_back(
      rocksdb::NewCompactOnDeletionCollectorFactory(2048, 512));
  cf_opts.compression = rocksdb::kLZ4Compression;
  // 16 MiB memtables (RocksDB's default is 64): a skip-list insert into a memtable that stays
  // within the caches costs a third of one that does not; the projectors' row inserts were a
  // seventh of the CPU of a person create. 8 MiB flushed too often (BENCHMARKS.md).
  cf_opts.write_buffer_size = 16 << 20;

  std::vector<std::string> names = {rocksdb::kDefaultColumnFamilyName};
  for (const auto& n : options.column_families) {
    if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  }
  std::vector<rocksdb::ColumnFamilyDescriptor> descs;
  for (const auto& n : names) descs.emplace_back(n, cf_opts);

  auto impl = std::make_unique<Impl>();
  rocksdb::DB* raw = nullptr;
  rocksdb::Status s;
  if (options.read_only) {
    s = rocksdb::DB::OpenForReadOnly(db_opts, options.path, descs, &impl->handles, &raw);
  } else if (LockedByAnotherProcess(options.path)) {
    return core::Unavailable("database is locked by another process (" + options.path + "/LOCK)");
  } else {
    s = rocksdb::DB::Open(db_opts, options.path, descs, &impl->handles, &raw);
  }
  if (!s.ok()) return FromRocks(s, "open " + options.path);
  impl->db.reset(raw);
  impl->names = names;
  std::unique_ptr<KvStore> store(new KvStore());
  store->impl_ = std::move(impl);
  store->path_ = options.path;
  return store;
}

KvStore::~KvStore() = default;

int KvStore::Cf(std::string_view name) const {
  for (size_t i = 0; i < impl_->names.size(); ++i) {
    if (impl_->names[i] == name) return static_cast<int>(i);
  }
  return -1;
}

core::Status KvStore::WriteImpl(Batch& batch, bool sync, bool wal) {
  rocksdb::WriteBatch wb;
  for (const auto& op : batch.rep_->ops) {
    if (op.cf < 0 || static_cast<size_t>(op.cf) >= impl_->handles.size()) {
      return core::Internal("batch names an unknown column family");
    }
    auto* h = impl_->handles[op.cf];
    switch (op.kind) {
      case Batch::Rep::Op::kPut: wb.Put(h, op.a, op.b); break;
      case Batch::Rep::Op::kDelete: wb.Delete(h, op.a); break;
      case Batch::Rep::Op::kDeleteRange: wb.DeleteRange(h, op.a, op.b); break;
    }
  }
  rocksdb::WriteOptions wo;
  wo.disableWAL = !wal;
  auto rs = impl_->db->Write(wo, &wb);
  // A sync write: the WAL is synced after the write, not by it (kv_store.h). A write with
  // WriteOptions::sync holds RocksDB's one write queue for its fsync, and every other writer,
  // the read models' WAL-free batches too, waits behind it: one slow fsync (5-30 ms on the
  // benchmark's VM disk) stalled the projectors and so every answer waiting on them
  // (BENCHMARKS.md#open-loop).
  if (rs.ok() && sync && wal) rs = impl_->db->SyncWAL();
  return FromRocks(rs, "write");
}

core::Status KvStore::Write(Batch& batch, bool sync) { return WriteImpl(batch, sync, true); }

core::Status KvStore::WriteDerived(Batch& batch) { return WriteImpl(batch, false, false); }

core::Result<std::optional<std::string>> KvStore::Get(int cf, std::string_view key) const {
  std::string value;
  auto s = impl_->db->Get(rocksdb::ReadOptions(), impl_->handles.at(cf), key, &value);
  if (s.IsNotFound()) return std::optional<std::string>();
  if (!s.ok()) return FromRocks(s, "get");
  return std::optional<std::string>(std::move(value));
}

core::Result<std::vector<std::optional<std::string>>> KvStore::MultiGet(
    int cf, const std::vector<std::string>& keys) const {
  if (keys.size() == 1) {  // a point read costs less than MultiGet's batch set-up
    SVC_ASSIGN_OR_RETURN(auto one, Get(cf, keys[0]));
    std::vector<std::optional<std::string>> out;
    out.push_back(std::move(one));
    return out;
  }
  std::vector<rocksdb::Slice> slices;
  slices.reserve(keys.size());
  for (const auto& k : keys) slices.emplace_back(k);
  std::vector<rocksdb::PinnableSlice> values(keys.size());
  std::vector<rocksdb::Status> statuses(keys.size());
  impl_->db->MultiGet(rocksdb::ReadOptions(), impl_->handles.at(cf), keys.size(), slices.data(),
                      values.data(), statuses.data(), /*sorted_input=*/false);
  std::vector<std::optional<std::string>> out(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    if (statuses[i].IsNotFound()) continue;
    if (!statuses[i].ok()) return FromRocks(statuses[i], "multiget");
    out[i] = values[i].ToString();
  }
  return out;
}

namespace {
class RocksIterator final : public KvStore::Iterator {
 public:
  RocksIterator(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* h, std::string lower,
                std::string upper)
      : lower_(std::move(lower)), upper_(std::move(upper)) {
    rocksdb::ReadOptions ro;
    if (!lower_.empty()) {
      lower_slice_ = rocksdb::Slice(lower_);
      ro.iterate_lower_bound = &lower_slice_;
    }
    if (!upper_.empty()) {
      upper_slice_ = rocksdb::Slice(upper_);
      ro.iterate_upper_bound = &upper_slice_;
    }
    it_.reset(db->NewIterator(ro, h));
  }
  void Seek(std::string_view k) override { it_->Seek(rocksdb::Slice(k.data(), k.size())); }
  void SeekForPrev(std::string_view k) override {
    it_->SeekForPrev(rocksdb::Slice(k.data(), k.size()));
  }
  void SeekToFirst() override { it_->SeekToFirst(); }
  void SeekToLast() override { it_->SeekToLast(); }
  bool Valid() const override { return it_->Valid(); }
  void Next() override { it_->Next(); }
  void Prev() override { it_->Prev(); }
  std::string_view key() const override {
    auto k = it_->key();
    return {k.data(), k.size()};
  }
  std::string_view value() const override {
    auto v = it_->value();
    return {v.data(), v.size()};
  }
  core::Status status() const override { return FromRocks(it_->status(), "iterate"); }

 private:
  std::string lower_, upper_;
  rocksdb::Slice lower_slice_, upper_slice_;
  std::unique_ptr<rocksdb::Iterator> it_;
};
}  // namespace

std::unique_ptr<KvStore::Iterator> KvStore::NewIterator(int cf, std::string lower,
                                                        std::string upper) const {
  return std::make_unique<RocksIterator>(impl_->db.get(), impl_->handles.at(cf),
                                         std::move(lower), std::move(upper));
}

core::Status KvStore::ClearColumnFamily(int cf) {
  auto it = NewIterator(cf);
  it->SeekToFirst();
  if (!it->Valid()) return it->status();
  std::string first(it->key());
  it->SeekToLast();
  std::string last(it->key());
  last.push_back('\0');  // exclusive end just past the last key
  rocksdb::WriteOptions wo;
  auto s = impl_->db->DeleteRange(wo, impl_->handles.at(cf), first, last);
  return FromRocks(s, "clear column family");
}

core::Status KvStore::Flush() {
  rocksdb::FlushOptions fo;
  return FromRocks(impl_->db->Flush(fo, impl_->handles), "flush");
}

core::Status KvStore::CompactAll(int cf) {
  // Every column family is flushed, not only this one: the write-ahead log is shared, and a log
  // file still holding another family's unflushed writes would keep this one's old values too.
  // Once all are flushed, RocksDB deletes the log files (no WAL archive is configured).
  rocksdb::FlushOptions fo;
  SVC_RETURN_IF_ERROR(FromRocks(impl_->db->Flush(fo, impl_->handles), "flush"));
  rocksdb::CompactRangeOptions co;
  co.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForce;
  return FromRocks(impl_->db->CompactRange(co, impl_->handles.at(cf), nullptr, nullptr), "compact");
}

core::Status KvStore::Checkpoint(const std::string& dir) {
  rocksdb::Checkpoint* raw = nullptr;
  SVC_RETURN_IF_ERROR(FromRocks(rocksdb::Checkpoint::Create(impl_->db.get(), &raw), "checkpoint"));
  std::unique_ptr<rocksdb::Checkpoint> cp(raw);
  // log_size_for_flush 0: always flush first, so the copy holds every row, including those
  // written without the write-ahead log.
  return FromRocks(cp->CreateCheckpoint(dir, /*log_size_for_flush=*/0), "checkpoint");
}

std::string KvStore::Property(std::string_view name) const {
  // A number is summed over every column family (the read models, the log and the keys live in
  // families of their own); any other property is the default family's.
  uint64_t n = 0;
  // Properties of the whole database would be counted once per family by the aggregation.
  if (name == "rocksdb.num-running-compactions" || name == "rocksdb.num-running-flushes" ||
      name == "rocksdb.block-cache-usage" || name == "rocksdb.block-cache-pinned-usage") {
    impl_->db->GetIntProperty(rocksdb::Slice(name.data(), name.size()), &n);
    return std::to_string(n);
  }
  if (impl_->db->GetAggregatedIntProperty(rocksdb::Slice(name.data(), name.size()), &n)) return std::to_string(n);
  std::string v;
  impl_->db->GetProperty(rocksdb::Slice(name.data(), name.size()), &v);
  return v;
}

void PutFixed32BE(std::string& out, uint32_t v) {
  for (int i = 3; i >= 0; --i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
void PutFixed64BE(std::string& out, uint64_t v) {
  for (int i = 7; i >= 0; --i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
uint32_t GetFixed32BE(std::string_view in) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v = (v << 8) | static_cast<unsigned char>(in[i]);
  return v;
}
uint64_t GetFixed64BE(std::string_view in) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | static_cast<unsigned char>(in[i]);
  return v;
}
std::string PrefixEnd(std::string_view prefix) {
  std::string end(prefix);
  while (!end.empty()) {
    auto c = static_cast<unsigned char>(end.back());
    if (c != 0xff) {
      end.back() = static_cast<char>(c + 1);
      return end;
    }
    end.pop_back();
  }
  return end;  // empty: no upper bound
}

}  // namespace svc::eventstore
