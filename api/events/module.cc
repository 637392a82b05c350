// The events area as a module (api/http/module.h): the public topics' flags and publisher
// (pipeline/events/publisher.h), which copies the committed history, in its public form, to one
// Kafka topic per area and environment (docs/events.md).

#include "api/events/routes.h"
#include "api/http/admin_route.h"
#include "api/http/module.h"
#include "pipeline/events/publisher.h"

namespace svc::api {
namespace {

void DeclareFlags(Flags& f) {
  f.Declare({"public-topics", "false",
             "publish the committed history to the public event topics <prefix>.<live|test>.<area> (docs/events.md); "
             "one node of a deployment publishes (a second one's transactional id fences the first)",
             true});
  f.Declare({"public-topics-brokers", "",
             "the Kafka cluster of the public topics (default: --kafka-brokers); on the embedded log, where the "
             "node publishes"});
  f.Declare({"public-topics-partitions", "4", "partitions of each public topic the publisher creates"});
}

class EventsServices final : public AreaServices {
 public:
  core::Status Start(ServeSetup& s) override {
    if (!s.flags.GetBool("public-topics")) return core::Status::Ok();
    pipeline::events::PublicTopicsPublisher::Options o;
    o.log = &s.rt.log();
    o.keys = &s.rt.key_store();
    o.views = &s.rt.store();
    o.projections = &s.rt.projections();
    o.metrics = &s.rt.metrics();
    o.public_base_url = s.api.public_base_url;
    o.sink.brokers = s.flags.Get("public-topics-brokers");
    if (o.sink.brokers.empty()) o.sink.brokers = s.flags.Get("kafka-brokers");
    if (o.sink.brokers.empty()) {
      return core::InvalidArgument("--public-topics needs --public-topics-brokers (or --kafka-brokers)");
    }
    o.sink.topic_prefix = s.flags.Get("kafka-topic-prefix");
    try {
      const long long n = std::stoll(s.flags.Get("public-topics-partitions"));
      if (n < 1 || n > 1000) throw std::out_of_range("partitions");
      o.sink.partitions = static_cast<uint32_t>(n);
    } catch (...) {
      return core::InvalidArgument("--public-topics-partitions must be 1-1000");
    }
    if (!s.Runs(Role::kPipeline, "public-topics")) return core::Status::Ok();
    publisher_ = std::make_unique<pipeline::events::PublicTopicsPublisher>(std::move(o));
    publisher_->Start();
    return core::Status::Ok();
  }

  void AddAdminRoutes(Router& admin, const std::string& sk) override {
    if (publisher_ == nullptr) return;
    auto* p = publisher_.get();
    admin.Add("POST", "/admin/public-topics/wait-caught-up",
              AdminRoute(sk, [p](HttpRequest&) -> core::Result<core::Json> {
                if (!p->WaitCaughtUp(std::chrono::seconds(60))) {
                  return core::Unavailable("the public topics are behind the log (see the publisher's warnings)");
                }
                return core::Json{{"caughtUp", true}};
              }));
  }

  void Stop() override {
    if (publisher_) publisher_->Stop();
  }

 private:
  std::unique_ptr<pipeline::events::PublicTopicsPublisher> publisher_;
};

}  // namespace

const Module& events::EventsModule() {
  static const Module m{.name = "events", .declare_flags = &DeclareFlags, .services = &MakeServices<EventsServices>};
  return m;
}

}  // namespace svc::api
