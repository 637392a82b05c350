// svc: the service binary. Run `svc` for the commands and `svc <command> --help` for the flags
// of each; commands.h lists where each one lives.

#include <iostream>
#include <string>

#include "api/server/cli.h"
#include "api/server/commands.h"
#include "core/crypto.h"

int main(int argc, char** argv) {
  using namespace svc::api::cli;
  if (auto st = svc::core::InitCrypto(); !st.ok()) return Fail(st);
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
    std::cout << "usage: " << TopUsage();
    return argc < 2 ? 2 : 0;
  }
  const std::string cmd = argv[1];
  if (cmd == "serve") return Serve(argc, argv);
  if (cmd == "admin") return Admin(argc, argv);
  if (cmd == "replay") return Replay(argc, argv);
  if (cmd == "dev-broker") return DevBroker(argc, argv);
  if (cmd == "kafka-check") return KafkaCheck(argc, argv);
  if (cmd == "certificate") return Certificate(argc, argv);
  if (cmd == "models") return Models(argc, argv);
  if (cmd == "blobs") return Blobs(argc, argv);
  if (cmd == "backup") return Backup(argc, argv);
  if (cmd == "restore") return Restore(argc, argv);
  if (cmd == "openapi") return OpenApi();
  if (cmd == "asyncapi") return AsyncApi(argc, argv);
  if (cmd == "docs" && argc >= 3 && std::string(argv[2]) == "errors") return DocsErrors();
  for (const svc::api::Module* m : svc::api::AllModules()) {  // the areas' commands
    for (const svc::api::CliVerb& v : m->verbs) {
      if (cmd == v.command) return v.run(svc::api::AllModules(), argc, argv);
    }
  }
  std::cerr << "svc: unknown command " << cmd << "\n" << TopUsage();
  return 2;
}
