// Wiring of the review area: the process manager that carries a final resolution to its session
// (pipeline/review/outcome_writer.h), its operator route, and a test-only pause.

#include "api/http/sse_hub.h"
#include "api/server/admin.h"
#include "api/server/wiring.h"
#include "pipeline/review/outcome_writer.h"

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
  core::Status Start(ServeSetup& s) {
    try {
      const int64_t minutes = std::stoll(s.flags.Get("reviewer-token-ttl-minutes"));
      if (minutes < 1 || minutes > 24 * 60) throw std::out_of_range("ttl");
      s.routes.reviewer_token_ttl_seconds = minutes * 60;
    } catch (const std::exception&) {
      return core::InvalidArgument("--reviewer-token-ttl-minutes is 1..1440");
    }
    // The console's live queue: the progress streams' hub, woken by the review read model too.
    if (s.routes.sse_hub != nullptr) s.routes.sse_hub->Hold(s.rt.review_projector().AddListener(s.routes.sse_hub->Waker()));
    pipeline::review::OutcomeWriter::Options o;
    LendRuntime(s.rt, o);
    o.projector = &s.rt.review_projector();
    o.paused = s.flags.GetBool("debug-review-outcomes-paused");
    writer_ = std::make_unique<pipeline::review::OutcomeWriter>(o);
    writer_->Start();
    s.routes.review_outcomes = writer_.get();
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

  void Stop() override {
    if (writer_) writer_->Stop();
  }

 private:
  std::unique_ptr<pipeline::review::OutcomeWriter> writer_;
};

}  // namespace

AreaWiring ReviewWiring() { return {"review", &DeclareFlags, &StartArea<ReviewServices>}; }

}  // namespace svc::api
