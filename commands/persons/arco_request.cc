#include "commands/persons/arco_request.h"

#include <algorithm>

#include "commands/event_codec.h"
#include "core/mx_calendar.h"

namespace svc::commands::persons {

namespace {

namespace mx = core::mx;

mx::BusinessCalendar CalendarOf(const ArcoCalendar& c) {
  std::set<mx::CivilDate> off;
  for (const auto& d : c.days_off) {
    if (auto date = mx::ParseCivilDate(d); date.ok()) off.insert(*date);
  }
  return mx::BusinessCalendar(std::move(off));
}

template <class E>
ArcoEvent As(const ArcoRecord& r) {
  E e;
  static_cast<ArcoRecord&>(e) = r;
  return ArcoEvent(std::move(e));
}

core::Status Invalid(const ArcoRecord& r, const std::string& what) {
  return core::FailedPrecondition("the ARCO request is " + r.status + ": " + what, "ARCO_INVALID_TRANSITION");
}

bool Open(const std::string& status) {
  return status == "received" || status == "awaiting_information" || status == "accepted";
}

}  // namespace

int64_t ArcoDueMicros(int64_t from_micros, int days, const ArcoCalendar& calendar) {
  const mx::CivilDate day = mx::MexicoCityDate(from_micros);
  return mx::EndOfMexicoCityDay(CalendarOf(calendar).AddBusinessDays(day, days));
}

core::Result<Decision> ArcoDecider::Decide(const ArcoState& s, const ArcoCommand& command, const CommandContext& ctx) {
  Decision d;
  ArcoRecord r = s.record;
  const int64_t now = ctx.now.micros;
  // Every move of a request passes here: one of the other environment (a test key on a live
  // request, or the reverse) does not exist for the caller.
  if (!std::holds_alternative<OpenArcoRequest>(command) &&
      (r.status.empty() || (!s.environment.empty() && s.environment != ctx.environment))) {
    return core::NotFound("no such ARCO request", "ARCO_REQUEST_NOT_FOUND");
  }
  return std::visit(
      [&](const auto& c) -> core::Result<Decision> {
        using T = std::decay_t<decltype(c)>;
        if constexpr (std::is_same_v<T, OpenArcoRequest>) {
          if (!r.status.empty()) return core::AlreadyExists("the ARCO request exists", "CONFLICT");
          r = c.request;
          if (r.subject_type.empty() || (r.person_id.empty() && r.subject_id.empty())) {
            return core::InvalidArgument("an ARCO request names its subject", "ARCO_SUBJECT_REQUIRED");
          }
          if (std::find(kArcoRights.begin(), kArcoRights.end(), r.right) == kArcoRights.end()) {
            return core::InvalidArgument("unknown ARCO right " + r.right, "VALIDATION_ERROR");
          }
          if (r.right == "opposition" && r.purposes.empty()) {
            return core::InvalidArgument("an opposition names the purposes objected to", "VALIDATION_ERROR");
          }
          if (r.submitted_micros == 0 || r.submitted_micros > now) r.submitted_micros = now;
          r.status = "received";
          r.counted_from_micros = r.submitted_micros;
          r.response_due_micros = ArcoDueMicros(r.submitted_micros, kArcoResponseDays, c.calendar);
          r.ask_information_by_micros = ArcoDueMicros(r.submitted_micros, kArcoAskInformationDays, c.calendar);
          d.events.push_back(NewEventOf(As<ArcoReceived>(r)));
        } else if constexpr (std::is_same_v<T, RequestArcoInformation>) {
          if (r.status != "received") return Invalid(r, "information is asked of a request just received");
          if (r.information_requested) return Invalid(r, "information was asked already (the law allows it once)");
          if (now > r.ask_information_by_micros) {
            return Invalid(r, "information may be asked only within " + std::to_string(kArcoAskInformationDays) +
                                  " business days of receipt");
          }
          r.status = "awaiting_information";
          r.information_requested = true;
          r.information_due_micros = ArcoDueMicros(now, kArcoInformationDays, c.calendar);
          d.events.push_back(NewEventOf(As<ArcoInformationRequested>(r)));
        } else if constexpr (std::is_same_v<T, ReceiveArcoInformation>) {
          if (r.status != "awaiting_information") return Invalid(r, "no information was asked");
          // The response term counts again from the day the information arrived.
          r.status = "received";
          r.counted_from_micros = now;
          r.information_due_micros = 0;
          r.response_due_micros = ArcoDueMicros(now, kArcoResponseDays * (r.response_extended ? 2 : 1), c.calendar);
          d.events.push_back(NewEventOf(As<ArcoInformationReceived>(r)));
        } else if constexpr (std::is_same_v<T, ExtendArcoDeadline>) {
          // The law's extension, once per term, by as much again, when the circumstances justify it.
          if (r.status == "received") {
            if (r.response_extended) return Invalid(r, "the response term was extended already");
            r.response_extended = true;
            r.response_due_micros = ArcoDueMicros(r.counted_from_micros, 2 * kArcoResponseDays, c.calendar);
          } else if (r.status == "accepted") {
            if (r.effect_extended) return Invalid(r, "the effect term was extended already");
            r.effect_extended = true;
            r.effect_due_micros = ArcoDueMicros(r.responded_micros, 2 * kArcoEffectDays, c.calendar);
          } else {
            return Invalid(r, "only an open term is extended");
          }
          d.events.push_back(NewEventOf(As<ArcoDeadlineExtended>(r)));
        } else if constexpr (std::is_same_v<T, AcceptArcoRequest>) {
          if (r.status != "received") return Invalid(r, "only a received request is accepted");
          r.status = "accepted";
          r.responded_micros = now;
          r.effect_due_micros = ArcoDueMicros(now, kArcoEffectDays, c.calendar);
          d.events.push_back(NewEventOf(As<ArcoAccepted>(r)));
        } else if constexpr (std::is_same_v<T, DenyArcoRequest>) {
          if (r.status != "received") return Invalid(r, "only a received request is denied");
          if (std::find(kArcoDenialReasons.begin(), kArcoDenialReasons.end(), c.reason) == kArcoDenialReasons.end()) {
            return core::InvalidArgument("unknown denial reason " + c.reason, "VALIDATION_ERROR");
          }
          r.status = "denied";
          r.responded_micros = now;
          r.denial_reason = c.reason;
          d.events.push_back(NewEventOf(As<ArcoDenied>(r)));
        } else if constexpr (std::is_same_v<T, FulfilArcoRequest>) {
          if (r.status == "completed" && r.fulfilled_by == c.operation && r.fulfilment_reference == c.reference) {
            return d;  // recorded already
          }
          const std::string& subject = r.subject_type == "person" ? r.person_id : r.subject_id;
          core::Status refused = core::Status::Ok();
          if (r.status != "received" && r.status != "accepted") {
            refused = Invalid(r, "only a received or accepted request is fulfilled");
          } else if (!FulfilsRight(r.right, c.operation)) {
            refused = Invalid(r, "a request of " + r.right + " is not fulfilled by " + c.operation);
          } else if (c.subject_id != subject) {
            refused = core::FailedPrecondition("the operation acted on another subject than the request's", "CONFLICT");
          }
          if (!refused.ok()) {
            if (!c.record_refusal) return refused;
            r.refused_operation = c.operation;
            r.refusal = std::string(refused.message());
            r.fulfilment_source = c.source_event;
            d.events.push_back(NewEventOf(As<ArcoFulfilmentRefused>(r)));
            return d;
          }
          if (r.status == "received") {  // accepted and made effective at once
            r.responded_micros = now;
            r.effect_due_micros = ArcoDueMicros(now, kArcoEffectDays, c.calendar);
          }
          r.status = "completed";
          r.completed_micros = now;
          r.fulfilled_by = c.operation;
          r.fulfilment_reference = c.reference;
          r.fulfilment_source = c.source_event;
          d.events.push_back(NewEventOf(As<ArcoCompleted>(r)));
        } else if constexpr (std::is_same_v<T, WithdrawArcoRequest>) {
          if (!Open(r.status)) return Invalid(r, "only an open request is withdrawn");
          r.status = "withdrawn";
          d.events.push_back(NewEventOf(As<ArcoWithdrawn>(r)));
        } else if constexpr (std::is_same_v<T, LapseArcoRequest>) {
          // The requester did not provide the information in time: the request is taken as not made.
          if (r.status != "awaiting_information" || now <= r.information_due_micros) return d;
          r.status = "lapsed";
          d.events.push_back(NewEventOf(As<ArcoLapsed>(r)));
        } else {
          // A warning of the deadline that is still the request's (a moved or met one records nothing).
          const int64_t due = c.deadline == "response"      ? (r.status == "received" ? r.response_due_micros : 0)
                              : c.deadline == "effect"      ? (r.status == "accepted" ? r.effect_due_micros : 0)
                              : c.deadline == "information" ? (r.status == "awaiting_information" ? r.information_due_micros : 0)
                                                            : 0;
          const std::string key = c.deadline + ":" + (c.missed ? "1" : "0") + ":" + std::to_string(c.due_micros);
          if (due == 0 || due != c.due_micros || std::find(s.warned.begin(), s.warned.end(), key) != s.warned.end()) {
            return d;
          }
          if (c.missed && now <= due) return d;
          r.deadline = c.deadline;
          r.deadline_due_micros = due;
          d.events.push_back(NewEventOf(c.missed ? As<ArcoDeadlineMissed>(r) : As<ArcoDeadlineApproaching>(r)));
        }
        return d;
      },
      command);
}

core::Status ArcoDecider::Evolve(ArcoState& s, const eventstore::EventEnvelope& e) {
  SVC_ASSIGN_OR_RETURN(ArcoEvent event, DecodeArco(e));
  ArcoRecord r = RecordOf(event);
  if (std::holds_alternative<ArcoDeadlineApproaching>(event) || std::holds_alternative<ArcoDeadlineMissed>(event)) {
    s.warned.push_back(r.deadline + ":" + (std::holds_alternative<ArcoDeadlineMissed>(event) ? "1" : "0") + ":" +
                       std::to_string(r.deadline_due_micros));
  }
  r.deadline.clear();
  r.deadline_due_micros = 0;
  r.refused_operation.clear();
  r.refusal.clear();
  r.fulfilment_source.clear();
  s.record = std::move(r);
  if (s.environment.empty()) s.environment = e.environment;
  return core::Status::Ok();
}

}  // namespace svc::commands::persons
