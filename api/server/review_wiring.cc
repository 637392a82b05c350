// Wiring of the review area: the process manager that carries a final resolution to its session
// should the resolve route stop in between (pipeline/review/outcome_writer.h), its operator route,
// and a test-only fault.

#include <signal.h>

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
}

class ReviewServices final : public AreaServices {
 public:
  core::Status Start(ServeSetup& s) {
    s.routes.fault_kill_after_case_resolved = s.flags.GetBool("fault-kill-after-case-resolved");
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
