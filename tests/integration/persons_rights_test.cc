// A person's consents and the grants of applications, through a real svc: what each route
// answers and refuses, and how every reveal (decrypt, batch decrypt, an expanded read, client
// tokens) is held to them.
#include <doctest/doctest.h>

#include <algorithm>


#include "core/clock.h"
#include "core/json.h"
#include "tests/support/api_env.h"
#include "tests/support/receiver_process.h"
#include "tests/support/session_flow.h"

namespace integration_persons_rights_test {

using namespace svc;
using svc::testing::Body;
using svc::testing::CheckProblem;
using svc::testing::Env;
using svc::testing::Sharing;

namespace {

const std::string kBase = "/v1/persons";
const std::vector<std::string> kFlags = {"--rate-reveals", "0"};
const std::string kCurp = "PEPJ800101HDFRRN03";

api::HttpResponse Post(Env& env, const std::string& key, const std::string& path, const core::Json& body,
                       std::map<std::string, std::string> headers = {}) {
  return env.Call(key, "POST", path, body.dump(), std::move(headers));
}

std::string MakePerson(Env& env, const std::string& key) {
  auto r = Post(env, key, kBase, {{"pii", {{"curp", kCurp}, {"email", "a@example.mx"}, {"fullName", "Ana Pérez"}}}});
  REQUIRE_MESSAGE(r.status == 201, r.body);
  return Body(r)["id"].get<std::string>();
}

api::HttpResponse Decrypt(Env& env, const std::string& key, const std::string& id, std::vector<std::string> fields,
                          const std::string& purpose) {
  return Post(env, key, kBase + "/" + id + "/decrypt",
              {{"fields", fields}, {"purpose", purpose}, {"reason", "rights test"}});
}

core::Json Consent(const std::string& purpose, const core::Json& extra = core::Json::object()) {
  core::Json c = {{"mechanism", "firma_electronica"}, {"policyVersion", "2026-01"}, {"purpose", purpose}};
  c.update(extra);
  return c;
}

}  // namespace

TEST_CASE("persons rights: consents are recorded, listed and revoked; reveals for a revoked purpose stop") {
  Env env(false, kFlags);
  const std::string k = env.test_key;
  const std::string id = MakePerson(env, k);
  const std::string consents = kBase + "/" + id + "/consents";
  // Without consents for it a purpose rests on other grounds: the reveal goes ahead.
  CHECK(Decrypt(env, k, id, {"curp"}, "credit_assessment").status == 200);

  auto made = Post(env, k, consents,
                   Consent("credit_assessment", {{"attestedBy", "applicant"},
                                                  {"evidence", {{"signature", "MEUCIQ…"}, {"ip", "203.0.113.7"}}},
                                                  {"expiresAt", "2099-01-01T00:00:00Z"}}));
  REQUIRE_MESSAGE(made.status == 201, made.body);
  core::Json c = Body(made);
  CHECK(c["object"] == "person.consent");
  CHECK(c["id"].get<std::string>().rfind("cns_", 0) == 0);
  CHECK(c["purpose"] == "credit_assessment");
  CHECK(c["mechanism"] == "firma_electronica");
  CHECK(c["attestedBy"] == "applicant");
  CHECK(c["expiresAt"] == "2099-01-01T00:00:00.000Z");
  CHECK(c["revokedAt"].is_null());
  CHECK(c["grantedAt"] == c["createdAt"]);
  CHECK_FALSE(c.contains("evidence"));  // write-only
  CHECK(made.body.find("203.0.113.7") == std::string::npos);
  auto second = Post(env, k, consents, Consent("aml_compliance", {{"mechanism", "autenticacion"}}));
  REQUIRE(second.status == 201);
  core::Json listed = Body(env.Call(k, "GET", consents));
  REQUIRE(listed["data"].size() == 2);
  CHECK(listed["data"][0]["purpose"] == "aml_compliance");  // newest first
  CHECK(listed["data"][1]["id"] == c["id"]);
  CHECK(listed.dump().find("203.0.113.7") == std::string::npos);
  CHECK(Body(env.Call(k, "GET", consents + "?limit=1"))["hasMore"] == true);

  CHECK(Decrypt(env, k, id, {"curp"}, "credit_assessment").status == 200);
  auto revoked = Post(env, k, consents + "/" + c["id"].get<std::string>() + "/revoke", core::Json::object());
  REQUIRE_MESSAGE(revoked.status == 200, revoked.body);
  CHECK(Body(revoked)["revokedAt"].is_string());
  auto again = Post(env, k, consents + "/" + c["id"].get<std::string>() + "/revoke", core::Json::object());
  REQUIRE(again.status == 200);
  CHECK(Body(again)["revokedAt"] == Body(revoked)["revokedAt"]);  // the first revocation stands
  CheckProblem(Decrypt(env, k, id, {"curp"}, "credit_assessment"), 409, "CONSENT_REQUIRED");
  CHECK(Decrypt(env, k, id, {"curp"}, "aml_compliance").status == 200);
  CHECK(Decrypt(env, k, id, {"curp"}, "identity_verification").status == 200);
  // A new consent for the purpose puts it back in force.
  REQUIRE(Post(env, k, consents, Consent("credit_assessment")).status == 201);
  CHECK(Decrypt(env, k, id, {"curp"}, "credit_assessment").status == 200);

  // Errors.
  CheckProblem(Post(env, k, consents, Consent("marketing")), 400, "PURPOSE_UNKNOWN");
  CheckProblem(Post(env, k, consents, {{"policyVersion", "1"}, {"purpose", "credit_assessment"}}), 422, "VALIDATION_ERROR");
  CheckProblem(Post(env, k, consents, Consent("credit_assessment", {{"mechanism", "handshake"}})), 422, "VALIDATION_ERROR");
  CheckProblem(Post(env, k, consents, Consent("credit_assessment", {{"attestedBy", "notary"}})), 422, "VALIDATION_ERROR");
  CheckProblem(Post(env, k, consents, Consent("credit_assessment", {{"expiresAt", "2001-01-01T00:00:00Z"}})), 422,
               "VALIDATION_ERROR");
  CheckProblem(Post(env, k, consents, Consent("credit_assessment", {{"evidence", "a string"}})), 422, "VALIDATION_ERROR");
  CheckProblem(Post(env, k, consents, Consent("credit_assessment", {{"colour", "red"}})), 422, "VALIDATION_ERROR");
  CheckProblem(env.Call(k, "POST", consents, "not json"), 400, "BAD_REQUEST");
  CheckProblem(Post(env, k, consents + "/cns_00000000000000000000000000000000/revoke", core::Json::object()), 404,
               "CONSENT_NOT_FOUND");
  CheckProblem(Post(env, k, consents + "/not-an-id/revoke", core::Json::object()), 400, "INVALID_ID");
  CheckProblem(Post(env, k, kBase + "/per_00000000000000000000000000000000/consents", Consent("credit_assessment")), 404,
               "PERSON_NOT_FOUND");
  CheckProblem(env.Call(k, "GET", kBase + "/per_00000000000000000000000000000000/consents"), 404, "PERSON_NOT_FOUND");
  // Another person's consent is not this person's.
  const std::string other = MakePerson(env, env.live_key);
  CheckProblem(Post(env, env.live_key, kBase + "/" + other + "/consents/" + c["id"].get<std::string>() + "/revoke",
                    core::Json::object()),
               404, "CONSENT_NOT_FOUND");
  CheckProblem(env.Call(env.live_key, "GET", consents), 404, "PERSON_NOT_FOUND");  // the live environment
  // Scopes.
  std::string reader = env.NewKey(env.tenant, "test", {"persons:read"});
  CHECK(env.Call(reader, "GET", consents).status == 200);
  CheckProblem(Post(env, reader, consents, Consent("credit_assessment")), 403, "INSUFFICIENT_SCOPE");
}

TEST_CASE("persons rights: an expired consent stops reveals for its purpose (fake clock)") {
  Env env(false, {"--rate-reveals", "0", "--fake-clock"}, Sharing::kIsolated);
  const std::string k = env.test_key;
  const std::string id = MakePerson(env, k);
  core::Json now = core::ParseJsonOrDiscarded(env.Admin("POST", "/admin/clock", {{"advanceSeconds", 0}}).body);
  auto t = core::ParseRfc3339(now["now"].get<std::string>());
  REQUIRE(t.ok());
  const std::string in_an_hour = core::FormatRfc3339(core::Timestamp{t->micros + 3600LL * 1000000});
  REQUIRE(Post(env, k, kBase + "/" + id + "/consents", Consent("fraud_prevention", {{"expiresAt", in_an_hour}})).status == 201);
  CHECK(Decrypt(env, k, id, {"email"}, "fraud_prevention").status == 200);
  REQUIRE(env.Admin("POST", "/admin/clock", {{"advanceSeconds", 3601}}).status == 200);
  CheckProblem(Decrypt(env, k, id, {"email"}, "fraud_prevention"), 409, "CONSENT_REQUIRED");
}

TEST_CASE("persons rights: grants hold another application's reveals to their fields and purposes") {
  Env env(false, kFlags);
  const std::string owner = env.test_key;
  const std::string id = MakePerson(env, owner);
  const std::string partner_app = env.NewApplication(env.tenant, "Partner");
  const std::string partner = env.NewKey(env.tenant, "test", {"persons:*"}, partner_app);
  const std::string grants = kBase + "/" + id + "/grants";

  // Not the person's application, no grant: nothing.
  CheckProblem(Decrypt(env, partner, id, {"curp"}, "identity_verification"), 403, "FIELD_NOT_GRANTED");
  auto made = Post(env, owner, grants,
                   {{"applicationId", partner_app},
                    {"allowedFields", {"curp", "fullName"}},
                    {"allowedPurposes", {"identity_verification"}}});
  REQUIRE_MESSAGE(made.status == 201, made.body);
  core::Json g = Body(made);
  CHECK(g["object"] == "person.grant");
  CHECK(g["id"].get<std::string>().rfind("grt_", 0) == 0);
  CHECK(g["applicationId"] == partner_app);
  CHECK(g["defaultRedaction"] == "masked");
  CHECK(g["createdVia"] == "api");
  CHECK(g["revokedAt"].is_null());

  CHECK(Decrypt(env, partner, id, {"curp", "fullName"}, "identity_verification").status == 200);
  CheckProblem(Decrypt(env, partner, id, {"email"}, "identity_verification"), 403, "FIELD_NOT_GRANTED");
  CheckProblem(Decrypt(env, partner, id, {"curp"}, "credit_assessment"), 403, "GRANT_PURPOSE_NOT_ALLOWED");
  // Batch decrypt: the refusal is the person's entry in `errors`.
  auto batch = Post(env, partner, kBase + "/batch-decrypt",
                    {{"personIds", {id}}, {"fields", {"email"}}, {"purpose", "identity_verification"}, {"reason", "r"}});
  REQUIRE_MESSAGE(batch.status == 200, batch.body);
  CHECK(Body(batch)["data"].empty());
  CHECK(Body(batch)["errors"][0]["error"]["code"] == "FIELD_NOT_GRANTED");
  // An expanded read: its fields and Service-Purpose.
  std::map<std::string, std::string> headers = {{"Service-Reason", "support ticket"},
                                                {"Service-Purpose", "identity_verification"}};
  CHECK(env.Call(partner, "GET", kBase + "/" + id + "?expand=pii.curp", "", headers).status == 200);
  CheckProblem(env.Call(partner, "GET", kBase + "/" + id + "?expand=pii", "", headers), 403, "FIELD_NOT_GRANTED");
  CheckProblem(env.Call(partner, "GET", kBase + "/" + id + "?expand=pii.curp", "", {{"Service-Reason", "r"}}), 403,
               "GRANT_PURPOSE_NOT_ALLOWED");
  // Client tokens: checked when issued and again when spent.
  CheckProblem(Post(env, partner, kBase + "/" + id + "/client-token",
                    {{"fields", {"email"}}, {"reason", "r"}, {"purpose", "identity_verification"}}),
               403, "FIELD_NOT_GRANTED");
  auto token = Post(env, partner, kBase + "/" + id + "/client-token",
                    {{"fields", {"curp"}}, {"reason", "r"}, {"purpose", "identity_verification"}});
  REQUIRE_MESSAGE(token.status == 201, token.body);

  // The grant revoked: the token issued under it no longer spends.
  auto revoked = Post(env, owner, grants + "/" + g["id"].get<std::string>() + "/revoke", core::Json::object());
  REQUIRE_MESSAGE(revoked.status == 200, revoked.body);
  CHECK(Body(revoked)["revokedAt"].is_string());
  CHECK(Body(Post(env, owner, grants + "/" + g["id"].get<std::string>() + "/revoke", core::Json::object()))["revokedAt"] ==
        Body(revoked)["revokedAt"]);
  CheckProblem(env.Call(Body(token)["token"], "POST", kBase + "/" + id + "/decrypt", ""), 403, "FIELD_NOT_GRANTED");
  CheckProblem(Decrypt(env, partner, id, {"curp"}, "identity_verification"), 403, "FIELD_NOT_GRANTED");

  // A new grant replaces the one in force; `redacted` hides which fields are held.
  auto first = Post(env, owner, grants,
                    {{"applicationId", partner_app}, {"allowedFields", {"email"}}, {"allowedPurposes", {"customer_support"}}});
  REQUIRE(first.status == 201);
  auto replacing = Post(env, owner, grants,
                        {{"applicationId", partner_app},
                         {"allowedFields", {"email"}},
                         {"allowedPurposes", {"customer_support"}},
                         {"defaultRedaction", "redacted"}});
  REQUIRE(replacing.status == 201);
  core::Json listed = Body(env.Call(owner, "GET", grants));
  REQUIRE(listed["data"].size() == 3);
  CHECK(listed["data"][0]["id"] == Body(replacing)["id"]);
  CHECK(listed["data"][1]["id"] == Body(first)["id"]);
  CHECK(listed["data"][1]["revokedAt"].is_string());  // replaced
  CHECK(Decrypt(env, partner, id, {"email"}, "customer_support").status == 200);
  core::Json seen_by_partner = Body(env.Call(partner, "GET", kBase + "/" + id));
  CHECK(seen_by_partner["pii"].empty());
  CHECK(seen_by_partner["piiProvenance"].empty());
  CHECK(Body(env.Call(owner, "GET", kBase + "/" + id))["pii"]["curp"] == "********");

  // The person's own application can restrict itself with a grant.
  REQUIRE(Post(env, owner, grants,
               {{"applicationId", Body(env.Call(owner, "GET", kBase + "/" + id))["applicationId"]},
                {"allowedFields", {"email"}},
                {"allowedPurposes", {"identity_verification"}}})
              .status == 201);
  CheckProblem(Decrypt(env, owner, id, {"curp"}, "identity_verification"), 403, "FIELD_NOT_GRANTED");
  CHECK(Decrypt(env, owner, id, {"email"}, "identity_verification").status == 200);

  // Errors.
  auto grant = [&](const core::Json& body) { return Post(env, owner, grants, body); };
  const core::Json ok = {{"applicationId", partner_app}, {"allowedFields", {"curp"}}, {"allowedPurposes", {"aml_compliance"}}};
  CheckProblem(grant({{"applicationId", "app_00000000000000000000000000000000"},
                      {"allowedFields", {"curp"}},
                      {"allowedPurposes", {"aml_compliance"}}}),
               404, "APPLICATION_NOT_FOUND");
  CheckProblem(grant({{"applicationId", "nope"}, {"allowedFields", {"curp"}}, {"allowedPurposes", {"aml_compliance"}}}), 400,
               "INVALID_ID");
  CheckProblem(grant({{"applicationId", partner_app}, {"allowedFields", {"shoeSize"}}, {"allowedPurposes", {"aml_compliance"}}}),
               422, "UNKNOWN_PII_FIELD");
  CheckProblem(grant({{"applicationId", partner_app}, {"allowedFields", {"curp"}}, {"allowedPurposes", {"marketing"}}}), 400,
               "PURPOSE_UNKNOWN");
  CheckProblem(grant({{"allowedFields", {"curp"}}, {"allowedPurposes", {"aml_compliance"}}}), 422, "VALIDATION_ERROR");
  CheckProblem(grant({{"applicationId", partner_app}, {"allowedFields", core::Json::array()}, {"allowedPurposes", {"aml_compliance"}}}),
               422, "VALIDATION_ERROR");
  core::Json bad_redaction = ok;
  bad_redaction["defaultRedaction"] = "blurred";
  CheckProblem(grant(bad_redaction), 422, "VALIDATION_ERROR");
  core::Json past = ok;
  past["expiresAt"] = "2001-01-01T00:00:00Z";
  CheckProblem(grant(past), 422, "VALIDATION_ERROR");
  CheckProblem(Post(env, owner, grants + "/grt_00000000000000000000000000000000/revoke", core::Json::object()), 404,
               "GRANT_NOT_FOUND");
  CheckProblem(Post(env, owner, grants + "/x/revoke", core::Json::object()), 400, "INVALID_ID");
  std::string reader = env.NewKey(env.tenant, "test", {"persons:read"});
  CHECK(env.Call(reader, "GET", grants).status == 200);
  CheckProblem(Post(env, reader, grants, ok), 403, "INSUFFICIENT_SCOPE");
}

TEST_CASE("persons rights: legal holds are set, renewed and released on a history, and keep captures from the sweep") {
  Env env(false, {"--rate-reveals", "0", "--fake-clock", "--retention-media-days", "1"}, Sharing::kIsolated);
  const std::string k = env.test_key;
  const std::string id = MakePerson(env, k);
  const std::string holds = kBase + "/" + id + "/legal-holds";
  const std::string hold = kBase + "/" + id + "/legal-hold";

  auto set = Post(env, k, hold, {{"legalBasis", "CNBV oficio 123/2026"}, {"reason", "supervisory inquiry"}});
  REQUIRE_MESSAGE(set.status == 201, set.body);
  core::Json h = Body(set);
  CHECK(h["object"] == "person.legal_hold");
  CHECK(h["id"].get<std::string>().rfind("lgh_", 0) == 0);
  CHECK(h["action"] == "set");
  CHECK(h["personId"] == id);
  CHECK(h["assetId"].is_null());
  CHECK(h["legalBasis"] == "CNBV oficio 123/2026");
  CHECK(h["expiresAt"].is_null());
  auto renew = Post(env, k, hold, {{"legalBasis", "CNBV oficio 123/2026"}, {"reason", "extended"},
                                   {"expiresAt", "2099-01-01T00:00:00Z"}});
  REQUIRE(renew.status == 201);
  CHECK(Body(renew)["action"] == "renew");  // one was in force
  auto released = Post(env, k, hold + "/release", {{"reason", "inquiry closed"}});
  REQUIRE_MESSAGE(released.status == 200, released.body);
  CHECK(Body(released)["action"] == "release");
  CHECK(Body(released)["legalBasis"].is_null());
  CHECK(Post(env, k, hold + "/release", {{"reason", "again"}}).status == 200);  // recorded anyway
  core::Json history = Body(env.Call(k, "GET", holds));
  REQUIRE(history["data"].size() == 4);
  CHECK(history["data"][0]["reason"] == "again");  // newest first, nothing lost
  CHECK(history["data"][3]["id"] == h["id"]);
  CHECK(Body(env.Call(k, "GET", holds + "?limit=2"))["hasMore"] == true);
  CheckProblem(Post(env, k, hold, {{"reason", "no basis"}}), 422, "VALIDATION_ERROR");
  CheckProblem(Post(env, k, hold, {{"legalBasis", "x"}}), 422, "VALIDATION_ERROR");
  CheckProblem(Post(env, k, hold, {{"legalBasis", "x"}, {"reason", "y"}, {"expiresAt", "2001-01-01T00:00:00Z"}}), 422,
               "VALIDATION_ERROR");
  CheckProblem(Post(env, k, hold + "/release", core::Json::object()), 422, "VALIDATION_ERROR");
  CheckProblem(Post(env, k, kBase + "/per_00000000000000000000000000000000/legal-hold", {{"legalBasis", "x"}, {"reason", "y"}}),
               404, "PERSON_NOT_FOUND");
  std::string reader = env.NewKey(env.tenant, "test", {"persons:read"});
  CHECK(env.Call(reader, "GET", holds).status == 200);
  CheckProblem(Post(env, reader, hold, {{"legalBasis", "x"}, {"reason", "y"}}), 403, "INSUFFICIENT_SCOPE");

  // A capture of the person's approved session, held: the retention sweep keeps the session.
  const std::string session = testing::ApprovedSessionOf(env, k, id, "held-1");
  core::Json docs = Body(env.Call(k, "GET", kBase + "/" + id + "/documents"));
  REQUIRE(docs["data"].size() == 4);
  const std::string asset = docs["data"][0]["id"];
  CHECK(docs["data"][0]["legalHold"] == false);
  const std::string doc_hold = kBase + "/" + id + "/documents/" + asset + "/legal-hold";
  auto held = Post(env, k, doc_hold, {{"legalBasis", "juicio 45/2026"}, {"reason", "evidence in a lawsuit"}});
  REQUIRE_MESSAGE(held.status == 201, held.body);
  CHECK(Body(held)["assetId"] == asset);
  CHECK(Body(env.Call(k, "GET", kBase + "/" + id + "/documents"))["data"][0]["legalHold"] == true);
  CheckProblem(Post(env, k, kBase + "/" + id + "/documents/med_00000000000000000000000000000000/legal-hold",
                    {{"legalBasis", "x"}, {"reason", "y"}}),
               404, "MEDIA_NOT_FOUND");
  CheckProblem(Post(env, k, kBase + "/" + id + "/documents/nope/legal-hold", {{"legalBasis", "x"}, {"reason", "y"}}), 400,
               "INVALID_ID");
  auto advance = [&](int64_t seconds) {
    auto r = env.Admin("POST", "/admin/clock", {{"advanceSeconds", seconds}});
    REQUIRE_MESSAGE(r.status == 200, r.body);
    return core::ParseJsonOrDiscarded(r.body)["retention"];
  };
  core::Json swept = advance(2 * 86400);
  CHECK(swept["sessionsHeld"] == 1);
  CHECK(swept["sessionsPurged"] == 0);
  core::Json evidence = Body(env.Call(k, "GET", "/v1/verification-sessions/" + session + "/evidence"));
  CHECK(evidence["media"][0]["purgedAt"].is_null());
  // Released: the next sweep purges it.
  REQUIRE(Post(env, k, doc_hold, {{"action", "release"}, {"reason", "lawsuit settled"}}).status == 201);
  CHECK(Body(env.Call(k, "GET", kBase + "/" + id + "/documents"))["data"][0]["legalHold"] == false);
  core::Json after = advance(60);
  CHECK(after["sessionsHeld"] == 0);
  CHECK(after["sessionsPurged"] == 1);
  core::Json purged = Body(env.Call(k, "GET", "/v1/verification-sessions/" + session + "/evidence"));
  CHECK(purged["media"][0]["purgedAt"].is_string());
  CHECK(Body(env.Call(k, "GET", holds))["data"].size() == 6);  // the capture's set and release joined the history
}

TEST_CASE("persons media links: a signed short-lived link shows one capture; altered or expired links are refused") {
  Env env(false, {"--rate-reveals", "0", "--fake-clock"}, Sharing::kIsolated);
  const std::string k = env.test_key;
  const std::string id = MakePerson(env, k);
  const std::string session = testing::ApprovedSessionOf(env, k, id, "link-1");
  core::Json docs = Body(env.Call(k, "GET", kBase + "/" + id + "/documents"));
  REQUIRE(docs["data"].size() == 4);
  std::string media, kind;
  for (const auto& d : docs["data"]) {
    if (d["kind"] == "document_front") media = d["id"], kind = d["kind"];
  }
  REQUIRE(!media.empty());
  const core::Json ask = {{"sessionId", session}, {"mediaId", media}, {"purpose", "identity_verification"},
                          {"reason", "manual review of the ID"}};

  // Refusals.
  auto without = [&](const std::string& member) {
    core::Json b = ask;
    b.erase(member);
    return b;
  };
  CheckProblem(Post(env, k, "/v1/media-links", without("reason")), 422, "PII_ACCESS_REASON_REQUIRED");
  CheckProblem(Post(env, k, "/v1/media-links", without("purpose")), 422, "VALIDATION_ERROR");
  CheckProblem(Post(env, k, "/v1/media-links", without("mediaId")), 422, "VALIDATION_ERROR");
  core::Json odd = ask;
  odd["purpose"] = "marketing";
  CheckProblem(Post(env, k, "/v1/media-links", odd), 400, "PURPOSE_UNKNOWN");
  odd = ask;
  odd["expiresInSeconds"] = 5;
  CheckProblem(Post(env, k, "/v1/media-links", odd), 422, "VALIDATION_ERROR");
  odd = ask;
  odd["mediaId"] = "med-1";
  CheckProblem(Post(env, k, "/v1/media-links", odd), 400, "INVALID_ID");
  odd = ask;
  odd["mediaId"] = "med_00000000000000000000000000000000";
  CheckProblem(Post(env, k, "/v1/media-links", odd), 404, "MEDIA_NOT_FOUND");
  odd = ask;
  odd["sessionId"] = "vrf_00000000000000000000000000000000";
  CheckProblem(Post(env, k, "/v1/media-links", odd), 404, "SESSION_NOT_FOUND");
  CheckProblem(Post(env, env.live_key, "/v1/media-links", ask), 404, "SESSION_NOT_FOUND");
  const std::string reader = env.NewKey(env.tenant, "test", {"persons:read"});
  CheckProblem(Post(env, reader, "/v1/media-links", ask), 403, "INSUFFICIENT_SCOPE");

  auto made = Post(env, k, "/v1/media-links", ask);
  REQUIRE_MESSAGE(made.status == 201, made.body);
  core::Json link = Body(made);
  CHECK(link["object"] == "media_link");
  CHECK(link["mediaId"] == media);
  CHECK(link["kind"] == "document_front");
  CHECK(link["mime"] == "image/jpeg");
  CHECK(link["personId"] == id);
  const std::string url = link["url"];
  const std::string path = url.substr(url.find("/v1/media-links/"));
  CHECK(path.rfind("/v1/media-links/mlk1.", 0) == 0);
  CHECK(url.find("Ana") == std::string::npos);

  // Opened without any API key: the capture's bytes, not cached.
  auto view = env.Call("", "GET", path);
  REQUIRE_MESSAGE(view.status == 200, view.body);
  CHECK(view.body == testing::Jpeg(1280, 800));
  CHECK(view.content_type == "image/jpeg");
  CHECK(testing::HeaderOf(view, "Cache-Control") == "no-store");
  // Altered anywhere, truncated, or made up: 403, whatever was changed.
  std::string altered = path;
  altered[path.size() / 2] = altered[path.size() / 2] == 'A' ? 'B' : 'A';
  CheckProblem(env.Call("", "GET", altered), 403, "MEDIA_LINK_INVALID");
  CheckProblem(env.Call("", "GET", path.substr(0, path.size() - 3)), 403, "MEDIA_LINK_INVALID");
  CheckProblem(env.Call("", "GET", "/v1/media-links/mlk1.e30.AAAA"), 403, "MEDIA_LINK_INVALID");
  CheckProblem(env.Call("", "GET", "/v1/media-links/nonsense"), 403, "MEDIA_LINK_INVALID");

  // Both the link and its view are in the access log, never a value.
  core::Json log = Body(env.Call(k, "GET", "/v1/audit-logs"));
  std::vector<std::string> channels;
  for (const auto& e : log["data"]) channels.push_back(e["channel"]);
  CHECK(std::count(channels.begin(), channels.end(), "media_link") == 1);
  CHECK(std::count(channels.begin(), channels.end(), "media_link_view") == 1);
  for (const auto& e : log["data"]) {
    if (e["channel"] != "media_link_view") continue;
    CHECK(e["actorType"] == "media_link");
    CHECK(e["actorId"] == link["id"]);
    CHECK(e["personId"] == id);
    CHECK(e["fields"] == core::Json::array({"capture:document_front"}));
  }

  // Expired: 403, like an altered one.
  REQUIRE(env.Admin("POST", "/admin/clock", {{"advanceSeconds", 301}}).status == 200);
  CheckProblem(env.Call("", "GET", path), 403, "MEDIA_LINK_INVALID");
  // A link to a capture purged since (the person forgotten): 404.
  auto fresh = Post(env, k, "/v1/media-links", ask);
  REQUIRE(fresh.status == 201);
  const std::string fresh_url = Body(fresh)["url"];
  const std::string fresh_path = fresh_url.substr(fresh_url.find("/v1/media-links/"));
  REQUIRE(Post(env, k, kBase + "/" + id + "/forget", {{"mode", "purge"}}).status == 200);
  REQUIRE(env.Admin("POST", "/admin/persons/purge").status == 200);
  CheckProblem(env.Call("", "GET", fresh_path), 404, "MEDIA_NOT_FOUND");
  CheckProblem(Post(env, k, "/v1/media-links", ask), 404, "MEDIA_NOT_FOUND");
}

// ---- ARCO requests (issue 35, item 3; docs/persons.md#arco-requests) --------------------------

namespace {

const std::string kArco = "/v1/arco-requests";

core::Json ArcoBody(const std::string& person, const std::string& right, const core::Json& extra = core::Json::object()) {
  core::Json b = {{"personId", person},
                  {"right", right},
                  {"identityVerification", {{"method", "official_id"}, {"reference", "INE folio 0012"}}},
                  {"reference", "TICKET-" + right}};
  b.update(extra);
  return b;
}

core::Json Opened(Env& env, const std::string& key, const core::Json& body) {
  auto r = Post(env, key, kArco, body);
  REQUIRE_MESSAGE(r.status == 201, r.body);
  return Body(r);
}

core::Json Move(Env& env, const std::string& key, const std::string& id, const std::string& move,
                const core::Json& body = core::Json::object(), int status = 200) {
  auto r = Post(env, key, kArco + "/" + id + "/" + move, body);
  REQUIRE_MESSAGE(r.status == status, r.body);
  return Body(r);
}

std::string PersonNamed(Env& env, const std::string& key, const std::string& email) {
  auto r = Post(env, key, kBase, {{"pii", {{"email", email}, {"fullName", "Titular de Prueba"}}}});
  REQUIRE_MESSAGE(r.status == 201, r.body);
  return Body(r)["id"].get<std::string>();
}

// The manager records fulfilments as they are projected; a move of the fake clock (by 0) runs it
// at once and answers when its commands are applied.
void Settle(Env& env) { REQUIRE(env.Admin("POST", "/admin/clock", {{"advanceSeconds", 0}}).status == 200); }

void Advance(Env& env, int64_t seconds) {
  REQUIRE(env.Admin("POST", "/admin/clock", {{"advanceSeconds", seconds}}).status == 200);
  REQUIRE(env.Admin("POST", "/admin/webhooks/wait-idle").status == 200);
}

}  // namespace

// Received on Friday 13 November 2026 at 10:00 in Mexico City: Monday 16 is a rest day (LFT art.
// 74: the third Monday of November), so the 20 business days end on Monday 14 December; the fake
// clock starts there and moves through the warning, the deadline and the lapse.
TEST_CASE("arco requests: deadlines on business days, every move and refusal, fulfilment, webhooks, report") {
  testing::ReceiverProcess receiver;
  Env env(false, {"--rate-reveals", "0", "--fake-clock", "--fake-clock-at", "2026-11-13T16:00:00Z",
                  "--webhooks-allow-private-urls"},
          Sharing::kIsolated);
  const std::string k = env.test_key;
  testing::Subscribe(env, receiver.port(), "/ok", {"arco.*"}, "arco-hook");
  const std::string ana = PersonNamed(env, k, "ana@example.mx");
  const std::string beto = PersonNamed(env, k, "beto@example.mx");

  core::Json access = Opened(env, k, ArcoBody(ana, "access"));
  const std::string a_id = access["id"];
  CHECK(a_id.rfind("arc_", 0) == 0);
  CHECK(access["object"] == "arco_request");
  CHECK(access["status"] == "received");
  CHECK(access["subject"]["type"] == "person");
  CHECK(access["subject"]["personId"] == ana);
  CHECK(access["receivedAt"] == "2026-11-13T16:00:00.000Z");
  CHECK(access["responseDueAt"] == "2026-12-15T05:59:59.999Z");            // end of 14 Dec, Mexico City
  CHECK(access["informationRequestableUntil"] == "2026-11-24T05:59:59.999Z");  // 5 business days
  CHECK(access["overdue"] == false);
  CHECK(access["identityVerification"] == core::Json{{"method", "official_id"}, {"reference", "INE folio 0012"}});
  CHECK(access["history"].size() == 1);
  CHECK(access["history"][0]["event"] == "received");
  // Idempotent with a key; read back; listed.
  auto first = Post(env, k, kArco, ArcoBody(beto, "rectification"), {{"Idempotency-Key", "arco-1"}});
  REQUIRE(first.status == 201);
  auto again = Post(env, k, kArco, ArcoBody(beto, "rectification"), {{"Idempotency-Key", "arco-1"}});
  CHECK(Body(again)["id"] == Body(first)["id"]);
  const std::string r_id = Body(first)["id"];
  CHECK(Body(env.Call(k, "GET", kArco + "/" + a_id))["id"] == a_id);
  CHECK(Body(env.Call(k, "GET", kArco + "?includeTotal=true"))["totalCount"] == 2);
  CHECK(Body(env.Call(k, "GET", kArco + "?personId=" + ana))["data"].size() == 1);
  CHECK(Body(env.Call(k, "GET", kArco + "?right=rectification"))["data"][0]["id"] == r_id);

  // Refusals of a create and of reads.
  CheckProblem(Post(env, k, kArco, {{"right", "access"}, {"identityVerification", {{"method", "in_person"}}}}), 422,
               "ARCO_SUBJECT_REQUIRED");
  CheckProblem(Post(env, k, kArco, ArcoBody(ana, "erasure")), 422, "VALIDATION_ERROR");
  CheckProblem(Post(env, k, kArco, ArcoBody("per_00000000000000000000000000000000", "access")), 404, "PERSON_NOT_FOUND");
  CheckProblem(Post(env, k, kArco, ArcoBody("nope", "access")), 400, "INVALID_ID");
  CheckProblem(Post(env, k, kArco, ArcoBody(ana, "opposition")), 422, "VALIDATION_ERROR");
  CheckProblem(Post(env, k, kArco, ArcoBody(ana, "opposition", {{"purposes", {"marketing_spam"}}})), 400, "PURPOSE_UNKNOWN");
  CheckProblem(Post(env, k, kArco, ArcoBody(ana, "access", {{"receivedAt", "2027-01-01T00:00:00Z"}})), 422,
               "VALIDATION_ERROR");
  CheckProblem(Post(env, k, kArco, ArcoBody(ana, "access", {{"identityVerification", {{"method", "a hunch"}}}})), 422,
               "VALIDATION_ERROR");
  CheckProblem(Post(env, k, kArco, ArcoBody(ana, "access", {{"colour", "red"}})), 422, "VALIDATION_ERROR");
  CheckProblem(env.Call(k, "GET", kArco + "/arc_00000000000000000000000000000000"), 404, "ARCO_REQUEST_NOT_FOUND");
  CheckProblem(env.Call(k, "GET", kArco + "/not-an-id"), 400, "INVALID_ID");
  CheckProblem(env.Call(env.live_key, "GET", kArco + "/" + a_id), 404, "ARCO_REQUEST_NOT_FOUND");  // another environment
  CheckProblem(env.Call(k, "GET", kArco + "?status=open"), 422, "VALIDATION_ERROR");
  CheckProblem(env.Call(k, "GET", kArco + "?page=2"), 400, "BAD_REQUEST");

  // Information: asked once, the term counts again from its arrival (Wednesday 18).
  core::Json asked = Move(env, k, a_id, "request-information");
  CHECK(asked["status"] == "awaiting_information");
  CHECK(asked["informationDueAt"] == "2026-12-01T05:59:59.999Z");  // 10 business days from 13 Nov: 30 Nov
  CheckProblem(Post(env, k, kArco + "/" + a_id + "/accept", core::Json::object()), 409, "ARCO_INVALID_TRANSITION");
  Advance(env, 5 * 86400);  // Wednesday 18 November
  core::Json back = Move(env, k, a_id, "information-received");
  CHECK(back["status"] == "received");
  CHECK(back["responseDueAt"] == "2026-12-17T05:59:59.999Z");
  CheckProblem(Post(env, k, kArco + "/" + a_id + "/request-information", core::Json::object()), 409,
               "ARCO_INVALID_TRANSITION");  // once only
  CHECK(Move(env, k, a_id, "extend")["responseExtended"] == true);
  CheckProblem(Post(env, k, kArco + "/" + a_id + "/extend", core::Json::object()), 409, "ARCO_INVALID_TRANSITION");
  core::Json accepted = Move(env, k, a_id, "accept");
  CHECK(accepted["status"] == "accepted");
  CHECK(accepted["effectDueAt"] == "2026-12-10T05:59:59.999Z");  // 15 business days from 18 Nov

  // Fulfilled by the export that names it: the request is completed, the bundle its reference.
  CheckProblem(Post(env, k, kBase + "/" + ana + "/export", {{"arcoRequestId", r_id}}), 409, "ARCO_INVALID_TRANSITION");
  CheckProblem(Post(env, k, kBase + "/" + beto + "/export", {{"arcoRequestId", a_id}}), 409, "CONFLICT");
  CheckProblem(Post(env, k, kBase + "/" + ana + "/export", {{"arcoRequestId", "arc_00000000000000000000000000000000"}}),
               404, "ARCO_REQUEST_NOT_FOUND");
  auto bundle = Post(env, k, kBase + "/" + ana + "/export", {{"reason", "ARCO"}, {"arcoRequestId", a_id}});
  REQUIRE_MESSAGE(bundle.status == 200, bundle.body);
  Settle(env);
  core::Json done = Body(env.Call(k, "GET", kArco + "/" + a_id));
  CHECK(done["status"] == "completed");
  CHECK(done["fulfilment"] == core::Json{{"operation", "export"}, {"reference", Body(bundle)["id"]}});
  CHECK(done["history"].back()["event"] == "completed");
  CheckProblem(Post(env, k, kArco + "/" + a_id + "/withdraw", core::Json::object()), 409, "ARCO_INVALID_TRANSITION");
  CheckProblem(Post(env, k, kBase + "/" + ana + "/export", {{"arcoRequestId", a_id}}), 409, "ARCO_INVALID_TRANSITION");

  // Rectification by a PATCH that names it; a cancellation by a forget; a denial; a withdrawal.
  auto patched = env.Call(k, "PATCH", kBase + "/" + beto,
                          core::Json{{"pii", {{"email", "beto@example.com"}}}, {"arcoRequestId", r_id}}.dump());
  REQUIRE_MESSAGE(patched.status == 200, patched.body);
  Settle(env);
  core::Json rect = Body(env.Call(k, "GET", kArco + "/" + r_id));
  CHECK(rect["status"] == "completed");
  CHECK(rect["fulfilment"]["operation"] == "rectification");
  CHECK(rect["respondedAt"].is_string());  // accepted and made effective at once
  const std::string c_id = Opened(env, k, ArcoBody(beto, "cancellation"))["id"];
  auto forgot = Post(env, k, kBase + "/" + beto + "/forget", {{"mode", "block"}, {"arcoRequestId", c_id}});
  REQUIRE_MESSAGE(forgot.status == 200, forgot.body);
  Settle(env);
  CHECK(Body(env.Call(k, "GET", kArco + "/" + c_id))["fulfilment"] == core::Json{{"operation", "forget"}, {"reference", "block"}});
  const std::string d_id = Opened(env, k, ArcoBody(ana, "rectification"))["id"];
  CheckProblem(Post(env, k, kArco + "/" + d_id + "/deny", {{"reason", "because"}}), 422, "VALIDATION_ERROR");
  CHECK(Move(env, k, d_id, "deny", {{"reason", "data_not_held"}})["denialReason"] == "data_not_held");
  CheckProblem(Post(env, k, kArco + "/" + d_id + "/accept", core::Json::object()), 409, "ARCO_INVALID_TRANSITION");
  const std::string w_id = Opened(env, k, ArcoBody(ana, "cancellation"))["id"];
  CHECK(Move(env, k, w_id, "withdraw")["status"] == "withdrawn");
  CheckProblem(Post(env, k, kArco + "/" + w_id + "/accept", {{"x", 1}}), 422, "VALIDATION_ERROR");

  // The deadlines on the fake clock: a request received now (Wednesday 18 November) is due on
  // Wednesday 16 December; a lapse of an unanswered information request.
  const std::string late = Opened(env, k, ArcoBody(ana, "access"))["id"];
  const std::string silent = Opened(env, k, ArcoBody(ana, "access"))["id"];
  CHECK(Move(env, k, silent, "request-information")["informationDueAt"] == "2026-12-03T05:59:59.999Z");
  Advance(env, 15 * 86400);  // Thursday 3 December, 10:00: the information is a day late
  CHECK(Body(env.Call(k, "GET", kArco + "/" + silent))["status"] == "lapsed");
  Advance(env, 7 * 86400);  // Thursday 10 December: 4 business days left (11, 14, 15, 16): nothing yet
  receiver.WaitFor("/ok", 1);
  auto types = [&] {
    std::vector<std::string> out;
    for (const auto& m : core::ParseJsonOrDiscarded(receiver.LogJson())) out.push_back(m.value("type", ""));
    return out;
  };
  auto count = [&](const std::string& type) { auto t = types(); return std::count(t.begin(), t.end(), type); };
  CHECK(count("arco.deadline_approaching") == 0);
  Advance(env, 86400);  // Friday 11 December: 3 business days left
  CHECK(count("arco.deadline_approaching") == 1);
  CHECK(Body(env.Call(k, "GET", kArco + "/" + late))["history"].back()["event"] == "deadline_approaching");
  Advance(env, 86400);
  CHECK(count("arco.deadline_approaching") == 1);  // once
  CHECK(Body(env.Call(k, "GET", kArco + "?overdue=true"))["data"].empty());
  Advance(env, 6 * 86400);  // Saturday 19 December: the response was due on the 16th
  CHECK(count("arco.deadline_missed") == 1);
  core::Json overdue = Body(env.Call(k, "GET", kArco + "?overdue=true"));
  REQUIRE(overdue["data"].size() == 1);
  CHECK(overdue["data"][0]["id"] == late);
  CHECK(overdue["data"][0]["overdue"] == true);
  core::Json report = Body(env.Call(k, "GET", "/v1/compliance/reports?type=nom024"));
  CHECK(report["arcoRequests"]["overdue"] == 1);
  CHECK(report["arcoRequests"]["byStatus"]["completed"] == 3);
  CHECK(report["arcoRequests"]["byStatus"]["lapsed"] == 1);
  CHECK(report["arcoRequests"]["byRight"]["access"] == 3);
  // Every move was a webhook of its own type.
  for (const char* t : {"arco.request_received", "arco.information_requested", "arco.information_received",
                        "arco.deadline_extended", "arco.request_accepted", "arco.request_completed",
                        "arco.request_denied", "arco.request_withdrawn", "arco.request_lapsed"}) {
    CAPTURE(t);
    CHECK(count(t) >= 1);
  }
  core::Json sent;
  for (const auto& m : core::ParseJsonOrDiscarded(receiver.LogJson())) {
    if (m.value("type", "") == "arco.deadline_missed") sent = core::ParseJsonOrDiscarded(m["body"].get<std::string>());
  }
  CHECK(sent["data"]["arcoRequestId"] == late);
  CHECK(sent["data"]["deadline"] == "response");
  CHECK(sent["data"]["deadlineDueAt"] == "2026-12-17T05:59:59.999Z");
  CHECK(sent.dump().find("ana@example.mx") == std::string::npos);  // ids and dates, no personal data
}

TEST_CASE("arco opposition: the purpose's consents revoked, later reveals for it refused until a new consent") {
  Env env(false, kFlags);
  const std::string k = env.test_key;
  const std::string id = PersonNamed(env, k, "carla@example.mx");
  const std::string oppositions = kBase + "/" + id + "/oppositions";
  auto consent = Post(env, k, kBase + "/" + id + "/consents", Consent("credit_assessment"));
  REQUIRE(consent.status == 201);
  CHECK(Decrypt(env, k, id, {"email"}, "credit_assessment").status == 200);
  const std::string arc = Opened(env, k, ArcoBody(id, "opposition", {{"purposes", {"credit_assessment"}}}))["id"];
  CheckProblem(Post(env, k, oppositions, {{"purpose", "identity_verification"}, {"arcoRequestId", arc}}), 409,
               "CONFLICT");
  auto made = Post(env, k, oppositions, {{"purpose", "credit_assessment"}, {"reason", "TICKET-77"}, {"arcoRequestId", arc}});
  REQUIRE_MESSAGE(made.status == 201, made.body);
  core::Json opp = Body(made);
  CHECK(opp["id"].get<std::string>().rfind("opp_", 0) == 0);
  CHECK(opp["object"] == "person.opposition");
  CHECK(opp["purpose"] == "credit_assessment");
  CHECK(opp["arcoRequestId"] == arc);
  CHECK(opp["liftedAt"].is_null());
  // The consent for it is revoked; a reveal for it refused, for another purpose still allowed.
  CHECK(Body(env.Call(k, "GET", kBase + "/" + id + "/consents"))["data"][0]["revokedAt"].is_string());
  CheckProblem(Decrypt(env, k, id, {"email"}, "credit_assessment"), 403, "PURPOSE_OPPOSED");
  CHECK(Decrypt(env, k, id, {"email"}, "identity_verification").status == 200);
  CHECK(Body(env.Call(k, "GET", oppositions))["data"].size() == 1);
  // The request it fulfilled is completed once recorded (the manager runs as the opposition is
  // projected; wait-idle runs it to the end of what is queued).
  REQUIRE(env.Admin("POST", "/admin/persons/wait-idle").status == 200);
  core::Json request = Body(env.Call(k, "GET", kArco + "/" + arc));
  CHECK(request["status"] == "completed");
  CHECK(request["fulfilment"]["operation"] == "opposition");
  // Refusals.
  CheckProblem(Post(env, k, oppositions, {{"purpose", "arco_request"}}), 422, "VALIDATION_ERROR");
  CheckProblem(Post(env, k, oppositions, {{"purpose", "nope"}}), 400, "PURPOSE_UNKNOWN");
  CheckProblem(Post(env, k, oppositions, core::Json::object()), 422, "VALIDATION_ERROR");
  CheckProblem(Post(env, k, kBase + "/per_00000000000000000000000000000000/oppositions", {{"purpose", "credit_assessment"}}),
               404, "PERSON_NOT_FOUND");
  // A consent the person gives again lifts the opposition.
  REQUIRE(Post(env, k, kBase + "/" + id + "/consents", Consent("credit_assessment")).status == 201);
  CHECK(Decrypt(env, k, id, {"email"}, "credit_assessment").status == 200);
  CHECK(Body(env.Call(k, "GET", oppositions))["data"][0]["liftedAt"].is_string());
}

// Issue 68, item 1: a key of one environment cannot move, or see, a request of the other. Before,
// a test key accepted a live request (the live list still said received, the test list showed a
// copy, and the live operator's deny was refused 409).
TEST_CASE("arco requests: a key of the other environment can neither move nor see a request") {
  Env env(false, {"--rate-reveals", "0"});
  for (const auto& [owner, other] : {std::pair{env.live_key, env.test_key}, std::pair{env.test_key, env.live_key}}) {
    const std::string person = PersonNamed(env, owner, "arco-env@example.mx");
    const std::string id = Opened(env, owner, ArcoBody(person, "access"))["id"];
    for (const std::string move : {"accept", "withdraw", "extend", "request-information", "information-received"}) {
      CAPTURE(move);
      CheckProblem(Post(env, other, kArco + "/" + id + "/" + move, core::Json::object()), 404,
                   "ARCO_REQUEST_NOT_FOUND");
    }
    CheckProblem(Post(env, other, kArco + "/" + id + "/deny", {{"reason", "identity_not_accredited"}}), 404,
                 "ARCO_REQUEST_NOT_FOUND");
    CheckProblem(env.Call(other, "GET", kArco + "/" + id), 404, "ARCO_REQUEST_NOT_FOUND");
    const core::Json listed = Body(env.Call(other, "GET", kArco));  // held: a loop over a temporary's member dangles
    for (const auto& row : listed["data"]) CHECK(row["id"] != id);
    CHECK(Body(env.Call(owner, "GET", kArco + "/" + id))["status"] == "received");
    CHECK(Move(env, owner, id, "deny", {{"reason", "identity_not_accredited"}})["status"] == "denied");
  }
}

}  // namespace integration_persons_rights_test
