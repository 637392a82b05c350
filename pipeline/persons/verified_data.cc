#include "pipeline/persons/verified_data.h"

#include <future>

#include "commands/writer.h"
#include "core/clock.h"
#include "core/crypto.h"
#include "core/executor.h"
#include "core/ids.h"
#include "core/log.h"
#include "eventstore/kv_store.h"
#include "pipeline/persons/person_writes.h"
#include "pipeline/persons/pii.h"
#include "pipeline/persons/vault_keys.h"
#include "pipeline/verification/stage_details.h"
#include "projections/persons/persons_view.h"
#include "projections/projector.h"
#include "projections/runner.h"
#include "projections/sessions_view.h"
#include "projections/verification_view.h"

namespace svc::pipeline::persons {

using PV = projections::PersonsView;
using SV = projections::SessionsView;
using VV = projections::VerificationView;

namespace {

// The document reading's members (DocumentReading::extracted) and the vault field each feeds.
std::string Trimmed(std::string s) {
  while (!s.empty() && s.back() == ' ') s.pop_back();
  while (!s.empty() && s.front() == ' ') s.erase(s.begin());
  return s;
}

}  // namespace

VerifiedDataWriter::VerifiedDataWriter(const Options& options)
    : QueueManager("svc-verified", options.projector), options_(options) {
  if (options_.metrics != nullptr) {
    written_ = &options_.metrics->GetCounter("svc_persons_verified_writes_total",
                                             "Approved verifications whose data was written into a person");
  }
}

VerifiedDataWriter::~VerifiedDataWriter() { Stop(); }

core::Result<std::vector<VerifiedDataWriter::Due>> VerifiedDataWriter::Pending() const {
  std::vector<Due> out;
  const int cf = options_.store->Cf(projections::kViewsCf);
  const std::string prefix = PV::Abs(PV::PendingAll());
  auto it = options_.store->NewIterator(cf, prefix, eventstore::PrefixEnd(prefix));
  for (it->Seek(prefix); it->Valid(); it->Next()) {
    auto s = projections::ParseScopedId(it->key().substr(prefix.size()));
    if (!s || !options_.Owns(s->tenant)) continue;  // another node's partition
    core::Json row = core::ParseJsonOrDiscarded(it->value());
    out.push_back({s->tenant, s->environment, s->id, core::StringOr(row, "trackingId"), core::StringOr(row, "personId")});
  }
  SVC_RETURN_IF_ERROR(it->status());
  return out;
}

void VerifiedDataWriter::Pass() {
  auto due = Pending();
  if (!due.ok()) {
    core::LogWarn("verified data: cannot read the due sessions", {{"error", due.status().ToString()}});
    return;
  }
  for (const auto& d : *due) {
    if (Stopping()) return;
    {
      std::lock_guard l(skipped_mu_);
      if (skipped_.count(d.session) > 0) continue;
    }
    auto wrote = Process(d);
    if (!wrote.ok()) {
      core::LogWarn("verified data: the write stopped; it is retried",
                    {{"sessionId", d.session}, {"error", wrote.status().ToString()}});
    } else if (!*wrote) {
      std::lock_guard l(skipped_mu_);
      skipped_.insert(d.session);
    } else if (written_ != nullptr) {
      written_->Add();
    }
  }
}

bool VerifiedDataWriter::NothingDue() {
  auto due = Pending();
  if (!due.ok()) return false;
  std::lock_guard l(skipped_mu_);
  for (const auto& d : *due) {
    if (skipped_.count(d.session) == 0) return false;
  }
  return true;
}

core::Result<bool> VerifiedDataWriter::Process(const Due& d) {
  const int cf = options_.store->Cf(projections::kViewsCf);
  const std::string te = projections::TenantEnv(d.tenant, d.env);
  auto read = [&](const std::string& key) -> core::Result<core::Json> {
    SVC_ASSIGN_OR_RETURN(auto row, options_.store->Get(cf, key));
    return row.has_value() ? core::ParseJsonOrDiscarded(*row) : core::Json(nullptr);
  };
  SVC_ASSIGN_OR_RETURN(auto session_key,
                       options_.keys->Get(eventstore::KeyStore::SessionKeyName(d.tenant, d.env, d.session)));
  if (!session_key.has_value()) return false;  // the session's data was destroyed
  SVC_ASSIGN_OR_RETURN(core::Json doc, read(VV::Abs(VV::Stage(te, d.session, d.tracking, "document"))));
  std::string sealed = doc.is_object() ? core::StringOr(doc, "detailsSealed") : "";
  if (sealed.empty()) return false;  // no document was read
  auto opened = verification::OpenStageDetails(*session_key, {d.tenant, d.env, d.session, d.tracking, "document"}, sealed);
  core::SecureZero(*session_key);
  SVC_RETURN_IF_ERROR(opened.status());
  core::Json x = std::move(*opened);

  PiiWrite write;
  auto put = [&](const char* field, const std::string& value) {
    if (value.empty()) return;
    auto n = NormalisePii(field, value, core::mx::CivilDateOfMicros(options_.clock->Now().micros));
    if (n.ok()) write.values[field] = std::move(*n);
  };
  std::string given = Trimmed(core::StringOr(x, "givenNames"));
  std::string surname = Trimmed(core::StringOr(x, "surname1") + " " + core::StringOr(x, "surname2"));
  put("curp", core::StringOr(x, "curp"));
  put("givenName", given);
  put("surname", surname);
  put("fullName", Trimmed(given + " " + surname));
  put("birthDate", core::StringOr(x, "birthDate"));
  put("sex", core::StringOr(x, "sex"));
  put("documentNumber", core::StringOr(x, "documentNumber"));
  put("vigencia", core::StringOr(x, "expiryDate"));
  x.clear();
  if (write.values.empty()) return false;
  SVC_ASSIGN_OR_RETURN(core::Json gov, read(VV::Abs(VV::Stage(te, d.session, d.tracking, "gov_curp"))));
  bool renapo = gov.is_object() && core::StringOr(gov, "outcome") == "passed";
  write.source = {"verification", d.session, renapo ? "document_ocr,renapo" : "document_ocr"};

  // The person: the session's, else the CURP's holder (by its claim), else a new one.
  const std::string person = d.person;
  if (!person.empty()) {
    SVC_ASSIGN_OR_RETURN(core::Json rec, read(PV::Abs(PV::Record(te, person))));
    if (!rec.is_object() || core::StringOr(rec, "status") != "active" || rec.value("forgetRequested", false)) {
      core::LogWarn("verified data: the session's person is not active (merged, forgotten); nothing written",
                    {{"sessionId", d.session}, {"personId", person}});
      return false;
    }
  }
  commands::CommandContext ctx = commands::SystemContext(options_.clock->Now(), options_.ids, "verified-data", d.env, d.session);
  ctx.request_id = "verified:" + d.session;  // stable across a resumed run
  ctx.causation_id = d.tracking;
  ctx.idempotency_key = "verified-data:" + d.session + ":" + d.tracking;
  ctx.request_fingerprint = core::Sha256Hex(ctx.idempotency_key);
  PersonWriteInput in;
  in.who = {d.tenant, d.env, person};
  if (person.empty()) {
    SVC_ASSIGN_OR_RETURN(core::Json srec, read(SV::Abs(SV::Record(te, d.session))));
    in.application_id = srec.is_object() ? core::StringOr(srec, "applicationId") : "";
  }
  // A CURP another active person holds: a new person's data goes to that person; a given
  // person's is written without it (two persons never hold one CURP).
  in.curp_clash = person.empty() ? CurpClash::kWriteHolder : CurpClash::kLeaveOut;
  in.write = std::move(write);
  in.ctx = std::move(ctx);
  std::promise<core::Result<PersonWriteResult>> written;
  WritePerson({options_.writer, options_.keys, options_.ids, {}, {}}, std::move(in),
              [&written](core::Result<PersonWriteResult> r) { written.set_value(std::move(r)); });
  auto executed = written.get_future().get();
  if (!executed.ok()) {
    const std::string code(executed.status().api_code());
    // The person left the active state after the read above: nothing is written, as above.
    if (code == "PERSON_FORGET_PENDING" || code == "PERSON_PURGED" || code == "PERSON_ALREADY_MERGED") {
      core::LogWarn("verified data: the session's person is not active (merged, forgotten); nothing written",
                    {{"sessionId", d.session}, {"personId", person}});
      return false;
    }
    return executed.status();
  }
  auto& outcome = executed->outcome;
  // Until the read model shows the revision, the session stays due: wait for it so the next
  // pass does not see it again.
  if (!outcome.positions.empty() && options_.projections != nullptr) {
    std::promise<void> done;
    options_.projections->WhenApplied(outcome.positions, {PV::kName}, std::chrono::seconds(30),
                                      [&done](bool) { done.set_value(); });
    done.get_future().wait();
  }
  return true;
}


}  // namespace svc::pipeline::persons
