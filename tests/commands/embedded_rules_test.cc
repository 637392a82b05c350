// The embedded channel's pure rules (issue 19): allowed origins, applications' embedded settings
// and archive (tenant aggregate), the session's flow captures and the clientSecret swap (session
// aggregate), and what a session takes from a flow.
#include <doctest/doctest.h>

#include "commands/embedded/flow_decider.h"
#include "commands/embedded/flow_graph.h"
#include "commands/embedded/origins.h"
#include "commands/tenancy/tenant_decider.h"
#include "commands/verification/session_decider.h"
#include "tests/support/decider_spec.h"

namespace commands_embedded_rules_test {

using namespace svc;
using namespace svc::commands;
using svc::testing::Code;
using svc::testing::DeciderSpec;
using svc::testing::Types;

namespace {

const std::string kTenant = "ten_00000000000000000000000000000001";
const std::string kDefault = "app_00000000000000000000000000000001";
const std::string kOther = "app_00000000000000000000000000000002";
const std::string kThird = "app_00000000000000000000000000000003";
const std::string kFlowA = "flw_00000000000000000000000000000001";
const std::string kFlowB = "flw_00000000000000000000000000000002";

std::string Norm(const std::string& o) {
  auto r = embedded::NormalizeOrigin(o);
  return r.ok() ? *r : std::string(r.status().api_code());
}

}  // namespace

TEST_CASE("origins: https with a concrete host, or http on loopback; serialised per RFC 6454") {
  CHECK(Norm("https://Shop.Example") == "https://shop.example");
  CHECK(Norm("https://shop.example/") == "https://shop.example");
  CHECK(Norm("https://shop.example:443") == "https://shop.example");
  CHECK(Norm("https://shop.example:8443") == "https://shop.example:8443");
  CHECK(Norm("http://localhost:3000") == "http://localhost:3000");
  CHECK(Norm("http://127.0.0.1:8080") == "http://127.0.0.1:8080");
  CHECK(Norm("http://[::1]:5173") == "http://[::1]:5173");
  CHECK(Norm("https://localhost") == "https://localhost");
  for (const char* bad : {"http://shop.example", "https://*.shop.example", "https://shop.example/path",
                          "https://user@shop.example", "ftp://shop.example", "shop.example", "https://",
                          "https://shop.example:0", "https://shop.example:99999", "https://intranet",
                          "https://shop..example", "https://shop.example?x=1", "null", ""}) {
    CAPTURE(bad);
    CHECK(Norm(bad) == "ORIGIN_INVALID");
  }
  auto list = embedded::NormalizeOrigins({"https://a.example", "https://A.example/", "http://localhost"}, "allowedOrigins");
  REQUIRE(list.ok());
  CHECK(*list == std::vector<std::string>{"https://a.example", "http://localhost"});
  CHECK(embedded::FrameAncestors(*list) == "https://a.example http://localhost");
  CHECK(embedded::FrameAncestors({}) == "'none'");
}

TEST_CASE("applications: archive (never the default), embedded settings, one application per origin") {
  DeciderSpec<tenancy::TenantDecider> spec;
  spec.aggregate_id = kTenant;
  REQUIRE(spec.When(tenancy::CreateTenant{"Acme", kDefault}).ok());
  REQUIRE(spec.When(tenancy::CreateApplication{kOther, "Shop"}).ok());
  REQUIRE(spec.When(tenancy::CreateApplication{kThird, "Lending"}).ok());
  CHECK(Code(spec.When(tenancy::ArchiveApplication{kDefault}).status()) == "CANNOT_ARCHIVE_DEFAULT");
  CHECK(Code(spec.When(tenancy::ArchiveApplication{"app_00000000000000000000000000000009"}).status()) ==
        "APPLICATION_NOT_FOUND");

  using tenancy::SetApplicationSettings;
  CHECK(Code(spec.When(SetApplicationSettings{kOther, {kFlowA}, kFlowB, {}, ""}).status()) == "DEFAULT_FLOW_NOT_IN_ALLOWED");
  CHECK(Code(spec.When(SetApplicationSettings{kOther, {}, "", {"http://shop.example"}, ""}).status()) == "ORIGIN_INVALID");
  auto set = spec.When(SetApplicationSettings{kOther, {kFlowA, kFlowB, kFlowA}, kFlowA, {"https://Shop.example"}, ""});
  REQUIRE(set.ok());
  CHECK(Types(*set) == std::vector<std::string>{"tenancy.application_settings_set"});
  CHECK(spec.state.FindApplication(kOther)->allowed_flows == std::vector<std::string>{kFlowA, kFlowB});
  CHECK(spec.state.FindApplication(kOther)->allowed_origins == std::vector<std::string>{"https://shop.example"});
  // The same settings again record nothing.
  CHECK(spec.When(SetApplicationSettings{kOther, {kFlowA, kFlowB}, kFlowA, {"https://shop.example"}, ""})->events.empty());
  // Another application cannot take the origin.
  CHECK(Code(spec.When(SetApplicationSettings{kThird, {}, "", {"https://shop.example"}, ""}).status()) == "ORIGIN_CONFLICT");

  auto archived = spec.When(tenancy::ArchiveApplication{kOther});
  REQUIRE(archived.ok());
  CHECK(Types(*archived) == std::vector<std::string>{"tenancy.application_archived"});
  CHECK(spec.When(tenancy::ArchiveApplication{kOther})->events.empty());
  CHECK(Code(spec.When(tenancy::SetApplicationSettings{kOther, {}, "", {}, ""}).status()) == "APPLICATION_ARCHIVED");
  // An archived application's origins are free again; it takes no new keys.
  CHECK(spec.When(SetApplicationSettings{kThird, {}, "", {"https://shop.example"}, ""}).ok());
  tenancy::CreateApiKey k;
  k.key_id = "key_00000000000000000000000000000001";
  k.application_id = kOther;
  k.environment = "test";
  k.key_type = "publishable";
  k.scopes = {"embedded:create_session"};
  k.secret_hash = std::string(64, 'a');
  CHECK(Code(spec.When(k).status()) == "APPLICATION_ARCHIVED");
  k.application_id = kThird;
  k.flows = {kFlowB, kFlowA, kFlowB};
  auto made = spec.When(k);
  REQUIRE(made.ok());
  CHECK(spec.state.FindKey(k.key_id)->flows == std::vector<std::string>{kFlowA, kFlowB});
  spec.CheckSnapshot();
}

TEST_CASE("a session of a flow: only the flow's captures; the clientSecret swapped once, from an allowed origin") {
  namespace vs = verification;
  DeciderSpec<vs::SessionDecider> spec;
  spec.aggregate_id = "vrf_00000000000000000000000000000001";
  vs::SessionCreated c;
  c.channel = "embed";
  c.checks = {{"document", true}, {"faceMatch", false}, {"governmentLookup", true}, {"liveness", false}};
  c.flow_id = kFlowA;
  c.flow_version = 1;
  c.flow_captures = {"document_front"};
  c.expires_at_micros = svc::testing::kSpecT0 + 3600LL * 1000000;
  vs::EmbeddedOpened o{"ems_00000000000000000000000000000001", {"https://shop.example"}, std::string(64, 'a'),
                       "backend", "key_00000000000000000000000000000001",
                       {"consent", "document_front", "submit"}, "passive", ""};
  auto created = spec.When(vs::CreateSession{c, o});
  REQUIRE(created.ok());
  CHECK(Types(*created) == std::vector<std::string>{"verification.session_created", "verification.embedded_opened"});

  CHECK(Code(spec.When(vs::MountEmbedded{std::string(64, 'b'), "https://shop.example", std::string(64, 'c')}).status()) ==
        "SESSION_INVALID");
  CHECK(Code(spec.When(vs::MountEmbedded{std::string(64, 'a'), "https://evil.example", std::string(64, 'c')}).status()) ==
        "ORIGIN_NOT_ALLOWED");
  CHECK(Code(spec.When(vs::MountEmbedded{std::string(64, 'a'), "", std::string(64, 'c')}).status()) == "ORIGIN_NOT_ALLOWED");
  auto mounted = spec.When(vs::MountEmbedded{std::string(64, 'a'), "https://shop.example", std::string(64, 'c')});
  REQUIRE(mounted.ok());
  CHECK(Types(*mounted) == std::vector<std::string>{"verification.embedded_mounted"});
  // Again from the page that mounted it (its frame reloaded): a new token, up to kMaxLinkOpens
  // mounts in all; from another allowed origin, never.
  REQUIRE(spec.When(vs::MountEmbedded{std::string(64, 'a'), "https://shop.example", std::string(64, 'd')}).ok());
  CHECK(Code(spec.When(vs::MountEmbedded{std::string(64, 'a'), "https://evil.example", std::string(64, 'e')}).status()) ==
        "SESSION_ALREADY_USED");
  for (int i = 2; i < vs::kMaxLinkOpens; ++i) {
    REQUIRE(spec.When(vs::MountEmbedded{std::string(64, 'a'), "https://shop.example", std::string(64, 'f')}).ok());
  }
  CHECK(Code(spec.When(vs::MountEmbedded{std::string(64, 'a'), "https://shop.example", std::string(64, 'g')}).status()) ==
        "SESSION_ALREADY_USED");

  REQUIRE(spec.When(vs::RecordConsent{true, 0, "", ""}).ok());
  vs::MediaCaptured m;
  m.media_id = "med_00000000000000000000000000000001";
  m.kind = "document_back";  // the checks would use it; the flow has no such step
  CHECK(Code(spec.When(vs::CaptureMedia{m}).status()) == "CAPTURE_NOT_ALLOWED");
  m.kind = "document_front";
  CHECK(spec.When(vs::CaptureMedia{m}).ok());
  spec.CheckSnapshot();

  // Past the expiry the swap is refused as expired.
  DeciderSpec<vs::SessionDecider> late;
  REQUIRE(late.When(vs::CreateSession{c, o}).ok());
  late.ctx.now.micros = c.expires_at_micros + 1;
  CHECK(Code(late.When(vs::MountEmbedded{std::string(64, 'a'), "https://shop.example", std::string(64, 'c')}).status()) ==
        "SESSION_EXPIRED");
  // A session opened without the embedded channel has no clientSecret.
  DeciderSpec<vs::SessionDecider> plain;
  REQUIRE(plain.When(vs::CreateSession{c, std::nullopt}).ok());
  CHECK(Code(plain.When(vs::MountEmbedded{std::string(64, 'a'), "https://shop.example", std::string(64, 'c')}).status()) ==
        "SESSION_INVALID");
}

TEST_CASE("a link session's hosted page: opened with its link token, again up to a bound, not after the end") {
  namespace vs = verification;
  DeciderSpec<vs::SessionDecider> spec;
  vs::SessionCreated c;
  c.channel = "link";
  c.link_token_hash = std::string(64, 'a');
  c.expires_at_micros = svc::testing::kSpecT0 + 3600LL * 1000000;
  REQUIRE(spec.When(vs::CreateSession{c, std::nullopt}).ok());
  CHECK(Code(spec.When(vs::OpenLink{std::string(64, 'b'), std::string(64, 'c')}).status()) == "SESSION_INVALID");
  for (int i = 0; i < vs::kMaxLinkOpens; ++i) {
    auto opened = spec.When(vs::OpenLink{std::string(64, 'a'), std::string(64, static_cast<char>('0' + i))});
    REQUIRE(opened.ok());
    CHECK(Types(*opened) == std::vector<std::string>{"verification.link_opened"});
  }
  CHECK(Code(spec.When(vs::OpenLink{std::string(64, 'a'), std::string(64, 'z')}).status()) == "SESSION_ALREADY_USED");
  spec.CheckSnapshot();
  DeciderSpec<vs::SessionDecider> late;
  REQUIRE(late.When(vs::CreateSession{c, std::nullopt}).ok());
  late.ctx.now.micros = c.expires_at_micros;
  CHECK(Code(late.When(vs::OpenLink{std::string(64, 'a'), std::string(64, 'c')}).status()) == "SESSION_EXPIRED");
  // A session that is not a link session has no link.
  c.link_token_hash.clear();
  DeciderSpec<vs::SessionDecider> api;
  REQUIRE(api.When(vs::CreateSession{c, std::nullopt}).ok());
  CHECK(Code(api.When(vs::OpenLink{"", std::string(64, 'c')}).status()) == "SESSION_INVALID");
  CHECK(embedded::WidgetSteps(nullptr, {}) ==
        std::vector<std::string>{"consent", "document_front", "document_back", "selfie", "liveness", "submit"});
  CHECK(embedded::WidgetSteps({{"liveness", false}, {"faceMatch", false}}, {}) ==
        std::vector<std::string>{"consent", "document_front", "document_back", "submit"});
  CHECK(embedded::WidgetSteps(nullptr, {"document_front", "liveness_video"}) ==
        std::vector<std::string>{"consent", "document_front", "liveness", "submit"});
}

TEST_CASE("a handoff link continues a session on another device: once, for ten minutes, five at most (issue 69)") {
  namespace vs = verification;
  DeciderSpec<vs::SessionDecider> spec;
  vs::SessionCreated c;
  c.channel = "link";
  c.link_token_hash = std::string(64, 'a');
  c.expires_at_micros = svc::testing::kSpecT0 + 3600LL * 1000000;
  REQUIRE(spec.When(vs::CreateSession{c, std::nullopt}).ok());
  auto issued = spec.When(vs::IssueHandoff{std::string(64, 'h')});
  REQUIRE(issued.ok());
  CHECK(Types(*issued) == std::vector<std::string>{"verification.handoff_issued"});
  CHECK(issued->result["expiresAtMicros"] == svc::testing::kSpecT0 + vs::kHandoffSeconds * 1000000);
  // Opened once (its open names it); a second open of it is refused; the session's own link still opens.
  auto opened = spec.When(vs::OpenLink{std::string(64, 'h'), std::string(64, '1')});
  REQUIRE(opened.ok());
  CHECK(svc::testing::Data(opened->events[0])["handoffHash"] == std::string(64, 'h'));
  CHECK(Code(spec.When(vs::OpenLink{std::string(64, 'h'), std::string(64, '2')}).status()) == "SESSION_ALREADY_USED");
  CHECK(spec.When(vs::OpenLink{std::string(64, 'a'), std::string(64, '3')}).ok());
  // Past its ten minutes it opens nothing.
  REQUIRE(spec.When(vs::IssueHandoff{std::string(64, 'i')}).ok());
  spec.ctx.now.micros += vs::kHandoffSeconds * 1000000;
  CHECK(Code(spec.When(vs::OpenLink{std::string(64, 'i'), std::string(64, '4')}).status()) == "SESSION_EXPIRED");
  // Five a session.
  for (char h : {'j', 'k', 'l'}) REQUIRE(spec.When(vs::IssueHandoff{std::string(64, h)}).ok());
  CHECK(Code(spec.When(vs::IssueHandoff{std::string(64, 'm')}).status()) == "SESSION_ALREADY_USED");
  spec.CheckSnapshot();
  // A session the applicant walks in no page of ours is not handed over.
  c.link_token_hash.clear();
  DeciderSpec<vs::SessionDecider> api;
  REQUIRE(api.When(vs::CreateSession{c, std::nullopt}).ok());
  CHECK(Code(api.When(vs::IssueHandoff{std::string(64, 'h')}).status()) == "CAPTURE_NOT_ALLOWED");
}

TEST_CASE("what a session takes from a flow: checks named on or off, policy, captures and steps in order") {
  core::Json def = {{"steps", core::Json::array({{{"id", "c"}, {"type", "consent"}, {"next", "f"}},
                                                 {{"id", "f"}, {"type", "document_front"}, {"next", "s"}},
                                                 {{"id", "s"}, {"type", "selfie"}, {"next", "l"}},
                                                 {{"id", "l"}, {"type", "liveness"}, {"mode", "active"}, {"next", "x"}},
                                                 {{"id", "x"}, {"type", "submit"}}})},
                    {"checks", {{"governmentLookup", false}, {"document", false}, {"livenessMode", "active"}}},
                    {"policy", {{"faceMatchThreshold", 0.9}}}};
  REQUIRE(embedded::ValidateFlow(def).empty());
  auto s = embedded::SessionSettingsOf(def);
  CHECK(s.checks == core::Json{{"document", false}, {"faceMatch", true}, {"governmentLookup", false},
                               {"liveness", true}, {"livenessMode", "active"}});
  CHECK(s.policy == core::Json{{"faceMatchThreshold", 0.9}});
  CHECK(s.captures == std::vector<std::string>{"document_front", "selfie", "liveness_video"});
  CHECK(s.steps == std::vector<std::string>{"consent", "document_front", "selfie", "liveness", "submit"});
  // amlScreening runs through the screening routes, not in a session: refused in a flow.
  def["checks"]["amlScreening"] = true;
  CHECK(embedded::IssuesJson(embedded::ValidateFlow(def))[0]["code"] == "check_unsupported");
  // A flow's id follows from its tenant and key.
  CHECK(embedded::FlowIdFor(kTenant, "kyc") == embedded::FlowIdFor(kTenant, "kyc"));
  CHECK(embedded::FlowIdFor(kTenant, "kyc") != embedded::FlowIdFor("ten_00000000000000000000000000000002", "kyc"));
  CHECK(core::ValidateId(core::IdKind::kFlow, embedded::FlowIdFor(kTenant, "kyc")).ok());
}

TEST_CASE("applications: the privacy notice is an https URL (http only on localhost), kept with the settings") {
  DeciderSpec<tenancy::TenantDecider> spec;
  spec.aggregate_id = kTenant;
  REQUIRE(spec.When(tenancy::CreateTenant{"Acme", kDefault}).ok());
  REQUIRE(spec.When(tenancy::CreateApplication{kOther, "Tienda"}).ok());
  CHECK(Code(spec.When(tenancy::SetApplicationSettings{kOther, {}, "", {}, "http://shop.example/aviso"}).status()) == "VALIDATION_ERROR");
  CHECK(Code(spec.When(tenancy::SetApplicationSettings{kOther, {}, "", {}, "javascript:alert(1)"}).status()) == "VALIDATION_ERROR");
  CHECK(Code(spec.When(tenancy::SetApplicationSettings{kOther, {}, "", {}, "https://shop.example/a b"}).status()) == "VALIDATION_ERROR");
  auto set = spec.When(tenancy::SetApplicationSettings{kOther, {}, "", {}, "https://shop.example/aviso-de-privacidad"});
  REQUIRE(set.ok());
  CHECK(set->events.size() == 1);
  CHECK(set->result["privacyNoticeUrl"] == "https://shop.example/aviso-de-privacidad");
  CHECK(spec.state.FindApplication(kOther)->privacy_notice_url == "https://shop.example/aviso-de-privacidad");
  CHECK(spec.When(tenancy::SetApplicationSettings{kOther, {}, "", {}, "https://shop.example/aviso-de-privacidad"})->events.empty());
  CHECK(spec.When(tenancy::SetApplicationSettings{kOther, {}, "", {}, "http://localhost:3000/aviso"})->events.size() == 1);
  spec.CheckSnapshot();
}

}  // namespace commands_embedded_rules_test
