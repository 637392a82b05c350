#pragma once
// The purpose catalogue: why plaintext personal data may be revealed. Every reveal names one
// (decrypt, batch decrypt and client tokens require it; an expanded read and an export record
// theirs when given); an unknown purpose is 400 PURPOSE_UNKNOWN. The list follows the finalidades
// an LFPDPPP privacy notice (aviso de privacidad) of a Mexican financial integrator declares;
// docs/persons.md gives each one's meaning. Consents and grants (issue 16) refer to the same ids.

#include <string_view>
#include <vector>

namespace svc::pipeline::persons {

struct Purpose {
  std::string_view id;
  std::string_view description;
};

const std::vector<Purpose>& Purposes();
bool IsKnownPurpose(std::string_view id);

}  // namespace svc::pipeline::persons
