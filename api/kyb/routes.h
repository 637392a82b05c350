#pragma once
// The KYB area (docs/kyb.md, docs/screening.md): companies — create, list, detail, status,
// members, documents, ownership nodes, verify (companies_api.cc) — and AML — screenings, their
// hits and their review, portfolio runs (screening_api.cc) — and its part of the OpenAPI document
// (schemas.cc).

#include <optional>
#include <string>
#include <vector>

#include "api/http/openapi.h"
#include "api/http/public_api.h"
#include "api/http/route.h"
#include "core/json.h"
#include "pipeline/kyb/kyb_seal.h"

namespace svc::pipeline::kyb {
class CompanyVerifier;
class ListRegistry;
class SubjectShredder;
}  // namespace svc::pipeline::kyb

namespace svc::api {
struct Module;

// Sanctions and PEP lists (docs/screening.md#loading, module.cc): load a version of a list from
// its files (read and checked whole first; the files kept as blobs; a version already in force
// records nothing: `unchanged`), and the versions in force. The admin socket's routes and
// `svc aml load|lists`.
core::Result<core::Json> AdminAmlLoad(Runtime& rt, const std::string& format, const std::string& source,
                                      const std::vector<std::string>& paths, const eventstore::Actor& actor);
core::Result<core::Json> AdminAmlLists(Runtime& rt);
}  // namespace svc::api

namespace svc::api::kyb {

// The area as a module (module.cc): its deciders, projector, routes, flags, the registry, the
// lists in force and the company verifier.
const Module& KybModule();

// What the area's routes are given besides the shared context (filled by its module).
struct KybOptions : ApiContext {
  // The company verifier (null: verify answers `verifying` and the run waits for a server that
  // runs one) and the screening lists in force (null: screenings see no list).
  pipeline::kyb::CompanyVerifier* kyb_verifier = nullptr;
  pipeline::kyb::ListRegistry* aml_lists = nullptr;
  std::chrono::milliseconds kyb_verify_wait{10000};
  // Destroys a forgotten member's or owner's key (woken by the forget; null: the next run of a
  // node that has one).
  pipeline::kyb::SubjectShredder* kyb_shredder = nullptr;
};

std::vector<ApiRoute> CompanyRoutes(Runtime* r, const KybOptions& options);
std::vector<ApiRoute> ScreeningRoutes(Runtime* r, const KybOptions& options);
// Members' and owners' erasure and its certificates (erasure_api.cc).
std::vector<ApiRoute> ErasureRoutes(Runtime* r, const KybOptions& options);
std::vector<ApiRoute> KybRoutes(Runtime* rt, const KybOptions& options);
OpenApiArea KybOpenApi();

// Shared by the two files of the area.
std::string TeOf(const AuthContext& a);
pipeline::kyb::KybKeys KeysOf(Runtime& rt);
// A hit row as served (ScreeningHitResponse): review notes opened.
core::Json RenderHit(Runtime& rt, const core::Json& row);
// The company of the path in the caller's tenant and environment, or nullopt once answered (400
// INVALID_ID, 404 COMPANY_NOT_FOUND).
std::optional<core::Json> PathCompany(Runtime& rt, ApiCall& call, const Respond& respond);

// For an operation that takes no body (verify, a portfolio run): true when the body is absent or
// `{}`; else answers (400 for malformed JSON, 422 unknown_field naming the first member) and false.
bool NoBody(ApiCall& call, const Respond& respond, const std::string& operation);

}  // namespace svc::api::kyb

namespace svc::api::cli {
// `svc aml` (cli.cc): the module's command.
int Aml(const std::vector<const Module*>& modules, int argc, char** argv);
}  // namespace svc::api::cli
