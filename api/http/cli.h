#pragma once
// What every `svc` command shares, the composition root's and the modules' (api/http/module.h:
// CliVerb): the flags of the data directory, the log and the keys, turning them into
// RuntimeOptions for the modules given, and how a command fails or prints its answer.

#include <signal.h>

#include <string>
#include <vector>

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

// Prints the error; exit code 2 for a usage error, else 1.
int Fail(const core::Status& st);
void Print(const core::Json& j);
// The whole of a file named on the command line (NotFound when it cannot be read).
core::Result<std::string> ReadInputFile(const std::string& path);
// Blocks SIGINT/SIGTERM in this and every thread started later, so that the main thread can take
// them synchronously with sigwait. Call before starting any thread.
sigset_t BlockStopSignals();

}  // namespace svc::api::cli
