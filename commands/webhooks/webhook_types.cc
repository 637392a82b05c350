#include "commands/webhooks/webhook_types.h"

#include "commands/audit/checkpoint.h"
#include "commands/compliance/breach.h"
#include "commands/kyb/company_events.h"
#include "commands/kyb/screening_events.h"
#include "commands/persons/access_events.h"
#include "commands/persons/arco_request.h"
#include "commands/verification/session_events.h"
#include "commands/webhooks/endpoint_events.h"

namespace svc::commands::webhooks {

const std::vector<WebhookType>& WebhookTypes() {
  namespace vs = verification;
  static const std::vector<WebhookType> kTypes = {
      {"verification.approved", "the verification passed", "VerificationVerdictEvent", true,
       "verification_session", vs::kVerdictTypes[0]},
      {"verification.declined", "the verification failed", "VerificationVerdictEvent", true,
       "verification_session", vs::kVerdictTypes[1]},
      {"verification.review_required",
       "the engine does not decide alone; the case entered the review queue",
       "VerificationVerdictEvent", true, "verification_session", vs::kVerdictTypes[2]},
      {"verification.more_info_requested", "the person must provide more",
       "VerificationVerdictEvent", true, "verification_session", vs::kVerdictTypes[3]},
      {"verification.expired", "the session expired before completion",
       "VerificationExpiredEvent", false, "verification_session", vs::SessionExpired::kType},
      {"case.escalated", "a review case went up a level (resolve with action escalate): its priority rose one step",
       "CaseEscalatedEvent", false, "review_case", "review.case_escalated"},
      {"audit.event",
       "personal data was shown in manual review: a case detail was opened or a capture viewed (channel "
       "review_case or review_media); the access is in the audit log under the same eventId",
       "AuditAccessEvent", false, persons::kRevealBudgetAggregate, persons::PiiAccessed::kType},
      {"service.test", "test event: sent when an endpoint is registered, and by the test operation",
       "ServiceTestEvent", false, kEndpointAggregate, kEndpointCreated},
      {"compliance.breach_notified", "a personal-data breach was notified (POST /v1/compliance/breach-notifications)",
       "BreachNotifiedEvent", false, compliance::kBreachAggregate, compliance::BreachNotified::kType},
      {"audit.checkpoint_published",
       "a signed checkpoint of the access log was recorded (at most once a minute, when the log grew): keep "
       "it, and a later log that does not extend it was rewritten or cut back",
       "AuditCheckpointPublishedEvent", false, audit::kAuditLogAggregate, audit::CheckpointPublished::kType},
      {"company.verification_completed",
       "a company's KYB run ended (POST /v1/companies/{id}/verify): its status, risk level and score",
       "CompanyVerificationCompletedEvent", false, kyb::kCompanyAggregate, kyb::RiskAssessed::kType},
      {"arco.request_received", "an ARCO request was recorded (POST /v1/arco-requests): its right, subject and deadlines",
       "ArcoRequestEvent", false, persons::kArcoAggregate, persons::ArcoReceived::kType},
      {"arco.information_requested", "the controller asked the ARCO requester for missing information",
       "ArcoRequestEvent", false, persons::kArcoAggregate, persons::ArcoInformationRequested::kType},
      {"arco.information_received", "the ARCO requester provided the information asked: the response term counts again",
       "ArcoRequestEvent", false, persons::kArcoAggregate, persons::ArcoInformationReceived::kType},
      {"arco.deadline_extended", "an ARCO request's term in course was extended (once, by as much again)",
       "ArcoRequestEvent", false, persons::kArcoAggregate, persons::ArcoDeadlineExtended::kType},
      {"arco.request_accepted", "an ARCO request was granted: it must be made effective by effectDueAt",
       "ArcoRequestEvent", false, persons::kArcoAggregate, persons::ArcoAccepted::kType},
      {"arco.request_denied", "an ARCO request was refused, with its ground",
       "ArcoRequestEvent", false, persons::kArcoAggregate, persons::ArcoDenied::kType},
      {"arco.request_completed", "the operation that serves an ARCO request was recorded on it",
       "ArcoRequestEvent", false, persons::kArcoAggregate, persons::ArcoCompleted::kType},
      {"arco.request_withdrawn", "the requester withdrew an ARCO request",
       "ArcoRequestEvent", false, persons::kArcoAggregate, persons::ArcoWithdrawn::kType},
      {"arco.request_lapsed", "an ARCO request lapsed: the information asked was not provided in time",
       "ArcoRequestEvent", false, persons::kArcoAggregate, persons::ArcoLapsed::kType},
      {"arco.deadline_approaching",
       "an ARCO request's response or effect deadline is near (--arco-warning-business-days business days or fewer)",
       "ArcoRequestEvent", false, persons::kArcoAggregate, persons::ArcoDeadlineApproaching::kType},
      {"arco.deadline_missed", "an ARCO request's response or effect deadline passed unmet: it is overdue",
       "ArcoRequestEvent", false, persons::kArcoAggregate, persons::ArcoDeadlineMissed::kType},
      {"aml.hit_found",
       "a screening met a list entry for the first time for that subject (a screening, a company's verification "
       "or a portfolio run): the hit to review",
       "AmlHitFoundEvent", false, kyb::kHitAggregate, kyb::HitFound::kType},
  };
  return kTypes;
}

const WebhookType* WebhookTypeFor(std::string_view aggregate_type, std::string_view event_type) {
  for (const auto& t : WebhookTypes()) {
    if (t.emitted && t.source_event == event_type && t.source_aggregate == aggregate_type) return &t;
  }
  return nullptr;
}

}  // namespace svc::commands::webhooks
