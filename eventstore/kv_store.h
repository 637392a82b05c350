#pragma once
// KvStore: the project's one door to RocksDB. A store is one RocksDB database with named column
// families; a Batch is one atomic unit (all of it or none of it survives a crash). Every other
// module (the embedded log, the write model, the read models, the key store) keeps its data
// here; none of them includes RocksDB.
//
// Thread-safety: Get, Write and iterators may be used from any thread concurrently.

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace svc::eventstore {

class KvStore {
 public:
  struct Options {
    std::string path;
    std::vector<std::string> column_families;  // "default" is always present
    bool create_if_missing = true;
    bool read_only = false;  // a read-only open does not take the lock
    // The block cache every column family shares. The tables' index and filter blocks are kept
    // in it too (pinned for the newest files), so the store's memory is this much plus the
    // memtables, whatever the size of the data: outside the cache they grew with it, ~4 % of
    // the tables' bytes (the soak's RSS; docs/decisions.md).
    size_t block_cache_bytes = size_t{128} << 20;
  };

  // Fails with kUnavailable and a message containing "locked" when another process holds it.
  static core::Result<std::unique_ptr<KvStore>> Open(const Options& options);
  ~KvStore();

  // Index of a column family given at Open; -1 if unknown.
  int Cf(std::string_view name) const;

  class Batch {
   public:
    Batch();
    ~Batch();
    Batch(Batch&&) noexcept;
    Batch& operator=(Batch&&) noexcept;
    void Put(int cf, std::string_view key, std::string_view value);
    void Delete(int cf, std::string_view key);
    void DeleteRange(int cf, std::string_view begin, std::string_view end);
    size_t Count() const;
    size_t ByteSize() const;
    void Clear();

   private:
    friend class KvStore;
    struct Rep;
    std::unique_ptr<Rep> rep_;
  };

  // `sync` = the write-ahead log is on disk (fsync) before this returns. The batch is written
  // first and the log synced after it, outside RocksDB's write queue (DB::SyncWAL), so writers of
  // derived rows (no WAL) never wait behind a slow fsync; the price is that a concurrent reader
  // may see the batch before it is durable. Whoever acknowledges a sync write must therefore
  // publish it only after this returns (the embedded log's end offsets do: its readers are bounded
  // by them). The WAL is one sequential file: a sync covers every write made before it.
  core::Status Write(Batch& batch, bool sync);
  // For rows derived from the event log only (read models, the write model, their checkpoints):
  // no write-ahead log. All column families flush atomically (atomic_flush), so after a crash
  // such rows and the checkpoints written with them go back together to an earlier consistent
  // point, from which their owners re-apply the log. Never for anything the log cannot rebuild
  // (the log itself, wrapped keys, configuration).
  core::Status WriteDerived(Batch& batch);
  core::Result<std::optional<std::string>> Get(int cf, std::string_view key) const;
  // Several keys of one column family at once (RocksDB's batched lookup: a list page's rows
  // cost about half of as many Gets). Values in the order of `keys`; any error fails all.
  core::Result<std::vector<std::optional<std::string>>> MultiGet(
      int cf, const std::vector<std::string>& keys) const;

  class Iterator {
   public:
    virtual ~Iterator() = default;
    virtual void Seek(std::string_view key) = 0;
    virtual void SeekForPrev(std::string_view key) = 0;
    virtual void SeekToFirst() = 0;
    virtual void SeekToLast() = 0;
    virtual bool Valid() const = 0;
    virtual void Next() = 0;
    virtual void Prev() = 0;
    virtual std::string_view key() const = 0;
    virtual std::string_view value() const = 0;
    virtual core::Status status() const = 0;
  };
  // Iterates [lower, upper) of a column family; empty bounds mean unbounded.
  std::unique_ptr<Iterator> NewIterator(int cf, std::string lower = {},
                                        std::string upper = {}) const;

  // Drops every key of a column family (used by replay to rebuild read models).
  core::Status ClearColumnFamily(int cf);
  core::Status Flush();
  // Flushes every column family (the write-ahead log files go) and rewrites all of one family's
  // files, so that its deleted keys leave the disk
  // (what crypto-shredding needs of the key store: a tombstone alone leaves the old value in
  // older files until some later compaction).
  core::Status CompactAll(int cf);
  // A consistent copy of the whole store as of one moment, in `dir` (which must not exist yet):
  // RocksDB's checkpoint. Every column family's memtable is flushed first (atomically, so the rows
  // written without a write-ahead log go with their checkpoints), the table files are hard-linked
  // when `dir` is on the same file system and copied when not, and the live write-ahead log is
  // copied. Writes go on while it is taken. Used by `svc backup` (eventstore/backup.h).
  core::Status Checkpoint(const std::string& dir);
  const std::string& path() const { return path_; }
  std::string Property(std::string_view name) const;

 private:
  KvStore() = default;
  core::Status WriteImpl(Batch& batch, bool sync, bool wal);
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string path_;
};

// Big-endian fixed-width encodings: they sort bytewise in numeric order.
void PutFixed32BE(std::string& out, uint32_t v);
void PutFixed64BE(std::string& out, uint64_t v);
uint32_t GetFixed32BE(std::string_view in);
uint64_t GetFixed64BE(std::string_view in);
// The smallest key greater than every key starting with `prefix`.
std::string PrefixEnd(std::string_view prefix);

}  // namespace svc::eventstore
