// Captures sealed in chunks (pipeline/verification/sealed_media.h) on both blob backends: the
// directory and the S3 API (the tests' signature-checking server). Round trips at the chunk
// edges, pieces never larger than a chunk, tampered chunks refused, format-1 captures still open.
#include <doctest/doctest.h>

#include <filesystem>
#include <functional>
#include <fstream>
#include <memory>
#include <vector>

#include "core/crypto.h"
#include "eventstore/blob_store.h"
#include "pipeline/adapters/s3_blob_store.h"
#include "pipeline/verification/sealed_media.h"
#include "tests/support/s3_process.h"
#include "tests/support/temp_dir.h"

namespace pipeline_verification_sealed_media_test {

using namespace svc;
namespace pv = pipeline::verification;

namespace {

constexpr size_t kChunk = pv::kMediaChunkBytes;
constexpr size_t kSealedChunk = kChunk + core::kStreamChunkOverhead;
constexpr size_t kPreamble = 1 + core::kStreamHeaderBytes;

// A blob store of one backend, in its own directory.
struct Backend {
  explicit Backend(bool s3_backend) : s3(s3_backend) {
    if (!s3) {
      store = std::make_unique<eventstore::LocalBlobStore>(dir.Sub("media"));
      return;
    }
    server = std::make_unique<testing::S3Process>(dir.Sub("s3"));
    pipeline::adapters::S3Options o;
    o.endpoint = server->endpoint();
    o.bucket = testing::S3Process::kBucket;
    o.prefix = "media/";
    o.path_style = true;
    o.credentials = {testing::S3Process::kAccessKey, testing::S3Process::kSecretKey, ""};
    o.spool_dir = dir.Sub("spool");
    store = std::make_unique<pipeline::adapters::S3BlobStore>(o);
  }
  bool s3;
  testing::TempDir dir;
  std::unique_ptr<testing::S3Process> server;
  std::unique_ptr<eventstore::BlobStore> store;
};

pv::MediaSealer::Sealed Seal(eventstore::BlobStore& store, const std::string& dek, const std::string& ad,
                             const std::string& bytes, size_t piece = 7000) {
  auto sealer = pv::MediaSealer::Start(store, dek, ad);
  REQUIRE(sealer.ok());
  for (size_t at = 0; at < bytes.size(); at += piece) REQUIRE((*sealer)->Write(std::string_view(bytes).substr(at, piece)).ok());
  auto sealed = (*sealer)->Finish();
  REQUIRE_MESSAGE(sealed.ok(), sealed.status().message());
  return *sealed;
}

// The sealed object rearranged: its preamble and chunks, reassembled by `edit`, stored anew.
std::string Rearranged(eventstore::BlobStore& store, const std::string& address,
                       const std::function<std::string(const std::string&, const std::vector<std::string>&)>& edit) {
  std::string whole = store.Get(address).value();
  std::vector<std::string> chunks;
  for (size_t at = kPreamble; at < whole.size(); at += kSealedChunk) chunks.push_back(whole.substr(at, kSealedChunk));
  return store.Put(edit(whole.substr(0, kPreamble), chunks)).value();
}

core::StatusCode OpenCode(eventstore::BlobStore& store, const std::string& address, const std::string& dek,
                          const std::string& ad) {
  auto whole = pv::OpenMediaWhole(store, address, dek, ad);
  return whole.ok() ? core::StatusCode::kOk : whole.status().code();
}

}  // namespace

TEST_CASE("sealed media: chunk-edge sizes round-trip on both backends, a piece at a time") {
  for (bool s3 : {false, true}) {
    CAPTURE(s3);
    Backend b(s3);
    const std::string dek = core::RandomBytes(32);
    const std::string ad = pv::MediaAd("ten_1", "live", "ver_1", "med_1");
    for (size_t size : {size_t{1}, kChunk - 1, kChunk, kChunk + 1, 3 * kChunk + 12345}) {
      CAPTURE(size);
      const std::string bytes = core::RandomBytes(size);
      auto sealed = Seal(*b.store, dek, ad, bytes);
      CHECK(sealed.sha256 == core::Sha256Hex(bytes));
      CHECK(sealed.size == static_cast<int64_t>(size));
      const std::string stored = b.store->Get(sealed.address).value();
      CHECK(stored[0] == pv::kSealedMediaVersion);
      const size_t chunks = (size + kChunk - 1) / kChunk;  // every one full but the last, final one
      CHECK(stored.size() == kPreamble + chunks * core::kStreamChunkOverhead + size);
      if (size >= 32) CHECK(stored.find(bytes.substr(0, 32)) == std::string::npos);  // never in clear

      auto reader = pv::MediaReader::Open(*b.store, sealed.address, dek, ad);
      REQUIRE(reader.ok());
      CHECK((*reader)->format() == 2);
      std::string back;
      for (;;) {
        auto piece = (*reader)->Next();
        REQUIRE(piece.ok());
        if (piece->empty()) break;
        CHECK(piece->size() <= kChunk);
        back += *piece;
      }
      CHECK(back == bytes);
      CHECK((*reader)->Next().value().empty());  // stays at its end
    }
    // Nothing is left in the spool.
    for (const auto& e : std::filesystem::recursive_directory_iterator(b.dir.path())) {
      CHECK(e.path().extension() != ".spool");
    }
    CHECK(pv::MediaReader::Open(*b.store, core::Sha256Hex("absent"), dek, ad).status().code() ==
          core::StatusCode::kNotFound);
  }
}

TEST_CASE("sealed media: truncated, reordered, duplicated, trailing and cross-capture chunks do not open") {
  for (bool s3 : {false, true}) {
    CAPTURE(s3);
    Backend b(s3);
    const std::string dek = core::RandomBytes(32);
    const std::string ad = pv::MediaAd("ten_1", "live", "ver_1", "med_1");
    const std::string ad2 = pv::MediaAd("ten_1", "live", "ver_1", "med_2");
    const std::string bytes = core::RandomBytes(3 * kChunk + 100);  // four chunks
    auto one = Seal(*b.store, dek, ad, bytes);
    auto two = Seal(*b.store, dek, ad2, core::RandomBytes(3 * kChunk + 100));  // same session key
    REQUIRE(OpenCode(*b.store, one.address, dek, ad) == core::StatusCode::kOk);
    using C = std::vector<std::string>;
    using P = const std::string&;
    const auto loss = core::StatusCode::kDataLoss;

    // The last (final) chunk dropped; then every chunk after the first dropped.
    CHECK(OpenCode(*b.store, Rearranged(*b.store, one.address, [](P p, const C& c) { return p + c[0] + c[1] + c[2]; }),
                   dek, ad) == loss);
    CHECK(OpenCode(*b.store, Rearranged(*b.store, one.address, [](P p, const C& c) { return p + c[0]; }), dek, ad) ==
          loss);
    // Two chunks swapped; a chunk twice; bytes after the final chunk.
    CHECK(OpenCode(*b.store, Rearranged(*b.store, one.address, [](P p, const C& c) { return p + c[1] + c[0] + c[2] + c[3]; }),
                   dek, ad) == loss);
    CHECK(OpenCode(*b.store, Rearranged(*b.store, one.address,
                                        [](P p, const C& c) { return p + c[0] + c[1] + c[1] + c[2] + c[3]; }),
                   dek, ad) == loss);
    CHECK(OpenCode(*b.store, Rearranged(*b.store, one.address, [](P p, const C& c) { return p + c[0] + c[1] + c[2] + c[3] + "x"; }),
                   dek, ad) == loss);
    // A chunk of another capture of the same session, in the same place.
    std::string other = b.store->Get(two.address).value();
    const std::string foreign = other.substr(kPreamble + kSealedChunk, kSealedChunk);
    CHECK(OpenCode(*b.store, Rearranged(*b.store, one.address, [&](P p, const C& c) { return p + c[0] + foreign + c[2] + c[3]; }),
                   dek, ad) == loss);
    // Another capture's header before this capture's chunks.
    CHECK(OpenCode(*b.store, Rearranged(*b.store, one.address,
                                        [&](P, const C& c) { return other.substr(0, kPreamble) + c[0] + c[1] + c[2] + c[3]; }),
                   dek, ad) == loss);
    // The right bytes under another capture's name, or another key.
    CHECK(OpenCode(*b.store, one.address, dek, ad2) == loss);
    CHECK(OpenCode(*b.store, one.address, core::RandomBytes(32), ad) == loss);

    // Midway: the pieces before the bad chunk come out, then the error, never the rest.
    auto swapped = Rearranged(*b.store, one.address, [](P p, const C& c) { return p + c[0] + c[1] + c[3] + c[2]; });
    auto reader = pv::MediaReader::Open(*b.store, swapped, dek, ad);
    REQUIRE(reader.ok());
    std::string got;
    core::Status end = core::Status::Ok();
    for (;;) {
      auto piece = (*reader)->Next();
      if (!piece.ok()) {
        end = piece.status();
        break;
      }
      if (piece->empty()) break;
      got += *piece;
    }
    CHECK(end.code() == loss);
    CHECK(got.size() < bytes.size());
    CHECK(bytes.compare(0, got.size(), got) == 0);
  }
}

TEST_CASE("sealed media: a capture sealed whole (format 1) still opens, also when its nonce starts with 2") {
  Backend b(false);
  const std::string dek = core::RandomBytes(32);
  const std::string ad = pv::MediaAd("ten_1", "test", "ver_1", "med_1");
  const std::string bytes = core::RandomBytes(100000);
  auto v1 = b.store->Put(core::AeadSeal(dek, bytes, ad)).value();
  auto reader = pv::MediaReader::Open(*b.store, v1, dek, ad);
  REQUIRE(reader.ok());
  CHECK((*reader)->format() == 1);
  CHECK((*reader)->Next().value() == bytes);
  CHECK((*reader)->Next().value().empty());
  // A format-1 blob whose first byte is the format-2 version byte.
  std::string sealed;
  for (int i = 0; i < 5000; ++i) {
    sealed = core::AeadSeal(dek, "short capture", ad);
    if (sealed[0] == pv::kSealedMediaVersion) break;
  }
  REQUIRE(sealed[0] == pv::kSealedMediaVersion);
  CHECK(pv::OpenMediaWhole(*b.store, b.store->Put(sealed).value(), dek, ad).value() == "short capture");
  // A format-1 blob that was altered does not open.
  std::string altered = core::AeadSeal(dek, bytes, ad);
  altered[40] ^= 1;
  CHECK(OpenCode(*b.store, b.store->Put(altered).value(), dek, ad) == core::StatusCode::kDataLoss);
}

TEST_CASE("blob reader: the end is reported only once the object hashed to its address") {
  Backend b(false);
  const std::string bytes = core::RandomBytes(300000);
  auto address = b.store->Put(bytes).value();
  std::string path = b.dir.Sub("media") + "/" + address.substr(0, 2) + "/" + address;
  std::string changed = bytes;
  changed[299999] ^= 1;  // the last byte: every piece before it reads fine
  { std::ofstream(path, std::ios::binary | std::ios::trunc) << changed; }
  auto reader = b.store->Open(address);
  REQUIRE(reader.ok());
  size_t read = 0;
  core::Status end = core::Status::Ok();
  for (;;) {
    auto piece = (*reader)->Read(65536);
    if (!piece.ok()) {
      end = piece.status();
      break;
    }
    if (piece->empty()) break;
    read += piece->size();
  }
  CHECK(read == bytes.size());
  CHECK(end.code() == core::StatusCode::kDataLoss);
}

}  // namespace pipeline_verification_sealed_media_test
