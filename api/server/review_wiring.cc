// Wiring of the review area: the process manager that carries a final resolution to its session
// should the resolve route stop in between (pipeline/review/outcome_writer.h), its operator route,
// and a test-only fault.

#include <signal.h>

#include "api/http/sse_hub.h"
#include "api/server/admin.h"
#include "api/server/wiring.h"
#include "pipeline/review/outcome_writer.h"

namespace svc::api {
namespace {

void DeclareFlags(Flags& f) {
  f.Declare({"fault-kill-after-case-resolved", "false",
             "TESTS ONLY: the process kills itself (SIGKILL) right after a review case's final resolution is "
             "durable, before its session moves",
             true});
  f.Declare({"reviewer-token-ttl-minutes", "60",
             "how long a review console sign-in lasts (the reviewer token's expiry; sign in again after)"});
}

class ReviewServices final : public AreaServices {
 public:
  core::Status Start(ServeSetup& s) {
    s.routes.fault_kill_after_case_resolved = s.flags.GetBool("fault-kill-after-case-resolved");
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
    writer_ = std::make_unique<pipeline::review::OutcomeWriter>(o);
    writer_->Start();
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
