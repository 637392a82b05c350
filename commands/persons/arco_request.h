#pragma once
// An ARCO request ("arco_request", id arc_…): a data subject (or their representative) asks a
// controller for Access, Rectification, Cancellation or Opposition under the LFPDPPP, and the law
// counts the controller's days (docs/persons.md#arco-requests). The record: the subject (a person
// of the vault, or a company's member or ownership node), the right, how the requester's identity
// was checked, when it was received; the deadlines on Mexico's business-day calendar
// (core/mx_calendar.h), computed here from the command's time and the operator's extra days off,
// so that a replay or another node decides the same; and the operation that fulfilled it (an
// export, a rectification, a forget, an opposition, a member's erasure).
//
//   received ──request information──► awaiting_information ──information received──► received
//      │                                      │ (no answer by its due date)
//      │                                      └──lapse──► lapsed
//      ├──accept──► accepted ──fulfil──► completed
//      ├──fulfil──► completed (accepted and made effective at once)
//      ├──deny────► denied
//      └──withdraw (also from awaiting_information, accepted)──► withdrawn
//   extend: the response term (received) or the effect term (accepted), once each, by as much again
//
// Any other move is ARCO_INVALID_TRANSITION (409). Every event carries the record as it is after
// it (event-carried state: the read model and the webhooks copy it), never personal data: ids,
// codes, dates and the integrator's own reference.

#include <string>
#include <variant>
#include <vector>

#include "commands/command.h"
#include "commands/decider.h"
#include "core/json_fields.h"

namespace svc::commands::persons {

inline constexpr std::string_view kArcoAggregate = "arco_request";

// The law's terms, in business days (LFPDPPP, DOF 20-03-2025; docs/decisions.md "ARCO requests").
inline constexpr int kArcoResponseDays = 20;      // to communicate the determination
inline constexpr int kArcoEffectDays = 15;        // to make an accepted request effective
inline constexpr int kArcoAskInformationDays = 5;  // to ask the requester for what is missing, once
inline constexpr int kArcoInformationDays = 10;    // for the requester to provide it

// The record, as every event carries it after its change.
struct ArcoRecord {
  std::string subject_type;  // person | company_member | ubo_node
  std::string person_id;     // the person (subject_type person), else "" or the member's person
  std::string company_id;    // company_member, ubo_node: the company
  std::string subject_id;    // company_member: cmm_…, ubo_node: ubo_…; person: ""
  std::string right;         // access | rectification | cancellation | opposition
  std::string requester;     // subject | representative
  std::string identity_method;     // how the requester's identity was checked (kArcoIdentityMethods)
  std::string identity_reference;  // what proves it: a session id, a document's reference (no PII)
  std::string reference;           // the integrator's own reference (a ticket), "" = none
  std::vector<std::string> purposes;  // opposition: the purposes objected to
  std::string status;
  int64_t submitted_micros = 0;   // when the request was received
  int64_t counted_from_micros = 0;  // the day the response term counts from (receipt, or the information)
  int64_t response_due_micros = 0;
  int64_t ask_information_by_micros = 0;  // the last moment the controller may ask for information
  int64_t information_due_micros = 0;     // awaiting_information: the requester's deadline
  int64_t responded_micros = 0;           // accepted, denied, or completed at once
  int64_t effect_due_micros = 0;          // accepted (and completed)
  int64_t completed_micros = 0;
  bool response_extended = false;
  bool effect_extended = false;
  bool information_requested = false;
  std::string denial_reason;   // denied: kArcoDenialReasons
  std::string fulfilled_by;    // completed: export | rectification | forget | opposition | member_erasure
  std::string fulfilment_reference;  // the operation's id (pxb_…, the piiVersion, the forget's mode, …)
  // A warning event's deadline: response | effect | information, and its due time.
  std::string deadline;
  int64_t deadline_due_micros = 0;
  // A refused fulfilment: the operation that named the request, and why it could not fulfil it.
  std::string refused_operation;
  std::string refusal;
  // A completion's or refusal's source: the id of the operation's event that named the request.
  std::string fulfilment_source;
  static constexpr auto Fields() {
    using T = ArcoRecord;
    return std::tuple{core::Field("subjectType", &T::subject_type),
                      core::Field("personId", &T::person_id, core::Empty::kNull),
                      core::Field("companyId", &T::company_id, core::Empty::kNull),
                      core::Field("subjectId", &T::subject_id, core::Empty::kNull),
                      core::Field("right", &T::right),
                      core::Field("requester", &T::requester),
                      core::Field("identityMethod", &T::identity_method),
                      core::Field("identityReference", &T::identity_reference, core::Empty::kNull),
                      core::Field("reference", &T::reference, core::Empty::kNull),
                      core::Field("purposes", &T::purposes),
                      core::Field("status", &T::status),
                      core::Field("submittedMicros", &T::submitted_micros),
                      core::Field("countedFromMicros", &T::counted_from_micros),
                      core::Field("responseDueMicros", &T::response_due_micros),
                      core::Field("askInformationByMicros", &T::ask_information_by_micros),
                      core::Field("informationDueMicros", &T::information_due_micros),
                      core::Field("respondedMicros", &T::responded_micros),
                      core::Field("effectDueMicros", &T::effect_due_micros),
                      core::Field("completedMicros", &T::completed_micros),
                      core::Field("responseExtended", &T::response_extended),
                      core::Field("effectExtended", &T::effect_extended),
                      core::Field("informationRequested", &T::information_requested),
                      core::Field("denialReason", &T::denial_reason, core::Empty::kNull),
                      core::Field("fulfilledBy", &T::fulfilled_by, core::Empty::kNull),
                      core::Field("fulfilmentReference", &T::fulfilment_reference, core::Empty::kNull),
                      core::Field("deadline", &T::deadline, core::Empty::kOmit),
                      core::Field("deadlineDueMicros", &T::deadline_due_micros, core::Empty::kOmit),
                      core::Field("refusedOperation", &T::refused_operation, core::Empty::kOmit),
                      core::Field("refusal", &T::refusal, core::Empty::kOmit),
                      core::Field("fulfilmentSource", &T::fulfilment_source, core::Empty::kOmit)};
  }
};

// The events: one type per move, each with the record after it.
struct ArcoReceived : ArcoRecord {
  static constexpr std::string_view kType = "arco.request_received";
};
struct ArcoInformationRequested : ArcoRecord {
  static constexpr std::string_view kType = "arco.information_requested";
};
struct ArcoInformationReceived : ArcoRecord {
  static constexpr std::string_view kType = "arco.information_received";
};
struct ArcoDeadlineExtended : ArcoRecord {
  static constexpr std::string_view kType = "arco.deadline_extended";
};
struct ArcoAccepted : ArcoRecord {
  static constexpr std::string_view kType = "arco.request_accepted";
};
struct ArcoDenied : ArcoRecord {
  static constexpr std::string_view kType = "arco.request_denied";
};
struct ArcoCompleted : ArcoRecord {
  static constexpr std::string_view kType = "arco.request_completed";
};
struct ArcoWithdrawn : ArcoRecord {
  static constexpr std::string_view kType = "arco.request_withdrawn";
};
struct ArcoLapsed : ArcoRecord {
  static constexpr std::string_view kType = "arco.request_lapsed";
};
// The timer's warnings: a deadline within the warning window, and a deadline passed unmet.
struct ArcoDeadlineApproaching : ArcoRecord {
  static constexpr std::string_view kType = "arco.deadline_approaching";
};
struct ArcoDeadlineMissed : ArcoRecord {
  static constexpr std::string_view kType = "arco.deadline_missed";
};
// An operation named the request but could not fulfil it (the request had closed meanwhile, or
// is of another right or subject): recorded so that the queue of fulfilments empties; the
// request is unchanged.
struct ArcoFulfilmentRefused : ArcoRecord {
  static constexpr std::string_view kType = "arco.fulfilment_refused";
};

using ArcoEvent = std::variant<ArcoReceived, ArcoInformationRequested, ArcoInformationReceived, ArcoDeadlineExtended,
                               ArcoAccepted, ArcoDenied, ArcoCompleted, ArcoWithdrawn, ArcoLapsed,
                               ArcoDeadlineApproaching, ArcoDeadlineMissed, ArcoFulfilmentRefused>;
core::Result<ArcoEvent> DecodeArco(const eventstore::EventEnvelope& envelope);
// The record an ARCO event carries.
const ArcoRecord& RecordOf(const ArcoEvent& event);

inline const std::vector<std::string> kArcoRights = {"access", "rectification", "cancellation", "opposition"};
inline const std::vector<std::string> kArcoStatuses = {"received", "awaiting_information", "accepted", "completed",
                                                       "denied",   "withdrawn",            "lapsed"};
// How the requester's identity was checked: a verification session of the service, an e.firma
// signature, an official identification shown, a notarised power of attorney (a representative),
// in person at the controller's office.
inline const std::vector<std::string> kArcoIdentityMethods = {"verification_session", "efirma", "official_id",
                                                              "power_of_attorney", "in_person"};
// Why a request is refused (the law's grounds): the requester is not the subject or the
// representative is not accredited; the data is not held; a law or an authority's resolution
// stands in the way; the rights of a third party; a legal hold; already done (a cancellation or
// opposition made before).
inline const std::vector<std::string> kArcoDenialReasons = {"identity_not_accredited", "data_not_held",
                                                            "legal_impediment",        "third_party_rights",
                                                            "legal_hold",              "already_done"};
// What fulfils each right.
bool FulfilsRight(std::string_view right, std::string_view operation);

// A business-day term's context: the operator's extra days off (YYYY-MM-DD), travelling with
// every command that counts days.
struct ArcoCalendar {
  std::vector<std::string> days_off;
  static constexpr auto Fields() { return std::tuple{core::Field("daysOff", &ArcoCalendar::days_off)}; }
};

struct OpenArcoRequest {
  ArcoRecord request;  // subject, right, requester, identity, reference, purposes, submitted_micros
  ArcoCalendar calendar;
  static constexpr std::string_view kCommand = "OpenArcoRequest";
  static constexpr auto Fields() {
    using T = OpenArcoRequest;
    return std::tuple{core::Field("request", &T::request), core::Field("calendar", &T::calendar)};
  }
};
struct RequestArcoInformation {
  ArcoCalendar calendar;
  static constexpr std::string_view kCommand = "RequestArcoInformation";
  static constexpr auto Fields() { return std::tuple{core::Field("calendar", &RequestArcoInformation::calendar)}; }
};
struct ReceiveArcoInformation {
  ArcoCalendar calendar;
  static constexpr std::string_view kCommand = "ReceiveArcoInformation";
  static constexpr auto Fields() { return std::tuple{core::Field("calendar", &ReceiveArcoInformation::calendar)}; }
};
struct ExtendArcoDeadline {
  ArcoCalendar calendar;
  static constexpr std::string_view kCommand = "ExtendArcoDeadline";
  static constexpr auto Fields() { return std::tuple{core::Field("calendar", &ExtendArcoDeadline::calendar)}; }
};
struct AcceptArcoRequest {
  ArcoCalendar calendar;
  static constexpr std::string_view kCommand = "AcceptArcoRequest";
  static constexpr auto Fields() { return std::tuple{core::Field("calendar", &AcceptArcoRequest::calendar)}; }
};
struct DenyArcoRequest {
  std::string reason;
  static constexpr std::string_view kCommand = "DenyArcoRequest";
  static constexpr auto Fields() { return std::tuple{core::Field("reason", &DenyArcoRequest::reason)}; }
};
// The operation that made the request effective, recorded once it succeeded (by the ARCO manager,
// from the operation's event that names the request). `subject_id`: the person (or member, node)
// it acted on, which must be the request's subject. `record_refusal`: a fulfilment that does not
// apply is recorded as arco.fulfilment_refused rather than refused with an error.
struct FulfilArcoRequest {
  std::string operation;
  std::string reference;
  std::string subject_id;
  ArcoCalendar calendar;
  bool record_refusal = false;
  std::string source_event;  // the operation's event id
  static constexpr std::string_view kCommand = "FulfilArcoRequest";
  static constexpr auto Fields() {
    using T = FulfilArcoRequest;
    return std::tuple{core::Field("operation", &T::operation), core::Field("reference", &T::reference),
                      core::Field("subjectId", &T::subject_id), core::Field("calendar", &T::calendar),
                      core::Field("recordRefusal", &T::record_refusal),
                      core::Field("sourceEvent", &T::source_event, core::Empty::kOmit)};
  }
};
struct WithdrawArcoRequest {
  static constexpr std::string_view kCommand = "WithdrawArcoRequest";
  static constexpr auto Fields() { return std::tuple{}; }
};
// The timer: a lapse of an unanswered information request, and the warnings (`deadline` and its
// due time as the timer read them: a warning for a deadline that moved since is not recorded).
struct LapseArcoRequest {
  static constexpr std::string_view kCommand = "LapseArcoRequest";
  static constexpr auto Fields() { return std::tuple{}; }
};
struct WarnArcoDeadline {
  std::string deadline;  // response | effect | information
  int64_t due_micros = 0;
  bool missed = false;  // false: approaching
  static constexpr std::string_view kCommand = "WarnArcoDeadline";
  static constexpr auto Fields() {
    using T = WarnArcoDeadline;
    return std::tuple{core::Field("deadline", &T::deadline), core::Field("dueMicros", &T::due_micros),
                      core::Field("missed", &T::missed)};
  }
};

using ArcoCommand = std::variant<OpenArcoRequest, RequestArcoInformation, ReceiveArcoInformation, ExtendArcoDeadline,
                                 AcceptArcoRequest, DenyArcoRequest, FulfilArcoRequest, WithdrawArcoRequest,
                                 LapseArcoRequest, WarnArcoDeadline>;

struct ArcoState {
  ArcoRecord record;  // status "" = no such request
  // The warnings recorded, as "<deadline>:<missed 0|1>:<due micros>": each once.
  std::vector<std::string> warned;
  // The environment the request was received in (its events'): a command from the other one is
  // answered ARCO_REQUEST_NOT_FOUND, as its GET is (issue 68). "" in a state written before it was
  // kept; the next event of the request sets it.
  std::string environment;
  static constexpr auto Fields() {
    return std::tuple{core::Field("record", &ArcoState::record), core::Field("warned", &ArcoState::warned),
                      core::Field("environment", &ArcoState::environment)};
  }
};

struct ArcoDecider : FieldSnapshots<ArcoDecider, ArcoState> {
  using CommandType = ArcoCommand;
  static constexpr std::string_view kName = kArcoAggregate;
  static core::Result<Decision> Decide(const ArcoState& s, const ArcoCommand& c, const CommandContext& ctx);
  static core::Status Evolve(ArcoState& s, const eventstore::EventEnvelope& e);
};

// The deadlines a request's record shows: the end (23:59:59.999, Mexico City) of the `days`-th
// business day after the day of `from_micros`, on the calendar with the extra days off.
int64_t ArcoDueMicros(int64_t from_micros, int days, const ArcoCalendar& calendar);

}  // namespace svc::commands::persons
