// The KYB area as a module (api/http/module.h): the company, list, screening and hit aggregates
// and the KYB read model, its routes, the company registry (sandbox), the screening lists in force, the
// company verifier, and the operator's list loads (`svc aml load`, here in-process or through the
// admin socket).

#include <filesystem>
#include <fstream>
#include <sstream>

#include "api/http/admin_route.h"
#include "api/http/flag_file.h"
#include "api/http/module.h"
#include "api/http/write_path.h"
#include "api/kyb/routes.h"
#include "commands/kyb/company_decider.h"
#include "commands/kyb/screening.h"
#include "pipeline/adapters/company_registry_http.h"
#include "pipeline/kyb/subject_shredder.h"
#include "pipeline/kyb/company_registry.h"
#include "pipeline/kyb/company_verifier.h"
#include "pipeline/kyb/list_loaders.h"
#include "pipeline/kyb/list_registry.h"
#include "projections/kyb/kyb_projector.h"
#include "projections/kyb/kyb_view.h"

namespace svc::api {

namespace kc = commands::kyb;
namespace pk = pipeline::kyb;
using KV = projections::KybView;

std::string DefaultListSource(const std::string& format) {
  if (format == "ofac_sdn_csv") return "ofac_sdn";
  if (format == "un_consolidated_xml") return "un_consolidated";
  if (format == "opensanctions_csv") return "opensanctions";
  if (format == "ftm_json") return "opensanctions_ftm";
  if (format == "sat_69b_csv") return "sat_69b";
  if (format == "sat_69_csv") return "sat_69";
  return format;
}

core::Result<core::Json> AdminAmlLoad(Runtime& rt, const std::string& format, const std::string& source_in,
                                      const std::vector<std::string>& paths, const eventstore::Actor& actor) {
  const std::string source = source_in.empty() ? DefaultListSource(format) : source_in;
  if (source.empty() || source.size() > 64 ||
      source.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_-") != std::string::npos) {
    return core::InvalidArgument("the list's source name is 1-64 of a-z, 0-9, _ and -");
  }
  if (paths.empty() || paths.size() > 2) return core::InvalidArgument("give the list's file (two for ofac_sdn_csv: SDN.CSV ALT.CSV)");
  std::vector<std::string> files;
  for (const auto& p : paths) {
    SVC_ASSIGN_OR_RETURN(std::string text, ReadFlagFile("", p));
    files.push_back(std::move(text));
  }
  SVC_ASSIGN_OR_RETURN(pk::LoadedList list, pk::LoadList(format, files));
  kc::ListLoaded loaded;
  loaded.source = source;
  loaded.format = format;
  loaded.content_hash = list.content_hash;
  for (const auto& f : files) {
    SVC_ASSIGN_OR_RETURN(std::string address, rt.blobs().Put(f));
    loaded.blobs.push_back(address);
  }
  loaded.entries = static_cast<int64_t>(list.entries.size());
  for (const auto& e : list.entries) {
    if (e.kind == "person") ++loaded.persons;
    if (e.kind == "company") ++loaded.companies;
  }
  SVC_ASSIGN_OR_RETURN(auto outcome, AdminRun<kc::AmlListDecider>(rt, std::string(kc::kServiceTenant), source,
                                                                   kc::AmlListCommand(kc::LoadList{loaded}), actor));
  return core::Json{{"source", source},
                    {"format", format},
                    {"contentHash", list.content_hash},
                    {"entries", loaded.entries},
                    {"persons", loaded.persons},
                    {"companies", loaded.companies},
                    {"skipped", list.skipped},
                    {"version", outcome.result.value("version", int64_t{0})},
                    {"unchanged", outcome.result.value("unchanged", false)}};
}

core::Result<core::Json> AdminAmlLists(Runtime& rt) {
  SVC_ASSIGN_OR_RETURN(auto rows, ScanView(rt, KV::Abs(KV::ListsPrefix())));
  core::Json lists = core::Json::array();
  for (auto& r : rows) {
    r.erase("blobs");
    lists.push_back(r);
  }
  return core::Json{{"lists", lists}};
}

namespace {

void DeclareFlags(Flags& f) {
  f.Declare({"kyb-registry-url", "",
             "base URL of the company registry gateway (docs/kyb.md#registry); empty: the sandbox registry, with "
             "its deterministic test companies"});
  f.Declare({"kyb-registry-token", "", "bearer token for the company registry gateway (prefer SVC_KYB_REGISTRY_TOKEN)"});
  f.Declare({"kyb-registry-ca-file", "", "an extra CA certificate (PEM) trusted for an https company registry gateway"});
  f.Declare({"ubo-threshold-pct", "15",
             "beneficial owners: the effective ownership from which a person is one (CFF art. 32-B Quater: 15; the "
             "banking rules: 25)"});
  f.Declare({"kyb-verify-wait-ms", "10000",
             "how long POST /v1/companies/{id}/verify waits for the run to end before it answers `verifying`"});
}

class KybServices final : public AreaServices {
 public:
  core::Status Start(ServeSetup& s) override {
    rt_ = &s.rt;
    double threshold = 0;
    int64_t wait_ms = 0;
    try {
      threshold = std::stod(s.flags.Get("ubo-threshold-pct"));
      wait_ms = std::stoll(s.flags.Get("kyb-verify-wait-ms"));
    } catch (const std::exception&) {
      return core::InvalidArgument("--ubo-threshold-pct and --kyb-verify-wait-ms are numbers");
    }
    if (!(threshold > 0 && threshold <= 100)) return core::InvalidArgument("--ubo-threshold-pct is in (0, 100]");
    if (wait_ms < 0 || wait_ms > 120000) return core::InvalidArgument("--kyb-verify-wait-ms is 0..120000");
    lists_ = std::make_unique<pk::ListRegistry>(&s.rt.store(), &s.rt.blobs());
    SVC_RETURN_IF_ERROR(lists_->Refresh());
    // A version loaded through another node of a cluster is in force here within the time this
    // node's read model takes to apply its event.
    lists_->Follow(s.rt.projector<projections::KybProjector>());
    if (std::string url = s.flags.Get("kyb-registry-url"); !url.empty()) {
      SVC_ASSIGN_OR_RETURN(registry_, pipeline::adapters::HttpCompanyRegistry::Create(
                                          url, s.flags.Get("kyb-registry-token"), std::chrono::milliseconds(5000), s.flags.Get("kyb-registry-ca-file")));
    } else {
      registry_ = std::make_unique<pk::SandboxCompanyRegistry>();
    }
    pk::CompanyVerifier::Options o;
    LendRuntime(s.rt, o);
    o.projector = s.rt.projector<projections::KybProjector>();
    o.registry = registry_.get();
    o.lists = lists_.get();
    o.keys = pk::KybKeys::From(s.rt.seal_key(), &s.rt.key_store());
    o.ubo_threshold_pct = threshold;
    verifier_ = std::make_unique<pk::CompanyVerifier>(o);
    if (s.Runs(Role::kPipeline, "company-verification")) verifier_->Start();
    pk::SubjectShredder::Options so;
    LendRuntime(s.rt, so);
    so.keys = &s.rt.key_store();
    shredder_ = std::make_unique<pk::SubjectShredder>(so);
    // Woken by each forget; the timer finishes one a crash interrupted (under a fake clock the
    // tests run it: POST /admin/kyb/shred).
    if (s.Runs(Role::kTimers, "kyb-shred") && s.fake_clock == nullptr) shredder_->Start();
    options_.kyb_shredder = shredder_.get();
    options_.kyb_verifier = verifier_.get();
    options_.aml_lists = lists_.get();
    options_.kyb_verify_wait = std::chrono::milliseconds(wait_ms);
    return core::Status::Ok();
  }

  void AddAdminRoutes(Router& admin, const std::string& sk) override {
    Runtime* rt = rt_;
    pk::ListRegistry* lists = lists_.get();
    pk::CompanyVerifier* v = verifier_.get();
    admin.Add("POST", "/admin/aml/lists", AdminRoute(sk, [rt, lists](HttpRequest& req) -> core::Result<core::Json> {
      SVC_ASSIGN_OR_RETURN(core::Json b, AdminBody(req));
      std::vector<std::string> files;
      for (const auto& f : b.value("files", core::Json::array())) {
        if (f.is_string()) files.push_back(f.get<std::string>());
      }
      SVC_ASSIGN_OR_RETURN(core::Json r, AdminAmlLoad(*rt, core::StringOr(b, "format"), core::StringOr(b, "source"), files,
                                                      {"admin_socket", "service_key"}));
      // The answer comes once the new version screens.
      SVC_RETURN_IF_ERROR(lists->Refresh());
      return r;
    }));
    admin.Add("GET", "/admin/aml/lists", AdminRoute(sk, [rt](HttpRequest&) { return AdminAmlLists(*rt); }));
    pk::SubjectShredder* shred = shredder_.get();
    // Operators and tests: destroy the keys of the members and owners forgotten, now.
    admin.Add("POST", "/admin/kyb/shred",
              AdminRoute(sk, [shred](HttpRequest&) -> core::Result<core::Json> { return shred->RunOnce(); }));
    // Tests and tools: wait until every company run in progress has ended.
    admin.Add("POST", "/admin/kyb/wait-idle", AdminRoute(sk, [v](HttpRequest&) -> core::Result<core::Json> {
      if (!v->WaitIdle(std::chrono::seconds(60))) return core::Unavailable("company verifications still run");
      return core::Json{{"idle", true}};
    }));
  }

  std::vector<ApiRoute> Routes(Runtime* rt, const ApiContext& api) override {
    return kyb::KybRoutes(rt, WithContext(options_, api));
  }

  void Stop() override {
    if (shredder_) shredder_->Stop();
    if (verifier_) verifier_->Stop();
    if (lists_) lists_->Stop();
  }

 private:
  kyb::KybOptions options_;
  Runtime* rt_ = nullptr;
  std::unique_ptr<pk::ListRegistry> lists_;
  std::unique_ptr<pk::CompanyRegistry> registry_;
  std::unique_ptr<pk::CompanyVerifier> verifier_;
  std::unique_ptr<pk::SubjectShredder> shredder_;
};

}  // namespace

extern const std::string_view kKyb_operations_md;  // operations.md, compiled in (api/CMakeLists.txt)

const Module& kyb::KybModule() {
  static const Module m{.name = "kyb",
                        .deciders = &RegisterDeciders<kc::CompanyDecider, kc::AmlListDecider, kc::ScreeningDecider,
                                                      kc::HitDecider>,
                        .projectors = &AddProjectors<projections::KybProjector>,
                        .openapi = &kyb::KybOpenApi,
                        .operations = &kKyb_operations_md,
                        .declare_flags = &DeclareFlags,
                        .services = &MakeServices<KybServices>,
                        .verbs = {{"aml",
                                   "  aml check FILE [FILE]     --format F: read a sanctions or PEP list file in its published\n"
                                   "                            format; print its entries' count and content hash\n"
                                   "  aml screen FILE [FILE]    --format F --name NAME [--kind, --birth-date, --nationality,\n"
                                   "                            --id-number]: screen one name against a list file\n",
                                   &cli::Aml}}};
  return m;
}

}  // namespace svc::api
