#pragma once
// The persons area (the vault): writes and masked reads (persons_api.cc), every reveal of
// plaintext — decrypt, batch decrypt, an expanded read, client tokens, integrity, export —
// (reveal_api.cc), and its part of the OpenAPI document (schemas.cc).

#include <vector>

#include "api/http/openapi.h"
#include "api/http/public_api.h"
#include "api/http/route.h"
#include "commands/persons/arco_request.h"

namespace svc::pipeline::persons {
class Purger;
class Consolidator;
class BulkExporter;
}  // namespace svc::pipeline::persons

namespace svc::api {
struct Module;
}

namespace svc::api::persons {

// The area as a module (module.cc): its deciders, projector, routes, flags and process managers.
const Module& PersonsModule();

// What the area's routes are given besides the shared context (filled by its module).
struct PersonsOptions : ApiContext {
  // Forget: how long `mode: block` keeps the data before the purge, and the purger to wake for
  // `mode: purge` (null: the purge waits for the purger's timer).
  int64_t forget_grace_seconds = 30 * 86400;
  pipeline::persons::Purger* purger = nullptr;
  // Consolidation: the process manager a request wakes (null: it wakes on its own).
  pipeline::persons::Consolidator* consolidator = nullptr;
  // Bulk export: the process manager a request wakes (null: it wakes on its own), and how long a
  // written dump stays downloadable.
  pipeline::persons::BulkExporter* exporter = nullptr;
  int64_t export_ttl_seconds = 86400;
  // ARCO requests: the operator's extra days off of the business-day calendar (--arco-days-off).
  commands::persons::ArcoCalendar arco_calendar;
};

std::vector<ApiRoute> PersonRoutes(Runtime* r, const PersonsOptions& options);
OpenApiArea PersonsOpenApi();

}  // namespace svc::api::persons

namespace svc::api::cli {
// `svc export-bulk` (cli.cc): the module's command.
int ExportBulk(const std::vector<const Module*>& modules, int argc, char** argv);
}  // namespace svc::api::cli
