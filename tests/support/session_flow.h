#pragma once
// Captures and uploads for tests that run verification sessions through a real svc: minimal
// JPEG and MP4 bytes (enough for the magic-number and dimension checks; the sandbox engine reads
// the specimen from any of them) and the multipart upload of one capture.

#include <array>
#include <string>
#include <vector>

#include "tests/support/api_env.h"
#include "tests/support/capture_bytes.h"

namespace svc::testing {

inline api::HttpResponse Upload(Env& env, const std::string& key, const std::string& id,
                         const std::string& kind, const std::string& mime, const std::string& bytes,
                         const std::string& query = "") {
  std::string boundary = "svc-test-boundary-7MA4YWxkTrZu0gW";
  std::string body = Multipart(boundary, {{"kind", "", "", kind}, {"file", "capture.bin", mime, bytes}});
  return env.Call(key, "POST", "/v1/verification-sessions/" + id + "/media" + query, body,
                  {{"Content-Type", "multipart/form-data; boundary=" + boundary}});
}

// One capture to upload: kind, mime, bytes.
using Capture = std::array<std::string, 3>;

// The four minimal captures (enough for the checks the sandbox makes).
inline std::vector<Capture> MinimalCaptures() {
  return {{"document_front", "image/jpeg", Jpeg(1280, 800)},
          {"document_back", "image/jpeg", Jpeg(1280, 801)},
          {"selfie", "image/jpeg", Jpeg(720, 960)},
          {"liveness_video", "video/mp4", Mp4()}};
}

// A session run by the sandbox to `outcome` (policy testOutcome: approved, declined, review):
// consent, the `captures`, submit, and the pipeline idle; of `person` when one is given; `extra`
// adds members to the create request. Returns its id.
inline std::string SandboxSessionWith(Env& env, const std::string& key, const std::string& idempotency_key,
                                      const std::string& outcome, const std::string& person,
                                      const std::vector<Capture>& captures,
                                      const core::Json& extra = core::Json::object()) {
  core::Json body = {{"channel", "api"}, {"policy", {{"testOutcome", outcome}}}};
  if (!person.empty()) body["personId"] = person;
  body.update(extra);
  auto created = env.Create(key, idempotency_key, body.dump());
  REQUIRE_MESSAGE(created.status == 201, created.body);
  const std::string session = Body(created)["id"];
  const std::string base = "/v1/verification-sessions/" + session;
  REQUIRE(env.Call(key, "POST", base + "/consent", R"({"accepted":true})").status == 200);
  for (const auto& [kind, mime, bytes] : captures) {
    auto up = Upload(env, key, session, kind, mime, bytes);
    REQUIRE_MESSAGE(up.status == 201, up.body);
  }
  REQUIRE(env.Call(key, "POST", base + "/submit").status == 200);
  REQUIRE(env.Admin("POST", "/admin/pipeline/wait-idle").status == 200);
  REQUIRE(Body(env.Call(key, "GET", base))["status"] == outcome);
  return session;
}

// The same with the four minimal captures.
inline std::string SandboxSession(Env& env, const std::string& key, const std::string& idempotency_key,
                                  const std::string& outcome, const std::string& person = "",
                                  const core::Json& extra = core::Json::object()) {
  return SandboxSessionWith(env, key, idempotency_key, outcome, person, MinimalCaptures(), extra);
}

// The review case a session's verdict opened (its evidence names it).
inline std::string ReviewCaseOf(Env& env, const std::string& key, const std::string& session) {
  core::Json evidence = Body(env.Call(key, "GET", "/v1/verification-sessions/" + session + "/evidence"));
  return evidence["decision"]["caseId"];
}

// A session of `person` run to `approved` by the sandbox. Returns its id.
inline std::string ApprovedSessionOf(Env& env, const std::string& key, const std::string& person,
                                     const std::string& idempotency_key) {
  return SandboxSession(env, key, idempotency_key, "approved", person);
}

}  // namespace svc::testing
