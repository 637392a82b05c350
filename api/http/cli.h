#pragma once
// What every `svc` command shares, the composition root's and the modules' (api/http/module.h:
// CliVerb): the flags of the data directory, the log and the keys, turning them into
// RuntimeOptions for the modules given, and how a command fails or prints its answer.

#include <signal.h>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "api/http/http_client.h"
#include "api/http/runtime.h"
#include "api/http/flags.h"
#include "core/json.h"
#include "core/status.h"

namespace svc::api::cli {

// --master-key-file, --service-key-file, --dev-keys-in-data-dir (docs/operations.md#keys).
void DeclareKeys(Flags& f);
KeySources KeySourcesFrom(const Flags& f);
// The data directory, log backend, threads, log level and keys.
void DeclareCommon(Flags& f);
core::Result<RuntimeOptions> RuntimeOptionsFrom(const Flags& f, const std::vector<const Module*>& modules);
void ApplyLogLevel(const Flags& f);

// A command that works on a stopped data directory in-process and, when a running server holds
// it, through that server's admin socket:
// --admin-socket (default <data-dir>/admin.sock).
void DeclareAdminSocket(Flags& f);
// True when Runtime::Open failed because a running server holds the data directory's lock.
bool HeldByServer(const core::Status& open_failure);
// Calls `method path` on the running server's admin socket with the service key of `ro`'s key
// sources; `body` is sent for POST.
// `timeout`: how long to wait for the answer (a backup takes as long as its copy).
core::Result<HttpResponse> CallAdminSocket(const Flags& f, const RuntimeOptions& ro, const std::string& method,
                                           const std::string& path, const std::string& body = "",
                                           std::chrono::milliseconds timeout = std::chrono::milliseconds(30000));
// On a stopped data directory: runs `command` with the projections running (so that its answer
// reads its own write), waits until they caught up, shuts the runtime down, and prints the answer
// (0) or fails (1).
int RunLocally(Runtime& rt, const std::function<core::Result<core::Json>()>& command);
// An admin answer: its JSON on stdout (0), or the problem (or the raw body) on stderr (1).
int PrintAdminAnswer(const HttpResponse& resp);

// Prints the error; exit code 2 for a usage error, else 1.
int Fail(const core::Status& st);
void Print(const core::Json& j);
// The whole of a file named on the command line (NotFound when it cannot be read).
core::Result<std::string> ReadInputFile(const std::string& path);
// Blocks SIGINT/SIGTERM in this and every thread started later, so that the main thread can take
// them synchronously with sigwait. Call before starting any thread.
sigset_t BlockStopSignals();

}  // namespace svc::api::cli
