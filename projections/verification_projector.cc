#include "projections/verification_projector.h"

#include <charconv>

#include "commands/verification/session_events.h"
#include "core/clock.h"
#include "core/json.h"

namespace svc::projections {

namespace vs = commands::verification;

void VerificationProjector::AfterCommit() {
  listeners_.Notify();
}

std::string VerificationProjector::StreamId(const eventstore::LogPosition& p) {
  return std::to_string(p.partition) + "-" + std::to_string(p.offset);
}

bool VerificationProjector::ParseStreamId(std::string_view id, eventstore::LogPosition* out) {
  auto dash = id.find('-');
  if (dash == std::string_view::npos || dash == 0 || dash + 1 >= id.size()) return false;
  uint32_t part = 0;
  uint64_t off = 0;
  auto r1 = std::from_chars(id.data(), id.data() + dash, part);
  auto r2 = std::from_chars(id.data() + dash + 1, id.data() + id.size(), off);
  if (r1.ec != std::errc() || r1.ptr != id.data() + dash) return false;
  if (r2.ec != std::errc() || r2.ptr != id.data() + id.size()) return false;
  out->partition = part;
  out->offset = off;
  return true;
}

core::Status VerificationProjector::Apply(const eventstore::RecordedEvent& re, ViewWriter& view) {
  const auto& env = re.event;
  if (env.aggregate_type != "verification_session") return core::Status::Ok();
  SVC_ASSIGN_OR_RETURN(const vs::SessionEvent* decoded, vs::DecodeShared(re));
  const vs::SessionEvent& event = *decoded;
  using V = VerificationView;
  const std::string te = TenantEnv(env.tenant_id, env.environment);
  const std::string& id = env.aggregate_id;
  const std::string at = core::FormatRfc3339(env.occurred_at);
  core::Json sse;  // the progress-stream entry's data; null = none
  std::string type = env.type;

  if (const auto* m = std::get_if<vs::MediaCaptured>(&event)) {
    core::Json r = {{"mediaId", m->media_id},     {"kind", m->kind},
                    {"mime", m->mime},             {"sha256", m->sha256},
                    {"sizeBytes", m->size_bytes},  {"blob", m->blob},
                    {"challengeId", m->challenge_id.empty() ? core::Json(nullptr)
                                                            : core::Json(m->challenge_id)},
                    {"analysis", m->analysis},     {"extractedSealed", m->extracted_sealed},
                    {"capturedAt", at}};
    if (!m->challenge_actions.empty()) r["challengeActions"] = m->challenge_actions;
    if (!m->capture_source.empty()) r["captureSource"] = m->capture_source;
    if (!m->facts_sealed.empty()) r["factsSealed"] = m->facts_sealed;
    if (m->injection.is_object()) r["injection"] = m->injection;
    if (!m->challenge_id.empty()) {
      view.Put(V::ChallengeUsed(te, id, m->challenge_id), core::DumpJson({{"mediaId", m->media_id}}));
    }
    view.Put(V::MediaAt(te, id, static_cast<uint32_t>(env.aggregate_version)), core::DumpJson(r));
    view.Put(V::MediaOwner(te, m->media_id), id);
    sse = {{"mediaId", m->media_id},
           {"kind", m->kind},
           {"analysisStatus", m->analysis.is_object() ? m->analysis["status"] : core::Json(nullptr)}};
  } else if (const auto* ch = std::get_if<vs::LivenessChallengeIssued>(&event)) {
    core::Json r = {{"challengeId", ch->challenge_id},
                    {"actions", ch->actions},
                    {"expiresAt", core::FormatRfc3339(core::Timestamp{ch->expires_at_micros})},
                    {"createdAt", at}};
    view.Put(V::Challenge(te, id, ch->challenge_id), core::DumpJson(r));
  } else if (const auto* s = std::get_if<vs::SessionSubmitted>(&event)) {
    core::Json r = {{"trackingId", s->tracking_id},
                    {"submission", s->submission},
                    {"mediaIds", s->media_ids},
                    {"submittedAt", at}};
    if (!s->efirma_check.empty()) r["efirmaCheck"] = s->efirma_check;
    view.Put(V::Submission(te, id), core::DumpJson(r));
    view.Put(V::Pending(te, id), s->tracking_id);
    sse = {{"trackingId", s->tracking_id}, {"submission", s->submission}};
  } else if (const auto* st = std::get_if<vs::StageCompleted>(&event)) {
    core::Json r = {{"stage", st->stage},
                    {"outcome", st->outcome},
                    {"summary", st->summary},
                    {"detailsSealed", st->details_sealed},
                    {"completedAt", at}};
    view.Put(V::Stage(te, id, st->tracking_id, st->stage), core::DumpJson(r));
    sse = {{"trackingId", st->tracking_id},
           {"stage", st->stage},
           {"outcome", st->outcome},
           {"score", st->summary.contains("score") ? st->summary["score"] : core::Json(nullptr)},
           {"reasonCodes", st->summary.contains("reasonCodes") ? st->summary["reasonCodes"]
                                                               : core::Json::array()}};
  } else if (const auto* v = std::get_if<vs::VerdictReached>(&event)) {
    core::Json r = {{"type", v->type},
                    {"trackingId", v->tracking_id},
                    {"outcome", v->outcome},
                    {"reasonCodes", v->reason_codes},
                    {"trustScore", v->trust_score},
                    {"caseId", v->case_id.empty() ? core::Json(nullptr) : core::Json(v->case_id)},
                    {"decision", v->decision},
                    {"report", v->report},
                    {"trustBreakdown", v->report.is_object() && v->report.contains("trustBreakdown")
                                           ? v->report["trustBreakdown"]
                                           : core::Json(nullptr)},
                    {"decidedAt", at}};
    view.Put(V::Verdict(te, id), core::DumpJson(r));
    view.Delete(V::Pending(te, id));
    sse = {{"trackingId", v->tracking_id},
           {"outcome", v->outcome},
           {"reasonCodes", v->reason_codes},
           {"trustScore", v->trust_score}};
  } else if (const auto* c = std::get_if<vs::ConsentRecorded>(&event)) {
    sse = {{"consentGiven", c->accepted}};
  } else if (std::holds_alternative<vs::MediaPurged>(event)) {
    // Each capture keeps its record (kind, hash, size), marked purged: the bytes are gone.
    std::vector<std::pair<std::string, std::string>> rows;
    const std::string media = V::Media(te, id);
    SVC_RETURN_IF_ERROR(view.Scan(media, eventstore::PrefixEnd(media), [&](std::string_view key, std::string_view value) {
      core::Json r = core::ParseJsonOrDiscarded(value);
      if (r.is_object()) {
        r["purgedAt"] = at;
        rows.emplace_back(key, core::DumpJson(r));
      }
      return true;
    }));
    for (const auto& [key, value] : rows) view.Put(key, value);
  } else if (std::holds_alternative<vs::SessionExpired>(event)) {
    sse = core::Json::object();
  } else if (const auto* cr = std::get_if<vs::SessionCreated>(&event)) {
    // Only sessions that chose checks or a policy have a settings row: no row = the defaults
    // (its readers read it after rows of this same batch, so absent never means "not yet").
    if (!cr->checks.is_null() || !cr->policy.is_null()) {
      view.Put(V::Settings(te, id), core::DumpJson(core::Json{{"checks", cr->checks},
                                                             {"policy", cr->policy}}));
    }
    sse = core::Json::object();
  }
  if (!sse.is_null()) {
    // The stream entry: `event:` is the event type, `data:` what a progress UI needs.
    core::Json entry = {{"type", type}, {"at", at}, {"sessionId", env.aggregate_id}};
    for (auto it = sse.begin(); it != sse.end(); ++it) entry[it.key()] = *it;
    view.Put(V::StreamAt(te, id, re.position), core::DumpJson(entry));
  }
  return core::Status::Ok();
}

}  // namespace svc::projections
