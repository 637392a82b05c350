// Wiring of the persons area (the vault): the daily reveal budget, the per-key reveal rate, and
// the process manager that writes approved verifications' data into persons
// (pipeline/persons/verified_data.h), with its operator route.

#include "api/server/admin.h"
#include "api/server/wiring.h"
#include "pipeline/persons/verified_data.h"

namespace svc::api {
namespace {

void DeclareFlags(Flags& f) {
  f.Declare({"reveal-budget-per-day", "10000",
             "persons whose plaintext may be revealed per tenant, environment and UTC day (decrypt, batch "
             "decrypt, expand, client tokens, integrity, export, reauth); beyond it 429 PII_DECRYPT_CAP_REACHED"});
  f.Declare({"rate-reveals", "5", "reveal requests per second per API key (burst: twice that); 0 = off"});
}

class PersonsServices final : public AreaServices {
 public:
  core::Status Start(ServeSetup& s) {
    PublicApiOptions& po = s.routes;
    try {
      long long budget = std::stoll(s.flags.Get("reveal-budget-per-day"));
      double rate = std::stod(s.flags.Get("rate-reveals"));
      if (budget < 0 || rate < 0) throw std::invalid_argument("negative");
      po.reveal_budget_per_day = budget;
      po.limits.reveals.per_second = rate;
      po.limits.reveals.burst = rate * 2;
    } catch (...) {
      return core::InvalidArgument("bad --reveal-budget-per-day or --rate-reveals (non-negative numbers)");
    }
    pipeline::persons::VerifiedDataWriter::Options vo;
    LendRuntime(s.rt, vo);
    vo.keys = &s.rt.key_store();
    vo.projector = &s.rt.persons_projector();
    verified_ = std::make_unique<pipeline::persons::VerifiedDataWriter>(vo);
    verified_->Start();
    return core::Status::Ok();
  }

  void AddAdminRoutes(Router& admin, const std::string& sk) override {
    auto* v = verified_.get();
    // Tests and tools: wait until every approved verification's data is in the vault.
    admin.Add("POST", "/admin/persons/wait-idle", AdminRoute(sk, [v](HttpRequest&) -> core::Result<core::Json> {
      if (!v->WaitIdle(std::chrono::seconds(60))) return core::Unavailable("verified data is still being written");
      return core::Json{{"idle", true}};
    }));
  }

  void Stop() override { verified_->Stop(); }

 private:
  std::unique_ptr<pipeline::persons::VerifiedDataWriter> verified_;
};

}  // namespace

AreaWiring PersonsWiring() { return {"persons", &DeclareFlags, &StartArea<PersonsServices>}; }

}  // namespace svc::api
