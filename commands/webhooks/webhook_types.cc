#include "commands/webhooks/webhook_types.h"

#include "commands/audit/checkpoint.h"
#include "commands/compliance/breach.h"
#include "commands/kyb/company_events.h"
#include "commands/kyb/screening_events.h"
#include "commands/persons/access_events.h"
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
