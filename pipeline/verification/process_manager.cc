#include "pipeline/verification/process_manager.h"
#include "pipeline/verification/sealed_media.h"

#include "commands/writer.h"
#include "core/clock.h"
#include "core/executor.h"
#include "eventstore/kv_store.h"
#include "pipeline/verification/stage_details.h"
#include "projections/runner.h"

#include <chrono>

#include "commands/review/case_decider.h"
#include "commands/verification/session_decider.h"
#include "core/crypto.h"
#include "core/log.h"
#include "pipeline/verification/builtin_engines.h"
#include "pipeline/verification/efirma_check.h"
#include "projections/efirma_view.h"
#include "pipeline/verification/injection.h"
#include "pipeline/verification/policy.h"
#include "projections/projector.h"
#include "projections/sessions_projector.h"

namespace svc::pipeline::verification {

namespace vs = commands::verification;
namespace rv = commands::review;

namespace {

constexpr std::chrono::seconds kApplyTimeout{30};

using SV = projections::SessionsView;
using VV = projections::VerificationView;
using EV = projections::EfirmaView;

int64_t MillisSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t)
      .count();
}

}  // namespace

VerificationPipeline::VerificationPipeline(const Options& options)
    : options_(options), loop_("svc-pipeline", [this] { Dispatch(); }, [this] { return NothingDue(); }) {
  if (options_.metrics != nullptr) {
    stages_ = &options_.metrics->GetCounter("svc_pipeline_stages_total",
                                            "Verification pipeline stage results recorded");
    verdicts_ = &options_.metrics->GetCounter("svc_pipeline_verdicts_total",
                                              "Verification verdicts recorded");
    failures_ = &options_.metrics->GetCounter("svc_pipeline_failures_total",
                                              "Pipeline runs that stopped on an error (retried)");
  }
}

VerificationPipeline::~VerificationPipeline() { Stop(); }

core::Status VerificationPipeline::Start() {
  pool_ = std::make_unique<core::ThreadPool>(std::max<size_t>(1, options_.workers));
  // Woken by every committed batch of the verification read model; the loop's own second retries
  // runs that stopped on an error (a periodic safety net, not synchronisation).
  listener_ = options_.projector->AddListener([this] { loop_.Wake(); });
  loop_.Start();
  if (options_.jobs != nullptr && options_.take) {
    return options_.jobs->Consume([this](eventstore::JobRecord r) { OnJob(std::move(r)); },
                                  [this](uint32_t p, bool) { OnRevoked(p); });
  }
  return core::Status::Ok();
}

void VerificationPipeline::Stop() {
  {
    std::lock_guard lock(mu_);
    if (stopping_) return;
    stopping_ = true;
    halted_.notify_all();
  }
  // The workers' group first: its partitions' jobs stop and the others are given them at once.
  if (options_.jobs != nullptr) options_.jobs->Leave();
  listener_.Reset();
  loop_.Stop();
  pool_.reset();  // runs what is queued; each job ends at its next command (the log is open)
  if (options_.jobs != nullptr) options_.jobs->Close();
}

core::Result<std::vector<VerificationPipeline::Job>> VerificationPipeline::Pending() const {
  std::vector<Job> jobs;
  int cf = options_.store->Cf(projections::kViewsCf);
  std::string prefix = VV::Abs(VV::PendingAll());
  auto it = options_.store->NewIterator(cf, prefix, eventstore::PrefixEnd(prefix));
  for (it->Seek(prefix); it->Valid(); it->Next()) {
    auto s = projections::ParseScopedId(it->key().substr(prefix.size()));
    if (!s || !options_.Owns(s->tenant)) continue;  // another node's partition
    jobs.push_back({s->tenant, s->environment, s->id, std::string(it->value())});
  }
  SVC_RETURN_IF_ERROR(it->status());
  return jobs;
}

void VerificationPipeline::Dispatch() {
  if (options_.jobs == nullptr) return DispatchLocal();
  if (options_.publish) PublishPending();
  if (options_.take) RunTaken();
}

void VerificationPipeline::DispatchLocal() {
  auto jobs = Pending();
  if (!jobs.ok()) {
    core::LogWarn("pipeline: cannot read pending submissions", {{"error", jobs.status().ToString()}});
    return;
  }
  std::lock_guard lock(mu_);
  for (auto& job : *jobs) {
    if (active_.count(job.session) > 0) continue;
    active_.insert(job.session);
    pool_->Post([this, job] {
      auto st = Process(job);
      if (!st.ok()) {
        if (failures_ != nullptr) failures_->Add();
        core::LogWarn("pipeline run stopped; it resumes on the next pass",
                      {{"sessionId", job.session}, {"trackingId", job.tracking}, {"error", st.ToString()}});
      }
      {
        std::lock_guard l(mu_);
        active_.erase(job.session);
      }
      loop_.Wake();  // a failed run is retried; WaitIdle looks again
    });
  }
}

bool VerificationPipeline::NothingDue() {
  {
    std::lock_guard lock(mu_);
    if (!active_.empty() || !waiting_.empty()) return false;
  }
  // A node that only runs jobs has nothing pending of its own; the others are idle once every
  // submission of theirs has its verdict in their read model.
  if (options_.jobs != nullptr && !options_.publish) return true;
  auto pending = Pending();
  return pending.ok() && pending->empty();
}

void VerificationPipeline::PublishPending() {
  auto pending = Pending();
  if (!pending.ok()) {
    core::LogWarn("pipeline: cannot read pending submissions", {{"error", pending.status().ToString()}});
    return;
  }
  // Where this node's verification read model is: a worker waits until its own holds as much.
  std::vector<uint64_t> applied = options_.projections->AppliedOffsets(options_.projector->Name());
  std::vector<std::pair<std::string, std::string>> out;
  std::map<std::string, std::string> now;
  for (const Job& job : *pending) {
    std::string key = job.tenant + "/" + job.env + "/" + job.session;
    now[key] = job.tracking;
    if (auto it = published_.find(key); it != published_.end() && it->second == job.tracking) continue;
    core::Json payload = {{"tenantId", job.tenant}, {"environment", job.env}, {"sessionId", job.session},
                          {"trackingId", job.tracking}};
    if (!applied.empty()) {
      const uint32_t p = eventstore::PartitionForTenant(job.tenant, static_cast<uint32_t>(applied.size()));
      if (applied[p] > 0) payload["at"] = {p, applied[p] - 1};
    }
    out.emplace_back(key, payload.dump());
  }
  if (!out.empty()) {
    if (auto st = options_.jobs->Publish(out); !st.ok()) {
      core::LogWarn("pipeline: cannot publish verification jobs; retrying", {{"error", st.ToString()}});
      return;
    }
  }
  // What the topic holds for the submissions still pending (a decided one leaves the map).
  published_.swap(now);
}

void VerificationPipeline::OnJob(eventstore::JobRecord record) {
  Taken t;
  t.partition = record.partition;
  t.offset = record.offset;
  core::Json j = core::ParseJsonOrDiscarded(record.payload);
  t.job.tenant = core::StringOr(j, "tenantId");
  t.job.env = core::StringOr(j, "environment");
  t.job.session = core::StringOr(j, "sessionId");
  t.job.tracking = core::StringOr(j, "trackingId");
  if (t.job.tenant.empty() || t.job.env.empty() || t.job.session.empty() || t.job.tracking.empty()) {
    core::LogWarn("pipeline: a verification job that is not one; skipped",
                  {{"partition", record.partition}, {"offset", record.offset}});
    options_.jobs->Done(record.partition, record.offset);
    return;
  }
  if (auto at = j.find("at"); at != j.end() && at->is_array() && at->size() == 2 && (*at)[0].is_number_unsigned() &&
                              (*at)[1].is_number_unsigned()) {
    t.at = eventstore::LogPosition{(*at)[0].get<uint32_t>(), (*at)[1].get<uint64_t>()};
  }
  t.cancel = std::make_shared<std::atomic<bool>>(false);
  {
    std::lock_guard lock(mu_);
    waiting_.push_back(std::move(t));
  }
  loop_.Wake();
}

void VerificationPipeline::OnRevoked(uint32_t partition) {
  std::unique_lock lock(mu_);
  std::erase_if(waiting_, [&](const Taken& t) { return t.partition == partition; });
  auto mine = [&] {
    for (const auto& [at, cancel] : running_) {
      if (at.first == partition) return true;
    }
    return false;
  };
  for (auto& [at, cancel] : running_) {
    if (at.first == partition) cancel->store(true);
  }
  // A running job stops before its next recorded stage (a stage's engine work is seconds at most).
  if (!ended_.wait_for(lock, std::chrono::seconds(60), [&] { return !mine(); })) {
    core::LogWarn("pipeline: a verification job did not stop in time; its partition goes anyway",
                  {{"partition", partition}});
  }
}

void VerificationPipeline::RunTaken() {
  std::lock_guard lock(mu_);
  const auto now = std::chrono::steady_clock::now();
  for (auto it = waiting_.begin(); it != waiting_.end();) {
    if (stopping_ || it->not_before > now || active_.count(it->job.session) > 0) {
      ++it;
      continue;
    }
    Taken t = std::move(*it);
    it = waiting_.erase(it);
    active_.insert(t.job.session);
    running_[{t.partition, t.offset}] = t.cancel;
    pool_->Post([this, t]() mutable {
      core::Status st = RunJob(t);
      const bool cancelled = t.cancel->load();
      if (st.ok()) options_.jobs->Done(t.partition, t.offset);
      if (!st.ok() && !cancelled) {
        if (failures_ != nullptr) failures_->Add();
        core::LogWarn("pipeline job stopped; it runs again in a second",
                      {{"sessionId", t.job.session}, {"trackingId", t.job.tracking}, {"error", st.ToString()}});
      }
      {
        std::lock_guard l(mu_);
        active_.erase(t.job.session);
        running_.erase({t.partition, t.offset});
        if (!st.ok() && !cancelled && !stopping_) {
          t.not_before = std::chrono::steady_clock::now() + std::chrono::seconds(1);
          waiting_.push_back(std::move(t));
        }
        ended_.notify_all();
      }
      loop_.Wake();
    });
  }
}

core::Status VerificationPipeline::RunJob(const Taken& t) {
  if (t.at.has_value() && !options_.projections->WaitApplied({*t.at}, kApplyTimeout)) {
    return core::Unavailable("this node's read models do not hold the job's submission yet");
  }
  const std::string te = projections::TenantEnv(t.job.tenant, t.job.env);
  SVC_ASSIGN_OR_RETURN(auto pending, options_.store->Get(options_.store->Cf(projections::kViewsCf),
                                                         VV::Abs(VV::Pending(te, t.job.session))));
  // Decided already (a job given again after its verdict), or a newer submission's job follows.
  if (!pending.has_value() || *pending != t.job.tracking) return core::Status::Ok();
  return Process(t.job, t.cancel.get());
}

bool VerificationPipeline::WaitIdle(std::chrono::milliseconds timeout) { return loop_.WaitIdle(timeout); }

core::Status VerificationPipeline::Process(const Job& job, const std::atomic<bool>* cancel) {
  const auto& st = *options_.store;
  int cf = st.Cf(projections::kViewsCf);
  const std::string base = job.tenant + "/" + job.env + "/" + job.session;  // sealing context
  const std::string te = projections::TenantEnv(job.tenant, job.env);
  auto read = [&](const std::string& key) -> core::Result<core::Json> {
    SVC_ASSIGN_OR_RETURN(auto row, st.Get(cf, key));
    if (!row.has_value()) return core::Json(nullptr);
    return core::ParseJsonOrDiscarded(*row);
  };
  auto scan = [&](const std::string& prefix) -> core::Result<std::vector<core::Json>> {
    std::vector<core::Json> out;
    auto it = st.NewIterator(cf, prefix, eventstore::PrefixEnd(prefix));
    for (it->Seek(prefix); it->Valid(); it->Next()) {
      out.push_back(core::ParseJsonOrDiscarded(it->value()));
    }
    SVC_RETURN_IF_ERROR(it->status());
    return out;
  };

  SVC_ASSIGN_OR_RETURN(core::Json sub, read(VV::Abs(VV::Submission(te, job.session))));
  if (!sub.is_object()) {
    return core::Unavailable("the session's rows are not projected yet");
  }
  if (core::StringOr(sub, "trackingId") != job.tracking) {
    return core::Unavailable("the pending submission is not the latest one yet");
  }
  SVC_ASSIGN_OR_RETURN(core::Json settings, read(VV::Abs(VV::Settings(te, job.session))));
  core::Json checks = settings.is_object() ? settings["checks"] : core::Json(nullptr);
  core::Json policy_in = settings.is_object() ? settings["policy"] : core::Json(nullptr);
  Policy policy = Policy::FromSession(checks, policy_in);
  EngineContext ectx;
  ectx.environment = job.env;
  ectx.submission = static_cast<int>(core::IntOr(sub, "submission", 1));
  ectx.test_outcome = TestOutcomeFor(job.env, policy_in);
  ectx.today = DateOf(options_.clock->Now());
  VerificationEngine& engine =
      ectx.test_outcome.empty() ? *options_.engine : *options_.sandbox_engine;
  GovRegistry& registry = job.env == "test" ? *options_.sandbox_registry : *options_.live_registry;

  // The submission's captures: the latest of each kind.
  std::set<std::string> in_submission;
  for (const auto& id : sub["mediaIds"]) {
    if (id.is_string()) in_submission.insert(id.get<std::string>());
  }
  SVC_ASSIGN_OR_RETURN(auto media_rows, scan(VV::Abs(VV::Media(te, job.session))));
  std::map<std::string, core::Json> latest;  // kind -> row
  int analysis_errors = 0;
  for (const auto& m : media_rows) {
    if (in_submission.count(core::StringOr(m, "mediaId")) == 0) continue;
    latest[core::StringOr(m, "kind")] = m;
  }
  for (const auto& [kind, m] : latest) {
    if (m["analysis"].is_object() && core::StringOr(m["analysis"], "status") == "error") {
      ++analysis_errors;
    }
  }
  std::set<std::string> kinds;
  for (const auto& [k, m] : latest) kinds.insert(k);
  auto missing = MissingCaptures(policy, kinds);
  auto is_missing = [&](std::string_view code) {
    return std::find(missing.begin(), missing.end(), code) != missing.end();
  };

  std::string key_name = eventstore::KeyStore::SessionKeyName(job.tenant, job.env, job.session);
  std::string dek;
  if (!latest.empty()) {
    SVC_ASSIGN_OR_RETURN(auto k, options_.keys->Get(key_name));
    if (!k.has_value()) return core::DataLoss("the session's data key is gone");
    dek = std::move(*k);
  }
  std::map<std::string, Capture> captures;
  auto capture = [&](const std::string& kind) -> core::Result<const Capture*> {
    auto it = latest.find(kind);
    if (it == latest.end()) return static_cast<const Capture*>(nullptr);
    if (auto c = captures.find(kind); c != captures.end()) return &c->second;
    const core::Json& m = it->second;
    Capture c;
    c.media_id = core::StringOr(m, "mediaId");
    c.kind = kind;
    c.mime = core::StringOr(m, "mime");
    if (auto ch = m.find("challengeActions"); ch != m.end() && ch->is_array()) {
      for (const auto& a : *ch) {
        if (a.is_string()) c.challenge.push_back(a.get<std::string>());
      }
    }
    SVC_ASSIGN_OR_RETURN(c.bytes, OpenMediaWhole(*options_.blobs, core::StringOr(m, "blob"), dek,
                                                 "media|" + base + "|" + c.media_id));
    return &captures.emplace(kind, std::move(c)).first->second;
  };

  auto context = [&] {
    return commands::SystemContext(options_.clock->Now(), options_.ids, "verification-pipeline", job.env, job.tracking);
  };
  auto run = [&](commands::Command cmd) -> core::Status {
    // A job given back to the workers' group records nothing more: its next owner goes on.
    if (cancel != nullptr && cancel->load()) return core::Aborted("the job moved to another worker");
    SVC_ASSIGN_OR_RETURN(auto outcome, options_.writer->ExecuteAndWait(std::move(cmd)));
    if (!outcome.positions.empty() &&
        !options_.projections->WaitApplied(outcome.positions, kApplyTimeout)) {
      return core::Unavailable("the read models did not apply a pipeline event in time");
    }
    return core::Status::Ok();
  };

  std::string stage_prefix = VV::Abs(VV::Stages(te, job.session, job.tracking));
  auto load_stages = [&]() -> core::Result<std::map<std::string, core::Json>> {
    std::map<std::string, core::Json> out;
    for (auto name : kStages) {
      SVC_ASSIGN_OR_RETURN(core::Json row, read(stage_prefix + std::string(name)));
      if (row.is_object()) out[std::string(name)] = row;
    }
    return out;
  };
  SVC_ASSIGN_OR_RETURN(auto done, load_stages());
  auto today = [&] { return DateOf(options_.clock->Now()); };
  auto document_details = [&]() -> core::Result<core::Json> {
    auto it = done.find("document");
    if (it == done.end()) return core::Json(nullptr);
    std::string sealed = core::StringOr(it->second, "detailsSealed");
    if (sealed.empty()) return core::Json(nullptr);
    return OpenStageDetails(dek, {job.tenant, job.env, job.session, job.tracking, "document"}, sealed);
  };

  for (auto name_view : kStages) {
    std::string name(name_view);
    if (done.count(name) > 0) continue;  // recorded before a restart: never run twice
    StageOutput out;
    auto t0 = std::chrono::steady_clock::now();
    if (name == "document") {
      if (!policy.Enabled("document")) {
        out = SkippedStage("CHECK_DISABLED");
      } else if (is_missing("DOCUMENT_FRONT_REQUIRED")) {
        std::vector<std::string> sides = {"DOCUMENT_FRONT_REQUIRED"};
        if (is_missing("DOCUMENT_BACK_REQUIRED")) sides.push_back("DOCUMENT_BACK_REQUIRED");
        out = SkippedStage(std::move(sides));
      } else {
        SVC_ASSIGN_OR_RETURN(const Capture* front, capture("document_front"));
        SVC_ASSIGN_OR_RETURN(const Capture* back, capture("document_back"));
        DocumentReading reading = engine.ReadDocument(*front, back, ectx);
        out = DocumentStage(reading, today(), MillisSince(t0), engine.Name());
      }
    } else if (name == "liveness") {
      if (!policy.Enabled("liveness")) {
        out = SkippedStage("CHECK_DISABLED");
      } else if (is_missing("LIVENESS_VIDEO_REQUIRED")) {
        out = SkippedStage("LIVENESS_VIDEO_REQUIRED");
      } else {
        SVC_ASSIGN_OR_RETURN(const Capture* video, capture("liveness_video"));
        out = LivenessStage(policy, engine.Liveness(*video, ectx), MillisSince(t0));
        if (core::StringOr(latest.at("liveness_video"), "captureSource") == "file") MarkLivenessFromFile(out);
      }
    } else if (name == "face_match") {
      if (!policy.Enabled("faceMatch")) {
        out = SkippedStage("CHECK_DISABLED");
      } else if (is_missing("SELFIE_REQUIRED")) {
        out = SkippedStage("SELFIE_REQUIRED");
      } else if (is_missing("DOCUMENT_FRONT_REQUIRED")) {
        out = SkippedStage("DOCUMENT_FRONT_REQUIRED");
      } else {
        SVC_ASSIGN_OR_RETURN(const Capture* face, capture("selfie"));
        if (face == nullptr) {
          SVC_ASSIGN_OR_RETURN(face, capture("liveness_video"));
        }
        SVC_ASSIGN_OR_RETURN(const Capture* front, capture("document_front"));
        BiometricScore match = engine.FaceMatch(*face, *front, ectx);
        // The person in the liveness video must be the person on the document too (else a live
        // video of one person could carry a photo selfie of another): the lower score counts.
        std::optional<double> video_score;
        if (face->kind == "selfie" && match.status == "ok" && match.score.has_value()) {
          SVC_ASSIGN_OR_RETURN(const Capture* video, capture("liveness_video"));
          if (video != nullptr) {
            BiometricScore v = engine.FaceMatch(*video, *front, ectx);
            if (v.status == "ok" && v.score.has_value()) {
              video_score = v.score;
              if (*v.score < *match.score) {
                match.score = v.score;
                match.reasons.push_back("LIVENESS_FACE_MISMATCH");
              }
            }
          }
        }
        out = FaceMatchStage(policy, match, MillisSince(t0));
        if (!match.embedding.empty()) {
          // The selfie's embedding, sealed with the stage details, for re-authentication.
          out.details = {{"selfieEmbedding", match.embedding},
                         {"modelName", match.model_name},
                         {"mediaId", face->media_id},
                         {"videoScore", video_score ? core::Json(*video_score) : core::Json(nullptr)}};
        }
        std::optional<double> q1 = engine.ImageQuality(*face, ectx);
        std::optional<double> q2 = engine.ImageQuality(*front, ectx);
        std::optional<double> quality;
        if (q1 && q2) quality = std::min(*q1, *q2);
        else if (q1 || q2) quality = q1 ? q1 : q2;
        ApplyImageQuality(policy, quality, out);
        out.summary["latencyMs"] = MillisSince(t0);
      }
    } else if (name == "deepfake") {
      if (!policy.Enabled("deepfake")) {
        out = SkippedStage("CHECK_DISABLED");
      } else {
        SVC_ASSIGN_OR_RETURN(const Capture* selfie, capture("selfie"));
        SVC_ASSIGN_OR_RETURN(const Capture* video, capture("liveness_video"));
        if (selfie == nullptr && video == nullptr) {
          out = SkippedStage("NO_FACE_CAPTURE");
        } else {
          BiometricScore signals = engine.AttackSignals(selfie, video, ectx);
          // The injection signals kept with the captures at upload, and the liveness video's
          // container (docs/biometrics.md#injection-signals). A forced test outcome forces this
          // score too: the sandbox's stays its own.
          if (ectx.test_outcome.empty()) {
            std::vector<InjectionSignal> injection;
            for (const char* kind : {"selfie", "liveness_video"}) {
              auto it = latest.find(kind);
              if (it == latest.end()) continue;
              const core::Json& kept = it->second.value("injection", core::Json());
              if (!kept.is_object() || !kept.value("signals", core::Json()).is_object()) continue;
              for (const auto& [code, score] : kept["signals"].items()) {
                if (score.is_number()) injection.push_back({code, score.get<double>()});
              }
            }
            if (video != nullptr) {
              auto container = EvaluateContainer(ReadContainerFacts(video->bytes),
                                                 core::StringOr(latest.at("liveness_video"), "captureSource"));
              injection.insert(injection.end(), container.begin(), container.end());
            }
            JoinInjectionSignals(signals, injection);
          }
          out = DeepfakeStage(policy, signals, MillisSince(t0));
        }
      }
    } else if (name == "gov_curp" || name == "gov_ine") {
      SVC_ASSIGN_OR_RETURN(core::Json details, document_details());
      std::string doc_type;
      if (auto it = done.find("document"); it != done.end()) {
        doc_type = core::StringOr(it->second["summary"], "documentType");
      }
      std::string doc_outcome;
      if (auto it = done.find("document"); it != done.end()) {
        doc_outcome = core::StringOr(it->second, "outcome");
      }
      if (!policy.Enabled("governmentLookup")) {
        out = SkippedStage("CHECK_DISABLED");
      } else if (is_missing("DOCUMENT_FRONT_REQUIRED")) {
        out = SkippedStage("DOCUMENT_FRONT_REQUIRED");
      } else if (doc_outcome == "incomplete") {
        out = SkippedStage("DOCUMENT_INCOMPLETE");  // asked again with the document
      } else if (name == "gov_curp") {
        CurpLookup l;
        std::string curp = core::StringOr(details, "curp");
        if (!curp.empty()) l = registry.LookupCurp(curp);
        out = GovCurpStage(l, details, MillisSince(t0), registry.Name());
      } else if (doc_type != "ine") {
        out = SkippedStage("NOT_AN_INE");
      } else {
        IneQuery q;
        q.cic = core::StringOr(details, "cic");
        q.identificador_ciudadano = core::StringOr(details, "identificadorCiudadano");
        IneLookup l;
        if (q.cic.empty()) {
          l.status = "unavailable";
          l.error_code = "GOV_NO_CIC_READ";
        } else {
          l = registry.LookupIne(q);
        }
        out = GovIneStage(l, MillisSince(t0), registry.Name());
      }
      if (!policy.require_government_lookup && out.outcome == "unavailable") {
        out.outcome = "skipped";  // the session's policy does not require it
      }
    } else if (name == "efirma") {
      // Only a session that checks e.firma has this stage (its verdicts elsewhere stay as they were).
      if (!policy.Enabled("efirma")) continue;
      // The check the submission named (the latest when it was submitted), not a later one.
      const std::string challenge = core::StringOr(sub, "efirmaCheck");
      core::Json check = nullptr;
      std::string holder_curp;
      if (!challenge.empty()) {
        SVC_ASSIGN_OR_RETURN(core::Json row, read(EV::Abs(EV::Challenge(te, challenge))));
        if (!row.is_object() || !row["check"].is_object()) {
          return core::Unavailable("the submission's e.firma check is not projected yet");
        }
        check = row["check"];
        if (!core::StringOr(row, "holderSealed").empty()) {
          SVC_ASSIGN_OR_RETURN(auto k, options_.keys->Get(key_name));
          if (!k.has_value()) return core::DataLoss("the session's data key is gone");
          SVC_ASSIGN_OR_RETURN(core::Json holder, OpenEfirmaHolder(*k, job.tenant, job.env, job.session, challenge,
                                                                   core::StringOr(row, "holderSealed")));
          holder_curp = core::StringOr(holder, "curp");
        }
      }
      SVC_ASSIGN_OR_RETURN(core::Json details, document_details());
      out = EfirmaStage(check, holder_curp, core::StringOr(details, "curp"));
      out.summary["latencyMs"] = MillisSince(t0);
    }
    vs::StageCompleted e;
    e.tracking_id = job.tracking;
    e.stage = name;
    e.outcome = out.outcome;
    e.summary = out.summary;
    if (!out.details.is_null() && !dek.empty()) {
      e.details_sealed = SealStageDetails(dek, {job.tenant, job.env, job.session, job.tracking, name}, out.details);
    }
    SVC_RETURN_IF_ERROR(run(commands::MakeCommand<vs::SessionDecider>(
        job.tenant, job.session, vs::SessionCommand(vs::RecordStage{e}), context())));
    if (stages_ != nullptr) stages_->Add();
    SVC_ASSIGN_OR_RETURN(done, load_stages());
    if (name == options_.halt_after_stage) {
      core::LogWarn("pipeline halted (--debug-pipeline-halt-after)", {{"stage", name}});
      std::unique_lock lock(mu_);
      halted_.wait(lock, [&] { return stopping_; });
      return core::Unavailable("halted for a test");
    }
  }

  // The verdict.
  Verdict v = Decide(done, analysis_errors);
  commands::CommandContext ctx = context();
  std::string case_id;
  SVC_ASSIGN_OR_RETURN(core::Json session, read(SV::Abs(SV::Record(te, job.session))));
  if (!session.is_object()) return core::Unavailable("the session row is not projected yet");
  if (v.outcome == "review") {
    case_id = rv::CaseIdForTracking(job.tracking);
    rv::CaseOpened opened;
    opened.session_id = job.session;
    opened.application_id = core::StringOr(session, "applicationId");
    opened.tracking_id = job.tracking;
    opened.reason = "automated verification needs a person";
    opened.reason_codes = v.reason_codes;
    opened.priority = rv::CasePriorityFor(v.reason_codes);  // docs/review.md#priorities
    SVC_RETURN_IF_ERROR(run(commands::MakeCommand<rv::CaseDecider>(
        job.tenant, case_id, rv::CaseCommand(rv::OpenCase{opened}), context())));
  }
  std::string at = core::FormatRfc3339(ctx.now);
  core::Json verdict_row = {{"outcome", v.outcome},
                            {"reasonCodes", v.reason_codes},
                            {"trustScore", v.trust_score ? core::Json(*v.trust_score) : core::Json(nullptr)},
                            {"caseId", case_id.empty() ? core::Json(nullptr) : core::Json(case_id)},
                            {"decidedAt", at},
                            {"trustBreakdown", v.trust_breakdown}};
  // The session as the verdict leaves it (what the report in the event shows).
  session["updatedAt"] = at;
  session["trustScore"] = v.trust_score ? core::Json(std::llround(*v.trust_score * 100.0))
                                        : core::Json(nullptr);
  const vs::SessionPhase phase = vs::PhaseAfterVerdict(v.outcome);
  session["status"] = std::string(phase.status);
  if (phase.completes) session["completedAt"] = at;
  if (phase.decides) session["decidedAt"] = at;
  ReportInputs in;
  in.session = session;
  in.stages = done;
  in.verdict = verdict_row;
  in.environment = job.env;
  vs::VerdictReached e;
  e.type = v.event_type;
  e.tracking_id = job.tracking;
  e.outcome = v.outcome;
  e.reason_codes = v.reason_codes;
  e.trust_score = verdict_row["trustScore"];
  e.case_id = case_id;
  e.decision = DecisionSummary(verdict_row);
  e.report = BuildReport(in);
  SVC_RETURN_IF_ERROR(run(commands::MakeCommand<vs::SessionDecider>(
      job.tenant, job.session, vs::SessionCommand(vs::RecordVerdict{e}), ctx)));
  if (verdicts_ != nullptr) verdicts_->Add();
  core::LogInfo("verification verdict", {{"sessionId", job.session},
                                         {"trackingId", job.tracking},
                                         {"outcome", v.outcome}});
  return core::Status::Ok();
}

}  // namespace svc::pipeline::verification
