// The review area as a module (api/http/module.h): the case aggregate and the review read model,
// its routes and the console, the process manager that carries a final resolution to its session
// (pipeline/review/outcome_writer.h), its operator route, and a test-only pause.

#include "api/http/admin_route.h"
#include "api/http/module.h"
#include "api/http/sse_hub.h"
#include "api/review/console.h"
#include "api/review/routes.h"
#include "commands/review/case_decider.h"
#include "pipeline/review/outcome_writer.h"
#include "projections/review/review_projector.h"

namespace svc::api {
namespace {

void DeclareFlags(Flags& f) {
  f.Declare({"debug-review-outcomes-paused", "false",
             "TESTS ONLY: final review resolutions are recorded but their sessions are not moved (a crash "
             "between the two, arranged)",
             true});
  f.Declare({"reviewer-token-ttl-minutes", "60",
             "how long a review console sign-in lasts (the reviewer token's expiry; sign in again after)"});
}

class ReviewServices final : public AreaServices {
 public:
  core::Status Start(ServeSetup& s) override {
    try {
      const int64_t minutes = std::stoll(s.flags.Get("reviewer-token-ttl-minutes"));
      if (minutes < 1 || minutes > 24 * 60) throw std::out_of_range("ttl");
      options_.reviewer_token_ttl_seconds = minutes * 60;
    } catch (const std::exception&) {
      return core::InvalidArgument("--reviewer-token-ttl-minutes is 1..1440");
    }
    // The console's live queue: the progress streams' hub, woken by the review read model too.
    auto* projector = s.rt.projector<projections::ReviewProjector>();
    if (s.api.sse_hub != nullptr) s.api.sse_hub->Hold(projector->AddListener(s.api.sse_hub->Waker()));
    pipeline::review::OutcomeWriter::Options o;
    LendRuntime(s.rt, o);
    o.projector = projector;
    o.paused = s.flags.GetBool("debug-review-outcomes-paused");
    writer_ = std::make_unique<pipeline::review::OutcomeWriter>(o);
    if (s.Runs(Role::kPipeline, "review-outcomes")) writer_->Start();
    options_.review_outcomes = writer_.get();
    return core::Status::Ok();
  }

  void AddAdminRoutes(Router& admin, const std::string& sk) override {
    auto* w = writer_.get();
    // Tests and tools: wait until every final resolution has reached its session.
    admin.Add("POST", "/admin/review/wait-idle", AdminRoute(sk, [w](HttpRequest&) -> core::Result<core::Json> {
      if (!w->WaitIdle(std::chrono::seconds(60))) return core::Unavailable("review outcomes are still being recorded");
      return core::Json{{"idle", true}};
    }));
  }

  std::vector<ApiRoute> Routes(Runtime* rt, const ApiContext& api) override {
    return review::ReviewRoutes(rt, WithContext(options_, api));
  }

  void AddPages(Router& router, Runtime& rt, const ApiContext& api) override {
    review::AddConsoleRoutes(router, rt, {options_.reviewer_token_ttl_seconds, api.sse_hub, api.credential_guard});
  }

  void Stop() override {
    if (writer_) writer_->Stop();
  }

 private:
  review::ReviewOptions options_;
  std::unique_ptr<pipeline::review::OutcomeWriter> writer_;
};

}  // namespace

extern const std::string_view kReview_operations_md;  // operations.md, compiled in (api/CMakeLists.txt)

const Module& review::ReviewModule() {
  static const Module m{.name = "review",
                        .deciders = &RegisterDeciders<commands::review::CaseDecider>,
                        .projectors = &AddProjectors<projections::ReviewProjector>,
                        .openapi = &review::ReviewOpenApi,
                        .operations = &kReview_operations_md,
                        .declare_flags = &DeclareFlags,
                        .services = &MakeServices<ReviewServices>};
  return m;
}

}  // namespace svc::api
