#pragma once
// The `svc` binary's own: its usage (the composition root's commands and every module's verbs)
// and the runtime options of every module. The helpers every command shares are api/http/cli.h.

#include <string>

#include "api/http/cli.h"
#include "api/server/modules.h"

namespace svc::api::cli {

// `svc --help`: the commands of the composition root, then each module's verbs in the modules' order.
std::string TopUsage();

// RuntimeOptions from the common flags, with every module (modules.h).
inline core::Result<RuntimeOptions> RuntimeOptionsFrom(const Flags& f) { return RuntimeOptionsFrom(f, AllModules()); }

}  // namespace svc::api::cli
