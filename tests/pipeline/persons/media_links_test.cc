// A media link's token (pipeline/persons/media_links.h): what it names comes back only from an
// intact, unexpired token under the same root key.
#include <doctest/doctest.h>

#include "pipeline/persons/media_links.h"

namespace pipeline_persons_media_links_test {

using namespace svc;
namespace pp = svc::pipeline::persons;

TEST_CASE("media links: a token names ids only and reads back only intact and unexpired") {
  const std::string root(32, 'r');
  pp::MediaLink link{"mlk_1", "ten_1", "test", "vrf_1", "med_1", "per_1", "app_1", "kyc_review", 2'000'000};
  const std::string token = pp::MediaLinkToken(root, link);
  CHECK(token.rfind("mlk1.", 0) == 0);
  auto back = pp::ReadMediaLinkToken(root, token, 1'999'999);
  REQUIRE(back.has_value());
  CHECK(back->id == "mlk_1");
  CHECK(back->session_id == "vrf_1");
  CHECK(back->media_id == "med_1");
  CHECK(back->person_id == "per_1");
  CHECK(back->purpose == "kyc_review");
  CHECK(back->expires_micros == 2'000'000);

  CHECK_FALSE(pp::ReadMediaLinkToken(root, token, 2'000'000).has_value());            // expired
  CHECK_FALSE(pp::ReadMediaLinkToken(std::string(32, 'x'), token, 0).has_value());    // another root key
  std::string altered = token;
  altered[8] = altered[8] == 'A' ? 'B' : 'A';
  CHECK_FALSE(pp::ReadMediaLinkToken(root, altered, 0).has_value());                  // payload altered
  CHECK_FALSE(pp::ReadMediaLinkToken(root, token.substr(0, token.size() - 2), 0).has_value());  // truncated
  CHECK_FALSE(pp::ReadMediaLinkToken(root, "mlk1..", 0).has_value());
  CHECK_FALSE(pp::ReadMediaLinkToken(root, "", 0).has_value());
}

}  // namespace pipeline_persons_media_links_test
