#pragma once
// An in-process Runtime over a temporary data directory, with a fake clock and deterministic ids.

#include <memory>

#include "api/http/runtime.h"
#include "api/server/modules.h"
#include "commands/tenancy/tenant_decider.h"
#include "tests/support/temp_dir.h"

namespace svc::testing {

struct RuntimeFixture {
  TempDir dir;
  core::FakeClock clock;
  core::SequentialIdSource ids{42};
  std::unique_ptr<api::Runtime> rt;
  size_t recovery_poll_events = 4096;  // the writer's, when it recovers at Open

  api::RuntimeOptions Options() {
    api::RuntimeOptions o;
    o.modules = api::AllModules();
    o.data_dir = dir.Sub("data");
    o.keys.dev_keys_in_data_dir = true;  // a test's own directory
    o.partitions = 4;
    o.threads = 2;
    o.clock = &clock;
    o.ids = &ids;
    o.writer_recovery_poll_events = recovery_poll_events;
    return o;
  }
  void Open() {
    auto r = api::Runtime::Open(Options());
    if (!r.ok()) throw std::runtime_error(r.status().ToString());
    rt = std::move(r).value();
  }
  void Close() {
    if (rt) rt->Shutdown();
    rt.reset();
  }
  ~RuntimeFixture() { Close(); }

  commands::CommandContext Ctx(std::string idempotency_key = "", std::string fingerprint = "") {
    commands::CommandContext c;
    c.now = clock.Now();
    c.ids = &ids;
    c.actor = {"system", "test"};
    c.environment = "test";
    c.request_id = ids.NewIdString(core::IdKind::kRequest);
    c.idempotency_key = std::move(idempotency_key);
    c.request_fingerprint = std::move(fingerprint);
    return c;
  }
  core::Result<commands::CommandOutcome> Run(const std::string& tenant,
                                             commands::tenancy::TenancyCommand cmd,
                                             commands::CommandContext ctx) {
    return rt->writer().ExecuteAndWait(commands::MakeCommand<commands::tenancy::TenantDecider>(
        tenant, tenant, std::move(cmd), std::move(ctx)));
  }
  std::string NewTenant(const std::string& name = "Acme") {
    std::string t = ids.NewIdString(core::IdKind::kTenant);
    auto r = Run(t, commands::tenancy::CreateTenant{name, ids.NewIdString(core::IdKind::kApplication)},
                 Ctx());
    if (!r.ok()) throw std::runtime_error(r.status().ToString());
    return t;
  }
};

}  // namespace svc::testing
