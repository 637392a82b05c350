#include "pipeline/persons/reveal_rules.h"

#include <algorithm>

#include "projections/persons/persons_view.h"
#include "projections/projector.h"
#include "projections/view_rows.h"

namespace svc::pipeline::persons {

using PV = projections::PersonsView;

using projections::ReadRow;

core::Status CheckActive(const core::Json& row) {
  const std::string status = core::StringOr(row, "status");
  if (status == "redacted") return core::FailedPrecondition("the person was erased", "PERSON_PURGED");
  if (status == "merged") {
    return core::FailedPrecondition("the person was merged into another", "PERSON_ALREADY_MERGED");
  }
  if (row.contains("mergingInto")) {
    return core::FailedPrecondition("the person is being merged into another", "PERSON_ALREADY_MERGED");
  }
  if (row.value("forgetRequested", false)) {
    return core::FailedPrecondition("the person asked to be forgotten; the data is out of reach until its purge",
                                    "PERSON_FORGET_PENDING");
  }
  return core::Status::Ok();
}

bool InForce(const core::Json& item, core::Timestamp now) {
  if (!item.value("revokedAt", core::Json()).is_null()) return false;
  const std::string expires = item.value("expiresAt", core::Json()).is_string() ? item["expiresAt"].get<std::string>() : "";
  if (expires.empty()) return true;
  auto t = core::ParseRfc3339(expires);
  return t.ok() && t->micros > now.micros;
}

core::Result<std::optional<core::Json>> GrantInForce(const eventstore::KvStore& store, core::Timestamp now,
                                                     const Reader& r, const std::string& person_id) {
  const std::string te = projections::TenantEnv(r.tenant_id, r.environment);
  SVC_ASSIGN_OR_RETURN(auto grant_id,
                       store.Get(store.Cf(projections::kViewsCf), PV::Abs(PV::GrantOfApplication(te, person_id, r.application_id))));
  if (!grant_id.has_value()) return std::optional<core::Json>();
  SVC_ASSIGN_OR_RETURN(auto grant, ReadRow(store, PV::Abs(PV::Grant(te, person_id, *grant_id))));
  if (!grant.has_value() || !InForce(*grant, now)) return std::optional<core::Json>();
  return grant;
}

core::Status CheckRevealAllowed(const eventstore::KvStore& store, core::Timestamp now, const Reader& r,
                                const core::Json& person_row, const std::vector<std::string>& fields,
                                const std::optional<std::string>& purpose) {
  const std::string te = projections::TenantEnv(r.tenant_id, r.environment);
  const std::string id = core::StringOr(person_row, "id");
  // Opposition (ARCO): a purpose the person objected to, and has not consented to since.
  if (purpose.has_value() && !purpose->empty()) {
    SVC_ASSIGN_OR_RETURN(auto opposed, store.Get(store.Cf(projections::kViewsCf), PV::Abs(PV::Opposed(te, id, *purpose))));
    if (opposed.has_value()) {
      return core::PermissionDenied("the person opposed purpose " + *purpose + " (" + *opposed +
                                        "): nothing of them is revealed for it until they consent to it again",
                                    "PURPOSE_OPPOSED");
    }
  }
  // Consents: a purpose the person consented to, whose every consent was revoked or expired.
  if (purpose.has_value() && !purpose->empty()) {
    const int cf = store.Cf(projections::kViewsCf);
    const std::string prefix = PV::Abs(PV::Consents(te, id));
    auto it = store.NewIterator(cf, prefix, eventstore::PrefixEnd(prefix));
    bool asked = false, in_force = false;
    for (it->Seek(prefix); it->Valid(); it->Next()) {
      core::Json c = core::ParseJsonOrDiscarded(it->value());
      if (core::StringOr(c, "purpose") != *purpose) continue;
      asked = true;
      in_force |= InForce(c, now);
    }
    SVC_RETURN_IF_ERROR(it->status());
    if (asked && !in_force) {
      return core::FailedPrecondition("the person's consent for purpose " + *purpose + " was revoked or has expired",
                                      "CONSENT_REQUIRED");
    }
  }
  // Grants: the reader's application reads what its grant allows; without a grant, only the
  // person's own application reads.
  SVC_ASSIGN_OR_RETURN(auto grant, GrantInForce(store, now, r, id));
  if (!grant.has_value()) {
    if (r.application_id == core::StringOr(person_row, "applicationId")) return core::Status::Ok();
    return core::PermissionDenied("no grant in force lets this application read this person", "FIELD_NOT_GRANTED");
  }
  const core::Json allowed_fields = grant->value("allowedFields", core::Json::array());
  for (const auto& f : fields) {
    if (std::find(allowed_fields.begin(), allowed_fields.end(), f) == allowed_fields.end()) {
      return core::PermissionDenied("the application's grant does not include " + f, "FIELD_NOT_GRANTED");
    }
  }
  if (!purpose.has_value()) return core::Status::Ok();
  const core::Json allowed_purposes = grant->value("allowedPurposes", core::Json::array());
  if (std::find(allowed_purposes.begin(), allowed_purposes.end(), *purpose) == allowed_purposes.end()) {
    return core::PermissionDenied(
        purpose->empty() ? std::string("the application's grant allows named purposes only: state one")
                         : "the application's grant does not allow purpose " + *purpose,
        "GRANT_PURPOSE_NOT_ALLOWED");
  }
  return core::Status::Ok();
}

}  // namespace svc::pipeline::persons
