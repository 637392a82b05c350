#pragma once
// The persons read model's keys (prefix "persons/"), for PersonsProjector and its readers. No
// row holds a value of personal data: presence, provenance, sealed values (never served) and
// blind-index keys only.
//
//   rec/<ten>/<env>/<per>                  the masked person (PersonWriteResponse members, with
//                                          applicationId, externalRefs, forgetRequested)
//   prov/<ten>/<env>/<per>                 piiProvenance: per field, the version and source that
//                                          set it
//   sealed/<ten>/<env>/<per>               {<field>: {sealed, version, index}}: what a reveal opens
//   meta/<ten>/<env>/<per>                 the sealed metadata (never served as is)
//   idx/<ten>/<env>/all/<order>            persons, newest first (order: as SessionsView)
//   idx/<ten>/<env>/app/<app>/<order>      one application's persons
//   bi/<ten>/<env>/<blind key>/<per>       the blind index: search, duplicates, CURP conflicts
//   ext/<ten>/<env>/<app>/<externalRef>    = <per>: the upsert key (externalRef per application)
//   curp/<ten>/<env>/<blind key>           = <per>: a holder of that CURP (one Get answers "is it
//                                          held?" for CURP_CONFLICT; bi/ lists every holder)
//   tok/<ten>/<env>/<ctok>                 a client token (never its secret): person, fields,
//                                          purpose, createdAt, expiresAt, usedAt, revokedAt
//   tokref/<ctok>                          {tenantId, environment, applicationId}: where a token
//                                          presented as a bearer credential belongs
//   psess/<ten>/<env>/<per>/<order>        = <vrf>: the person's verification sessions, newest
//                                          first (order: as SessionsView, by the session's
//                                          creation, or by the link for a session that made the
//                                          person)
//   sessperson/<ten>/<env>/<vrf>           = <per>: the person a session is linked to
//   vpending/<ten>/<env>/<vrf>             {trackingId, personId}: an approved session whose
//                                          verified data is not in the vault yet (the work of
//                                          pipeline/persons/verified_data)
//   face/<ten>/<env>/<per>                 {sessionId, trackingId, verifiedAt}: where the face of
//                                          the person's last approved verification is kept
//                                          (sealed, in that session's stage details)
//   cns/<ten>/<env>/<per>/<cns>            a consent (ConsentItem, as served); cnsi/…/<per>/<newest>:
//                                          newest first
//   cnsev/<ten>/<env>/<per>/<cns>          its evidence, sealed under the person's key (never listed;
//                                          opened for the person's own access export)
//   grt/<ten>/<env>/<per>/<grt>            a grant (GrantItem, as served); grti/…/<per>/<newest>:
//                                          newest first
//   grtapp/<ten>/<env>/<per>/<app>         = <grt>: the grant in force for that application
//   opp/<ten>/<env>/<per>/<opp>            an opposition (OppositionItem, as served); oppi/…/<per>/<newest>:
//                                          newest first
//   opposed/<ten>/<env>/<per>/<purpose>    = <opp>: the purpose is opposed (until a later consent for it)
//   lgh/<ten>/<env>/<per>/<newest>         a row of the legal-hold history (LegalHoldItem, as
//                                          served), newest first
//   (<newest>: NewestFirst, the person's aggregate version inverted, then the item's id)
//   purgedue/<micros BE>/<ten>/<env>/<per>  a forget whose purge is due then (the purger's queue)
//   shred/<ten>/<env>/<per>                {sessionIds}: purged, its keys not destroyed yet
//   deletion/<ten>/<env>/<per>             the deletion certificate's content (once keys are gone)
//   csl/<ten>/<env>/<per>/<csl>            a consolidation into the survivor <per>
//                                          (ConsolidationStatusResponse, as served)
//   imp/<ten>/<env>/<imp>                  a bulk import job (PersonImportJob, as served)
//   exb/<ten>/<env>/<exb>                  a bulk export job (PersonExportBulkJob, as served)
//   exporting/<ten>/<env>/<exb>            the job's request, queued until its dump is written or
//                                          it failed (the bulk exporter's queue)
//   exportready/<ten>/<env>/<exb>          {expiresAtMicros}: a written dump, until it expires
//   consolidating/<ten>/<env>/<per>/<csl>  {tenantId, environment, survivorId, consolidationId}:
//                                          under way (the consolidator's queue)
//   hold/<ten>/<env>/<per>/<what>          = <until micros, 0: until released>: a hold set and not
//                                          released, on the person (what = "person") or on one
//                                          capture (what = its med_ id); expiry is read against now
//
// `te` is "<ten>/<env>" (TenantEnv).

#include <string>
#include <string_view>
#include <vector>

#include "core/json_fields.h"
#include "projections/sessions_view.h"
#include "projections/view_key.h"

namespace svc::projections {

// A person record's verificationSummary (the persons projector writes it; the persons' state
// topic carries it: projections/state_records.h).
struct PersonVerificationSummary {
  std::string status = "unverified";
  std::string last_session_id;
  std::string last_verified_at;
  int64_t session_count = 0;
  std::vector<std::string> verified_fields;
  static constexpr auto Fields() {
    using T = PersonVerificationSummary;
    return std::tuple{core::Field("status", &T::status),
                      core::Field("lastSessionId", &T::last_session_id, core::Empty::kNull),
                      core::Field("lastVerifiedAt", &T::last_verified_at, core::Empty::kNull),
                      core::Field("sessionCount", &T::session_count),
                      core::Field("verifiedFields", &T::verified_fields)};
  }
};

struct PersonsView {
  static constexpr std::string_view kName = "persons";

  static std::string Record(std::string_view te, std::string_view id) { return ScopedKey("rec/", te, id); }
  static std::string Provenance(std::string_view te, std::string_view id) { return ScopedKey("prov/", te, id); }
  static std::string Sealed(std::string_view te, std::string_view id) { return ScopedKey("sealed/", te, id); }
  static std::string Metadata(std::string_view te, std::string_view id) { return ScopedKey("meta/", te, id); }
  static std::string All() { return "all"; }
  static std::string ByApplication(std::string_view app) { return "app/" + std::string(app); }
  static std::string Index(std::string_view te, std::string_view filter) {
    return ScopedKey("idx/", te, filter) + "/";
  }
  static std::string Order(int64_t created_micros, std::string_view id) {
    return SessionsView::Order(created_micros, id);
  }
  static std::string_view IdOfOrder(std::string_view order) { return SessionsView::IdOfOrder(order); }
  static std::string BlindIndexed(std::string_view te, std::string_view blind_key) {
    return ScopedKey("bi/", te, blind_key) + "/";
  }
  static std::string BlindIndex(std::string_view te, std::string_view blind_key, std::string_view id) {
    return BlindIndexed(te, blind_key) + std::string(id);
  }
  static std::string CurpHolder(std::string_view te, std::string_view blind_key) {
    return ScopedKey("curp/", te, blind_key);
  }
  // The ids a holders row lists (comma-separated), and back.
  static std::vector<std::string> SplitIds(std::string_view list) {
    std::vector<std::string> ids;
    for (size_t at = 0; at < list.size();) {
      size_t comma = list.find(',', at);
      if (comma == std::string_view::npos) comma = list.size();
      if (comma > at) ids.emplace_back(list.substr(at, comma - at));
      at = comma + 1;
    }
    return ids;
  }
  static std::string JoinIds(const std::vector<std::string>& ids) {
    std::string out;
    for (const auto& id : ids) out += (out.empty() ? "" : ",") + id;
    return out;
  }
  static std::string ExternalRef(std::string_view te, std::string_view app, std::string_view ref) {
    return ScopedKey("ext/", te, app) + "/" + std::string(ref);
  }

  static std::string ClientToken(std::string_view te, std::string_view id) { return ScopedKey("tok/", te, id); }
  static std::string ClientTokenRef(std::string_view id) { return "tokref/" + std::string(id); }

  static std::string Sessions(std::string_view te, std::string_view id) { return ScopedKey("psess/", te, id) + "/"; }
  static std::string SessionPerson(std::string_view te, std::string_view session) {
    return ScopedKey("sessperson/", te, session);
  }
  static std::string PendingAll() { return "vpending/"; }
  static std::string Pending(std::string_view te, std::string_view session) { return ScopedKey("vpending/", te, session); }
  static std::string Face(std::string_view te, std::string_view id) { return ScopedKey("face/", te, id); }

  static std::string Consent(std::string_view te, std::string_view id, std::string_view consent) {
    return Consents(te, id) + std::string(consent);
  }
  static std::string Consents(std::string_view te, std::string_view id) { return ScopedKey("cns/", te, id) + "/"; }
  static std::string ConsentIndex(std::string_view te, std::string_view id) { return ScopedKey("cnsi/", te, id) + "/"; }
  static std::string ConsentEvidence(std::string_view te, std::string_view id, std::string_view consent) {
    return ScopedKey("cnsev/", te, id) + "/" + std::string(consent);
  }
  static std::string Opposition(std::string_view te, std::string_view id, std::string_view opp) {
    return ScopedKey("opp/", te, id) + "/" + std::string(opp);
  }
  static std::string OppositionIndex(std::string_view te, std::string_view id) { return ScopedKey("oppi/", te, id) + "/"; }
  static std::string Opposed(std::string_view te, std::string_view id, std::string_view purpose) {
    return ScopedKey("opposed/", te, id) + "/" + std::string(purpose);
  }
  static std::string Grant(std::string_view te, std::string_view id, std::string_view grant) {
    return ScopedKey("grt/", te, id) + "/" + std::string(grant);
  }
  static std::string GrantIndex(std::string_view te, std::string_view id) { return ScopedKey("grti/", te, id) + "/"; }
  static std::string GrantOfApplication(std::string_view te, std::string_view id, std::string_view app) {
    return ScopedKey("grtapp/", te, id) + "/" + std::string(app);
  }

  // The order of a person's own records (consents, grants, legal holds): newest first by the
  // person's aggregate version (strict, whatever the clock says), then the item's id.
  static std::string NewestFirst(int64_t aggregate_version, std::string_view item) {
    return SessionsView::Order(aggregate_version, item);
  }
  static std::string LegalHolds(std::string_view te, std::string_view id) { return ScopedKey("lgh/", te, id) + "/"; }
  static std::string Holds(std::string_view te, std::string_view id) { return ScopedKey("hold/", te, id) + "/"; }
  static std::string Hold(std::string_view te, std::string_view id, std::string_view asset) {
    return Holds(te, id) + (asset.empty() ? std::string("person") : std::string(asset));
  }

  static std::string PurgeDuePrefix() { return "purgedue/"; }
  static std::string PurgeDue(int64_t micros, std::string_view tenant, std::string_view env, std::string_view id) {
    return TimedKey(PurgeDuePrefix(), micros, TenantEnv(tenant, env), id);
  }
  static std::string ShredPrefix() { return "shred/"; }
  static std::string Shred(std::string_view te, std::string_view id) { return ScopedKey("shred/", te, id); }
  static std::string Deletion(std::string_view te, std::string_view id) { return ScopedKey("deletion/", te, id); }

  static std::string Consolidation(std::string_view te, std::string_view survivor, std::string_view id) {
    return ScopedKey("csl/", te, survivor) + "/" + std::string(id);
  }
  static std::string Import(std::string_view te, std::string_view id) { return ScopedKey("imp/", te, id); }
  static std::string Export(std::string_view te, std::string_view id) { return ScopedKey("exb/", te, id); }
  static std::string ExportingPrefix() { return "exporting/"; }
  static std::string Exporting(std::string_view te, std::string_view id) { return ScopedKey("exporting/", te, id); }
  static std::string ExportReadyPrefix() { return "exportready/"; }
  static std::string ExportReady(std::string_view te, std::string_view id) { return ScopedKey("exportready/", te, id); }
  static std::string Records(std::string_view te) { return ScopedKey("rec/", te, ""); }
  static std::string ConsolidatingPrefix() { return "consolidating/"; }
  static std::string Consolidating(std::string_view te, std::string_view survivor, std::string_view id) {
    return ScopedKey("consolidating/", te, survivor) + "/" + std::string(id);
  }

  static std::string Abs(std::string_view relative) { return AbsoluteKey(kName, relative); }
};

}  // namespace svc::projections
