// A person's consents and the grants of applications, through a real svc: what each route
// answers and refuses, and how every reveal (decrypt, batch decrypt, an expanded read, client
// tokens) is held to them.
#include <doctest/doctest.h>

#include <algorithm>


#include "core/clock.h"
#include "core/json.h"
#include "tests/support/api_env.h"
#include "tests/support/session_flow.h"

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
