// Benchmark (not a test): CPU per verification for everything the dlib engine does in one
// verification — the capture analyses of the document front and back, the selfie and a 3-second
// 720x1280 H.264 liveness video (analyze=true), then the pipeline's stages: document reading
// (OCR of both sides), liveness, face match of the selfie and of the video against the document,
// image quality — and sustained verifications per minute on all cores; peak resident memory.
// Photographs: the face-api package's demo images, resized to capture-like sizes; the back and
// the video are made with the ImageMagick and ffmpeg command lines.
#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <ctime>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>
#include <vector>

#include "pipeline/biometrics/dlib_engine.h"
#include "pipeline/biometrics/face_model.h"
#include "pipeline/biometrics/liveness.h"
#include "pipeline/biometrics/quality.h"
#include "pipeline/biometrics/video.h"
#include "pipeline/verification/builtin_engines.h"

using namespace svc;
using namespace svc::pipeline::biometrics;

namespace {
double CpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}
std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
}  // namespace

int main(int argc, char** argv) {
  std::string face_api = argc > 1 ? argv[1] : "models/node_modules/@vladmandic/face-api";
  std::string work = argc > 2 ? argv[2] : "/tmp/svc-faces-bench";
  int rounds = argc > 3 ? std::atoi(argv[3]) : 20;
  auto imported = ImportFaceApiModel(face_api, work + "/face.dat");
  if (!imported.ok()) {
    std::cerr << imported.status().ToString() << "\n";
    return 1;
  }
  double t0 = CpuSeconds();
  auto models = FaceModels::Load(work + "/face.dat", kShapePredictorPath);
  if (!models.ok()) {
    std::cerr << models.status().ToString() << "\n";
    return 1;
  }
  double load_cpu = CpuSeconds() - t0;
  std::shared_ptr<const FaceModels> shared(std::move(models).value());

  // Capture-like inputs: a 720x960 selfie and a 1280x806 "document front" with the portrait.
  Image photo = *DecodeImage(ReadFile(face_api + "/demo/sample2.jpg"));
  Image selfie = Scale(Crop(photo, 1268, 34, 540, 720), 960.0 / 720);
  Image card;
  card.width = 1280;
  card.height = 806;
  card.rgb.assign(static_cast<size_t>(card.width) * card.height * 3, 200);
  Image portrait = Scale(Crop(photo, 1358, 124, 360, 460), 0.9);
  for (int r = 0; r < portrait.height; ++r) {
    for (int c = 0; c < portrait.width; ++c) {
      for (int k = 0; k < 3; ++k) {
        card.rgb[(static_cast<size_t>(150 + r) * card.width + 80 + c) * 3 + k] =
            portrait.rgb[(static_cast<size_t>(r) * portrait.width + c) * 3 + k];
      }
    }
  }
  std::string selfie_png = *EncodePng(selfie), card_png = *EncodePng(card);
  std::ofstream(work + "/selfie.png", std::ios::binary) << selfie_png;
  const auto& spec = pipeline::verification::Specimen();
  std::string back_cmd = "convert -size 1280x806 xc:'#dcdcd4' -font /usr/share/fonts/opentype/ocr-b/OCRB.otf "
                         "-pointsize 50 -fill '#202020' -annotate +80+600 '" + spec.mrz[0] +
                         "' -annotate +80+670 '" + spec.mrz[1] + "' -annotate +80+740 '" + spec.mrz[2] +
                         "' " + work + "/back.png";
  std::string video_cmd = "ffmpeg -y -loglevel error -loop 1 -framerate 30 -i " + work +
                          "/selfie.png -vf \"scale=720:-2,pad=720:1280:0:(oh-ih)/2,zoompan=z='1+0.002*on':"
                          "d=90:s=720x1280:fps=30\" -frames:v 90 -c:v libx264 -pix_fmt yuv420p " + work +
                          "/video.mp4";
  if (std::system(back_cmd.c_str()) != 0 || std::system(video_cmd.c_str()) != 0) {
    std::cerr << "could not make the document back or the video (ImageMagick, ffmpeg)\n";
    return 1;
  }
  std::string back_png = ReadFile(work + "/back.png"), video = ReadFile(work + "/video.mp4");
  pipeline::verification::Capture s{"med_s", "selfie", "image/png", selfie_png, {}};
  pipeline::verification::Capture d{"med_d", "document_front", "image/png", card_png, {}};
  pipeline::verification::Capture b{"med_b", "document_back", "image/png", back_png, {}};
  pipeline::verification::Capture v{"med_v", "liveness_video", "video/mp4", video, {}};
  pipeline::verification::EngineContext ctx{"live", 1, ""};
  ctx.today = {2026, 11, 22};

  auto one = [&](bool attacks = true) {
    // A fresh engine per verification: its detection cache only serves one verification's
    // repeated looks at the same capture, as in production with new captures every time.
    DlibEngine fresh(shared);
    fresh.Analyze(d, ctx);   // capture analyses (analyze=true): decode, detect, quality, OCR
    fresh.Analyze(b, ctx);
    fresh.Analyze(s, ctx);
    fresh.Analyze(v, ctx);   // liveness measured at upload
    fresh.ReadDocument(d, &b, ctx);        // the stages
    fresh.Liveness(v, ctx);
    auto m = fresh.FaceMatch(s, d, ctx);  // align and embed both, match
    fresh.FaceMatch(v, d, ctx);           // the video's face against the document too
    fresh.ImageQuality(s, ctx);
    fresh.ImageQuality(d, ctx);
    if (attacks) fresh.AttackSignals(&s, &v, ctx);  // the deepfake stage (issue 37)
    return m.score.value_or(-1);
  };
  double score = one();  // warm-up
  t0 = CpuSeconds();
  for (int i = 0; i < rounds; ++i) one(false);
  double per_without = (CpuSeconds() - t0) / rounds;
  t0 = CpuSeconds();
  for (int i = 0; i < rounds; ++i) one();
  double per = (CpuSeconds() - t0) / rounds;

  // Stage split, one call each.
  auto stage = [&](auto fn) {
    double a = CpuSeconds();
    for (int i = 0; i < 5; ++i) fn();
    return (CpuSeconds() - a) / 5 * 1000;
  };
  Image dec;
  double decode_ms = stage([&] { dec = *DecodeImage(selfie_png); });
  std::vector<Face> faces;
  double detect_ms = stage([&] { faces = shared->Detect(dec); });
  Image chip;
  double chip_ms = stage([&] { chip = shared->Chip(dec, faces.at(0)); });
  double embed_ms = stage([&] { shared->Embed(chip); });
  double quality_ms = stage([&] { AssessQuality(dec, faces, CaptureKind::kSelfie); });
  VideoSample sampled;
  double video_ms = stage([&] { sampled = *SampleVideo(video, kLivenessFrames, kLivenessMaxSide); });
  double liveness_ms = stage([&] { AssessLiveness(*shared, sampled.frames); });
  double ocr_ms = stage([&] {
    DlibEngine fresh(shared);
    fresh.ReadDocument(d, &b, ctx);
  });

  // Sustained: one worker per core, 60 seconds of wall time at most / rounds per worker.
  unsigned workers = std::max(1u, std::thread::hardware_concurrency());
  std::atomic<int> done{0};
  auto wall0 = std::chrono::steady_clock::now();
  std::vector<std::thread> ts;
  for (unsigned w = 0; w < workers; ++w) {
    ts.emplace_back([&] {
      for (int i = 0; i < rounds; ++i) {
        one();
        done.fetch_add(1);
      }
    });
  }
  for (auto& t : ts) t.join();
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  std::cout << "face match score (same person) " << score << "\n"
            << "model load CPU " << load_cpu * 1000 << " ms\n"
            << "per verification CPU (4 analyses, document, liveness, 2 matches, 2 quality scores, attack signals) "
            << per * 1000 << " ms; without the attack signals " << per_without * 1000 << " ms (+"
            << (per / per_without - 1) * 100 << " %)\n"
            << "  selfie 720x960: decode " << decode_ms << " ms, detect+landmarks " << detect_ms
            << " ms, align " << chip_ms << " ms, embed " << embed_ms << " ms, quality " << quality_ms
            << " ms\n"
            << "  video 720x1280 3 s H.264: decode+sample 30 frames " << video_ms << " ms, liveness "
            << liveness_ms << " ms; document OCR front+back (with decode, detect) " << ocr_ms << " ms\n"
            << "sustained on " << workers << " threads: " << done.load() / wall * 60
            << " verifications/min\n"
            << "peak RSS " << ru.ru_maxrss / 1024 << " MiB\n";
  return 0;
}
