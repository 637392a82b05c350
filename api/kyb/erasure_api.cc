// The erasure of a company member's or owner's personal data (docs/kyb.md#erasure):
//   POST /v1/companies/{company_id}/members/{member_id}/forget   {reason?, arcoRequestId?}
//   POST /v1/companies/{company_id}/ubo/{node_id}/forget
//   GET  …/members/{member_id}/deletion-certificate, …/ubo/{node_id}/deletion-certificate
// A forget drops the name from the read models at once and wakes the subject shredder, which
// destroys the subject's data key; the certificate, signed as a person's deletion certificate is,
// exists once the key is gone.

#include "api/http/json_input.h"
#include "api/http/problem.h"
#include "api/http/write_path.h"
#include "api/kyb/routes.h"
#include "commands/audit/timestamps.h"
#include "core/ids.h"
#include "pipeline/audit/timestamper.h"
#include "pipeline/kyb/company_writes.h"
#include "pipeline/kyb/subject_shredder.h"
#include "projections/kyb/kyb_view.h"

namespace svc::api::kyb {

namespace pk = pipeline::kyb;
using KV = projections::KybView;

namespace {

struct Subject {
  const char* type;      // member | ubo_node
  const char* param;     // the path parameter
  core::IdKind kind;
  const char* segment;   // the path segment: members | ubo
};
constexpr Subject kMember{"member", "member_id", core::IdKind::kCompanyMember, "members"};
constexpr Subject kNode{"ubo_node", "node_id", core::IdKind::kUboNode, "ubo"};

// The body {reason?, arcoRequestId?}, or nullopt once answered.
std::optional<pk::SubjectErasure> ParseErasure(const HttpRequest& req, const Respond& respond) {
  pk::SubjectErasure e;
  if (req.body.empty()) return e;
  auto body = ParseJsonObject(req.body);
  if (!body.ok()) {
    respond(StatusToProblem(req, body.status()));
    return std::nullopt;
  }
  Validator v(*body);
  e.reason = v.String("reason", false, 2000).value_or("");
  e.arco_request_id = v.OpaqueId("arcoRequestId", "arc").value_or("");
  v.RejectUnknown();
  if (!v.ok()) {
    respond(ValidationProblem(req, v.errors()));
    return std::nullopt;
  }
  return e;
}

void Forget(Runtime& rt, const KybOptions& o, const Subject& s, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  const std::string company = req.path_params["company_id"], subject = req.path_params[s.param];
  if (auto st = core::ValidateId(core::IdKind::kCompany, company); !st.ok()) return respond(StatusToProblem(req, st));
  if (auto st = core::ValidateId(s.kind, subject); !st.ok()) return respond(StatusToProblem(req, st));
  auto e = ParseErasure(req, respond);
  if (!e) return;
  e->tenant = call.auth.tenant_id, e->environment = call.auth.environment, e->company = company;
  e->subject_type = s.type, e->subject_id = subject;
  auto cmd = pk::ForgetSubjectCommand(rt.store(), *e, Context(rt, call));
  if (!cmd.ok()) return respond(StatusToProblem(req, cmd.status()));
  auto* shredder = o.kyb_shredder;
  RunThenRender(rt, req, std::move(*cmd), {KV::kName},
                [shredder, company, subject, type = std::string(s.type)](const commands::CommandOutcome& out) {
                  if (shredder != nullptr) shredder->Wake();
                  return JsonResponse(200, {{"object", "kyb.forget"},
                                            {"companyId", company},
                                            {"subjectType", type},
                                            {"subjectId", subject},
                                            {"keysDestroyed", core::BoolOr(out.result, "keysDestroyed")}});
                },
                std::move(respond));
}

void Certificate(Runtime& rt, const KybOptions& o, const Subject& s, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  auto row = PathCompany(rt, call, respond);
  if (!row) return;
  const std::string subject = req.path_params[s.param];
  if (auto st = core::ValidateId(s.kind, subject); !st.ok()) return respond(StatusToProblem(req, st));
  const std::string te = TeOf(call.auth);
  auto content = ReadView(rt, KV::Abs(KV::Deletion(te, subject)));
  if (!content.ok()) return respond(StatusToProblem(req, content.status()));
  if (!content->has_value() || core::StringOr(**content, "companyId") != core::StringOr(*row, "id")) {
    return respond(Problem(req, "DELETION_NOT_COMPLETE", "this subject's data is not erased (yet): no certificate"));
  }
  auto signed_doc = pipeline::audit::SignEvidence(rt.store(), te, commands::audit::kDeletionCertificate, subject,
                                                 std::move(**content), rt.certificate_root_key(), o.evidence_timestamps);
  if (!signed_doc.ok()) return respond(StatusToProblem(req, signed_doc.status()));
  HttpResponse r;
  r.status = 200;
  r.body = std::move(*signed_doc);
  respond(std::move(r));
}

}  // namespace

std::vector<ApiRoute> ErasureRoutes(Runtime* r, const KybOptions& options) {
  std::vector<ApiRoute> routes;
  const KybOptions* o = &options;
  const std::string one = "/v1/companies/{company_id}";
  const std::string tag = "Companies (KYB)";
  for (const Subject* s : {&kMember, &kNode}) {
    const bool member = s == &kMember;
    const std::string path = one + "/" + s->segment + "/{" + s->param + "}";
    const char* missing = member ? "COMPANY_MEMBER_NOT_FOUND" : "UBO_NODE_NOT_FOUND";
    routes.push_back(ApiRoute{
        .method = "POST", .path = path + "/forget",
        .operation_id = member ? "forgetCompanyMember" : "forgetCompanyUboNode", .tag = tag,
        .scope = "kyb:write", .family = RateFamily::kWrite, .has_body = true, .request_schema = "KybForgetRequest",
        .body_optional = true, .response_schema = "KybForgetResponse",
        .error_codes = Codes({{"INVALID_ID", "COMPANY_NOT_FOUND", missing, "VALIDATION_ERROR", "BAD_REQUEST", "CONFLICT",
                               "ARCO_REQUEST_NOT_FOUND", "ARCO_INVALID_TRANSITION"}}),
        .handler = [r, o, s](ApiCall& c, Respond respond) { Forget(*r, *o, *s, c, std::move(respond)); }});
    routes.push_back(ApiRoute{
        .method = "GET", .path = path + "/deletion-certificate",
        .operation_id = member ? "getCompanyMemberDeletionCertificate" : "getCompanyUboNodeDeletionCertificate",
        .tag = tag, .scope = "kyb:read", .response_schema = "KybDeletionCertificate",
        .error_codes = Codes({{"INVALID_ID", "COMPANY_NOT_FOUND", "DELETION_NOT_COMPLETE"}}),
        .handler = [r, o, s](ApiCall& c, Respond respond) { Certificate(*r, *o, *s, c, std::move(respond)); }});
  }
  return routes;
}

}  // namespace svc::api::kyb
