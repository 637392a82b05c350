// The name matcher (pipeline/kyb/name_match.h): folding, tokens, the Spanish phonetic key,
// nicknames, assignment in any order, facts as strengtheners and eliminators, and the labelled
// evaluation set's precision and recall at the hit threshold (docs/screening.md#evaluation).
#include "pipeline/kyb/name_match.h"

#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

namespace svc::pipeline::kyb {
namespace pipeline_kyb_name_match_test {

TEST_CASE("name match: folding and tokens") {
  CHECK(FoldName("  José  Núñez-Ávila, Ñañez ") == "jose nunez avila nanez");
  CHECK(FoldName("D'Angelo O’Brien") == "dangelo obrien");
  CHECK(FoldName("ÇÀÉÎÕÜ ß") == "caeiou ss");
  CHECK(FoldName("\xff\xfe bad \xc3") == "bad");  // stray bytes are separators, never a crash
  CHECK(NameTokens("José de la Cruz y Ramírez") == std::vector<std::string>{"jose", "cruz", "ramirez"});
  CHECK(NameTokens("Lic. Juan Pérez") == std::vector<std::string>{"juan", "perez"});
  CHECK(NameTokens("de la") == std::vector<std::string>{"de", "la"});  // only particles: kept
  CHECK(NameTokens("").empty());
}

TEST_CASE("name match: the Spanish phonetic key") {
  CHECK(SpanishPhonetic("gonzalez") == SpanishPhonetic("gonsales"));
  CHECK(SpanishPhonetic("ybarra") == SpanishPhonetic("ibarra"));
  CHECK(SpanishPhonetic("xochitl") == SpanishPhonetic("sochitl"));
  CHECK(SpanishPhonetic("villarreal") == SpanishPhonetic("villareal"));
  CHECK(SpanishPhonetic("valdes") == SpanishPhonetic("baldez"));
  CHECK(SpanishPhonetic("hector") == SpanishPhonetic("ector"));
  CHECK(SpanishPhonetic("quiroz") == SpanishPhonetic("kiros"));
  CHECK(SpanishPhonetic("oseguera") == SpanishPhonetic("oceguera"));
  CHECK(SpanishPhonetic("guerra") != SpanishPhonetic("jerra"));  // gue is hard
  CHECK(SpanishPhonetic("gerardo") == SpanishPhonetic("jerardo"));  // ge is soft
  CHECK(SpanishPhonetic("lara") != SpanishPhonetic("loera"));
}

TEST_CASE("name match: nicknames, tokens and names") {
  CHECK(SameGivenName("pepe", "jose"));
  CHECK(SameGivenName("jose", "pepe"));
  CHECK(SameGivenName("beto", "roberto"));
  CHECK(SameGivenName("beto", "alberto"));
  CHECK_FALSE(SameGivenName("pepe", "juan"));
  CHECK(EditDistance("carrillo", "carillo") == 1);
  CHECK(EditDistance("", "abc") == 3);
  CHECK(TokenSimilarity("a", "a") == 1.0);
  CHECK(TokenSimilarity("lupe", "guadalupe") == 0.95);
  // Order does not matter; a missing second surname costs a little; one token proves little.
  auto n = [](const char* a, const char* b) { return NameSimilarity(NameTokens(a), NameTokens(b)); };
  CHECK(n("Juan Pérez López", "López Pérez Juan") == 1.0);
  CHECK(n("Juan Pérez López", "Juan Pérez") == doctest::Approx(0.93));
  CHECK(n("Pérez", "Juan Pérez") < 0.7);
  CHECK(n("", "Juan") == 0.0);
  // Long names are cut at ten tokens, never slow.
  CHECK(n("a b c d e f g h i j k l m n", "a b c d e f g h i j k l m n") == 1.0);
}

TEST_CASE("name match: facts decide, strengthen or weaken") {
  MatchFacts none;
  auto r = MatchNames("Juan Pérez", {"", "", "PEPJ800101HDFRRN03"}, "Juan Perez Lopez", {"", "", "pepj800101hdfrrn03"});
  CHECK(r.score == 1.0);
  CHECK(r.reasons == std::vector<std::string>{"id_number_equal"});
  r = MatchNames("Juan Pérez López", {"", "", "PEPJ800101HDFRRN03"}, "Juan Perez Lopez", {"", "", "LOMA900215MJCPRR05"});
  CHECK(r.eliminated);
  CHECK(r.score == 0);
  r = MatchNames("Juan Pérez López", {"1980-01-01", "", ""}, "Juan Perez Lopez", {"1975", "", ""});
  CHECK(r.eliminated);
  r = MatchNames("Juan Pérez López", {"1980-01-01", "MX", ""}, "Juan Perez Lopez", {"1980-01-01", "MEX", ""});
  CHECK(r.score == 1.0);
  CHECK(r.reasons == std::vector<std::string>{"birth_date_equal", "nationality_equal"});
  r = MatchNames("Juan Pérez López", {"", "MX", ""}, "Juan Perez Lopez", {"", "CO", ""});
  CHECK(r.score == doctest::Approx(0.9));
  r = MatchNames("Juan Pérez López", none, "Juan Perez Lopez", none);
  CHECK(r.score == 1.0);
  CHECK(r.reasons.empty());
}

struct Evaluation {
  int tp = 0, fp = 0, fn = 0, tn = 0;
  std::string misses;
  double precision() const { return tp / static_cast<double>(tp + fp); }
  double recall() const { return tp / static_cast<double>(tp + fn); }
};

Evaluation Evaluate(const std::string& file) {
  std::ifstream in(std::string(SVC_TEST_SOURCE_DIR) + "/pipeline/kyb/" + file);
  REQUIRE(in.good());
  Evaluation e;
  std::ostringstream misses;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const size_t a = line.find('\t'), b = line.find('\t', a + 1);
    REQUIRE(b != std::string::npos);
    const bool label = line.substr(0, a) == "1";
    const std::string q = line.substr(a + 1, b - a - 1), c = line.substr(b + 1);
    const double score = MatchNames(q, {}, c, {}).score;
    const bool hit = score >= kHitThreshold;
    if (hit && label) ++e.tp;
    if (hit && !label) {
      ++e.fp;
      misses << "false hit " << score << ": " << q << " / " << c << "\n";
    }
    if (!hit && label) {
      ++e.fn;
      misses << "missed " << score << ": " << q << " / " << c << "\n";
    }
    if (!hit && !label) ++e.tn;
  }
  e.misses = misses.str();
  return e;
}

TEST_CASE("name match: precision and recall on the labelled evaluation set and the held-out set") {
  // The evaluation set shaped the rules; the held-out set was written after them and never tuned
  // on. Both must meet the targets (recall >= 0.95 at precision >= 0.90).
  for (std::string file : {"screening_eval.tsv", "screening_holdout.tsv"}) {
    CAPTURE(file);
    Evaluation e = Evaluate(file);
    MESSAGE(file << ": " << e.tp + e.fn << " matches, " << e.fp + e.tn << " non-matches; precision " << e.precision()
                 << ", recall " << e.recall() << "\n" << e.misses);
    CHECK(e.tp + e.fn >= 30);
    CHECK(e.fp + e.tn >= 20);
    CHECK(e.recall() >= 0.95);
    CHECK(e.precision() >= 0.90);
  }
}

}  // namespace pipeline_kyb_name_match_test
}  // namespace svc::pipeline::kyb
