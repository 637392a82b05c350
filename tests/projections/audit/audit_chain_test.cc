// The chain rule's fast path: an entry given in its RFC 8785 form is hashed without being parsed,
// and must give exactly the digest the parser's path gives, for any text at all. Checked on the
// forms an entry can take by hand and on thousands of random edits of a real one.
#include <doctest/doctest.h>

#include <random>

#include "core/canonical_json.h"
#include "core/crypto.h"
#include "core/ids.h"
#include "projections/audit/audit_chain.h"

namespace projections_audit_audit_chain_test {

using namespace svc;
using svc::projections::Digest;
using svc::projections::DigestText;
using svc::projections::LinkDigest;
using svc::projections::ReadLink;

namespace {

bool Same(const LinkDigest& a, const LinkDigest& b) {
  return a.id == b.id && a.readable == b.readable && a.recomputes == b.recomputes && a.prev_hash == b.prev_hash &&
         a.hash == b.hash && a.leaf == b.leaf;
}

void CheckSame(const std::string& text) {
  CAPTURE(text);
  CHECK(Same(DigestText(text), Digest(ReadLink(text))));
}

// An entry as the projector writes it, with a recomputing hash; its canonical text.
std::string Entry(const std::string& prev_hex = std::string(64, '0')) {
  core::Json e = {{"id", 7},
                  {"object", "audit_log_entry"},
                  {"personId", "per_00000000000000000000000000000001"},
                  {"applicationId", nullptr},
                  {"actorType", "api_key"},
                  {"actorId", "key_00000000000000000000000000000002"},
                  {"channel", "decrypt"},
                  {"fields", {"curp", "email"}},
                  {"redaction", "plain"},
                  {"purpose", "identity_verification"},
                  {"reason", "ticket \"4411\" \\ línea\n\u0001 ✓ 😀"},
                  {"requestId", "req_1"},
                  {"createdAt", "2026-11-25T10:00:00.000Z"},
                  {"personCount", nullptr},
                  {"eventId", "evt_1"}};
  auto canonical = core::CanonicalJson(e);
  REQUIRE(canonical.ok());
  auto prev = core::HexDecode(prev_hex);
  REQUIRE(prev.ok());
  e["prevHash"] = prev_hex;
  e["hash"] = core::Sha256Hex(*prev + *canonical);
  auto full = core::CanonicalJson(e);
  REQUIRE(full.ok());
  return *full;
}

}  // namespace

TEST_CASE("audit chain: an entry in its canonical form digests without parsing, as the parser would") {
  const std::string line = Entry();
  LinkDigest fast = DigestText(line);
  CHECK(fast.readable);
  CHECK(fast.recomputes);
  CHECK(fast.id == 7);
  CheckSame(line);
  // Its stored form (members in the order written) takes the parser's path to the same digest.
  core::Json stored = core::ParseJsonOrDiscarded(line);
  CHECK(Same(DigestText(stored.dump()), fast));
}

TEST_CASE("audit chain: every other form of an entry gives the parser's answer") {
  const std::string line = Entry();
  auto replaced = [&](const std::string& from, const std::string& to) {
    std::string s = line;
    size_t at = s.find(from);
    REQUIRE(at != std::string::npos);
    return s.replace(at, from.size(), to);
  };
  const std::vector<std::string> forms = {
      replaced("\"id\":7", "\"id\":7.0"), replaced("\"id\":7", "\"id\":7e0"), replaced("\"id\":7", "\"id\":07"),
      replaced("\"id\":7", "\"id\":-0"), replaced("\"id\":7", "\"id\":\"7\""), replaced("\"id\":7", "\"id\":-7"),
      replaced("\"id\":7", "\"id\":1234567890123456789"), replaced("\"id\":7", "\"id\":true"),
      replaced("\"id\":7", "\"id\":7,\"id\":8"),                       // a duplicate name
      replaced("\"actorId\"", "\"actorId\" "),                          // whitespace
      replaced("\"channel\":\"decrypt\"", "\"channel\":\"decr\\u0079pt\""),  // a needless escape
      replaced("\"channel\":\"decrypt\"", "\"channel\":\"de\\/crypt\""),
      replaced("\\u0001", "\\u0011"),                                      // another control, canonical too
      replaced("\\n", "\\u000a"), replaced("\\u0001", "\\u00A1"),
      replaced("\"fields\":[\"curp\",\"email\"]", "\"fields\":[\"curp\",{\"hash\":\"x\",\"prevHash\":\"y\"}]"),
      replaced("\"fields\"", "\"fi\\u0065lds\""),                       // an escaped name
      replaced("\"actorId\"", "\"zzz\":1,\"actorId\""),                 // out of order
      replaced("{", "[{") + "]", line + "\r", " " + line, line + "x",
      replaced("\"hash\":\"", "\"hash\":\"A"),                           // not lowercase hex
      std::string("{\"hash\":\"") + std::string(64, 'a') + "\",\"prevHash\":\"" + std::string(64, '0') + "\"}",
      std::string("{\"hash\":\"") + std::string(64, 'a') + "\",\"id\":1,\"prevHash\":\"" + std::string(64, '0') + "\"}",
      "\"just a string\"", "[]", "{}", "", "not json", "{\"id\":1}",
      std::string("{\"a\":\"\xff\xfe\",\"hash\":\"") + std::string(64, 'a') + "\",\"prevHash\":\"" + std::string(64, '0') + "\"}",
  };
  for (const auto& text : forms) CheckSame(text);
  // Another previous hash: the same text digests the same way on both paths.
  CheckSame(Entry(std::string(63, 'a') + "b"));
}

TEST_CASE("audit chain: a sealed reason is hashed sealed; the reason served beside it must match its commitment") {
  const std::string commit_key(32, '\x07');
  core::Json e = core::ParseJsonOrDiscarded(Entry());
  e.erase("prevHash");
  e.erase("hash");
  e.erase("reason");
  e["reasonSealed"] = "c2VhbGVkIHJlYXNvbg==";
  e["reasonCommitment"] = core::HexEncode(core::HmacSha256(commit_key, "ticket 4411"));
  auto canonical = core::CanonicalJson(e);
  REQUIRE(canonical.ok());
  e["prevHash"] = std::string(64, '0');
  e["hash"] = core::Sha256Hex(std::string(32, '\0') + *canonical);
  const std::string stored = *core::CanonicalJson(e);
  CHECK(DigestText(stored).recomputes);
  CheckSame(stored);
  auto served = [&](const core::Json& reason, const core::Json& key) {
    core::Json s = e;
    s["reason"] = reason;
    s["reasonKey"] = key;
    return s;
  };
  // As served: the reason and the commitment's key opened; or both null once the person is
  // forgotten (nothing shown, nothing to check).
  for (const core::Json& s : {served("ticket 4411", core::HexEncode(commit_key)), served(nullptr, nullptr)}) {
    const std::string text = *core::CanonicalJson(s);
    CHECK(DigestText(text).recomputes);
    CheckSame(text);
    CHECK(DigestText(s.dump()).recomputes);
  }
  // Another reason shown, the key missing or another key: it does not follow.
  for (const core::Json& s : {served("ticket 4412", core::HexEncode(commit_key)), served("ticket 4411", nullptr),
                              served("ticket 4411", std::string(64, 'a')), served(7, core::HexEncode(commit_key))}) {
    const std::string text = *core::CanonicalJson(s);
    CHECK_FALSE(DigestText(text).recomputes);
    CheckSame(text);
  }
  // The sealed form or the commitment changed: it no longer recomputes.
  core::Json altered = e;
  altered["reasonSealed"] = "c2VhbGVkIHJlYXNvbiE=";
  CHECK_FALSE(DigestText(*core::CanonicalJson(altered)).recomputes);
  altered = e;
  altered["reasonCommitment"] = std::string(64, 'b');
  CHECK_FALSE(DigestText(*core::CanonicalJson(altered)).recomputes);
  // Without reasonSealed, a reason is hashed as ever: one added breaks the entry.
  core::Json plain = core::ParseJsonOrDiscarded(Entry());
  plain["reason"] = "another";
  CHECK_FALSE(DigestText(*core::CanonicalJson(plain)).recomputes);
  CheckSame(*core::CanonicalJson(plain));
}

TEST_CASE("audit chain: thousands of random edits of an entry, the same digest on both paths") {
  const std::string line = Entry();
  std::mt19937 rng(20261125);
  const std::string alphabet = "{}[]\":,\\ 0123456789-.eEabcdfnrtu/\x01\x7f\xc3\xa9";
  for (int round = 0; round < 5000; ++round) {
    std::string s = line;
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int k = 0; k < edits && !s.empty(); ++k) {
      size_t at = rng() % s.size();
      char c = alphabet[rng() % alphabet.size()];
      switch (rng() % 3) {
        case 0: s[at] = c; break;
        case 1: s.insert(at, 1, c); break;
        default: s.erase(at, 1);
      }
    }
    CAPTURE(round);
    CheckSame(s);
  }
}

}  // namespace projections_audit_audit_chain_test
