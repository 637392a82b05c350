// C2SP signed notes: the example of Go's golang.org/x/mod/sumdb/note (its documentation's
// verifier key, text and signature) opens, so our key ids and signature lines are the
// ecosystem's; our own notes open; tampered notes, other keys and malformed inputs are refused;
// checkpoints round-trip.
#include "core/signed_note.h"

#include <doctest/doctest.h>

#include "core/crypto.h"
#include "core/ids.h"

namespace core_signed_note_test {

namespace note = svc::core::note;

namespace {

const std::string kVerifier = "example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k";
const std::string kText = "This is an example message.\n";
const std::string kNote = kText + "\n\xE2\x80\x94 example.com/foo "
                                  "Uw2QOkn8srV1yJGh2VYRlL1Tnagv1YEq6TfXppzi2ONncAlTgK7Ztg1ERYNZXsYjOBH3mFXmRKuwHjG1Yu72IneyaQM=\n";

}  // namespace

TEST_CASE("signed note: the sumdb/note example opens with its verifier key") {
  auto text = note::Open(kNote, kVerifier);
  REQUIRE_MESSAGE(text.ok(), text.status().ToString());
  CHECK(*text == kText);
  // The key id and the verifier key text are computed the same way.
  auto typed = svc::core::Base64Decode("AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k");
  REQUIRE(typed.ok());
  CHECK(note::VerifierKey("example.com/foo", typed->substr(1)) == kVerifier);
}

TEST_CASE("signed note: what does not open") {
  auto kp = svc::core::Ed25519FromSeed(std::string(32, '\x07'));
  auto other = svc::core::Ed25519FromSeed(std::string(32, '\x08'));
  const std::string vkey = note::VerifierKey("svc.test/audit", kp.public_key);
  auto n = note::Sign("origin\n3\nAAAA\n", "svc.test/audit", kp.secret_key);
  REQUIRE(n.ok());
  CHECK(note::Open(*n, vkey).ok());
  // A changed byte of the text, of the signature; another key of the same name; another name.
  std::string tampered = *n;
  tampered[7] = '4';
  CHECK_FALSE(note::Open(tampered, vkey).ok());
  tampered = *n;
  tampered[tampered.size() - 5] = tampered[tampered.size() - 5] == 'A' ? 'B' : 'A';
  CHECK_FALSE(note::Open(tampered, vkey).ok());
  CHECK_FALSE(note::Open(*n, note::VerifierKey("svc.test/audit", other.public_key)).ok());
  CHECK_FALSE(note::Open(*n, note::VerifierKey("svc.test/other", kp.public_key)).ok());
  // Malformed notes and keys.
  CHECK_FALSE(note::Open("no signature\n", vkey).ok());
  CHECK_FALSE(note::Open("text\n\n-- svc.test/audit AAAA\n", vkey).ok());
  CHECK_FALSE(note::Open(*n, "svc.test/audit+00000000+" + vkey.substr(vkey.rfind('+') + 1)).ok());
  CHECK_FALSE(note::Open(*n, "garbage").ok());
  // What cannot be signed.
  CHECK_FALSE(note::Sign("", "svc.test/audit", kp.secret_key).ok());
  CHECK_FALSE(note::Sign("no newline", "svc.test/audit", kp.secret_key).ok());
  CHECK_FALSE(note::Sign("a\n\nb\n", "svc.test/audit", kp.secret_key).ok());
  CHECK_FALSE(note::Sign("tab\there\n", "svc.test/audit", kp.secret_key).ok());
  CHECK_FALSE(note::Sign("x\n", "has space", kp.secret_key).ok());
  CHECK_FALSE(note::Sign("x\n", "has+plus", kp.secret_key).ok());
}

TEST_CASE("signed note: tlog checkpoints") {
  std::string root = svc::core::Sha256("root");
  std::string text = note::CheckpointText("svc.test/audit/ten_1/test", 42, root);
  CHECK(text == "svc.test/audit/ten_1/test\n42\n" + svc::core::Base64Encode(root) + "\n");
  auto c = note::ParseCheckpoint(text);
  REQUIRE(c.ok());
  CHECK(c->origin == "svc.test/audit/ten_1/test");
  CHECK(c->size == 42);
  CHECK(c->root_hash == root);
  CHECK(note::ParseCheckpoint(text + "extension line\n").ok());
  CHECK_FALSE(note::ParseCheckpoint("o\n042\n" + svc::core::Base64Encode(root) + "\n").ok());
  CHECK_FALSE(note::ParseCheckpoint("o\n-1\n" + svc::core::Base64Encode(root) + "\n").ok());
  CHECK_FALSE(note::ParseCheckpoint("o\n1\nAAAA\n").ok());
  CHECK_FALSE(note::ParseCheckpoint("o\n1\n").ok());
  CHECK_FALSE(note::ParseCheckpoint("o\n1\n" + svc::core::Base64Encode(root)).ok());
}

}  // namespace core_signed_note_test
