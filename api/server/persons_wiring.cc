// Wiring of the persons area (the vault): the daily reveal budget and the per-key reveal rate.

#include "api/server/wiring.h"

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
    return core::Status::Ok();
  }
  void Stop() override {}
};

}  // namespace

AreaWiring PersonsWiring() { return {"persons", &DeclareFlags, &StartArea<PersonsServices>}; }

}  // namespace svc::api
