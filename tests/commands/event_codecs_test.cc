// Events are stored forever: the bytes an event's data is written as, and how stored data reads
// back, must not change when a codec is rewritten. Every event type is encoded from a sample with
// every member set (and from a default-constructed one) and compared with the golden file; the
// golden text decodes back to the same bytes. A new event type adds its samples here and its
// lines to the golden file (SVC_UPDATE_GOLDEN=1 rewrites it; review the diff).
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "commands/claims/claim_events.h"
#include "commands/kyb/company_events.h"
#include "commands/kyb/screening_events.h"
#include "commands/audit/checkpoint.h"
#include "commands/audit/timestamps.h"
#include "commands/compliance/blob_gc.h"
#include "commands/compliance/breach.h"
#include "commands/compliance/retention.h"
#include "commands/event_codec.h"
#include "commands/persons/access_events.h"
#include "commands/persons/arco_request.h"
#include "commands/persons/import_job.h"
#include "commands/embedded/flow_events.h"
#include "commands/persons/export_job.h"
#include "commands/persons/person_events.h"
#include "commands/review/case_events.h"
#include "commands/tenancy/tenancy_events.h"
#include "commands/verification/session_events.h"
#include "commands/webhooks/delivery_decider.h"
#include "commands/webhooks/endpoint_decider.h"

namespace commands_event_codecs_test {

using namespace svc;
using namespace svc::commands;

namespace {

struct Sample {
  std::string type;
  std::string data;
};

template <class Event, class Variant, class Encode>
void Add(std::vector<Sample>& out, const Event& e, Encode encode, std::string type = "") {
  if constexpr (requires { Event::kType; }) {
    if (type.empty()) type = std::string(Event::kType);
  }
  out.push_back(Sample{type, encode(Variant(e))});
}

std::vector<Sample> Samples() {
  namespace vs = verification;
  namespace tn = tenancy;
  namespace rv = review;
  std::vector<Sample> s;
  auto venc = [](const vs::SessionEvent& e) { return vs::EncodeData(e); };
  auto tenc = [](const tn::TenancyEvent& e) { return tn::EncodeData(e); };
  auto renc = [](const rv::CaseEvent& e) { return rv::EncodeData(e); };

  vs::SessionCreated c;
  Add<vs::SessionCreated, vs::SessionEvent>(s, c, venc);
  c.public_id = "VS-ABCDEFGHJK";
  c.channel = "link";
  c.application_id = "app_00000000000000000000000000000001";
  c.flow_id = "flw_00000000000000000000000000000001";
  c.flow = "standard";
  c.person_id = "per_00000000000000000000000000000001";
  c.client_reference = "order-42";
  c.country = "MX";
  c.locale = "es-MX";
  c.notifications_mode = "service_managed";
  c.callback_url = "https://example.com/cb";
  c.redirect_url = "https://example.com/done";
  c.checks = {{"liveness", false}, {"livenessMode", "active"}};
  c.policy = {{"testOutcome", "approved"}};
  c.meta_sealed = "bWV0YQ==";
  c.link_token_sealed = "dG9rZW4=";
  c.expires_at_micros = 1767312000000000;
  Add<vs::SessionCreated, vs::SessionEvent>(s, c, venc);
  c.callback_secret_sealed = "c2VjcmV0";  // a session with a callbackUrl (issue 35, item 5)
  Add<vs::SessionCreated, vs::SessionEvent>(s, c, venc);
  c.callback_secret_sealed.clear();
  c.client_reference = std::nullopt;
  c.checks = "not an object";
  Add<vs::SessionCreated, vs::SessionEvent>(s, c, venc);

  vs::ConsentRecorded consent;
  Add<vs::ConsentRecorded, vs::SessionEvent>(s, consent, venc);
  consent.accepted = true;
  consent.consented_at_micros = 1767225601000000;
  consent.policy_version = "2026-01";
  consent.subject_sealed = "c3ViamVjdA==";
  Add<vs::ConsentRecorded, vs::SessionEvent>(s, consent, venc);

  Add<vs::SessionExpired, vs::SessionEvent>(s, vs::SessionExpired{}, venc);
  Add<vs::MediaPurged, vs::SessionEvent>(s, vs::MediaPurged{}, venc);
  Add<vs::MediaPurged, vs::SessionEvent>(
      s, vs::MediaPurged{{"med_00000000000000000000000000000001", "med_00000000000000000000000000000002"}, "retention", 1825},
      venc);

  vs::MediaCaptured m;
  Add<vs::MediaCaptured, vs::SessionEvent>(s, m, venc);
  m.media_id = "med_00000000000000000000000000000001";
  m.kind = "liveness_video";
  m.mime = "video/mp4";
  m.sha256 = std::string(64, 'a');
  m.size_bytes = 38354;
  m.blob = "blob/1";
  m.challenge_id = "lch_1";
  m.challenge_actions = {"blink", "turn_left"};
  m.analysis = {{"status", "ok"}, {"score", 0.9}};
  m.extracted_sealed = "ZXh0cmFjdGVk";
  Add<vs::MediaCaptured, vs::SessionEvent>(s, m, venc);

  vs::SessionCreated fc = c;
  fc.channel = "embed";
  fc.flow_version = 3;
  fc.flow_captures = {"document_front", "selfie", "liveness_video"};
  fc.link_token_hash = std::string(64, 'f');
  Add<vs::SessionCreated, vs::SessionEvent>(s, fc, venc);
  Add<vs::EmbeddedOpened, vs::SessionEvent>(
      s, vs::EmbeddedOpened{"ems_00000000000000000000000000000001", {"https://shop.example", "http://localhost:3000"},
                            std::string(64, 'c'), "browser", "key_00000000000000000000000000000001",
                            {"consent", "document_front", "selfie", "liveness", "submit"}, "active", ""},
      venc);
  Add<vs::EmbeddedMounted, vs::SessionEvent>(s, vs::EmbeddedMounted{"https://shop.example", std::string(64, 'd')}, venc);
  Add<vs::LinkOpened, vs::SessionEvent>(s, vs::LinkOpened{std::string(64, 'a'), ""}, venc);
  Add<vs::LinkOpened, vs::SessionEvent>(s, vs::LinkOpened{std::string(64, 'a'), std::string(64, 'h')}, venc);
  Add<vs::HandoffIssued, vs::SessionEvent>(s, vs::HandoffIssued{std::string(64, 'h'), 1767225900000000}, venc);

  vs::LivenessChallengeIssued ch;
  Add<vs::LivenessChallengeIssued, vs::SessionEvent>(s, ch, venc);
  ch.challenge_id = "lch_1";
  ch.actions = {"turn_right", "blink", "turn_left"};
  ch.expires_at_micros = 1767225900000000;
  Add<vs::LivenessChallengeIssued, vs::SessionEvent>(s, ch, venc);

  vs::SessionSubmitted sub;
  Add<vs::SessionSubmitted, vs::SessionEvent>(s, sub, venc);
  sub.tracking_id = "trk_1";
  sub.submission = 2;
  sub.media_ids = {"med_1", "med_2"};
  Add<vs::SessionSubmitted, vs::SessionEvent>(s, sub, venc);

  vs::StageCompleted st;
  Add<vs::StageCompleted, vs::SessionEvent>(s, st, venc);
  st.tracking_id = "trk_1";
  st.stage = "face_match";
  st.outcome = "passed";
  st.summary = {{"score", 0.93}, {"reasonCodes", core::Json::array()}};
  st.details_sealed = "ZGV0YWlscw==";
  Add<vs::StageCompleted, vs::SessionEvent>(s, st, venc);

  for (auto type : vs::kVerdictTypes) {
    vs::VerdictReached v;
    v.type = std::string(type);
    Add<vs::VerdictReached, vs::SessionEvent>(s, v, venc, v.type);
    v.tracking_id = "trk_1";
    v.outcome = "review";
    v.reason_codes = {"DOC_MISMATCH"};
    v.trust_score = 0.61;
    v.case_id = "cas_00000000000000000000000000000001";
    v.decision = {{"outcome", "review"}};
    v.report = {{"trustBreakdown", {{"document", 0.5}}}};
    Add<vs::VerdictReached, vs::SessionEvent>(s, v, venc, v.type);
  }

  Add<tn::TenantCreated, tn::TenancyEvent>(s, tn::TenantCreated{"Acme \"Bank\""}, tenc);
  Add<tn::ApplicationCreated, tn::TenancyEvent>(
      s, tn::ApplicationCreated{"app_00000000000000000000000000000001", "Web", true}, tenc);
  tn::ApiKeyCreated k;
  Add<tn::ApiKeyCreated, tn::TenancyEvent>(s, k, tenc);
  k.key_id = "key_00000000000000000000000000000001";
  k.application_id = "app_00000000000000000000000000000001";
  k.environment = "test";
  k.key_type = "secret";
  k.scopes = {"sessions:*", "webhooks:read"};
  k.secret_hash = std::string(64, 'b');
  k.last4 = "wxyz";
  k.name = "ci";
  Add<tn::ApiKeyCreated, tn::TenancyEvent>(s, k, tenc);
  k.key_type = "publishable";
  k.scopes = {"embedded:create_session"};
  k.flows = {"flw_00000000000000000000000000000001"};
  Add<tn::ApiKeyCreated, tn::TenancyEvent>(s, k, tenc);
  Add<tn::ApiKeyRevoked, tn::TenancyEvent>(s, tn::ApiKeyRevoked{"key_1", "leaked"}, tenc);
  Add<tn::ApplicationArchived, tn::TenancyEvent>(s, tn::ApplicationArchived{"app_00000000000000000000000000000002"}, tenc);
  Add<tn::ApplicationSettingsSet, tn::TenancyEvent>(s, tn::ApplicationSettingsSet{}, tenc);
  Add<tn::ApplicationSettingsSet, tn::TenancyEvent>(
      s, tn::ApplicationSettingsSet{"app_00000000000000000000000000000001", {"flw_00000000000000000000000000000001"},
                                    "flw_00000000000000000000000000000001", {"https://shop.example"}, "https://shop.example/aviso"},
      tenc);
  {
    namespace ce = embedded;
    auto fenc = [](const ce::FlowEvent& e) { return EncodeEventData(e); };
    core::Json def = {{"steps", core::Json::array({{{"id", "c"}, {"type", "consent"}, {"next", "s"}},
                                                   {{"id", "s"}, {"type", "submit"}}})},
                      {"checks", {{"document", false}}}};
    Add<ce::FlowCreated, ce::FlowEvent>(s, ce::FlowCreated{"kyc-basic", "KYC basic", def}, fenc);
    Add<ce::FlowDraftUpdated, ce::FlowEvent>(s, ce::FlowDraftUpdated{def}, fenc);
    Add<ce::FlowPublished, ce::FlowEvent>(s, ce::FlowPublished{2, def, std::string(64, 'e')}, fenc);
    Add<ce::FlowArchived, ce::FlowEvent>(s, ce::FlowArchived{}, fenc);
  }
  Add<tn::ExportKeySet, tn::TenancyEvent>(
      s, tn::ExportKeySet{"xk_0123456789abcdef", "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"}, tenc);
  Add<tn::UserCreated, tn::TenancyEvent>(
      s, tn::UserCreated{"usr_00000000000000000000000000000001", "reviewer", "team north 3", std::string(64, 'b'), "wxyz"},
      tenc);
  Add<tn::UserDisabled, tn::TenancyEvent>(s, tn::UserDisabled{"usr_00000000000000000000000000000001"}, tenc);

  rv::CaseOpened o;
  Add<rv::CaseOpened, rv::CaseEvent>(s, o, renc);
  o.session_id = "vrf_00000000000000000000000000000001";
  o.tracking_id = "trk_1";
  o.reason = "automated verification needs a person";
  o.reason_codes = {"DOC_MISMATCH", "FACE_LOW"};
  o.priority = "high";
  Add<rv::CaseOpened, rv::CaseEvent>(s, o, renc);
  const rv::CaseActor ana{"user", "usr_00000000000000000000000000000001"};
  const rv::CaseActor bot{"api_key", "key_00000000000000000000000000000001"};
  Add<rv::CaseClaimed, rv::CaseEvent>(s, rv::CaseClaimed{ana}, renc);
  Add<rv::CaseReleased, rv::CaseEvent>(s, rv::CaseReleased{ana}, renc);
  Add<rv::CaseReassigned, rv::CaseEvent>(s, rv::CaseReassigned{"usr_00000000000000000000000000000002", bot}, renc);
  Add<rv::CaseNoteAdded, rv::CaseEvent>(s, rv::CaseNoteAdded{ana, "bm90ZQ"}, renc);
  Add<rv::CaseEscalated, rv::CaseEvent>(s, rv::CaseEscalated{"vrf_00000000000000000000000000000001", 1, "critical", ana, ""}, renc);
  Add<rv::ResolutionProposed, rv::CaseEvent>(s, rv::ResolutionProposed{"decline", {"FACE_MISMATCH"}, ana, "bm90ZQ", ""}, renc);
  Add<rv::CaseResolved, rv::CaseEvent>(
      s, rv::CaseResolved{"decline", {"FACE_MISMATCH"}, bot, {ana, bot}, "", ""}, renc);
  // "More information" with the reviewer's words for the applicant (sealed).
  Add<rv::CaseResolved, rv::CaseEvent>(
      s, rv::CaseResolved{"request_more_info", {"DOCUMENT_BACK_REQUIRED"}, ana, {ana}, "", "d29yZHM"}, renc);

  // Webhook events, as their deciders write them.
  namespace wh = webhooks;
  CommandContext ctx;
  ctx.now = core::Timestamp{1767225600000000};
  ctx.environment = "test";
  auto decided = [&](const core::Result<Decision>& d) {
    REQUIRE(d.ok());
    for (const auto& e : d->events) s.push_back(Sample{e.type, e.data});
  };
  wh::CreateEndpoint create;
  create.environment = "test";
  decided(wh::EndpointDecider::Decide(wh::EndpointState{}, create, ctx));
  create.url = "https://hooks.example.com/a";
  create.description = "ops";
  create.application_id = "app_00000000000000000000000000000001";
  create.events = core::Json::array({"verification.*"});
  create.secret_sealed = "c2VhbGVk";
  decided(wh::EndpointDecider::Decide(wh::EndpointState{}, create, ctx));
  wh::EndpointState ep;
  ep.exists = true;
  ep.environment = "test";
  ep.url = "https://hooks.example.com/a";
  ep.secret_sealed = "b2xk";
  wh::UpdateEndpoint update;
  update.changes = {{"isActive", false}, {"url", "https://hooks.example.com/b"}};
  update.reason = "gone";
  decided(wh::EndpointDecider::Decide(ep, update, ctx));
  decided(wh::EndpointDecider::Decide(ep, wh::RotateSecret{"bmV3", ""}, ctx));
  // A v1a (Ed25519) endpoint: its public keys travel with the sealed signing key.
  create.public_key = "whpk_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";
  decided(wh::EndpointDecider::Decide(wh::EndpointState{}, create, ctx));
  ep.public_key = create.public_key;
  decided(wh::EndpointDecider::Decide(ep, wh::RotateSecret{"bmV3", "whpk_HxwdHBsaGRgXFhUUExIREA8ODQwLCgkIBwYFBAMCAQA="}, ctx));
  wh::RecordAttempt attempt;
  attempt.endpoint_id = "whe_00000000000000000000000000000001";
  attempt.attempt = 1;
  attempt.outcome = "failed";
  decided(wh::DeliveryDecider::Decide(wh::DeliveryState{}, attempt, ctx));
  attempt.status_code = 503;
  attempt.error = "HTTP 503";
  attempt.latency_ms = 12;
  attempt.outcome = "retrying";
  attempt.next_retry_at_micros = 1767225630000000;
  decided(wh::DeliveryDecider::Decide(wh::DeliveryState{}, attempt, ctx));
  decided(wh::DeliveryDecider::Decide(
      wh::DeliveryState{}, wh::RetryDelivery{"whd_00000000000000000000000000000002", "whe_1"}, ctx));
  decided(wh::DeliveryDecider::Decide(
      wh::DeliveryState{}, wh::StartAttempt{"whe_00000000000000000000000000000001", 1, 1767225645000000}, ctx));
  // Person events: sealed values and index keys only.
  namespace ps = persons;
  auto penc = [](const ps::PersonEvent& e) { return ps::EncodeData(e); };
  ps::PersonCreated pc;
  Add<ps::PersonCreated, ps::PersonEvent>(s, pc, penc);
  pc.application_id = "app_00000000000000000000000000000001";
  pc.external_ref = "user-42";
  pc.metadata_sealed = "bWV0YQ==";
  pc.pii = {{"curp", {"c2VhbGVk", {std::string(64, 'a')}}}, {"address", {"YWRkcmVzcw==", {}}}};
  pc.source = {"verification", "vrf_00000000000000000000000000000001", "renapo"};
  Add<ps::PersonCreated, ps::PersonEvent>(s, pc, penc);
  ps::PersonRevised pr;
  Add<ps::PersonRevised, ps::PersonEvent>(s, pr, penc);
  pr.pii_version = 3;
  pr.set = {{"email", {"ZW1haWw=", {std::string(64, 'e')}}}};
  pr.cleared = {"phone"};
  pr.metadata_changed = true;
  pr.source = {"api", "", ""};
  Add<ps::PersonRevised, ps::PersonEvent>(s, pr, penc);
  Add<ps::ConsentGranted, ps::PersonEvent>(s, ps::ConsentGranted{}, penc);
  ps::ConsentGranted cg;
  cg.consent_id = "cns_00000000000000000000000000000001";
  cg.purpose = "credit_assessment";
  cg.mechanism = "firma_electronica";
  cg.policy_version = "2026-01";
  cg.attested_by = "applicant";
  cg.evidence_sealed = "ZXZpZGVuY2U=";
  cg.expires_micros = 1798761600000000;
  Add<ps::ConsentGranted, ps::PersonEvent>(s, cg, penc);
  Add<ps::ConsentRevoked, ps::PersonEvent>(s, ps::ConsentRevoked{"cns_00000000000000000000000000000001"}, penc);
  Add<ps::GrantCreated, ps::PersonEvent>(s, ps::GrantCreated{}, penc);
  ps::GrantCreated gc;
  gc.grant_id = "grt_00000000000000000000000000000002";
  gc.application_id = "app_00000000000000000000000000000003";
  gc.allowed_fields = {"curp", "fullName"};
  gc.allowed_purposes = {"identity_verification"};
  gc.default_redaction = "masked";
  gc.expires_micros = 1798761600000000;
  gc.replaces = "grt_00000000000000000000000000000001";
  Add<ps::GrantCreated, ps::PersonEvent>(s, gc, penc);
  Add<ps::GrantRevoked, ps::PersonEvent>(s, ps::GrantRevoked{"grt_00000000000000000000000000000002"}, penc);
  Add<ps::LegalHoldRecorded, ps::PersonEvent>(s, ps::LegalHoldRecorded{}, penc);
  Add<ps::LegalHoldRecorded, ps::PersonEvent>(
      s, ps::LegalHoldRecorded{"lgh_00000000000000000000000000000001", "renew", "med_00000000000000000000000000000001",
                               "CNBV oficio 123/2026", "supervisory inquiry", 1798761600000000, "", ""},
      penc);
  Add<ps::ForgetRequested, ps::PersonEvent>(s, ps::ForgetRequested{}, penc);
  Add<ps::ForgetRequested, ps::PersonEvent>(s, ps::ForgetRequested{"block", "ARCO request 77", 1798761600000000, "", ""}, penc);
  // Since issue 71 the caller's words are sealed under the person's key; the clear members stay empty.
  Add<ps::LegalHoldRecorded, ps::PersonEvent>(
      s, ps::LegalHoldRecorded{"lgh_00000000000000000000000000000002", "set", "", "", "", 0, "YmFzaXM=", "cmVhc29u"},
      penc);
  Add<ps::ForgetRequested, ps::PersonEvent>(s, ps::ForgetRequested{"purge", "", 0, "", "cmVhc29u"}, penc);
  Add<ps::PersonPurged, ps::PersonEvent>(s, ps::PersonPurged{{"vrf_00000000000000000000000000000001"}}, penc);
  Add<ps::KeysDestroyed, ps::PersonEvent>(
      s, ps::KeysDestroyed{{"person/ten_1/test/per_00000000000000000000000000000001"}}, penc);
  Add<ps::ConsolidationRequested, ps::PersonEvent>(s, ps::ConsolidationRequested{}, penc);
  Add<ps::ConsolidationRequested, ps::PersonEvent>(
      s,
      ps::ConsolidationRequested{"csl_00000000000000000000000000000001", {"per_00000000000000000000000000000002"},
                                 {{"email", "per_00000000000000000000000000000002"}}},
      penc);
  Add<ps::MergeStarted, ps::PersonEvent>(
      s, ps::MergeStarted{"csl_00000000000000000000000000000001", "per_00000000000000000000000000000001"}, penc);
  Add<ps::SourceAbsorbed, ps::PersonEvent>(
      s, ps::SourceAbsorbed{"csl_00000000000000000000000000000001", "per_00000000000000000000000000000002", {"email"}, ""},
      penc);
  Add<ps::SourceAbsorbed, ps::PersonEvent>(
      s, ps::SourceAbsorbed{"csl_00000000000000000000000000000001", "per_00000000000000000000000000000003", {}, "PERSON_PURGED"},
      penc);
  Add<ps::PersonMerged, ps::PersonEvent>(
      s, ps::PersonMerged{"csl_00000000000000000000000000000001", "per_00000000000000000000000000000001"}, penc);
  Add<ps::ConsolidationCompleted, ps::PersonEvent>(s, ps::ConsolidationCompleted{"csl_00000000000000000000000000000001"},
                                                   penc);
  Add<ps::OppositionRecorded, ps::PersonEvent>(s, ps::OppositionRecorded{}, penc);
  Add<ps::OppositionRecorded, ps::PersonEvent>(
      s,
      ps::OppositionRecorded{"opp_00000000000000000000000000000001", "credit_assessment", "ARCO 12",
                             "arc_00000000000000000000000000000001", "key_00000000000000000000000000000001", ""},
      penc);
  Add<ps::OppositionRecorded, ps::PersonEvent>(
      s,
      ps::OppositionRecorded{"opp_00000000000000000000000000000002", "marketing", "", "",
                             "key_00000000000000000000000000000001", "cmVhc29u"},
      penc);
  // ARCO requests: every event carries the record after it.
  auto arco_enc = [](const ps::ArcoEvent& e) { return commands::EncodeEventData(e); };
  ps::ArcoRecord ar;
  ar.subject_type = "person";
  ar.person_id = "per_00000000000000000000000000000001";
  ar.right = "opposition";
  ar.requester = "representative";
  ar.identity_method = "power_of_attorney";
  ar.identity_reference = "escritura 4411";
  ar.reference = "TICKET-9";
  ar.purposes = {"credit_assessment"};
  ar.status = "accepted";
  ar.submitted_micros = ar.counted_from_micros = 1794585600000000;
  ar.response_due_micros = 1797314399999999;
  ar.ask_information_by_micros = 1795543199999999;
  ar.responded_micros = 1795000000000000;
  ar.effect_due_micros = 1797919199999999;
  ar.response_extended = true;
  auto as = [&ar]<class E>(E e) {
    static_cast<ps::ArcoRecord&>(e) = ar;
    return e;
  };
  Add<ps::ArcoReceived, ps::ArcoEvent>(s, ps::ArcoReceived{}, arco_enc);
  Add<ps::ArcoAccepted, ps::ArcoEvent>(s, as(ps::ArcoAccepted{}), arco_enc);
  ar.deadline = "effect";
  ar.deadline_due_micros = ar.effect_due_micros;
  Add<ps::ArcoDeadlineApproaching, ps::ArcoEvent>(s, as(ps::ArcoDeadlineApproaching{}), arco_enc);
  ar.deadline.clear();
  ar.deadline_due_micros = 0;
  ar.status = "completed";
  ar.fulfilled_by = "opposition";
  ar.fulfilment_reference = "opp_00000000000000000000000000000001";
  ar.fulfilment_source = "evt_00000000000000000000000000000007";
  Add<ps::ArcoCompleted, ps::ArcoEvent>(s, as(ps::ArcoCompleted{}), arco_enc);
  auto ienc = [](const ps::ImportEvent& e) { return EncodeEventData(e); };
  Add<ps::ImportRecorded, ps::ImportEvent>(s, ps::ImportRecorded{}, ienc);
  ps::ImportRecorded job{3, 1, 1, 1, {}};
  job.rows = {{0, "created", "per_00000000000000000000000000000001", "", {}},
              {1, "updated", "per_00000000000000000000000000000002", "", {}},
              {2, "failed", "", "VALIDATION_ERROR", {"pii.curp"}}};
  Add<ps::ImportRecorded, ps::ImportEvent>(s, job, ienc);
  auto xenc = [](const ps::ExportEvent& e) { return EncodeEventData(e); };
  ps::ExportRequested xr;
  xr.person_ids = {"per_00000000000000000000000000000001"};
  xr.fields = {"email"};
  xr.purpose = "identity_verification";
  xr.reason = "portability";
  xr.application_id = "app_00000000000000000000000000000001";
  xr.actor_type = "api_key";
  xr.actor_id = "key_00000000000000000000000000000001";
  xr.recipient_key_id = "xk_0123456789abcdef";
  xr.recipient_public_key = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8";
  xr.ttl_seconds = 86400;
  Add<ps::ExportRequested, ps::ExportEvent>(s, xr, xenc);
  ps::ExportCompleted xc{1, 1, {{"per_00000000000000000000000000000002", "FIELD_NOT_GRANTED"}}, 4242,
                         std::string(64, 'a'), 1790000000000000};
  Add<ps::ExportCompleted, ps::ExportEvent>(s, xc, xenc);
  Add<ps::ExportFailed, ps::ExportEvent>(s, ps::ExportFailed{"EXPORT_FAILED", "the dump could not be written"}, xenc);
  Add<ps::ExportExpired, ps::ExportEvent>(s, ps::ExportExpired{}, xenc);
  // Access events: who, how, which fields and why; never a value.
  auto aenc = [](const ps::AccessEvent& e) { return ps::EncodeAccessData(e); };
  ps::PiiAccessed pa;
  Add<ps::PiiAccessed, ps::AccessEvent>(s, pa, aenc);
  pa.person_id = "per_00000000000000000000000000000001";
  pa.application_id = "app_00000000000000000000000000000001";
  pa.actor_type = "api_key";
  pa.actor_id = "key_00000000000000000000000000000001";
  pa.channel = "batch_decrypt";
  pa.fields = {"curp", "email"};
  pa.purpose = "aml_compliance";
  pa.reason = "KYC refresh";
  pa.redaction = "plain";
  Add<ps::PiiAccessed, ps::AccessEvent>(s, pa, aenc);
  // Since issue 71 the reason is sealed under the person's key (pipeline/persons/vault_keys.h).
  pa.reason.clear();
  pa.reason_sealed = "c2VhbGVkIHJlYXNvbg==";
  pa.reason_commitment = std::string(64, 'c');
  Add<ps::PiiAccessed, ps::AccessEvent>(s, pa, aenc);

  namespace cc = compliance;
  auto benc = [](const cc::BreachEvent& e) { return EncodeEventData(e); };
  Add<cc::BreachNotified, cc::BreachEvent>(s, cc::BreachNotified{}, benc);
  cc::BreachNotified bn;
  bn.severity = "high";
  bn.scope = "a backup of the sessions read model was copied";
  bn.detected_micros = 1767225600000000;
  bn.subprocessors_affected = {"Storage Co."};
  bn.notified_by = "key_00000000000000000000000000000001";
  Add<cc::BreachNotified, cc::BreachEvent>(s, bn, benc);

  auto rtenc = [](const cc::RetentionEvent& e) { return EncodeEventData(e); };
  Add<cc::RowsSwept, cc::RetentionEvent>(s, cc::RowsSwept{}, rtenc);
  Add<cc::RowsSwept, cc::RetentionEvent>(s, cc::RowsSwept{"webhook_deliveries", 1767225600000000, 30}, rtenc);

  auto gcenc = [](const cc::BlobGcEvent& e) { return EncodeEventData(e); };
  Add<cc::BlobsCollected, cc::BlobGcEvent>(s, cc::BlobsCollected{}, gcenc);
  Add<cc::BlobsCollected, cc::BlobGcEvent>(
      s, cc::BlobsCollected{{std::string(64, 'a'), std::string(64, 'b')}, 2048, 86400}, gcenc);

  auto cpenc = [](const audit::AuditLogEvent& e) { return EncodeEventData(e); };
  Add<audit::CheckpointPublished, audit::AuditLogEvent>(s, audit::CheckpointPublished{}, cpenc);
  audit::CheckpointPublished cp;
  cp.origin = "svc/audit/ten_00000000000000000000000000000001/test";
  cp.tree_size = 5;
  cp.root_hash = std::string(64, 'c');
  cp.checkpoint = "svc/audit/ten_00000000000000000000000000000001/test\n5\nzMzM\n\n\u2014 key sig\n";
  Add<audit::CheckpointPublished, audit::AuditLogEvent>(s, cp, cpenc);

  auto tsenc = [](const audit::TimestampsEvent& e) { return EncodeEventData(e); };
  Add<audit::Timestamped, audit::TimestampsEvent>(s, audit::Timestamped{}, tsenc);
  Add<audit::Timestamped, audit::TimestampsEvent>(
      s,
      audit::Timestamped{"verification_certificate", "vrf_00000000000000000000000000000001", std::string(64, 'd'),
                         "MIIB", "2026-11-28T10:00:00Z", "0a", "1.2.3.4.1", "CN=Test TSA", "http://127.0.0.1:1/tsa",
                         "evt_00000000000000000000000000000002"},
      tsenc);
  Add<audit::TimestampSettled, audit::TimestampsEvent>(s, audit::TimestampSettled{}, tsenc);
  Add<audit::TimestampSettled, audit::TimestampsEvent>(
      s, audit::TimestampSettled{"audit_checkpoint", "5", std::string(64, 'e'), "evt_00000000000000000000000000000003"},
      tsenc);
  Add<audit::EvidenceRecorded, audit::TimestampsEvent>(s, audit::EvidenceRecorded{}, tsenc);
  Add<audit::EvidenceRecorded, audit::TimestampsEvent>(
      s,
      audit::EvidenceRecorded{"person_export", "pxb_00000000000000000000000000000001", std::string(64, 'f'), 4096,
                              "per_00000000000000000000000000000001", "2026-11-28T10:00:00Z", ""},
      tsenc);

  namespace kb = kyb;
  auto kenc = [](const kb::CompanyEvent& e) { return kb::EncodeData(e); };
  Add<kb::CompanyCreated, kb::CompanyEvent>(s, kb::CompanyCreated{}, kenc);
  Add<kb::CompanyCreated, kb::CompanyEvent>(
      s, kb::CompanyCreated{"bGVnYWw", "dHJhZGU", "MX", "cmZj", std::string(64, 'b'), "moral", "legal_entity"}, kenc);
  Add<kb::MemberAdded, kb::CompanyEvent>(
      s, kb::MemberAdded{"cmm_00000000000000000000000000000001", "bmFtZQ", "", "director", ""}, kenc);
  Add<kb::MemberAdded, kb::CompanyEvent>(
      s, kb::MemberAdded{"cmm_00000000000000000000000000000002", "bmFtZQ", "", "director", "record"}, kenc);
  Add<kb::DocumentAdded, kb::CompanyEvent>(
      s, kb::DocumentAdded{"cdc_00000000000000000000000000000001", "acta_constitutiva", std::string(64, 'a'),
                           "s3://bucket/acta.pdf", ""},
      kenc);
  kb::UboNodeAdded un;
  un.node_id = "ubo_00000000000000000000000000000001";
  un.name_sealed = "bmFtZQ";
  un.node_type = "company";
  un.ownership_pct = "60";
  Add<kb::UboNodeAdded, kb::CompanyEvent>(s, un, kenc);
  un.sealed_with = "record";
  un.node_id = "ubo_00000000000000000000000000000002";
  Add<kb::UboNodeAdded, kb::CompanyEvent>(s, un, kenc);
  Add<kb::SubjectForgotten, kb::CompanyEvent>(s, kb::SubjectForgotten{}, kenc);
  Add<kb::SubjectForgotten, kb::CompanyEvent>(
      s, kb::SubjectForgotten{"member", "cmm_00000000000000000000000000000002", "ARCO TICKET-9", "arc_00000000000000000000000000000001"},
      kenc);
  Add<kb::SubjectKeysDestroyed, kb::CompanyEvent>(
      s, kb::SubjectKeysDestroyed{"member", "cmm_00000000000000000000000000000002", {"kyb/ten_1/test/cmp_1/cmm_2"}}, kenc);
  Add<kb::VerificationStarted, kb::CompanyEvent>(s, kb::VerificationStarted{1}, kenc);
  Add<kb::StageCompleted, kb::CompanyEvent>(s, kb::StageCompleted{1, "registry", "passed", {{"outcome", "found"}}}, kenc);
  Add<kb::RiskAssessed, kb::CompanyEvent>(
      s, kb::RiskAssessed{1, 65, "high", "needs_review", {{{"code", "sanctions_hit_strong"}, {"points", 60}}}, "risk/v1"},
      kenc);
  auto lenc = [](const kb::AmlListEvent& e) { return EncodeEventData(e); };
  Add<kb::ListLoaded, kb::AmlListEvent>(s, kb::ListLoaded{"ofac_sdn", "ofac_sdn_csv", std::string(64, 'd'),
                                                          {std::string(64, 'e')}, 5, 3, 1},
                                        lenc);
  auto senc = [](const kb::ScreeningEvent& e) { return EncodeEventData(e); };
  kb::ScreeningCompleted sc;
  sc.subject_type = "name";
  sc.subject_key = "name:abc";
  sc.subject_sealed = "cXVlcnk";
  sc.origin = "api";
  Add<kb::ScreeningCompleted, kb::ScreeningEvent>(s, sc, senc);
  auto henc = [](const kb::HitEvent& e) { return EncodeEventData(e); };
  kb::HitFound hf;
  hf.screening_id = "scr_00000000000000000000000000000001";
  hf.subject_type = "company_member";
  hf.subject_id = "cmm_00000000000000000000000000000001";
  hf.list_source = "ofac_sdn";
  hf.entry_id = "9001";
  hf.score = 0.97;
  hf.algorithm = "name-match/v1";
  Add<kb::HitFound, kb::HitEvent>(s, hf, henc);
  // Since issue 71 the entry's names are sealed (pipeline/kyb/kyb_seal.h), the clear ones empty.
  hf.entry_name_sealed = "c2VhbGVkLWVudHJ5";
  hf.matched_name_sealed = "c2VhbGVkLW1hdGNoZWQ=";
  hf.names_sealed_with = "record";
  Add<kb::HitFound, kb::HitEvent>(s, hf, henc);
  Add<kb::HitReviewed, kb::HitEvent>(s, kb::HitReviewed{"confirmed", "true_match", "", "api_key",
                                                        "key_00000000000000000000000000000001"},
                                     henc);
  {
    namespace cl = claims;
    auto cenc = [](const cl::ClaimEvent& e) { return EncodeEventData(e); };
    Add<cl::ClaimTaken, cl::ClaimEvent>(s, cl::ClaimTaken{}, cenc);
    Add<cl::ClaimTaken, cl::ClaimEvent>(
        s, cl::ClaimTaken{"per_00000000000000000000000000000002", "person", "per_00000000000000000000000000000001"},
        cenc);
    Add<cl::ClaimReleased, cl::ClaimEvent>(s, cl::ClaimReleased{"per_00000000000000000000000000000002"}, cenc);
  }
  return s;
}

// Decodes stored data with the codec of its type and encodes it again.
std::string Reencode(const Sample& s) {
  eventstore::EventEnvelope e;
  e.type = s.type;
  e.data = s.data;
  if (s.type.rfind("verification.", 0) == 0) {
    auto d = verification::Decode(e);
    REQUIRE_MESSAGE(d.ok(), d.status().ToString());
    return verification::EncodeData(*d);
  }
  if (s.type.rfind("tenancy.", 0) == 0) {
    auto d = tenancy::Decode(e);
    REQUIRE_MESSAGE(d.ok(), d.status().ToString());
    return tenancy::EncodeData(*d);
  }
  if (s.type == persons::PiiAccessed::kType) {
    auto d = persons::DecodeAccess(e);
    REQUIRE_MESSAGE(d.ok(), d.status().ToString());
    return persons::EncodeAccessData(*d);
  }
  if (s.type.rfind("persons.export_", 0) == 0) {
    auto d = persons::DecodeExport(e);
    REQUIRE_MESSAGE(d.ok(), d.status().ToString());
    return EncodeEventData(*d);
  }
  if (s.type == persons::ImportRecorded::kType) {
    auto d = persons::DecodeImport(e);
    REQUIRE_MESSAGE(d.ok(), d.status().ToString());
    return EncodeEventData(*d);
  }
  if (s.type.rfind("persons.", 0) == 0) {
    auto d = persons::Decode(e);
    REQUIRE_MESSAGE(d.ok(), d.status().ToString());
    return persons::EncodeData(*d);
  }
  if (s.type == webhooks::kDeliveryAttempted || s.type == webhooks::kDeliveryRetried ||
      s.type == webhooks::kDeliveryAttemptStarted) {
    auto d = webhooks::DecodeDeliveryEvent(e);
    REQUIRE_MESSAGE(d.ok(), d.status().ToString());
    return webhooks::EncodeData(*d);
  }
  if (s.type.rfind("webhook.", 0) == 0) {
    auto d = webhooks::DecodeEndpointEvent(e);
    REQUIRE_MESSAGE(d.ok(), d.status().ToString());
    return webhooks::EncodeData(*d);
  }
  if (s.type == compliance::BlobsCollected::kType) {
    auto d = compliance::DecodeBlobGc(e);
    REQUIRE_MESSAGE(d.ok(), d.status().ToString());
    return EncodeEventData(*d);
  }
  if (s.type == compliance::RowsSwept::kType) {
    auto d = compliance::DecodeRetention(e);
    REQUIRE_MESSAGE(d.ok(), d.status().ToString());
    return EncodeEventData(*d);
  }
  if (s.type.rfind("compliance.", 0) == 0) {
    auto d = compliance::DecodeBreach(e);
    REQUIRE_MESSAGE(d.ok(), d.status().ToString());
    return EncodeEventData(*d);
  }
  if (s.type.rfind("kyb.", 0) == 0) {
    auto d = kyb::Decode(e);
    REQUIRE_MESSAGE(d.ok(), d.status().ToString());
    return kyb::EncodeData(*d);
  }
  if (s.type == kyb::ListLoaded::kType) {
    auto d = kyb::DecodeAmlList(e);
    REQUIRE_MESSAGE(d.ok(), d.status().ToString());
    return EncodeEventData(*d);
  }
  if (s.type == kyb::ScreeningCompleted::kType) {
    auto d = kyb::DecodeScreening(e);
    REQUIRE_MESSAGE(d.ok(), d.status().ToString());
    return EncodeEventData(*d);
  }
  if (s.type.rfind("aml.hit_", 0) == 0) {
    auto d = kyb::DecodeHit(e);
    REQUIRE_MESSAGE(d.ok(), d.status().ToString());
    return EncodeEventData(*d);
  }
  if (s.type.rfind("flow.", 0) == 0) {
    auto d = embedded::DecodeFlow(e);
    REQUIRE_MESSAGE(d.ok(), d.status().ToString());
    return EncodeEventData(*d);
  }
  if (s.type.rfind("claims.", 0) == 0) {
    auto d = claims::DecodeClaim(e);
    REQUIRE_MESSAGE(d.ok(), d.status().ToString());
    return EncodeEventData(*d);
  }
  if (s.type.rfind("evidence.", 0) == 0) {
    auto d = audit::DecodeTimestamps(e);
    REQUIRE_MESSAGE(d.ok(), d.status().ToString());
    return EncodeEventData(*d);
  }
  if (s.type.rfind("audit.", 0) == 0) {
    auto d = audit::DecodeAuditLog(e);
    REQUIRE_MESSAGE(d.ok(), d.status().ToString());
    return EncodeEventData(*d);
  }
  if (s.type.rfind("arco.", 0) == 0) {
    auto d = persons::DecodeArco(e);
    REQUIRE_MESSAGE(d.ok(), d.status().ToString());
    return EncodeEventData(*d);
  }
  auto d = review::Decode(e);
  REQUIRE_MESSAGE(d.ok(), d.status().ToString());
  return review::EncodeData(*d);
}

const std::string kGolden = std::string(SVC_TEST_SOURCE_DIR) + "/commands/event_codecs.golden";

}  // namespace

TEST_CASE("event codecs: every event's stored form is the golden one, and reads back the same") {
  std::ostringstream now;
  for (const auto& s : Samples()) now << s.type << " " << s.data << "\n";
  if (std::getenv("SVC_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(kGolden) << now.str();
  }
  std::ifstream in(kGolden);
  REQUIRE(in.good());
  std::stringstream golden;
  golden << in.rdbuf();
  CHECK(now.str() == golden.str());

  std::istringstream lines(golden.str());
  std::string line;
  int n = 0;
  while (std::getline(lines, line)) {
    auto space = line.find(' ');
    Sample s{line.substr(0, space), line.substr(space + 1)};
    CAPTURE(line);
    CHECK(Reencode(s) == s.data);
    ++n;
  }
  CHECK(n == 143);
}

}  // namespace commands_event_codecs_test
