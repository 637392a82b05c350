#pragma once
// Prefixed opaque identifiers: `<prefix>_<32 lowercase hex>` (128 random bits). The prefix says
// what kind of thing the id names, so a person id can never be passed where a session id is
// expected. The parser rejects raw UUIDs, wrong prefixes, upper case and wrong lengths with the
// catalogue code INVALID_ID.

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "core/status.h"

namespace svc::core {

enum class IdKind {
  kTenant,        // ten_
  kApplication,   // app_
  kApiKey,        // key_
  kUser,          // usr_
  kPerson,        // per_
  kVerification,  // vrf_
  kEvent,         // evt_
  kClientToken,   // ctok_
  kCase,          // cas_
  kCompany,       // cmp_
  kMedia,         // med_
  kWebhook,       // whe_
  kDelivery,      // whd_
  kRequest,       // req_
  kFlow,          // flw_
  kTracking,      // trk_ (one submission of a verification session)
  kLivenessChallenge,  // lch_ (an active-liveness challenge of a verification session)
  kBreach,        // brc_ (a breach notification)
  kConsent,       // cns_ (a person's consent for a purpose)
  kGrant,         // grt_ (an application's grant on a person's data)
  kLegalHold,     // lgh_ (a row of a person's legal-hold history)
  kConsolidation,  // csl_ (a merge of duplicate persons into a survivor)
  kImport,         // imp_ (a bulk import of persons)
  kExport,         // exb_ (a bulk export of persons)
  kCompanyMember,  // cmm_ (a member of a company: a director, a legal representative)
  kCompanyDocument,  // cdc_ (a document reference of a company)
  kUboNode,        // ubo_ (a node of a company's ownership graph)
  kScreening,      // scr_ (one AML screening of a subject)
  kScreeningHit,   // hit_ (a subject matched to a list entry)
  kPersonExport,   // pxb_ (an ARCO access bundle answered by POST /v1/persons/{id}/export)
  kOpposition,     // opp_ (a person's objection to a purpose: ARCO opposition)
  kEfirmaChallenge,  // efc_ (an e.firma possession challenge of a verification session)
  kArcoRequest,    // arc_ (an ARCO request: a data subject's right of access, rectification, cancellation or opposition)
};

std::string_view IdPrefix(IdKind kind);  // without the trailing underscore

// A validated id of one kind. Cheap to copy; compares by value.
template <IdKind K>
class Id {
 public:
  Id() = default;
  static constexpr IdKind kKind = K;
  const std::string& str() const { return value_; }
  bool empty() const { return value_.empty(); }
  friend bool operator==(const Id&, const Id&) = default;
  friend auto operator<=>(const Id&, const Id&) = default;

  // Only the parser and the id source make ids.
  static Id FromTrusted(std::string v) {
    Id id;
    id.value_ = std::move(v);
    return id;
  }

 private:
  std::string value_;
};

using TenantId = Id<IdKind::kTenant>;
using ApplicationId = Id<IdKind::kApplication>;
using ApiKeyId = Id<IdKind::kApiKey>;
using EventId = Id<IdKind::kEvent>;
using PersonId = Id<IdKind::kPerson>;
using VerificationId = Id<IdKind::kVerification>;

// Checks `text` is `<prefix of kind>_<32 lowercase hex>`.
Status ValidateId(IdKind kind, std::string_view text);

template <IdKind K>
Result<Id<K>> ParseId(std::string_view text) {
  SVC_RETURN_IF_ERROR(ValidateId(K, text));
  return Id<K>::FromTrusted(std::string(text));
}

// Where new ids come from. Injected so tests and replays are deterministic.
class IdSource {
 public:
  virtual ~IdSource() = default;
  // 16 fresh bytes as 32 lowercase hex characters.
  virtual std::string NewHex128() = 0;

  std::string NewIdString(IdKind kind);
  template <IdKind K>
  Id<K> New() {
    return Id<K>::FromTrusted(NewIdString(K));
  }
};

// Random ids from the OS CSPRNG (libsodium). Thread-safe.
class RandomIdSource final : public IdSource {
 public:
  std::string NewHex128() override;
};

// Deterministic ids for tests: a seed and a counter. Thread-safe.
class SequentialIdSource final : public IdSource {
 public:
  explicit SequentialIdSource(uint64_t seed = 0) : seed_(seed) {}
  std::string NewHex128() override;

 private:
  std::mutex mu_;
  uint64_t seed_;
  uint64_t next_ = 1;
};

std::string HexEncode(std::string_view bytes);
// Lower- or upper-case hex of an even length; anything else is kInvalidArgument.
Result<std::string> HexDecode(std::string_view hex);

}  // namespace svc::core
