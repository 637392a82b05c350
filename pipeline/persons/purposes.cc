#include "pipeline/persons/purposes.h"

namespace svc::pipeline::persons {

const std::vector<Purpose>& Purposes() {
  static const std::vector<Purpose> kPurposes = {
      {"identity_verification", "confirm who the customer is (onboarding, re-verification)"},
      {"account_opening", "open or service a contract the customer asked for"},
      {"credit_assessment", "assess a credit application (including a credit bureau query)"},
      {"aml_compliance", "anti-money-laundering duties: KYC refresh, screening, reports (LFPIORPI)"},
      {"fraud_prevention", "investigate or prevent fraud on the customer's account"},
      {"customer_support", "answer the customer's own request"},
      {"arco_request", "serve an ARCO request of the data subject (access, rectification, cancellation, opposition)"},
      {"regulatory_request", "answer an authority's lawful request (CNBV, UIF, INAI, a court)"},
      {"contract_execution", "perform obligations of a contract with the customer (billing, collections)"},
  };
  return kPurposes;
}

bool IsKnownPurpose(std::string_view id) {
  for (const auto& p : Purposes()) {
    if (p.id == id) return true;
  }
  return false;
}

}  // namespace svc::pipeline::persons
