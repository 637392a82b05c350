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

namespace svc::api::kyb {

std::vector<ApiRoute> CompanyRoutes(Runtime* rt, const PublicApiOptions& options);
std::vector<ApiRoute> ScreeningRoutes(Runtime* rt, const PublicApiOptions& options);
std::vector<ApiRoute> KybRoutes(Runtime* rt, const PublicApiOptions& options);
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
