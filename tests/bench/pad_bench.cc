// Benchmark (not a test): presentation-attack detection measured per attack species in the form
// of ISO/IEC 30107-3 — APCER per species (attack presentations classified bona fide), BPCER
// (bona fide presentations classified attacks), the worst species — on the attack set that
// tests/support/attack_set.* makes from the packages' real photographs (what it is and what it is
// not: that header and docs/biometrics.md#attack-signals). The PAD subsystem is the dlib engine as
// the pipeline runs it:
//   a selfie is classified an attack when its deepfake score is at or above 0.5 (the default
//   deepfakeThreshold: review);
//   a liveness video is classified an attack when its liveness score is below 0.75 (the default
//   livenessThreshold: not passed) or its deepfake score — the engine's signals joined with its
//   container's, the video sent as a camera capture — is at or above 0.5.
// An attempt whose face the detector does not find is not acquired: it is counted apart (the
// pipeline cannot approve it: no face match) and left out of APCER, as the standard asks.
// Also: the CPU of the attack signals per selfie and per video.
//
//   svc_bench_pad [face-api dir] [work dir] [attempts per species] [seed]
//   (seed 1 is the draw the thresholds were calibrated on; scripts/bench reports seed 2)
//   PAD_DUMP=1: also one line per attempt (species, source, score, each signal's measure), for
//   calibration; PAD_ONLY=bona_fide_selfie,face_swap,...: only those sets (bona_fide_selfie,
//   bona_fide_video and the species' names); PAD_SAVE=dir: also each still as the file it was
//   sent as, named <species>-<n>.<jpg|png> in the order of the dump's lines (to look at)
#define DOCTEST_CONFIG_IMPLEMENT  // the fixtures' REQUIREs, outside a test run
#include <doctest/doctest.h>

#include <cmath>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>

#include "pipeline/biometrics/dlib_engine.h"
#include "pipeline/biometrics/pad.h"
#include "pipeline/verification/injection.h"
#include "tests/support/fixture_asserts.h"
#include "tests/support/attack_set.h"

using namespace svc;
using namespace svc::pipeline::biometrics;
namespace at = svc::testing::attacks;
namespace v = svc::pipeline::verification;

namespace {
double CpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct Tally {
  int attempts = 0, acquired = 0, as_attack = 0;
  std::map<std::string, int> reasons;
  std::map<std::string, std::pair<int, int>> by_format;  // format -> (acquired, classified attack)
  std::map<std::string, std::pair<int, int>> by_band;    // drawn-parameter band -> the same
  double cpu = 0;
};

// The Wilson score interval of k in n at 95 %: with 30-50 acquired attempts a species, one
// attempt is 2-3 points, and the interval says how far the figure could be from the rate.
std::string Interval(int k, int n) {
  if (n == 0) return "n/a";
  const double z = 1.96, p = double(k) / n, z2n = z * z / n;
  const double centre = (p + z2n / 2) / (1 + z2n);
  const double half = z * std::sqrt(p * (1 - p) / n + z2n / (4.0 * n)) / (1 + z2n);
  std::ostringstream s;
  s << std::fixed << std::setprecision(1) << 100 * std::max(0.0, centre - half) << "-"
    << 100 * std::min(1.0, centre + half) << " %";
  return s.str();
}

// The band of the parameters an attack still was drawn with, where the signals are known to
// differ (BENCHMARKS.md#attack-blind-spots): a halftone cell or a display pixel finer than the
// camera resolves; a swap's format, JPEG quality and camera noise. Empty for the bona fide.
std::string BandOf(const at::Sample& s) {
  auto d = s.drawn;
  if (s.species == "print_replay" && d.count("cell")) return d["cell"] < 2.0 ? "cell < 2 px" : "cell >= 2 px";
  if (s.species == "screen_replay" && d.count("pitch")) return d["pitch"] < 0.6 ? "pixel < 0.6 px" : "pixel >= 0.6 px";
  if (s.species == "face_swap" && d.count("q")) {
    if (s.format == "png") return "png";
    if (d["q"] >= 87) return "jpeg q >= 87";
    return d["noise"] >= 2 ? "jpeg q < 87, noise >= 2" : "jpeg q < 87, noise < 2";
  }
  return "";
}

std::string Percent(int k, int n) {
  if (n == 0) return "n/a";
  std::ostringstream s;
  s << std::fixed << std::setprecision(1) << 100.0 * k / n << " %";
  return s.str();
}
}  // namespace

int main(int argc, char** argv) {
  std::string face_api = argc > 1 ? argv[1] : "models/node_modules/@vladmandic/face-api";
  std::string work_dir = argc > 2 ? argv[2] : "/tmp/svc-pad-bench";
  int n = argc > 3 ? std::atoi(argv[3]) : 50;
  uint32_t seed = argc > 4 ? static_cast<uint32_t>(std::atoi(argv[4])) : 2;
  doctest::Context context;
  testing::ReportFixtureAsserts(context);
  std::filesystem::create_directories(work_dir);
  auto imported = ImportFaceApiModel(face_api, work_dir + "/face.dat");
  if (!imported.ok()) {
    std::cerr << imported.status().ToString() << "\n";
    return 1;
  }
  auto loaded = FaceModels::Load(work_dir + "/face.dat", kShapePredictorPath);
  if (!loaded.ok()) {
    std::cerr << loaded.status().ToString() << "\n";
    return 1;
  }
  std::shared_ptr<const FaceModels> models(std::move(loaded).value());
  DlibEngine engine(models);
  v::EngineContext ctx;
  auto faces = at::SourceFaces(*models);
  std::cout << "pad: " << faces.size() << " real faces from the packages' photographs; " << n
            << " attempts a species, seed " << seed << "\n";
  testing::TempDir work;

  std::map<std::string, Tally> tallies;
  const bool dump = std::getenv("PAD_DUMP") != nullptr;
  // A video's line also gives its liveness score ("none" when the liveness stage had none).
  auto dump_line = [&](const at::Sample& s, const v::BiometricScore& r, const v::BiometricScore* live) {
    if (!dump) return;
    std::cout << "attempt\t" << s.species << "\t" << s.kind << "\t" << s.source << "\t" << s.format << "\t" << r.status << "\t"
              << (r.score ? *r.score : -1) << "\t";
    if (live != nullptr) std::cout << "liveness=" << (live->score ? std::to_string(*live->score) : "none");
    if (r.details.is_object() && r.details.contains("signals")) {
      for (const auto& [name, sig] : r.details["signals"].items()) std::cout << "\t" << name << "=" << sig["measure"].dump();
    }
    if (!s.drawn.empty()) {
      std::cout << "\tdrawn=";
      for (const auto& [key, value] : s.drawn) std::cout << key << " " << std::setprecision(3) << value << " ";
      std::cout << std::setprecision(6);
    }
    std::cout << "\n";
  };
  const char* save_dir = std::getenv("PAD_SAVE");
  std::map<std::string, int> saved;
  auto classify_still = [&](const at::Sample& s, Tally& t) {
    if (save_dir != nullptr) {
      std::ofstream(std::string(save_dir) + "/" + s.species + "-" + std::to_string(saved[s.species]++) +
                        (s.mime == "image/png" ? ".png" : ".jpg"),
                    std::ios::binary)
          << s.bytes;
    }
    v::Capture c{"med", "selfie", s.mime, s.bytes, {}};
    double t0 = CpuSeconds();
    auto r = engine.AttackSignals(&c, nullptr, ctx);
    t.cpu += CpuSeconds() - t0;
    ++t.attempts;
    dump_line(s, r, nullptr);
    if (r.status != "ok") return;
    ++t.acquired;
    ++t.by_format[s.format].first;
    const std::string band = BandOf(s);
    if (!band.empty()) ++t.by_band[band].first;
    if (*r.score >= 0.5) {
      ++t.as_attack;
      ++t.by_format[s.format].second;
      if (!band.empty()) ++t.by_band[band].second;
    }
    for (const auto& code : r.reasons) ++t.reasons[code];
  };
  auto classify_video = [&](const at::Sample& s, Tally& t) {
    v::Capture c{"med", "liveness_video", s.mime, s.bytes, {}};
    double t0 = CpuSeconds();
    auto live = engine.Liveness(c, ctx);
    double t1 = CpuSeconds();
    auto r = engine.AttackSignals(nullptr, &c, ctx);
    // As the pipeline joins them: the container's signals of a capture the client says the camera
    // made (every video of the set is sent as one).
    v::JoinInjectionSignals(r, v::EvaluateContainer(v::ReadContainerFacts(c.bytes), "camera"));
    t.cpu += CpuSeconds() - t1;  // the attack signals alone (the video's decoding is shared)
    (void)t0;
    ++t.attempts;
    dump_line(s, r, &live);
    if (live.status != "ok" || r.status != "ok" || !live.score) return;
    ++t.acquired;
    bool attack = *live.score < 0.75 || *r.score >= 0.5;
    if (attack) ++t.as_attack;
    if (*live.score < 0.75) ++t.reasons["LIVENESS_NOT_PASSED"];
    for (const auto& code : r.reasons) ++t.reasons[code];
  };

  const std::string only = std::getenv("PAD_ONLY") != nullptr ? std::string(",") + std::getenv("PAD_ONLY") + "," : "";
  auto wanted = [&](const std::string& set) { return only.empty() || only.find("," + set + ",") != std::string::npos; };
  if (wanted("bona_fide_selfie")) {
    for (const auto& s : at::Make(*models, faces, "bona_fide", "selfie", n, seed, work)) classify_still(s, tallies["bona fide selfie"]);
  }
  // The photographs themselves, as the packages ship them: real captures (not synthesised), each
  // face measured where the detector found it, with no noise or encoding of ours. Several were
  // saved with chroma at full resolution (4:4:4), the face-api ones at 4:2:2.
  if (wanted("photographs")) {
    Tally& t = tallies["bona fide photograph"];
    for (const auto& f : faces) {
      auto r = Combine(StillSignals(f.photo, f.face));
      ++t.attempts;
      ++t.acquired;
      ++t.by_format[f.format].first;
      if (r.score >= 0.5) {
        ++t.as_attack;
        ++t.by_format[f.format].second;
      }
      for (const auto& code : r.reasons) ++t.reasons[code];
      if (dump) {
        std::cout << "attempt\tphotograph\tselfie\t" << f.name << "\t" << f.format << "\tok\t" << r.score << "\t";
        for (const auto& x : r.signals) std::cout << "\t" << x.name << "=" << x.measure;
        std::cout << "\n";
      }
    }
  }
  for (const char* species : at::kStillSpecies) {
    if (!wanted(species)) continue;
    for (const auto& s : at::Make(*models, faces, species, "selfie", n, seed, work)) classify_still(s, tallies[species]);
  }
  if (wanted("bona_fide_video")) {
    for (const auto& s : at::Make(*models, faces, "bona_fide", "liveness_video", n, seed, work)) {
      classify_video(s, tallies["bona fide video"]);
    }
  }
  for (const char* species : at::kVideoSpecies) {
    if (!wanted(species)) continue;
    for (const auto& s : at::Make(*models, faces, species, "liveness_video", n, seed, work)) classify_video(s, tallies[species]);
  }

  std::cout << std::left << std::setw(18) << "species" << std::setw(10) << "attempts" << std::setw(10) << "acquired"
            << std::setw(14) << "as bona fide" << std::setw(10) << "APCER" << std::setw(16) << "95 % interval"
            << "reasons\n";
  std::string worst;
  double worst_rate = -1;
  auto row = [&](const std::string& name, const Tally& t, bool attack) {
    int wrong = attack ? t.acquired - t.as_attack : t.as_attack;
    std::string reasons;
    for (const auto& [code, count] : t.reasons) reasons += code + " " + std::to_string(count) + "  ";
    std::cout << std::left << std::setw(18) << name << std::setw(10) << t.attempts << std::setw(10) << t.acquired
              << std::setw(14) << (attack ? std::to_string(wrong) : "-") << std::setw(10)
              << (attack ? Percent(wrong, t.acquired) : "-") << std::setw(16)
              << (attack ? Interval(wrong, t.acquired) : "-") << reasons << "\n";
    if (attack && t.acquired > 0 && double(wrong) / t.acquired > worst_rate) {
      worst_rate = double(wrong) / t.acquired;
      worst = name;
    }
  };
  for (const char* s : at::kStillSpecies) row(s, tallies[s], true);
  // The stills by the format they were saved in (JPEG 4:2:0, JPEG 4:4:4, PNG): the signals must
  // hold on each, not on the mix.
  auto formats = [&](const std::string& name, const Tally& t, bool attack) {
    std::cout << "  " << name << " by format:";
    for (const auto& [format, counts] : t.by_format) {
      int wrong = attack ? counts.first - counts.second : counts.second;
      std::cout << "  " << format << " " << wrong << " of " << counts.first << " (" << Percent(wrong, counts.first) << ")";
    }
    std::cout << "\n";
  };
  for (const char* s : at::kVideoSpecies) row(s, tallies[s], true);
  const Tally& bs = tallies["bona fide selfie"];
  const Tally& bv = tallies["bona fide video"];
  row("bona_fide selfie", bs, false);
  row("bona_fide video", bv, false);
  std::cout << "stills by format (attacks: classified bona fide; bona fide: classified attack):\n";
  for (const char* s : at::kStillSpecies) formats(s, tallies[s], true);
  formats("bona_fide selfie", bs, false);
  std::cout << "attack stills by the parameters they were drawn with (classified bona fide, APCER, 95 % interval):\n";
  for (const char* sp : at::kStillSpecies) {
    for (const auto& [band, counts] : tallies[sp].by_band) {
      const int missed = counts.first - counts.second;
      std::cout << "  " << std::left << std::setw(15) << sp << std::setw(26) << band << missed << " of " << counts.first
                << "  " << Percent(missed, counts.first) << "  (" << Interval(missed, counts.first) << ")\n";
    }
  }
  if (tallies.count("bona fide photograph")) {
    const Tally& bp = tallies["bona fide photograph"];
    row("bona_fide photo", bp, false);
    formats("bona_fide photo", bp, false);
    std::cout << "(the packages' photographs as shipped, each face as found: real captures, not in BPCER above)\n";
  }
  std::cout << "BPCER selfies: " << bs.as_attack << " of " << bs.acquired << " = " << Percent(bs.as_attack, bs.acquired)
            << " (" << Interval(bs.as_attack, bs.acquired) << ")"
            << "; videos: " << bv.as_attack << " of " << bv.acquired << " = " << Percent(bv.as_attack, bv.acquired)
            << " (" << Interval(bv.as_attack, bv.acquired) << ")"
            << "; together " << Percent(bs.as_attack + bv.as_attack, bs.acquired + bv.acquired) << " ("
            << Interval(bs.as_attack + bv.as_attack, bs.acquired + bv.acquired) << ")\n";
  std::cout << "worst species: " << worst << " (APCER " << std::fixed << std::setprecision(1) << 100 * worst_rate
            << " %)\n";
  std::cout << std::setprecision(1) << "attack signals CPU: " << 1000 * bs.cpu / std::max(1, bs.attempts)
            << " ms a selfie (its decoding and face detection included, which a verification's face match shares), "
            << 1000 * bv.cpu / std::max(1, bv.attempts) << " ms a video (after the liveness stage decoded it)\n";
  std::filesystem::remove_all(work_dir);
  return 0;
}
