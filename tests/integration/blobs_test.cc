// Captures on object storage: svc serve with --blob-store s3 against the tests' S3 server (which
// checks every request's Signature Version 4 with the AWS SDK's signer). A session runs through
// the sandbox pipeline (which reads its captures back from the bucket), the AWS SDK for
// JavaScript finds each capture as a sealed, content-addressed object, and a store that keeps
// failing makes an upload 503 with no capture recorded. `svc blobs migrate` moves a data
// directory's captures into a bucket, resumably. A sanctions list loaded on such a server is kept
// in the bucket and read back from it on restart. A large capture is streamed out chunk by chunk
// on both backends, and one altered in the store breaks off instead of arriving complete. Uploads
// are streamed: a file sent before its kind is still taken, and refusals (no such session, over
// the kind's limit, a body cut short, the wrong type) leave no capture and no spool file. A bulk
// export's dump is an object of the store on both backends: kept by the collector while ready,
// streamed out, cut off when altered, deleted at its expiry.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <memory>

#include "core/crypto.h"
#include "core/json.h"
#include "tests/support/api_env.h"
#include "tests/support/s3_process.h"
#include "tests/support/session_flow.h"
#include "tests/support/stopped_data_dir.h"

namespace integration_blobs_test {

using namespace svc;
using testing::Body;

namespace {

// The flags of a server on `s3`, with the credentials in a shared credentials file.
std::vector<std::string> S3Flags(const testing::S3Process& s3, testing::TempDir& dir) {
  return s3.ServerFlags(dir.Sub("aws-credentials"));
}

// A server of its own on the data directory, or on the bucket of an S3 server of its own.
struct Backend {
  explicit Backend(bool on_s3, const std::vector<std::string>& serve_flags = {}) {
    if (on_s3) {
      s3 = std::make_unique<testing::S3Process>(dir.Sub("s3"));
      flags = S3Flags(*s3, dir);
    }
    std::vector<std::string> all = flags;
    all.insert(all.end(), serve_flags.begin(), serve_flags.end());
    env = std::make_unique<testing::Env>(false, all, testing::Sharing::kIsolated);
  }
  testing::TempDir dir;
  std::unique_ptr<testing::S3Process> s3;
  std::vector<std::string> flags;
  std::unique_ptr<testing::Env> env;
};

}  // namespace

TEST_CASE("blobs on s3: a session's captures are sealed objects in the bucket, read back by the pipeline") {
  testing::TempDir dir;
  testing::S3Process s3(dir.Sub("s3"));
  testing::Env env(false, S3Flags(s3, dir), testing::Sharing::kIsolated);
  const std::string session = testing::SandboxSession(env, env.test_key, "blobs-1", "approved");

  // Four captures, each an object named by the hash of its (sealed) bytes, as the SDK reads it.
  auto keys = s3.SdkList("media/");
  REQUIRE(keys.size() == 4);
  for (const auto& key : keys) {
    const std::string address = key.substr(key.rfind('/') + 1);
    CHECK(key == "media/" + address.substr(0, 2) + "/" + address);
    const std::string got = s3.SdkGet(key);
    CHECK(got.substr(0, 64) == address);
  }
  // Nothing of the person's or the capture's in a key: 64 hex characters under the prefix.
  core::Json evidence = Body(env.Call(env.test_key, "GET", "/v1/verification-sessions/" + session + "/evidence"));
  CHECK(evidence["media"].size() == 4);
}

TEST_CASE("blobs on s3: a store that keeps failing answers the upload 503 and records no capture") {
  testing::TempDir dir;
  testing::S3Process s3(dir.Sub("s3"));
  testing::Env env(false, S3Flags(s3, dir), testing::Sharing::kIsolated);
  auto created = env.Create(env.test_key, "blobs-2", R"({"channel":"api"})");
  REQUIRE(created.status == 201);
  const std::string session = Body(created)["id"];
  const std::string base = "/v1/verification-sessions/" + session;
  REQUIRE(env.Call(env.test_key, "POST", base + "/consent", R"({"accepted":true})").status == 200);

  s3.InjectFaults({"503", "503", "503", "503", "503"});
  auto refused = testing::Upload(env, env.test_key, session, "selfie", "image/jpeg", testing::Jpeg(720, 960));
  testing::CheckProblem(refused, 503, "SERVICE_UNAVAILABLE");
  CHECK(s3.SdkList("media/").empty());
  CHECK(Body(env.Call(env.test_key, "GET", base + "/evidence"))["media"].empty());

  // The store recovers: the same upload is taken and its object is in the bucket.
  auto taken = testing::Upload(env, env.test_key, session, "selfie", "image/jpeg", testing::Jpeg(720, 960));
  CHECK_MESSAGE(taken.status == 201, taken.body);
  CHECK(s3.SdkList("media/").size() == 1);
}

TEST_CASE("blobs on s3: a store that stalls mid-upload is retried; one that keeps stalling answers 503, no capture") {
  testing::TempDir dir;
  testing::S3Process s3(dir.Sub("s3"));
  std::vector<std::string> flags = S3Flags(s3, dir);
  flags.insert(flags.end(), {"--s3-request-timeout-seconds", "1"});
  testing::Env env(false, flags, testing::Sharing::kIsolated);
  auto created = env.Create(env.test_key, "blobs-3", R"({"channel":"api"})");
  REQUIRE(created.status == 201);
  const std::string session = Body(created)["id"];
  const std::string base = "/v1/verification-sessions/" + session;
  REQUIRE(env.Call(env.test_key, "POST", base + "/consent", R"({"accepted":true})").status == 200);
  const std::string video = testing::Mp4() + std::string(2u << 20, 'v');

  // The PUT is read and never answered: after the timeout it is sent again, and stored.
  s3.InjectFaults({"stall"});
  auto taken = testing::Upload(env, env.test_key, session, "liveness_video", "video/mp4", video);
  CHECK_MESSAGE(taken.status == 201, taken.body);
  CHECK(s3.SdkList("media/").size() == 1);

  // Every attempt stalls: 503, and the session records nothing more.
  s3.InjectFaults({"stall", "stall", "stall", "stall", "stall"});
  auto refused = testing::Upload(env, env.test_key, session, "liveness_video", "video/mp4", video);
  testing::CheckProblem(refused, 503, "SERVICE_UNAVAILABLE");
  CHECK(Body(env.Call(env.test_key, "GET", base + "/evidence"))["media"].size() == 1);
  CHECK(s3.SdkList("media/").size() == 1);
}

TEST_CASE("blobs migrate: a data directory's captures move into a bucket, resumably, and are served from it") {
  testing::TempDir dir;
  testing::S3Process s3(dir.Sub("s3"));
  testing::Env env(false, {}, testing::Sharing::kIsolated);
  const std::string k = env.test_key;
  auto person = env.Call(k, "POST", "/v1/persons", R"({"pii":{"curp":"PEPJ800101HDFRRN03","email":"a@example.mx","fullName":"Ana Pérez"}})");
  REQUIRE_MESSAGE(person.status == 201, person.body);
  const std::string id = Body(person)["id"];
  const std::string session = testing::ApprovedSessionOf(env, k, id, "migrate-1");
  std::string media;
  const core::Json evidence = Body(env.Call(k, "GET", "/v1/verification-sessions/" + session + "/evidence"));
  for (const auto& m : evidence["media"]) {
    if (m["kind"] == "document_front") media = m["mediaId"];
  }
  REQUIRE(!media.empty());
  const std::string data_dir = env.server->data_dir();
  env.server->Stop();

  std::vector<std::string> migrate = {"blobs", "migrate", "--data-dir", data_dir};
  for (const auto& flag : S3Flags(s3, dir)) migrate.push_back(flag);
  // The second object fails five times: the run says so and exits 1; the first is in the bucket.
  s3.InjectFaults({"ok", "ok", "ok", "503", "503", "503", "503", "503"});
  auto first = testing::RunSvc(migrate);
  CHECK(first.exit_code == 1);
  core::Json one = core::ParseJsonOrDiscarded(first.out);
  CHECK(one["copied"] == 3);
  CHECK(one["failed"] == 1);
  CHECK(one["target"] == "s3://svc-test/media/");
  // Run again: only what is missing is copied.
  auto second = testing::RunSvc(migrate);
  REQUIRE_MESSAGE(second.exit_code == 0, second.err);
  core::Json two = core::ParseJsonOrDiscarded(second.out);
  CHECK(two["copied"] == 1);
  CHECK(two["skipped"] == 3);
  CHECK(s3.SdkList("media/").size() == 4);

  // Without the local copies, a server on the bucket shows the capture through a media link.
  std::filesystem::remove_all(data_dir + "/media");
  env.server = std::make_unique<testing::SvcServer>(data_dir, S3Flags(s3, dir));
  env.server->Start();
  auto made = env.Call(k, "POST", "/v1/media-links",
                       core::Json{{"sessionId", session}, {"mediaId", media}, {"purpose", "identity_verification"},
                                  {"reason", "checking the migration"}}
                           .dump());
  REQUIRE_MESSAGE(made.status == 201, made.body);
  const std::string url = Body(made)["url"];
  auto view = env.Call("", "GET", url.substr(url.find("/v1/media-links/")));
  REQUIRE_MESSAGE(view.status == 200, view.body);
  CHECK(view.body == testing::Jpeg(1280, 800));
}

TEST_CASE("blobs on s3: a sanctions list's files are objects in the bucket; a restarted server screens with them") {
  testing::TempDir dir;
  testing::S3Process s3(dir.Sub("s3"));
  testing::Env env(false, S3Flags(s3, dir), testing::Sharing::kIsolated);
  const std::string samples = std::string(SVC_TEST_SOURCE_DIR) + "/../docs/samples/lists/";
  auto loaded = env.Admin("POST", "/admin/aml/lists",
                          {{"format", "ofac_sdn_csv"}, {"files", {samples + "sdn.csv", samples + "alt.csv"}}});
  REQUIRE_MESSAGE(loaded.status == 200, loaded.body);
  CHECK(s3.SdkList("media/").size() == 2);  // the two files, sealed
  CHECK_FALSE(std::filesystem::exists(env.server->data_dir() + "/media"));

  // On restart the lists in force are read back from the bucket (and checked against their hashes).
  env.server->Stop();
  env.server->Start();
  auto screened = env.Call(env.test_key, "POST", "/v1/screenings",
                           R"({"subjectType":"name","name":"Rogelio Villarreal Quintana","kind":"person"})");
  REQUIRE_MESSAGE(screened.status == 201, screened.body);
  core::Json s = Body(screened);
  REQUIRE(s["hits"].size() == 1);
  CHECK(s["hits"][0]["list"]["source"] == "ofac_sdn");
}

TEST_CASE("blobs: flags and commands that name no usable store are refused before anything runs") {
  testing::TempDir dir;
  const std::string data = dir.Sub("data");
  auto usage = testing::RunSvc({"blobs"});
  CHECK(usage.exit_code == 2);
  CHECK(usage.err.find("usage: svc blobs migrate") != std::string::npos);
  auto local = testing::RunSvc({"blobs", "migrate", "--data-dir", data});
  CHECK(local.exit_code == 2);
  CHECK(local.err.find("blobs migrate copies into --blob-store s3") != std::string::npos);
  auto unknown = testing::RunSvc({"blobs", "migrate", "--data-dir", data, "--blob-store", "nfs"});
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.err.find("--blob-store must be local or s3") != std::string::npos);
  auto no_bucket = testing::RunSvc({"blobs", "migrate", "--data-dir", data, "--blob-store", "s3",
                                    "--s3-endpoint", "http://127.0.0.1:9"});
  CHECK(no_bucket.exit_code == 2);
  CHECK(no_bucket.err.find("--blob-store s3 needs --s3-endpoint and --s3-bucket") != std::string::npos);
  // No credentials anywhere: named, never guessed.
  auto no_credentials = testing::RunSvc({"blobs", "migrate", "--data-dir", data, "--blob-store", "s3", "--s3-endpoint",
                                         "http://127.0.0.1:9", "--s3-bucket", "b", "--s3-credentials-file",
                                         dir.Sub("missing")},
                                        {{"AWS_ACCESS_KEY_ID", ""}, {"AWS_SECRET_ACCESS_KEY", ""}});
  CHECK(no_credentials.exit_code == 2);
  CHECK(no_credentials.err.find("no S3 credentials") != std::string::npos);
  // The server refuses the same at start.
  testing::SvcServer server(data, {"--blob-store", "s3"});
  CHECK_THROWS_WITH_AS(server.Start(), doctest::Contains("--blob-store s3 needs --s3-endpoint and --s3-bucket"),
                       std::runtime_error);
}

TEST_CASE("blobs: a large capture is streamed out in chunks on both backends; one altered in the store is cut off") {
  for (bool on_s3 : {false, true}) {
    CAPTURE(on_s3);
    Backend b(on_s3);
    testing::TempDir& dir = b.dir;
    testing::S3Process* s3 = b.s3.get();
    testing::Env& env = *b.env;
    const std::string k = env.test_key;
    auto person = env.Call(k, "POST", "/v1/persons", R"({"pii":{"curp":"PEPJ800101HDFRRN03","fullName":"Ana Pérez"}})");
    REQUIRE_MESSAGE(person.status == 201, person.body);
    // A 3 MiB video: 48 chunks, each sealed and opened on its own; the pipeline reads it back whole.
    const std::string video = testing::Mp4() + core::RandomBytes(3u << 20);
    const std::string session = testing::SandboxSessionWith(
        env, k, "stream-1", "approved", Body(person)["id"],
        {{"document_front", "image/jpeg", testing::Jpeg(1280, 800)},
         {"document_back", "image/jpeg", testing::Jpeg(1280, 801)},
         {"selfie", "image/jpeg", testing::Jpeg(720, 960)},
         {"liveness_video", "video/mp4", video}});
    std::string media;
    const core::Json evidence = Body(env.Call(k, "GET", "/v1/verification-sessions/" + session + "/evidence"));
    for (const auto& m : evidence["media"]) {
      if (m["kind"] == "liveness_video") media = m["mediaId"];
    }
    REQUIRE(!media.empty());
    auto link = [&] {
      auto made = env.Call(k, "POST", "/v1/media-links",
                           core::Json{{"sessionId", session}, {"mediaId", media}, {"purpose", "identity_verification"},
                                      {"reason", "streaming check"}}
                               .dump());
      REQUIRE_MESSAGE(made.status == 201, made.body);
      const std::string url = Body(made)["url"];
      return url.substr(url.find("/v1/media-links/"));
    };
    auto view = env.Call("", "GET", link());
    REQUIRE_MESSAGE(view.status == 200, view.body);
    CHECK(view.body == video);
    CHECK(view.content_type == "video/mp4");
    bool chunked = false;
    for (const auto& [name, value] : view.headers) chunked |= name == "Transfer-Encoding" && value == "chunked";
    CHECK(chunked);

    // The video's object, altered near its end (in its last chunk) under the same key: the view
    // starts, then breaks off without HTTP's last chunk, so the client never gets a complete answer.
    const std::string url = link();
    const std::string altered = dir.Sub("altered");
    std::string key;
    if (!on_s3) {
      for (const auto& e : std::filesystem::recursive_directory_iterator(env.server->data_dir() + "/media")) {
        if (e.is_regular_file() && e.file_size() > (3u << 20)) key = e.path().string();
      }
      REQUIRE(!key.empty());
      std::filesystem::copy_file(key, altered);
    } else {
      for (const auto& candidate : s3->SdkList("media/")) {
        if (std::stoull(s3->SdkGet(candidate).substr(65)) > (3u << 20)) key = candidate;
      }
      REQUIRE(!key.empty());
      s3->SdkGet(key, altered);
    }
    {
      std::fstream f(altered, std::ios::in | std::ios::out | std::ios::binary);
      f.seekg(-10, std::ios::end);
      const char was = static_cast<char>(f.get());
      f.seekp(-10, std::ios::end);
      f.put(static_cast<char>(was ^ 0x01));  // always a different byte
    }
    if (!on_s3) {
      std::filesystem::copy_file(altered, key, std::filesystem::copy_options::overwrite_existing);
    } else {
      s3->SdkPut(key, altered);
    }
    auto broken = api::HttpCall(env.server->target(), "GET", url, {}, "");
    CHECK_FALSE(broken.ok());
    // The server goes on serving.
    CHECK(env.Call(k, "GET", "/v1/verification-sessions/" + session).status == 200);
  }
}

TEST_CASE("streamed uploads: file before kind still taken; refusals answered before the body is read; nothing half stored") {
  testing::TempDir dir;
  testing::Env env(false, {}, testing::Sharing::kIsolated);
  const std::string k = env.test_key;
  auto created = env.Create(k, "stream-2", R"({"channel":"api"})");
  REQUIRE(created.status == 201);
  const std::string session = Body(created)["id"];
  const std::string base = "/v1/verification-sessions/" + session;
  REQUIRE(env.Call(k, "POST", base + "/consent", R"({"accepted":true})").status == 200);
  const std::string boundary = "svc-stream-boundary-41";
  const std::map<std::string, std::string> form = {{"Content-Type", "multipart/form-data; boundary=" + boundary}};
  auto post = [&](const std::string& path, const std::string& body) { return env.Call(k, "POST", path, body, form); };

  // The file before the kind: held in memory until the kind is known, then taken.
  auto taken = post(base + "/media", testing::Multipart(boundary, {{"file", "v.mp4", "video/mp4", testing::Mp4()},
                                                                   {"kind", "", "", "liveness_video"}}));
  CHECK_MESSAGE(taken.status == 201, taken.body);

  // A session that does not exist: refused when the file part starts, before 5 MiB are read.
  const std::string big = testing::Jpeg(1280, 800) + std::string(5u << 20, 'x');
  testing::CheckProblem(post("/v1/verification-sessions/vrf_00000000000000000000000000000000/media",
                             testing::Multipart(boundary, {{"kind", "", "", "document_front"},
                                                           {"file", "a.jpg", "image/jpeg", big}})),
                        404, "SESSION_NOT_FOUND");
  // Over the kind's limit (a selfie is at most 5 MiB): refused as it streams.
  testing::CheckProblem(post(base + "/media", testing::Multipart(boundary, {{"kind", "", "", "selfie"},
                                                                            {"file", "a.jpg", "image/jpeg",
                                                                             testing::Jpeg(720, 960) +
                                                                                 std::string(6u << 20, 'x')}})),
                        413, "PAYLOAD_TOO_LARGE");
  // A body cut before its closing boundary.
  std::string cut = testing::Multipart(boundary, {{"kind", "", "", "selfie"}, {"file", "a.jpg", "image/jpeg", big.substr(0, 1u << 20)}});
  cut.resize(cut.size() - 40);
  testing::CheckProblem(post(base + "/media", cut), 400, "BAD_REQUEST");
  // Bytes that are not the declared type, found on the first bytes.
  testing::CheckProblem(post(base + "/media", testing::Multipart(boundary, {{"kind", "", "", "selfie"},
                                                                            {"file", "a.jpg", "image/jpeg", "GIF89a…"}})),
                        422, "MEDIA_CONTENT_INVALID");
  // captureSource: camera or file; a liveness video from a file only where the flow allows it
  // (this session has no flow: the camera only), after the file has streamed in.
  testing::CheckProblem(post(base + "/media", testing::Multipart(boundary, {{"kind", "", "", "liveness_video"},
                                                                            {"captureSource", "", "", "upload"},
                                                                            {"file", "v.mp4", "video/mp4", testing::Mp4()}})),
                        422, "VALIDATION_ERROR");
  testing::CheckProblem(post(base + "/media", testing::Multipart(boundary, {{"kind", "", "", "liveness_video"},
                                                                            {"file", "v.mp4", "video/mp4", testing::Mp4()},
                                                                            {"captureSource", "", "", "file"}})),
                        409, "CAPTURE_NOT_ALLOWED");

  // Only the one capture taken is recorded and stored; no spool file is left.
  CHECK(Body(env.Call(k, "GET", base + "/evidence"))["media"].size() == 1);
  size_t objects = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(env.server->data_dir() + "/media")) {
    CHECK(e.path().extension() != ".spool");
    objects += e.is_regular_file() ? 1 : 0;
  }
  CHECK(objects == 1);
  // The server goes on answering on new connections.
  CHECK(env.Call(k, "GET", base).status == 200);
}

TEST_CASE("blobs gc: an object no event refers to goes after the grace period; referenced ones stay, across a restart") {
  for (bool on_s3 : {false, true}) {
    CAPTURE(on_s3);
    Backend b(on_s3);
    testing::TempDir& dir = b.dir;
    testing::S3Process* s3 = b.s3.get();
    const std::vector<std::string>& flags = b.flags;
    testing::Env& env = *b.env;
    const std::string k = env.test_key;
    const std::string data = env.server->data_dir();
    const std::string session = testing::SandboxSession(env, k, "gc-1", "approved");

    // What a kill -9 between storing a capture and appending its event leaves: an object of the
    // store that no event names.
    const std::string orphan = "sealed bytes whose event never came " + core::Sha256Hex(core::RandomBytes(8)).substr(0, 16);
    const std::string address = core::Sha256Hex(orphan);
    const std::string file = dir.Sub("orphan");
    std::ofstream(file, std::ios::binary) << orphan;
    if (on_s3) {
      s3->SdkPut("media/" + address.substr(0, 2) + "/" + address, file);
    } else {
      std::filesystem::create_directories(data + "/media/" + address.substr(0, 2));
      std::filesystem::copy_file(file, data + "/media/" + address.substr(0, 2) + "/" + address);
    }
    auto stored = [&] {
      if (on_s3) return !s3->SdkGet("media/" + address.substr(0, 2) + "/" + address).empty();
      return std::filesystem::exists(data + "/media/" + address.substr(0, 2) + "/" + address);
    };
    auto gc = [&](std::vector<std::string> extra) {
      std::vector<std::string> args = {"blobs", "gc", "--data-dir", data};
      args.insert(args.end(), flags.begin(), flags.end());
      args.insert(args.end(), extra.begin(), extra.end());
      auto r = testing::RunSvc(args);
      REQUIRE_MESSAGE(r.exit_code == 0, std::string(r.err + r.out));
      return core::ParseJsonOrDiscarded(r.out);
    };

    // Through the running server: within the grace period it is kept, and a dry run deletes nothing.
    core::Json young = gc({});
    CHECK(young["objects"] == 5);
    CHECK(young["referenced"] == 4);
    CHECK(young["young"] == 1);
    CHECK(young["deleted"] == 0);
    core::Json dry = gc({"--dry-run", "--grace-seconds", "0"});
    CHECK(dry["dryRun"] == true);
    CHECK(dry["deleted"] == 1);
    CHECK(dry["addresses"] == core::Json::array({address}));
    CHECK(stored());

    // Restarted, past the grace period: the orphan goes, the session's four captures stay.
    env.server->Stop();
    env.server->Start();
    core::Json swept = gc({"--grace-seconds", "0"});
    CHECK(swept["deleted"] == 1);
    CHECK(swept["referenced"] == 4);
    CHECK(swept["addresses"] == core::Json::array({address}));
    CHECK_FALSE(stored());
    CHECK(Body(env.Call(k, "GET", "/v1/verification-sessions/" + session + "/evidence"))["media"].size() == 4);

    // On the stopped data directory, the same run finds nothing more to delete.
    env.server->Stop();
    core::Json offline = gc({"--grace-seconds", "0"});
    CHECK(offline["objects"] == 4);
    CHECK(offline["deleted"] == 0);
    // The log records the deletion: which object, its size, under which grace period, and by whom.
    {
      auto store = testing::OpenStoppedStore(data);
      std::vector<core::Json> records;
      testing::ForEachLoggedEvent(store.get(), [&](const eventstore::EventEnvelope& e) {
        if (e.type != "compliance.blobs_collected") return;
        CHECK(e.aggregate_type == "blob_gc");
        CHECK(e.actor.type == "system");
        records.push_back(core::ParseJsonOrDiscarded(e.data));
      });
      REQUIRE(records.size() == 1);
      CHECK(records[0]["addresses"] == core::Json::array({address}));
      CHECK(records[0]["bytes"] == static_cast<int64_t>(orphan.size()));
      CHECK(records[0]["graceSeconds"] == 0);
    }
    env.server->Start();
  }
}

TEST_CASE("blobs: a bulk export's dump is an object of the store on both backends, kept while ready, gone at expiry") {
  for (bool on_s3 : {false, true}) {
    CAPTURE(on_s3);
    Backend b(on_s3, {"--fake-clock", "--rate-reveals", "0", "--export-dump-ttl-hours", "1"});
    testing::TempDir& dir = b.dir;
    testing::S3Process* s3 = b.s3.get();
    testing::Env& env = *b.env;
    const std::string k = env.test_key;
    const std::string secret = dir.Sub("export.secret");
    auto made_key = testing::RunSvc({"export-bulk", "keygen", "--secret-key-file", secret});
    REQUIRE_MESSAGE(made_key.exit_code == 0, made_key.err);
    REQUIRE(env.Admin("POST", "/admin/tenants/" + env.tenant + "/export-key",
                      {{"publicKey", core::ParseJsonOrDiscarded(made_key.out)["publicKey"]}})
                .status == 200);
    for (const char* email : {"uno@example.mx", "dos@example.mx"}) {
      auto p = env.Call(k, "POST", "/v1/persons", core::Json{{"pii", {{"email", email}}}}.dump());
      REQUIRE_MESSAGE(p.status == 201, p.body);
    }
    auto made = env.Call(k, "POST", "/v1/persons/export-bulk",
                         R"({"purpose":"identity_verification","reason":"portability 2026-77"})");
    REQUIRE_MESSAGE(made.status == 202, made.body);
    const std::string id = Body(made)["id"];
    REQUIRE(env.Admin("POST", "/admin/persons/wait-idle").status == 200);
    const core::Json job = Body(env.Call(k, "GET", "/v1/persons/export-bulk/" + id));
    REQUIRE(job["status"] == "ready");
    const std::string sha = job["dump"]["sha256"];
    const std::string object = "media/" + sha.substr(0, 2) + "/" + sha;
    const std::string file = env.server->data_dir() + "/" + object;
    auto stored = [&]() -> std::string {
      std::string path = file;
      if (on_s3) {
        path = dir.Sub("fetched");
        std::filesystem::remove(path);
        if (s3->SdkGet(object, path).empty()) return "";
      }
      std::ifstream in(path, std::ios::binary);
      return std::string(std::istreambuf_iterator<char>(in), {});
    };

    // The dump is the object named by its hash, in the store, and nowhere in the data directory.
    const std::string bytes = stored();
    REQUIRE(!bytes.empty());
    CHECK(core::Sha256Hex(bytes) == sha);
    CHECK(bytes.find("uno@example.mx") == std::string::npos);
    CHECK_FALSE(std::filesystem::exists(env.server->data_dir() + "/exports"));
    if (on_s3) CHECK_FALSE(std::filesystem::exists(file));
    auto dump = env.Call(k, "GET", "/v1/persons/export-bulk/" + id + "/dump");
    REQUIRE_MESSAGE(dump.status == 200, dump.body);
    CHECK(dump.body == bytes);
    CHECK(dump.content_type == "application/octet-stream");
    bool chunked = false;
    for (const auto& [name, value] : dump.headers) chunked |= name == "Transfer-Encoding" && value == "chunked";
    CHECK(chunked);

    // The collector keeps it while its job is ready, whatever its age.
    // A deletion is asked for in so many words (issue 68, item 7): no dryRun, a misspelt one, a
    // non-boolean one or a body that is not JSON is refused, and nothing is deleted.
    testing::CheckProblem(env.Admin("POST", "/admin/blobs/gc", {{"graceSeconds", 0}}), 422, "VALIDATION_ERROR");
    testing::CheckProblem(env.Admin("POST", "/admin/blobs/gc", {{"dryrun", true}, {"graceSeconds", 0}}), 422,
                 "VALIDATION_ERROR");
    testing::CheckProblem(env.Admin("POST", "/admin/blobs/gc", {{"dryRun", "no"}, {"graceSeconds", 0}}), 422,
                 "VALIDATION_ERROR");
    testing::CheckProblem(env.Admin("POST", "/admin/blobs/gc", {{"dryRun", false}, {"graceSeconds", "0"}}), 422,
                 "VALIDATION_ERROR");
    auto malformed = api::HttpCall(env.server->admin_target(), "POST", "/admin/blobs/gc",
                                   {{"Authorization", "Bearer " + env.service_key}}, "{\"dryRun\": fal");
    REQUIRE(malformed.ok());
    testing::CheckProblem(*malformed, 400, "BAD_REQUEST");
    auto gc = env.Admin("POST", "/admin/blobs/gc", {{"dryRun", false}, {"graceSeconds", 0}});
    REQUIRE_MESSAGE(gc.status == 200, gc.body);
    CHECK(Body(gc)["deleted"] == 0);
    CHECK(Body(gc)["referenced"] == 1);

    // Altered in the store: the download starts, then breaks off without HTTP's last chunk.
    std::string altered = bytes;
    altered[altered.size() - 3] ^= 0x01;
    const std::string altered_file = dir.Sub("altered");
    std::ofstream(altered_file, std::ios::binary) << altered;
    if (on_s3) {
      s3->SdkPut(object, altered_file);
    } else {
      std::filesystem::copy_file(altered_file, file, std::filesystem::copy_options::overwrite_existing);
    }
    auto broken = api::HttpCall(env.server->target(), "GET", "/v1/persons/export-bulk/" + id + "/dump",
                                {{"Authorization", "Bearer " + k}}, "");
    CHECK_FALSE(broken.ok());
    CHECK(env.Call(k, "GET", "/v1/persons/export-bulk/" + id).status == 200);  // the server goes on

    // Past its expiry on the fake clock: the exporter deletes the object and says so.
    REQUIRE(env.Admin("POST", "/admin/clock", {{"advanceSeconds", 3601}}).status == 200);
    auto expired = env.Call(k, "GET", "/v1/persons/export-bulk/" + id + "/dump");
    CHECK(expired.status == 409);
    CHECK(Body(expired)["code"] == "EXPORT_DUMP_EXPIRED");
    CHECK(Body(env.Call(k, "GET", "/v1/persons/export-bulk/" + id))["status"] == "expired");
    CHECK(stored().empty());
  }
}

}  // namespace integration_blobs_test
