// svc aml check | screen: the sanctions and PEP lists offline (docs/screening.md#lists). `check`
// reads list files in their published format and prints what was read and the content hash that
// versions them (a malformed file is refused with the place at fault); `screen` screens one name
// against them and prints the hits with everything needed to reproduce them.
#include <filesystem>
#include <iostream>
#include <map>

#include "api/http/http_client.h"
#include "api/kyb/routes.h"
#include "api/http/admin_route.h"
#include "core/log.h"

#include "api/http/cli.h"
#include "api/http/module.h"
#include "api/http/flags.h"
#include "pipeline/kyb/list_loaders.h"
#include "pipeline/kyb/screening_index.h"

namespace svc::api::cli {

namespace {

const char* const kUsage =
    "svc aml check FILE [FILE] --format F     read list files (F: ofac_sdn_csv [SDN.CSV ALT.CSV],\n"
    "                                         un_consolidated_xml, opensanctions_csv, ftm_json,\n"
    "                                         sat_69b_csv [Listado_Completo_69-B.csv], sat_69_csv\n"
    "                                         [Firmes.csv Exigibles.csv …]) and print their entries'\n"
    "                                         count and content hash\n"
    "svc aml screen FILE [FILE] --format F --name NAME [--kind person|company] [--birth-date D]\n"
    "               [--nationality N] [--id-number RFC_OR_CURP]\n"
    "                                         screen one name against the list; hits as JSON\n"
    "svc aml load FILE [FILE] --format F [--source NAME] [--data-dir D]\n"
    "                                         load a version of a list into the service (a running\n"
    "                                         server's admin socket, else the data directory)\n"
    "svc aml lists [--data-dir D]             the lists in force and their versions\n";

core::Json HitJson(const pipeline::kyb::ScreeningHit& h) {
  return {{"list", {{"format", h.list_format}, {"contentHash", h.list_hash}}},
          {"entry", {{"id", h.entry_id}, {"kind", h.entry_kind}, {"name", h.entry_name}}},
          {"matchedName", h.matched_name},
          {"score", h.score},
          {"nameScore", h.name_score},
          {"reasons", h.reasons},
          {"algorithm", h.algorithm}};
}

// load | lists: in-process when the data directory is free, else through the running server's
// admin socket (as `svc admin`).
int Load(const std::vector<const Module*>& modules, int argc, char** argv, const std::string& verb) {
  std::vector<std::string> paths;
  int i = 3;
  for (; i < argc && std::string(argv[i]).rfind("--", 0) != 0; ++i) paths.emplace_back(argv[i]);
  Flags f;
  DeclareCommon(f);
  DeclareAdminSocket(f);
  f.Declare({"format", "", "the list's format"});
  f.Declare({"source", "", "the list's name in the service (default from the format: ofac_sdn, un_consolidated, "
                           "opensanctions, opensanctions_ftm, sat_69b, sat_69)"});
  if (auto st = f.Parse(argc, argv, i); !st.ok()) return Fail(st);
  if (verb == "load" && (paths.empty() || f.Get("format").empty())) {
    std::cerr << "usage:\n" << kUsage;
    return 2;
  }
  std::vector<std::string> absolute;
  for (const auto& p : paths) absolute.push_back(std::filesystem::absolute(p).string());
  core::SetLogLevel(core::LogLevel::kWarn);
  auto ro = RuntimeOptionsFrom(f, modules);
  if (!ro.ok()) return Fail(ro.status());
  ro->keys.read_existing_dev_keys = true;
  auto rt = Runtime::Open(*ro);
  if (rt.ok()) {
    return RunLocally(**rt, [&] {
      return verb == "load" ? AdminAmlLoad(**rt, f.Get("format"), f.Get("source"), absolute, {"admin_cli", "local"})
                            : AdminAmlLists(**rt);
    });
  }
  if (!HeldByServer(rt.status())) return Fail(rt.status());
  core::Json body = {{"format", f.Get("format")}, {"source", f.Get("source")}, {"files", absolute}};
  auto resp = verb == "load" ? CallAdminSocket(f, *ro, "POST", "/admin/aml/lists", core::DumpJson(body))
                             : CallAdminSocket(f, *ro, "GET", "/admin/aml/lists");
  if (!resp.ok()) return Fail(resp.status());
  return PrintAdminAnswer(*resp);
}

}  // namespace

int Aml(const std::vector<const Module*>& modules, int argc, char** argv) {
  const std::string verb = argc >= 3 ? argv[2] : "";
  if (verb == "load" || verb == "lists") return Load(modules, argc, argv, verb);
  if (verb != "check" && verb != "screen") {
    std::cerr << "usage:\n" << kUsage;
    return 2;
  }
  // The files come first, then the flags.
  std::vector<std::string> paths;
  int i = 3;
  for (; i < argc && std::string(argv[i]).rfind("--", 0) != 0; ++i) paths.emplace_back(argv[i]);
  Flags f;
  f.Declare({"format", "", "the list's format"});
  f.Declare({"name", "", "screen: the name to screen"});
  f.Declare({"kind", "", "screen: person or company (default: any)"});
  f.Declare({"birth-date", "", "screen: YYYY-MM-DD or YYYY"});
  f.Declare({"nationality", "", "screen: a country code"});
  f.Declare({"id-number", "", "screen: an RFC or CURP"});
  if (auto st = f.Parse(argc, argv, i); !st.ok()) return Fail(st);
  if (paths.empty() || f.Get("format").empty()) {
    std::cerr << "usage:\n" << kUsage;
    return 2;
  }
  std::vector<std::string> files;
  for (const auto& p : paths) {
    auto bytes = ReadInputFile(p);
    if (!bytes.ok()) return Fail(bytes.status());
    files.push_back(std::move(*bytes));
  }
  auto list = pipeline::kyb::LoadList(f.Get("format"), files);
  if (!list.ok()) return Fail(list.status());
  if (verb == "check") {
    std::map<std::string, int> kinds;
    for (const auto& e : list->entries) kinds[e.kind]++;
    Print({{"format", list->format},
           {"contentHash", list->content_hash},
           {"entries", list->entries.size()},
           {"kinds", kinds},
           {"skipped", list->skipped}});
    return 0;
  }
  if (f.Get("name").empty()) return Fail(core::InvalidArgument("--name is required"));
  const std::string kind = f.Get("kind");
  if (!kind.empty() && kind != "person" && kind != "company") return Fail(core::InvalidArgument("--kind is person or company"));
  pipeline::kyb::ScreeningIndex index({std::move(*list)});
  pipeline::kyb::ScreeningQuery query{f.Get("name"), kind, {f.Get("birth-date"), f.Get("nationality"), f.Get("id-number")}, {}};
  if (!f.Get("id-number").empty()) query.identifiers = {f.Get("id-number")};
  auto hits = index.Screen(query);
  core::Json out = core::Json::array();
  for (const auto& h : hits) out.push_back(HitJson(h));
  Print({{"hits", out}, {"threshold", pipeline::kyb::kHitThreshold}});
  return 0;
}

}  // namespace svc::api::cli
