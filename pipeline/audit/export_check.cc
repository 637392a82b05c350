#include "pipeline/audit/export_check.h"

#include <fcntl.h>
#include <simdjson.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

#include "core/ids.h"
#include "core/merkle.h"
#include "core/signed_note.h"

namespace svc::pipeline::audit {

core::Json ChainCheck::ToJson() const {
  core::Json j = {{"valid", valid()},
                  {"count", count},
                  {"brokenAt", broken_at.has_value() ? core::Json(*broken_at) : core::Json(nullptr)},
                  {"treeRootHash", root_hash}};
  if (has_checkpoint) {
    j["checkpointSize"] = checkpoint_size;
    j["checkpointSignatureValid"] = checkpoint_signature_valid;
    j["checkpointMatchesEntries"] = checkpoint_matches;
  }
  j["publishedCheckpoints"] = published;
  j["firstBadPublishedCheckpoint"] = first_bad_published.has_value() ? core::Json(*first_bad_published) : core::Json(nullptr);
  j["verifierKeyFrom"] = key_source;
  return j;
}

std::vector<projections::LinkDigest> DigestAll(size_t n, const std::function<projections::LinkDigest(size_t)>& digest,
                                               unsigned threads) {
  std::vector<projections::LinkDigest> out(n);
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  threads = static_cast<unsigned>(std::min<size_t>(threads, std::max<size_t>(1, n / 4096)));
  auto run = [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) out[i] = digest(i);
  };
  if (threads <= 1) {
    run(0, n);
    return out;
  }
  std::vector<std::thread> pool;
  const size_t per = (n + threads - 1) / threads;
  for (unsigned t = 1; t < threads; ++t) {
    pool.emplace_back(run, std::min(n, t * per), std::min(n, (t + 1) * per));
  }
  run(0, std::min(n, per));
  for (auto& th : pool) th.join();
  return out;
}

namespace {

// The body of a checkpoint note that opens with `vkey` and names `origin`; nullopt otherwise.
std::optional<core::note::Checkpoint> OpenCheckpoint(std::string_view note, std::string_view vkey,
                                                     std::string_view origin) {
  auto text = core::note::Open(note, vkey);
  if (!text.ok()) return std::nullopt;
  auto cp = core::note::ParseCheckpoint(*text);
  if (!cp.ok() || cp->origin != origin) return std::nullopt;
  return std::move(*cp);
}

}  // namespace

ChainCheck CheckChain(const std::vector<projections::LinkDigest>& entries, std::string_view origin,
                      std::string_view vkey, std::optional<std::string_view> checkpoint,
                      std::vector<PublishedCheckpoint> published) {
  ChainCheck out;
  std::sort(published.begin(), published.end(),
            [](const PublishedCheckpoint& a, const PublishedCheckpoint& b) { return a.tree_size < b.tree_size; });
  out.published = static_cast<int64_t>(published.size());
  // One pass: the chain, and the tree grown leaf by leaf so every published size's head is seen.
  projections::ChainWalk walk;
  core::merkle::CompactRange tree;
  size_t next = 0;
  auto check_published_at_size = [&] {
    for (; next < published.size() && published[next].tree_size <= static_cast<int64_t>(tree.size()); ++next) {
      const PublishedCheckpoint& p = published[next];
      if (out.first_bad_published.has_value()) continue;
      auto cp = OpenCheckpoint(p.note, vkey, origin);
      const bool ok = cp.has_value() && p.tree_size >= 1 && cp->size == static_cast<uint64_t>(p.tree_size) &&
                      p.tree_size == static_cast<int64_t>(tree.size()) && cp->root_hash == tree.Root() &&
                      p.root_hash == core::HexEncode(cp->root_hash);
      if (!ok) out.first_bad_published = p.tree_size;
    }
  };
  check_published_at_size();  // a size of 0 or below is not a checkpoint of this log
  for (const auto& e : entries) {
    walk.Add(e);
    tree.Append(std::string_view(e.leaf.data(), e.leaf.size()));
    check_published_at_size();
  }
  // What is left commits to entries the log does not hold: its tail was cut.
  if (next < published.size() && !out.first_bad_published.has_value()) out.first_bad_published = published[next].tree_size;
  out.count = walk.count();
  out.broken_at = walk.broken_at();
  const std::string root = tree.Root();
  out.root_hash = core::HexEncode(root);
  out.has_checkpoint = checkpoint.has_value();
  if (out.has_checkpoint) {
    auto text = core::note::Open(*checkpoint, vkey);
    out.checkpoint_signature_valid = text.ok();
    if (text.ok()) {
      auto cp = core::note::ParseCheckpoint(*text);
      if (cp.ok()) {
        out.checkpoint_size = cp->size;
        out.checkpoint_matches = cp->origin == origin && cp->size == tree.size() && cp->root_hash == root;
      }
    }
  }
  return out;
}

namespace {

// The header line (the first), then every non-blank line after it.
core::Result<ChainCheck> CheckLines(std::string_view text, std::string_view verifier_key, unsigned threads) {
  using simdjson::SUCCESS;
  const auto not_export = core::InvalidArgument("not an access-log export (format " + std::string(kExportFormat) + ")");
  const size_t eol = text.find('\n');
  const std::string header_text(text.substr(0, eol));
  simdjson::dom::parser parser;
  simdjson::dom::object header;
  std::string_view format;
  if (parser.parse(header_text).get_object().get(header) != SUCCESS ||
      header["format"].get_string().get(format) != SUCCESS || format != kExportFormat) {
    return not_export;
  }
  auto text_of = [&](const char* member) {
    std::string_view v;
    return header[member].get_string().get(v) == SUCCESS ? std::string(v) : std::string();
  };
  const std::string origin = text_of("origin");
  const std::string vkey = verifier_key.empty() ? text_of("verifierKey") : std::string(verifier_key);
  const std::string checkpoint = text_of("checkpoint");  // an export always has one: "" does not open
  std::vector<PublishedCheckpoint> published;
  simdjson::dom::array listed;
  if (header["checkpoints"].get_array().get(listed) == SUCCESS) {
    for (simdjson::dom::element item : listed) {
      PublishedCheckpoint p;
      std::string_view v;
      int64_t size = 0;
      if (item["treeSize"].get_int64().get(size) == SUCCESS) p.tree_size = size;
      if (item["rootHash"].get_string().get(v) == SUCCESS) p.root_hash = std::string(v);
      if (item["checkpoint"].get_string().get(v) == SUCCESS) p.note = std::string(v);
      published.push_back(std::move(p));
    }
  }
  // The entries: one per line (memchr finds them at memory speed), blank lines skipped.
  std::vector<std::string_view> lines;
  const char* p = eol == std::string_view::npos ? text.data() + text.size() : text.data() + eol + 1;
  const char* end = text.data() + text.size();
  while (p < end) {
    const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p)));
    const char* line_end = nl == nullptr ? end : nl;
    std::string_view line(p, static_cast<size_t>(line_end - p));
    if (line.find_first_not_of(" \t\r") != std::string_view::npos) lines.push_back(line);
    p = nl == nullptr ? end : nl + 1;
  }
  auto digests = DigestAll(lines.size(), [&lines](size_t i) { return projections::DigestText(lines[i]); }, threads);
  ChainCheck out = CheckChain(digests, origin, vkey, checkpoint, std::move(published));
  out.key_source = verifier_key.empty() ? "export" : "given";
  return out;
}

}  // namespace

core::Result<ChainCheck> CheckExport(std::string_view text, std::string_view verifier_key, unsigned threads) {
  return CheckLines(text, verifier_key, threads);
}

core::Result<ChainCheck> CheckExportFile(const std::string& path, std::string_view verifier_key, unsigned threads) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return core::NotFound("cannot read " + path + ": " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return core::NotFound("cannot read " + path + ": not a file");
  }
  const size_t size = static_cast<size_t>(st.st_size);
  if (size == 0) {
    ::close(fd);
    return CheckLines("", verifier_key, threads);
  }
  // Mapped, not read: the page cache's pages are used as they are (no copy, no zeroed memory).
  void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
  ::close(fd);
  if (map == MAP_FAILED) return core::Unavailable("cannot map " + path + ": " + std::strerror(errno));
  ::madvise(map, size, MADV_SEQUENTIAL);
  auto out = CheckLines(std::string_view(static_cast<const char*>(map), size), verifier_key, threads);
  ::munmap(map, size);
  return out;
}

}  // namespace svc::pipeline::audit
