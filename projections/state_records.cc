#include "projections/state_records.h"

#include <algorithm>

#include "commands/kyb/company_events.h"
#include "commands/persons/person_events.h"
#include "commands/verification/session_events.h"
#include "core/json_schema.h"
#include "projections/kyb/kyb_view.h"
#include "projections/review/review_view.h"
#include "projections/sessions_view.h"

namespace svc::projections {

namespace {

template <class T>
core::Json Cut(const core::Json& row) {
  T record;
  core::DecodeFields(row, record);
  return core::EncodeFields(record);
}

std::optional<core::Json> SessionRecord(const core::Json& row) { return Cut<SessionStateRecord>(row); }

std::optional<core::Json> PersonRecord(const core::Json& row) {
  // Asked to be forgotten (blocked or purged) or redacted: gone from the states.
  if (row.value("forgetRequested", false) || core::StringOr(row, "status") == "redacted") return std::nullopt;
  PersonStateRecord record;
  core::DecodeFields(row, record);
  constexpr std::string_view kSuffix = "Provided";
  for (const auto& [name, value] : row.items()) {
    if (name.size() > kSuffix.size() && name.compare(name.size() - kSuffix.size(), kSuffix.size(), kSuffix) == 0 &&
        value.is_boolean() && value.get<bool>()) {
      record.pii_fields.push_back(name.substr(0, name.size() - kSuffix.size()));
    }
  }
  std::sort(record.pii_fields.begin(), record.pii_fields.end());
  return core::EncodeFields(record);
}

std::optional<core::Json> CaseRecord(const core::Json& row) { return Cut<CaseStateRecord>(row); }

std::optional<core::Json> CompanyRecord(const core::Json& row) { return Cut<CompanyStateRecord>(row); }

}  // namespace

const std::vector<StateTopicInfo>& StateTopics() {
  static const std::vector<StateTopicInfo> topics = {
      {std::string(commands::verification::kSessionAggregate), "verification", "verification_session.state", 1,
       SessionsView::kName,
       [](std::string_view t, std::string_view e, std::string_view id) {
         return SessionsView::Abs(SessionsView::Record(TenantEnv(t, e), id));
       },
       &SessionRecord, core::FieldsSchema<SessionStateRecord>()},
      {std::string(commands::persons::kPersonAggregate), "persons", "person.state", 1, PersonsView::kName,
       [](std::string_view t, std::string_view e, std::string_view id) {
         return PersonsView::Abs(PersonsView::Record(TenantEnv(t, e), id));
       },
       &PersonRecord, core::FieldsSchema<PersonStateRecord>()},
      {"review_case", "review", "review_case.state", 1, ReviewView::kName,
       [](std::string_view t, std::string_view e, std::string_view id) {
         return ReviewView::Abs(ReviewView::Case(TenantEnv(t, e), id));
       },
       &CaseRecord, core::FieldsSchema<CaseStateRecord>()},
      {std::string(commands::kyb::kCompanyAggregate), "kyb", "company.state", 1, KybView::kName,
       [](std::string_view t, std::string_view e, std::string_view id) {
         return KybView::Abs(KybView::Company(TenantEnv(t, e), id));
       },
       &CompanyRecord, core::FieldsSchema<CompanyStateRecord>()},
  };
  return topics;
}

const StateTopicInfo* FindStateTopic(std::string_view aggregate_type) {
  for (const auto& t : StateTopics()) {
    if (t.aggregate_type == aggregate_type) return &t;
  }
  return nullptr;
}

std::string StateTopicName(std::string_view prefix, std::string_view env, std::string_view area) {
  std::string n(prefix);
  n.append(".").append(env).append(".").append(area).append(".state");
  return n;
}

}  // namespace svc::projections
