// `svc admin master-key rotate` on a running server and on a stopped data directory: every data
// key moves to the new master key while the server answers (API keys, persons' reveals, sealed
// session data, certificates keep working), nothing in the log changes (replay stays identical),
// the data directory then opens only with the new key, and the old key is refused.
#include <doctest/doctest.h>

#include <fstream>

#include "core/crypto.h"
#include "tests/support/api_env.h"
#include "tests/support/child_process.h"

namespace integration_master_key_test {

using namespace svc;
using svc::testing::Body;
using svc::testing::Env;
using svc::testing::Sharing;

namespace {

std::string NewKeyFile(const testing::TempDir& dir, const std::string& name) {
  std::string path = dir.Sub(name);
  std::ofstream(path) << core::Base64Encode(core::RandomBytes(32)) << "\n";
  return path;
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::string s;
  std::getline(in, s);
  return s;
}

}  // namespace

TEST_CASE("master key: rotated on a running server, then on a stopped one; the old key is refused") {
  Env env(false, {"--rate-reveals", "0"}, Sharing::kIsolated);
  testing::TempDir keys;
  const std::string data = env.server->data_dir();
  const std::string k = env.test_key;
  auto person = env.Call(k, "POST", "/v1/persons",
                         R"({"pii":{"email":"rot@example.mx","fullName":"Rotación Prueba"}})");
  REQUIRE_MESSAGE(person.status == 201, person.body);
  std::string id = Body(person)["id"];
  auto decrypt = [&]() {
    auto r = env.Call(k, "POST", "/v1/persons/" + id + "/decrypt",
                      R"({"fields":["email"],"purpose":"identity_verification","reason":"rotation test"})");
    REQUIRE_MESSAGE(r.status == 200, r.body);
    return Body(r)["fields"]["email"].get<std::string>();
  };
  CHECK(decrypt() == "rot@example.mx");
  auto public_key = [&]() {
    auto r = testing::RunSvc({"certificate", "public-key", "--tenant", env.tenant, "--env", "test", "--data-dir", data});
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    return core::ParseJsonOrDiscarded(r.out)["publicKey"].get<std::string>();
  };
  const std::string cert_key = public_key();
  // Keep the first key, as an operator would until the rotation is done.
  const std::string old_key_file = keys.Sub("old.key");
  std::ofstream(old_key_file) << Slurp(data + "/master.key") << "\n";

  // On the running server (the CLI goes through the admin socket): no restart.
  const std::string first = NewKeyFile(keys, "first.key");
  auto rotated = testing::RunSvc({"admin", "master-key", "rotate", "--new-master-key-file", first, "--data-dir", data});
  REQUIRE_MESSAGE(rotated.exit_code == 0, rotated.out << rotated.err);
  core::Json r = core::ParseJsonOrDiscarded(rotated.out);
  CHECK(r["rotated"] == true);
  CHECK(r["rewrappedKeys"].get<int>() >= 3);  // the person's key, the blind-index key, the working root
  CHECK(r["masterKeyFileUpdated"] == true);   // development mode: the data directory's key file
  CHECK(Slurp(data + "/master.key") == Slurp(first));
  // The server kept serving: keys authenticate, values open, new persons are sealed and found.
  CHECK(decrypt() == "rot@example.mx");
  auto second_person = env.Call(k, "POST", "/v1/persons", R"({"pii":{"email":"new@example.mx"}})");
  REQUIRE(second_person.status == 201);
  auto found = env.Call(k, "POST", "/v1/persons/search", R"({"field":"email","value":"rot@example.mx"})");
  CHECK(Body(found)["data"].size() == 1);
  CHECK(public_key() == cert_key);  // the working keys did not change

  // Restarted with the new key (the data directory's file): everything opens.
  env.server->Stop();
  env.server->Start();
  CHECK(decrypt() == "rot@example.mx");
  CHECK(env.Call(k, "GET", "/v1/persons").status == 200);

  // On a stopped data directory: the CLI opens it and rotates in place.
  env.server->Stop();
  const std::string second = NewKeyFile(keys, "second.key");
  auto offline = testing::RunSvc({"admin", "master-key", "rotate", "--new-master-key-file", second, "--data-dir", data});
  REQUIRE_MESSAGE(offline.exit_code == 0, offline.out << offline.err);
  CHECK(Slurp(data + "/master.key") == Slurp(second));
  auto verify = testing::RunSvc({"replay", "--verify", "--data-dir", data});
  CHECK_MESSAGE(verify.exit_code == 0, verify.out << verify.err);
  CHECK(core::ParseJsonOrDiscarded(verify.out)["identical"] == true);
  // The old keys are refused at once (not on the first sealed value).
  for (const auto& stale : {old_key_file, first}) {
    auto refused = testing::RunSvc({"replay", "--verify", "--data-dir", data, "--master-key-file", stale});
    CHECK(refused.exit_code != 0);
    CHECK(refused.err.find("not the one this data directory uses") != std::string::npos);
  }
  // A rotation to the key in use is refused; a malformed key file too.
  CHECK(testing::RunSvc({"admin", "master-key", "rotate", "--new-master-key-file", second, "--data-dir", data}).exit_code != 0);
  std::ofstream(keys.Sub("bad.key")) << "not a key\n";
  auto bad = testing::RunSvc({"admin", "master-key", "rotate", "--new-master-key-file", keys.Sub("bad.key"), "--data-dir", data});
  CHECK(bad.exit_code != 0);
  CHECK(bad.err.find("32 random bytes") != std::string::npos);
  env.server->Start();
  CHECK(decrypt() == "rot@example.mx");
  CHECK(public_key() == cert_key);
}

}  // namespace integration_master_key_test
