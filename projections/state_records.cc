#include "projections/state_records.h"

#include <algorithm>

#include "commands/kyb/company_events.h"
#include "commands/persons/person_events.h"
#include "commands/verification/session_events.h"
#include "core/json_fields_read.h"
#include "core/json_schema.h"
#include "projections/kyb/kyb_view.h"
#include "projections/review/review_view.h"
#include "projections/sessions_view.h"

namespace svc::projections {

namespace {

// The row parsed by simdjson (a parser and a padded copy per thread: simdjson reads a little past
// the text's end); false when it is not a JSON object.
bool ParseRow(std::string_view text, simdjson::dom::element& root, simdjson::dom::object& out) {
  static thread_local simdjson::dom::parser parser;
  static thread_local std::string padded;
  padded.assign(text);
  padded.append(simdjson::SIMDJSON_PADDING, '\0');
  if (parser.parse(padded.data(), text.size(), false).get(root) != simdjson::SUCCESS) return false;
  return root.get_object().get(out) == simdjson::SUCCESS;
}

template <class T>
std::optional<core::Json> Cut(std::string_view row) {
  simdjson::dom::element root;
  simdjson::dom::object o;
  if (!ParseRow(row, root, o)) return std::nullopt;
  T record;
  core::DecodeFields(root, record);
  return core::EncodeFields(record);
}

std::optional<core::Json> SessionRecord(std::string_view row) { return Cut<SessionStateRecord>(row); }

std::optional<core::Json> PersonRecord(std::string_view row) {
  simdjson::dom::element root;
  simdjson::dom::object o;
  if (!ParseRow(row, root, o)) return std::nullopt;
  PersonStateRecord record;
  constexpr std::string_view kSuffix = "Provided";
  for (auto [name, value] : o) {
    bool b = false;
    if (value.get_bool().get(b) != simdjson::SUCCESS) {
      // Asked to be forgotten (blocked or purged) or redacted: gone from the states.
      std::string_view s;
      if (name == "status" && value.get_string().get(s) == simdjson::SUCCESS && s == "redacted") return std::nullopt;
      continue;
    }
    if (name == "forgetRequested" && b) return std::nullopt;
    if (b && name.size() > kSuffix.size() && name.substr(name.size() - kSuffix.size()) == kSuffix) {
      record.pii_fields.emplace_back(name.substr(0, name.size() - kSuffix.size()));
    }
  }
  std::vector<std::string> fields = std::move(record.pii_fields);
  core::DecodeFields(root, record);
  record.pii_fields = std::move(fields);
  std::sort(record.pii_fields.begin(), record.pii_fields.end());
  return core::EncodeFields(record);
}

std::optional<core::Json> CaseRecord(std::string_view row) { return Cut<CaseStateRecord>(row); }

std::optional<core::Json> CompanyRecord(std::string_view row) { return Cut<CompanyStateRecord>(row); }

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
