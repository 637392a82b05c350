// svc export-bulk keygen | open: the data controller's side of a bulk export
// (docs/persons.md#bulk-export). `keygen` makes the X25519 key pair: the public key goes to the
// operator (`svc admin tenant export-key`), the secret key stays with the controller, never with
// the service. `open` checks a dump and prints its persons as JSON lines.
#include <sys/stat.h>

#include <fstream>
#include <iostream>

#include "api/http/cli.h"
#include "api/http/module.h"
#include "api/http/flags.h"
#include "core/crypto.h"
#include "pipeline/persons/export_dump.h"

namespace svc::api::cli {

namespace {

const char* const kUsage =
    "svc export-bulk keygen --secret-key-file FILE   make an export key pair: FILE (mode 0600) gets the\n"
    "                                                secret key; the public key is printed\n"
    "svc export-bulk open DUMP --secret-key-file FILE [--out OUT]\n"
    "                                                check a dump and write its persons as JSON lines\n";

core::Result<core::X25519KeyPair> LoadSecret(const std::string& path) {
  SVC_ASSIGN_OR_RETURN(std::string text, ReadInputFile(path));
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) text.pop_back();
  auto raw = core::Base64UrlDecode(text);
  core::SecureZero(text);
  if (!raw.ok()) return core::InvalidArgument(path + " does not hold a base64url X25519 secret key");
  auto pair = core::X25519FromSecret(*raw);
  core::SecureZero(*raw);
  return pair;
}

}  // namespace

int ExportBulk(const std::vector<const Module*>& /*modules*/, int argc, char** argv) {
  const std::string verb = argc >= 3 ? argv[2] : "";
  Flags f;
  f.Declare({"secret-key-file", "", "the export secret key (base64url of 32 bytes)"});
  f.Declare({"out", "", "open: where to write the JSON lines (default: standard output)"});
  if (verb == "keygen") {
    if (auto st = f.Parse(argc, argv, 3); !st.ok()) return Fail(st);
    const std::string path = f.Get("secret-key-file");
    if (path.empty()) return Fail(core::InvalidArgument("--secret-key-file is required"));
    core::X25519KeyPair k = core::X25519Generate();
    std::string secret = core::Base64UrlEncode(k.secret_key);
    core::SecureZero(k.secret_key);
    {
      std::ofstream out(path, std::ios::trunc);
      out << secret << "\n";
      core::SecureZero(secret);
      if (!out) return Fail(core::Unavailable("cannot write " + path));
    }
    ::chmod(path.c_str(), 0600);
    Print({{"publicKey", core::Base64UrlEncode(k.public_key)},
           {"keyId", "xk_" + core::Sha256Hex(k.public_key).substr(0, 16)},
           {"secretKeyFile", path}});
    return 0;
  }
  if (verb != "open" || argc < 4) {
    std::cerr << "usage:\n" << kUsage;
    return 2;
  }
  if (auto st = f.Parse(argc, argv, 4); !st.ok()) return Fail(st);
  if (f.Get("secret-key-file").empty()) return Fail(core::InvalidArgument("--secret-key-file is required"));
  auto key = LoadSecret(f.Get("secret-key-file"));
  if (!key.ok()) return Fail(key.status());
  auto bytes = ReadInputFile(argv[3]);
  if (!bytes.ok()) return Fail(bytes.status());
  auto dump = pipeline::persons::OpenDump(*bytes, *key);
  core::SecureZero(key->secret_key);
  if (!dump.ok()) return Fail(dump.status());
  std::ofstream file;
  if (!f.Get("out").empty()) {
    file.open(f.Get("out"), std::ios::trunc);
    if (!file) return Fail(core::Unavailable("cannot write " + f.Get("out")));
    ::chmod(f.Get("out").c_str(), 0600);
  }
  std::ostream& out = f.Get("out").empty() ? std::cout : file;
  for (const auto& record : dump->records) out << core::DumpJson(record) << "\n";
  out.flush();
  std::cerr << "svc: " << dump->records.size() << " persons, job " << core::StringOr(dump->header, "jobId")
            << ", sealed to " << core::StringOr(dump->header, "recipientKeyId") << ": the dump is intact\n";
  return out ? 0 : 1;
}

}  // namespace svc::api::cli
