#include "pipeline/review/case_search.h"

#include <algorithm>
#include <cctype>

#include "core/ids.h"
#include "core/mx_ids.h"
#include "pipeline/persons/pii.h"
#include "pipeline/persons/vault_keys.h"
#include "projections/persons/persons_view.h"
#include "projections/projector.h"
#include "projections/review/review_view.h"
#include "projections/sessions_view.h"
#include "projections/view_rows.h"

namespace svc::pipeline::review {

namespace {

using RV = projections::ReviewView;
using PV = projections::PersonsView;
using SV = projections::SessionsView;

core::Result<std::optional<std::string>> Raw(const eventstore::KvStore& views, const std::string& key) {
  return views.Get(views.Cf(projections::kViewsCf), key);
}

}  // namespace

core::Result<core::Json> SearchCases(const eventstore::KvStore& views, eventstore::KeyStore& keys, const CaseSearch& s) {
  const std::string te = projections::TenantEnv(s.tenant, s.environment);
  std::vector<std::string> ids;
  core::Json matched_by = nullptr;
  std::string q = s.query;
  if (core::ValidateId(core::IdKind::kCase, q).ok()) {
    ids.push_back(q);
    matched_by = "case";
  } else if (core::ValidateId(core::IdKind::kVerification, q).ok()) {
    SVC_ASSIGN_OR_RETURN(auto c, Raw(views, RV::Abs(RV::BySession(te, q))));
    if (c.has_value()) ids.push_back(*c);
    matched_by = "session";
  } else if (std::string upper = q; (std::transform(upper.begin(), upper.end(), upper.begin(),
                                                    [](unsigned char ch) { return std::toupper(ch); }),
                                     upper.rfind("CASE-", 0) == 0) &&
                                    upper.size() > 5 && upper.size() <= 17 &&
                                    std::all_of(upper.begin() + 5, upper.end(), [](unsigned char ch) { return std::isdigit(ch); })) {
    SVC_ASSIGN_OR_RETURN(auto c, Raw(views, RV::Abs(RV::ByNumber(te, std::stoll(upper.substr(5))))));
    if (c.has_value()) ids.push_back(*c);
    matched_by = "caseNumber";
  } else if (q.size() == 18) {
    // A CURP: normalised as the vault does, then its blind key, its holders, their sessions' cases.
    auto curp = persons::NormalisePii("curp", q, s.today);
    if (curp.ok()) {
      matched_by = "curp";
      SVC_ASSIGN_OR_RETURN(std::string index_key, persons::IndexKey(keys, s.tenant, s.environment));
      const auto terms = persons::IndexTerms("curp", *curp);
      if (!terms.empty()) {
        SVC_ASSIGN_OR_RETURN(auto holders, Raw(views, PV::Abs(PV::CurpHolder(te, persons::BlindIndex(index_key, "curp", terms[0])))));
        for (const auto& person : PV::SplitIds(holders.value_or(""))) {
          const std::string prefix = PV::Abs(PV::Sessions(te, person));
          auto it = views.NewIterator(views.Cf(projections::kViewsCf), prefix, eventstore::PrefixEnd(prefix));
          for (it->Seek(prefix); it->Valid(); it->Next()) {
            SVC_ASSIGN_OR_RETURN(auto c, Raw(views, RV::Abs(RV::BySession(te, std::string(it->value())))));
            if (c.has_value()) ids.push_back(*c);
          }
          SVC_RETURN_IF_ERROR(it->status());
        }
      }
    }
  }
  if (ids.empty() && !q.empty() && q.size() <= 255) {
    // The integrator's clientReference on the session: the sessions labelled with it, newest
    // first, and their cases.
    const std::string prefix = SV::Abs(SV::Index(te, SV::ByClientReference(q)));
    auto it = views.NewIterator(views.Cf(projections::kViewsCf), prefix, eventstore::PrefixEnd(prefix));
    size_t seen = 0;
    for (it->Seek(prefix); it->Valid() && seen < 4 * s.limit; it->Next(), ++seen) {
      const std::string session(SV::IdOfOrder(it->key().substr(prefix.size())));
      SVC_ASSIGN_OR_RETURN(auto c, Raw(views, RV::Abs(RV::BySession(te, session))));
      if (c.has_value()) ids.push_back(*c);
    }
    SVC_RETURN_IF_ERROR(it->status());
    if (!ids.empty() || matched_by.is_null()) matched_by = ids.empty() ? core::Json(nullptr) : core::Json("clientReference");
  }
  core::Json data = core::Json::array();
  for (const auto& id : ids) {
    SVC_ASSIGN_OR_RETURN(auto row, projections::ReadRow(views, RV::Abs(RV::Case(te, id))));
    if (row.has_value()) data.push_back(std::move(*row));
  }
  std::sort(data.begin(), data.end(), [](const core::Json& a, const core::Json& b) {
    return a.value("caseNumber", int64_t{0}) > b.value("caseNumber", int64_t{0});
  });
  if (data.size() > s.limit) data.erase(data.begin() + static_cast<std::ptrdiff_t>(s.limit), data.end());
  return core::Json{{"object", "review_search"}, {"query", {{"matchedBy", matched_by}}}, {"data", std::move(data)}};
}

}  // namespace svc::pipeline::review
