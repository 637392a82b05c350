// svc admin flow … and svc admin app list|archive|settings (docs/embedded.md#operators): each
// command is one request of the admin routes (api/embedded/admin.cc), sent to a running server's
// admin socket, or, when no server holds the data directory, dispatched in-process to the same
// routes.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "api/http/http_client.h"
#include "api/embedded/routes.h"
#include "api/server/admin.h"
#include "api/server/cli.h"
#include "api/server/commands.h"
#include "core/crypto.h"
#include "core/log.h"

namespace svc::api::cli {

namespace {

const char* const kUsage =
    "svc admin flow create   --tenant T --key KEY --name NAME --definition-file FILE\n"
    "svc admin flow draft    --tenant T --flow flw_... --definition-file FILE\n"
    "svc admin flow validate --tenant T --flow flw_...   the draft's issues, without publishing\n"
    "svc admin flow publish  --tenant T --flow flw_...   the draft as the next version\n"
    "svc admin flow archive  --tenant T --flow flw_...\n"
    "svc admin flow list     --tenant T\n"
    "svc admin flow show     --tenant T --flow flw_...   with every published version\n"
    "svc admin app list      --tenant T\n"
    "svc admin app archive   --tenant T --application app_...\n"
    "svc admin app settings  --tenant T --application app_... [--allowed-flows flw_a,flw_b]\n"
    "                        [--default-flow flw_a] [--allowed-origins https://shop.example,...]\n"
    "                        [--privacy-notice-url https://shop.example/aviso-de-privacidad]\n";

core::Result<std::string> ReadFile(const std::string& path) {
  if (path.empty()) return core::InvalidArgument("--definition-file is required");
  std::ifstream in(path, std::ios::binary);
  if (!in) return core::InvalidArgument("cannot read " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

int AdminEmbedded(int argc, char** argv) {
  const std::string noun = argv[2], verb = argv[3];
  Flags f;
  DeclareCommon(f);
  DeclareAdminSocket(f);
  f.Declare({"tenant", "", "tenant id (ten_...)"});
  f.Declare({"flow", "", "flow id (flw_...)"});
  f.Declare({"key", "", "flow create: the flow's key (a-z, 0-9, _ and -)"});
  f.Declare({"name", "", "flow create: the flow's name"});
  f.Declare({"definition-file", "", "flow create|draft: the definition (JSON: steps, checks, policy)"});
  f.Declare({"application", "", "app archive|settings: the application id (app_...)"});
  f.Declare({"allowed-flows", "", "app settings: comma-separated flow ids (empty: any published flow)"});
  f.Declare({"default-flow", "", "app settings: the flow a session without one gets"});
  f.Declare({"allowed-origins", "", "app settings: comma-separated origins the widget may be mounted on"});
  f.Declare({"privacy-notice-url", "", "app settings: the integrator's privacy notice (aviso de privacidad), "
                                       "linked from the consent; required for live embedded and link sessions"});
  if (auto st = f.Parse(argc, argv, 4); !st.ok()) return Fail(st);
  if (f.HelpRequested()) {
    std::cout << kUsage << "\n" << f.Help("svc admin " + noun + " " + verb + " [flags]");
    return 0;
  }
  core::SetLogLevel(core::LogLevel::kWarn);
  const std::string t = "/admin/tenants/" + f.Get("tenant");
  std::string method = "POST", path;
  core::Json body = core::Json::object();
  auto definition = [&]() -> core::Result<core::Json> {
    SVC_ASSIGN_OR_RETURN(std::string text, ReadFile(f.Get("definition-file")));
    core::Json d = core::ParseJsonOrDiscarded(text);
    if (!d.is_object()) return core::InvalidArgument(f.Get("definition-file") + " does not hold a JSON object");
    return d;
  };
  const std::string key = noun + " " + verb;
  if (key == "flow create") {
    path = t + "/flows";
    auto d = definition();
    if (!d.ok()) return Fail(d.status());
    body = {{"key", f.Get("key")}, {"name", f.Get("name")}, {"definition", *d}};
  } else if (key == "flow draft") {
    path = t + "/flows/" + f.Get("flow") + "/draft";
    auto d = definition();
    if (!d.ok()) return Fail(d.status());
    body = {{"definition", *d}};
  } else if (key == "flow validate" || key == "flow publish" || key == "flow archive") {
    path = t + "/flows/" + f.Get("flow") + "/" + verb;
  } else if (key == "flow list") {
    method = "GET";
    path = t + "/flows";
  } else if (key == "flow show") {
    method = "GET";
    path = t + "/flows/" + f.Get("flow");
  } else if (key == "app list") {
    method = "GET";
    path = t + "/applications";
  } else if (key == "app archive") {
    path = t + "/applications/" + f.Get("application") + "/archive";
  } else if (key == "app settings") {
    path = t + "/applications/" + f.Get("application") + "/settings";
    auto list = [&](const char* flag) {
      core::Json a = core::Json::array();
      if (!f.Get(flag).empty()) {
        for (const auto& v : f.GetAll(flag)) a.push_back(v);
      }
      return a;
    };
    body = {{"allowedFlows", list("allowed-flows")},
            {"defaultFlow", f.Get("default-flow").empty() ? core::Json(nullptr) : core::Json(f.Get("default-flow"))},
            {"allowedOrigins", list("allowed-origins")},
            {"privacyNoticeUrl", f.Get("privacy-notice-url").empty() ? core::Json(nullptr) : core::Json(f.Get("privacy-notice-url"))}};
  } else {
    std::cerr << kUsage;
    return 2;
  }
  if (f.Get("tenant").empty()) return Fail(core::InvalidArgument("--tenant is required"));

  auto ro = RuntimeOptionsFrom(f);
  if (!ro.ok()) return Fail(ro.status());
  ro->keys.read_existing_dev_keys = true;
  HttpResponse resp;
  auto rt = Runtime::Open(*ro);
  if (rt.ok()) {
    // A stopped data directory: the same routes, in-process, with the projections running.
    (*rt)->StartProjections();
    const std::string local_key = core::Base64UrlEncode(core::RandomBytes(24));
    Router router;
    AddEmbeddedAdminRoutes(router, **rt, local_key);
    HttpRequest req;
    req.method = method;
    req.path = req.target = path;
    req.headers["authorization"] = "Bearer " + local_key;
    if (method == "POST") req.body = core::DumpJson(body);
    req.request_id = (*rt)->ids().NewIdString(core::IdKind::kRequest);
    router.Dispatch(req, [&resp](HttpResponse r) { resp = std::move(r); });
    if (auto st = (*rt)->CatchUpProjections(); !st.ok()) return Fail(st);
    (*rt)->Shutdown();
  } else {
    if (!HeldByServer(rt.status())) return Fail(rt.status());
    auto r = CallAdminSocket(f, *ro, method, path, core::DumpJson(body));
    if (!r.ok()) return Fail(r.status());
    resp = std::move(*r);
  }
  return PrintAdminAnswer(resp);
}

}  // namespace svc::api::cli
