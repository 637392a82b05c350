#pragma once
// The verification-session area: its routes (sessions_api.cc: create, consent, get, list;
// verification_api.cc: captures, challenges, submit, evidence, report, certificate and its keys,
// the progress stream) and its part of the OpenAPI document (schemas.cc).

#include <vector>

#include "api/http/openapi.h"
#include "api/http/public_api.h"
#include "api/http/route.h"
#include "api/http/sessions_port.h"
#include "api/sessions/upload_slots.h"
#include "core/byte_budget.h"

namespace svc::pipeline::adapters {
class EfirmaVerifier;
}

namespace svc::api {

struct Module;

// The area as a module (module.cc): its deciders, projectors, routes, flags and services.
const Module& SessionsModule();

// What the area's routes are given besides the shared context (filled by its module).
struct SessionsOptions : ApiContext {
  // Captures of sandbox sessions (test keys with a test outcome) are analysed by it.
  pipeline::verification::VerificationEngine* sandbox_engine = nullptr;
  // The upload slots (upload_slots.h) and the memory captures may hold (pipeline/verification/
  // capture.h); null: none taken, unlimited.
  UploadSlots* upload_slots = nullptr;
  core::ByteBudget* upload_memory = nullptr;
  // Reads, seals and analyses uploads (one thread per upload slot: a slow client holds its own
  // thread, never the work pool's; null: the work pool).
  core::ThreadPool* upload_pool = nullptr;
  // e.firma possession proofs (--efirma-roots; null: not configured, EFIRMA_CERT_NOT_READY).
  pipeline::adapters::EfirmaVerifier* efirma = nullptr;
};

// `rt` may be null when only the declarations are wanted (documentation).
std::vector<ApiRoute> SessionRoutes(Runtime* r, const SessionsOptions& options);
std::vector<ApiRoute> VerificationRoutes(Runtime* r, const SessionsOptions& options);
// e.firma challenges and answers (efirma_api.cc).
std::vector<ApiRoute> EfirmaRoutes(Runtime* r, const SessionsOptions& options);
OpenApiArea SessionsOpenApi();
// What the embedded channel uses of this area (api/http/sessions_port.h), lent through
// ApiContext::sessions by the module.
const SessionsPort& SessionsPortOf();

}  // namespace svc::api
