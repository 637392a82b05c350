// The aggregates of the audit and compliance areas, given / when / then: published checkpoints
// never go back, retention sweeps never go back, and a session's captures are purged once, only
// when completed and due.
#include <doctest/doctest.h>

#include "commands/audit/checkpoint.h"
#include "commands/audit/timestamps.h"
#include "commands/compliance/blob_gc.h"
#include "commands/compliance/breach.h"
#include "commands/compliance/retention.h"
#include "commands/verification/session_decider.h"
#include "tests/support/decider_spec.h"

namespace commands_compliance_deciders_test {

using namespace svc;
using namespace svc::commands;
using svc::testing::Data;
using svc::testing::DeciderSpec;
using svc::testing::Types;

namespace {

audit::PublishCheckpoint Checkpoint(int64_t size) {
  audit::PublishCheckpoint c;
  c.checkpoint.origin = "svc/audit/ten_00000000000000000000000000000001/test";
  c.checkpoint.tree_size = size;
  c.checkpoint.root_hash = std::string(64, 'a');
  c.checkpoint.checkpoint = "note " + std::to_string(size);
  return c;
}

compliance::SweepRows Sweep(int64_t before) {
  compliance::SweepRows c;
  c.swept.resource = std::string(compliance::kWebhookDeliveriesResource);
  c.swept.before_micros = before;
  c.swept.retention_days = 30;
  return c;
}

}  // namespace

TEST_CASE("audit log: a checkpoint is recorded when the tree grew, never for a size already published") {
  DeciderSpec<audit::AuditLogDecider> spec;
  auto first = spec.When(Checkpoint(3));
  REQUIRE(first.ok());
  CHECK(Types(*first) == std::vector<std::string>{"audit.checkpoint_published"});
  CHECK(Data(first->events[0])["treeSize"] == 3);
  CHECK(first->result["published"] == true);
  CHECK(spec.state.published_size == 3);
  for (int64_t size : {3, 2}) {
    auto again = spec.When(Checkpoint(size));
    REQUIRE(again.ok());
    CHECK(again->events.empty());
    CHECK(again->result["published"] == false);
  }
  REQUIRE(spec.When(Checkpoint(5)).ok());
  CHECK(spec.state.published_size == 5);
  spec.CheckSnapshot();
  auto bad = Checkpoint(0);
  CHECK_FALSE(spec.When(bad).ok());
  bad = Checkpoint(9);
  bad.checkpoint.root_hash = "short";
  CHECK_FALSE(spec.When(bad).ok());
}

TEST_CASE("evidence timestamps: one token per digest; a repeat settles its queue entry; what is not a token is refused") {
  DeciderSpec<audit::TimestampsDecider> spec;
  audit::RecordTimestamp c;
  c.token.kind = "verification_certificate";
  c.token.subject = "vrf_00000000000000000000000000000001";
  c.token.digest = std::string(64, 'a');
  c.token.token = "MIIB";
  c.token.gen_time = "2026-11-28T10:00:00Z";
  c.token.queue_event_id = "evt_1";
  auto first = spec.When(c);
  REQUIRE(first.ok());
  CHECK(Types(*first) == std::vector<std::string>{"evidence.timestamped"});
  CHECK(Data(first->events[0])["digest"] == std::string(64, 'a'));
  CHECK(first->result["recorded"] == true);
  // The same digest again (asked again, or a second node): no second token, the entry settled.
  c.token.queue_event_id = "evt_2";
  auto again = spec.When(c);
  REQUIRE(again.ok());
  CHECK(Types(*again) == std::vector<std::string>{"evidence.timestamp_settled"});
  CHECK(Data(again->events[0])["queueEventId"] == "evt_2");
  CHECK(again->result["recorded"] == false);
  audit::RecordTimestamp settle_only = c;
  settle_only.token.token.clear();
  CHECK(spec.When(settle_only)->result["recorded"] == false);
  // Another digest (the evidence changed): a token of its own.
  c.token.digest = std::string(64, 'b');
  CHECK(spec.When(c)->result["recorded"] == true);
  CHECK(spec.state.digests.size() == 2);
  spec.CheckSnapshot();
  // Refused: no token for a digest not stamped, an unknown kind, a digest that is no SHA-256 hex.
  auto bad = c;
  bad.token.digest = std::string(64, 'c');
  bad.token.token.clear();
  CHECK(spec.When(bad).status().code() == core::StatusCode::kInvalidArgument);
  bad = c;
  bad.token.kind = "contract";
  CHECK_FALSE(spec.When(bad).ok());
  bad = c;
  bad.token.digest = std::string(64, 'A');
  CHECK_FALSE(spec.When(bad).ok());
  bad.token.digest = "abc";
  CHECK_FALSE(spec.When(bad).ok());
}

TEST_CASE("evidence timestamps: an answered bundle's digest is recorded once; another digest for it is refused") {
  DeciderSpec<audit::TimestampsDecider> spec;
  audit::RecordEvidence c;
  c.evidence = {"person_export", "pxb_00000000000000000000000000000001", std::string(64, 'a'), 2048,
                "per_00000000000000000000000000000001", "2026-11-28T10:00:00Z", ""};
  auto first = spec.When(c);
  REQUIRE(first.ok());
  CHECK(Types(*first) == std::vector<std::string>{"evidence.recorded"});
  CHECK(Data(first->events[0])["sizeBytes"] == 2048);
  CHECK(first->result["recorded"] == true);
  CHECK(spec.state.recorded == std::string(64, 'a'));
  spec.CheckSnapshot();
  // The same again (a retried append): nothing new.
  auto again = spec.When(c);
  REQUIRE(again.ok());
  CHECK(again->events.empty());
  CHECK(again->result["recorded"] == false);
  // Evidence does not change.
  auto other = c;
  other.evidence.digest = std::string(64, 'b');
  CHECK(spec.When(other).status().code() == core::StatusCode::kAlreadyExists);
  // Only a person's bundle, with its person and size; a digest that is SHA-256 hex.
  auto bad = c;
  bad.evidence.kind = "verification_certificate";
  CHECK(spec.When(bad).status().code() == core::StatusCode::kInvalidArgument);
  bad = c;
  bad.evidence.person_id.clear();
  CHECK(spec.When(bad).status().code() == core::StatusCode::kInvalidArgument);
  bad = c;
  bad.evidence.digest = "abc";
  CHECK(spec.When(bad).status().code() == core::StatusCode::kInvalidArgument);
}

TEST_CASE("retention: a sweep cutoff is recorded once per advance, for a known resource") {
  DeciderSpec<compliance::RetentionDecider> spec;
  auto first = spec.When(Sweep(1000));
  REQUIRE(first.ok());
  CHECK(Types(*first) == std::vector<std::string>{"compliance.rows_swept"});
  CHECK(Data(first->events[0])["beforeMicros"] == 1000);
  CHECK(spec.When(Sweep(1000))->events.empty());
  CHECK(spec.When(Sweep(999))->events.empty());
  CHECK(spec.When(Sweep(2000))->events.size() == 1);
  spec.CheckSnapshot();
  auto other = Sweep(3000);
  other.swept.resource = "sessions";
  CHECK_FALSE(spec.When(other).ok());
}

TEST_CASE("blob gc: what the collector deleted is recorded; an empty, oversized or malformed record is refused") {
  DeciderSpec<compliance::BlobGcDecider> spec;
  compliance::RecordCollected c;
  c.collected.addresses = {std::string(64, 'a'), std::string(64, 'b')};
  c.collected.bytes = 4096;
  c.collected.grace_seconds = 86400;
  auto first = spec.When(c);
  REQUIRE(first.ok());
  CHECK(Types(*first) == std::vector<std::string>{"compliance.blobs_collected"});
  CHECK(Data(first->events[0])["addresses"].size() == 2);
  CHECK(Data(first->events[0])["graceSeconds"] == 86400);
  CHECK(first->result["deleted"] == 2);
  c.collected.addresses = {std::string(64, 'c')};
  CHECK(spec.When(c)->result["deleted"] == 3);
  CHECK(spec.state.deleted == 3);
  spec.CheckSnapshot();
  compliance::RecordCollected bad;
  CHECK_FALSE(spec.When(bad).ok());  // names nothing
  bad.collected.addresses = {"media/../etc/passwd"};
  CHECK_FALSE(spec.When(bad).ok());
  bad.collected.addresses.assign(compliance::kMaxCollectedPerEvent + 1, std::string(64, 'd'));
  CHECK_FALSE(spec.When(bad).ok());
  bad.collected.addresses = {std::string(64, 'd')};
  bad.collected.bytes = -1;
  CHECK_FALSE(spec.When(bad).ok());
}

TEST_CASE("session: captures are purged once, after completion plus the retention period") {
  namespace vs = verification;
  DeciderSpec<vs::SessionDecider> spec;
  vs::CreateSession create;
  create.created.channel = "api";
  create.created.expires_at_micros = testing::kSpecT0 + 86'400'000'000;
  REQUIRE(spec.When(vs::SessionCommand(create)).ok());
  REQUIRE(spec.When(vs::SessionCommand(vs::RecordConsent{true, 0, "", ""})).ok());
  vs::CaptureMedia capture;
  capture.media.media_id = "med_00000000000000000000000000000001";
  capture.media.kind = "selfie";
  capture.media.mime = "image/jpeg";
  REQUIRE(spec.When(vs::SessionCommand(capture)).ok());
  // Open: not purged, whatever the period.
  auto open = spec.When(vs::SessionCommand(vs::PurgeMedia{0}));
  REQUIRE(open.ok());
  CHECK(open->events.empty());
  // Expired (completed) now; due two days later.
  spec.ctx.now = core::Timestamp{testing::kSpecT0 + 86'400'000'000};
  REQUIRE(spec.When(vs::SessionCommand(vs::ExpireSession{}))->events.size() == 1);
  CHECK(spec.When(vs::SessionCommand(vs::PurgeMedia{2}))->events.empty());
  spec.ctx.now = core::Timestamp{testing::kSpecT0 + 3 * 86'400'000'000};
  auto purged = spec.When(vs::SessionCommand(vs::PurgeMedia{2}));
  REQUIRE(purged.ok());
  CHECK(Types(*purged) == std::vector<std::string>{"verification.media_purged"});
  CHECK(Data(purged->events[0])["mediaIds"] == core::Json::array({"med_00000000000000000000000000000001"}));
  CHECK(Data(purged->events[0])["retentionDays"] == 2);
  CHECK(spec.state.media_purged);
  CHECK(spec.state.status == "expired");
  CHECK(spec.When(vs::SessionCommand(vs::PurgeMedia{2}))->events.empty());  // once
  spec.CheckSnapshot();
  DeciderSpec<vs::SessionDecider> none;
  CHECK(none.When(vs::SessionCommand(vs::PurgeMedia{2})).status().code() == core::StatusCode::kNotFound);
}

TEST_CASE("breach: notified once, the answer decided with it (a replay answers the same)") {
  DeciderSpec<compliance::BreachDecider> spec;
  spec.aggregate_id = "brc_1";  // the writer's aggregate is the breach (DeciderSpec checks the answer told again)
  compliance::BreachNotified n;
  n.severity = "high";
  n.scope = "an export left unencrypted";
  n.detected_micros = 1767225600LL * 1000000;
  n.notified_by = "key_1";
  auto d = spec.When(compliance::NotifyBreach{n, "brc_1"});
  REQUIRE(d.ok());
  CHECK(Types(*d) == std::vector<std::string>{"compliance.breach_notified"});
  CHECK(d->result == core::Json{{"object", "compliance.breach_notification"},
                                {"breachId", "brc_1"},
                                {"detectedAt", "2026-01-01T00:00:00.000Z"},
                                {"scope", "an export left unencrypted"},
                                {"severity", "high"}});
  CHECK(testing::Code(spec.When(compliance::NotifyBreach{n, "brc_1"}).status()) == "CONFLICT");
}

}  // namespace commands_compliance_deciders_test
