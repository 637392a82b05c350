#include "tests/support/liveness_fixtures.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

#include "pipeline/biometrics/pad.h"
#include "tests/support/svc_process.h"

namespace svc::testing::liveness {

namespace bio = pipeline::biometrics;
using bio::Image;

namespace {

struct Vec {
  double x = 0, y = 0;
};
Vec Of(std::pair<float, float> p) { return {p.first, p.second}; }
Vec operator-(Vec a, Vec b) { return {a.x - b.x, a.y - b.y}; }
Vec operator+(Vec a, Vec b) { return {a.x + b.x, a.y + b.y}; }
Vec operator*(double k, Vec a) { return {k * a.x, k * a.y}; }
double Dot(Vec a, Vec b) { return a.x * b.x + a.y * b.y; }
double Norm(Vec a) { return std::sqrt(Dot(a, a)); }

// Bilinear sample, clamped at the borders.
void Sample(const Image& img, double x, double y, uint8_t* out) {
  x = std::clamp(x, 0.0, img.width - 1.001);
  y = std::clamp(y, 0.0, img.height - 1.001);
  int x0 = static_cast<int>(x), y0 = static_cast<int>(y);
  double fx = x - x0, fy = y - y0;
  for (int k = 0; k < 3; ++k) {
    auto at = [&](int xx, int yy) { return img.rgb[(static_cast<size_t>(yy) * img.width + xx) * 3 + k]; };
    double v = (1 - fy) * ((1 - fx) * at(x0, y0) + fx * at(x0 + 1, y0)) +
               fy * ((1 - fx) * at(x0, y0 + 1) + fx * at(x0 + 1, y0 + 1));
    out[k] = static_cast<uint8_t>(std::clamp(std::lround(v), 0L, 255L));
  }
}

// Piecewise-linear v(u) through points sorted by u.
double Interp(const std::vector<Vec>& uv, double u) {
  if (u <= uv.front().x) return uv.front().y;
  for (size_t i = 1; i < uv.size(); ++i) {
    if (u <= uv[i].x) {
      double t = (u - uv[i - 1].x) / std::max(1e-9, uv[i].x - uv[i - 1].x);
      return uv[i - 1].y + t * (uv[i].y - uv[i - 1].y);
    }
  }
  return uv.back().y;
}

// The picture moved by whole pixels, edges repeated (a hand-held camera's drift).
Image Shift(const Image& img, int dx, int dy) {
  Image out = img;
  for (int y = 0; y < img.height; ++y) {
    int sy = std::clamp(y - dy, 0, img.height - 1);
    for (int x = 0; x < img.width; ++x) {
      int sx = std::clamp(x - dx, 0, img.width - 1);
      std::copy_n(&img.rgb[(static_cast<size_t>(sy) * img.width + sx) * 3], 3,
                  &out.rgb[(static_cast<size_t>(y) * img.width + x) * 3]);
    }
  }
  return out;
}

std::vector<std::string> CodecArgs(const std::string& name) {
  if (name.size() > 5 && name.substr(name.size() - 5) == ".webm") {
    // 4:2:0 as browsers record (from RGB frames libvpx would otherwise pick 4:4:4 GBR).
    return {"-c:v", "libvpx-vp9", "-pix_fmt", "yuv420p", "-b:v", "1M", "-deadline", "realtime", "-cpu-used", "8"};
  }
  return {"-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p"};
}

std::string RunFfmpeg(const TempDir& dir, std::vector<std::string> args, const std::string& name) {
  std::vector<std::string> all = {"-y", "-loglevel", "error"};
  all.insert(all.end(), args.begin(), args.end());
  for (const auto& a : CodecArgs(name)) all.push_back(a);
  all.push_back(dir.Sub(name));
  auto r = RunProgram("ffmpeg", all);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  return ReadFile(dir.Sub(name));
}

bio::Face DetectOne(const bio::FaceModels& models, const Image& img) {
  auto faces = models.Detect(img);
  REQUIRE(faces.size() == 1);
  return faces[0];
}

}  // namespace

std::string EncodeFrames(const TempDir& dir, const std::vector<Image>& frames, const std::string& name, int fps) {
  std::string raw = dir.Sub(name + ".rgb");
  {
    std::ofstream out(raw, std::ios::binary);
    for (const auto& f : frames) out.write(reinterpret_cast<const char*>(f.rgb.data()), static_cast<std::streamsize>(f.rgb.size()));
  }
  std::string size = std::to_string(frames.at(0).width) + "x" + std::to_string(frames.at(0).height);
  std::string bytes = RunFfmpeg(
      dir, {"-f", "rawvideo", "-pix_fmt", "rgb24", "-s", size, "-framerate", std::to_string(fps), "-i", raw}, name);
  std::filesystem::remove(raw);
  return bytes;
}

void BoxSmooth(std::vector<double>& v, int w, int h, int radius) {
  for (int pass = 0; pass < 2; ++pass) v = bio::BoxMean(v, w, h, radius);
}

std::shared_ptr<const bio::FaceModels> Models() {
  static TempDir* dir = new TempDir();
  static std::shared_ptr<const bio::FaceModels> models = [] {
    REQUIRE(bio::ImportFaceApiModel(SVC_FACE_API_DIR, dir->Sub("face.dat")).ok());
    auto m = bio::FaceModels::Load(dir->Sub("face.dat"), bio::kShapePredictorPath);
    REQUIRE(m.ok());
    return std::shared_ptr<const bio::FaceModels>(std::move(m).value());
  }();
  return models;
}

const std::vector<attacks::SourceFace>& SourceFaces() {
  static const std::vector<attacks::SourceFace> faces = attacks::SourceFaces(*Models());
  return faces;
}

Image Face() {
  // sample3's leftmost face: frontal, eyes open, at about (567, 376), 215 px.
  auto photo = bio::DecodeImage(ReadFile(std::string(SVC_FACE_API_DIR) + "/demo/sample3.jpg"));
  REQUIRE(photo.ok());
  return bio::Crop(*photo, 434, 213, 480, 640);
}

Image CloseEyes(const Image& img, const bio::Face& face, double closure) {
  Image out = img;
  const auto& p = face.landmarks;
  for (int first : {36, 42}) {
    // Eye coordinates: u along the corners (the head may be tilted), v across, pointing down.
    Vec a = Of(p[first]), b = Of(p[first + 3]);
    double width = Norm(b - a);
    Vec eu = (1 / width) * (b - a), ev{-eu.y, eu.x};
    auto uv = [&](Vec q) { return Vec{Dot(q - a, eu), Dot(q - a, ev)}; };
    std::vector<Vec> upper = {uv(Of(p[first])), uv(Of(p[first + 1])), uv(Of(p[first + 2])), uv(Of(p[first + 3]))};
    std::vector<Vec> lower = {uv(Of(p[first])), uv(Of(p[first + 5])), uv(Of(p[first + 4])), uv(Of(p[first + 3]))};
    // The lid covers the eye and the dark lash line and shadow just above it (fading out
    // towards the brow and past the corners): skin taken from under the lower lid, reflected
    // about the lid's margin; then the lashes are drawn along the margin.
    int x0 = static_cast<int>(std::min(a.x, b.x) - width), x1 = static_cast<int>(std::max(a.x, b.x) + width);
    int y0 = static_cast<int>(std::min(a.y, b.y) - width), y1 = static_cast<int>(std::max(a.y, b.y) + width);
    for (int y = std::max(0, y0); y <= std::min(img.height - 1, y1); ++y) {
      for (int x = std::max(0, x0); x <= std::min(img.width - 1, x1); ++x) {
        Vec q = uv(Vec{double(x), double(y)});
        if (q.x <= -0.2 * width || q.x >= 1.2 * width) continue;
        double vu = Interp(upper, q.x), vl = Interp(lower, q.x);
        double vnew = vu + closure * (vl + 1.0 - vu);  // where the lid's margin comes down to
        double top = vu - 0.45 * width;
        if (q.y < top || q.y > vnew + 1.0) continue;
        double alpha = std::clamp((q.y - top) / (0.25 * width), 0.0, 1.0) *
                       std::clamp(std::min(q.x + 0.2 * width, 1.2 * width - q.x) / (0.2 * width), 0.0, 1.0);
        double src_v = vl + 2.0 + (vnew - q.y);
        Vec s = a + q.x * eu + src_v * ev;
        uint8_t skin[3];
        Sample(img, s.x, s.y, skin);
        uint8_t* px = &out.rgb[(static_cast<size_t>(y) * img.width + x) * 3];
        bool lashes = q.y > vnew - 1.5 && q.x > 0 && q.x < width;
        for (int k = 0; k < 3; ++k) {
          double v = alpha * skin[k] + (1 - alpha) * px[k];
          px[k] = static_cast<uint8_t>(lashes ? v * 0.4 : v);
        }
      }
    }
  }
  return out;
}

Image TurnHead(const Image& img, const bio::Face& face, double amount) {
  Image out = img;
  const auto& p = face.landmarks;
  Vec left = Of(p[0]), right = Of(p[16]), chin = Of(p[8]), nose = Of(p[30]);
  double iod = Norm(Of(p[45]) - Of(p[36]));
  Vec o = 0.5 * (left + right);
  double rx = Norm(right - left) / 2;
  Vec ex = (1 / (2 * rx)) * (right - left), ey{-ex.y, ex.x};
  double ry = 1.05 * Dot(chin - o, ey);
  double sigma = 0.3 * iod;
  double shift = amount * iod;
  int x0 = static_cast<int>(o.x - 1.5 * rx), x1 = static_cast<int>(o.x + 1.5 * rx);
  int y0 = static_cast<int>(o.y - 1.5 * ry), y1 = static_cast<int>(o.y + 1.5 * ry);
  for (int y = std::max(0, y0); y <= std::min(img.height - 1, y1); ++y) {
    for (int x = std::max(0, x0); x <= std::min(img.width - 1, x1); ++x) {
      Vec q{double(x), double(y)};
      double u = Dot(q - o, ex) / rx, v = Dot(q - o, ey) / ry;
      double dome = std::max(0.0, 1 - u * u - v * v);
      Vec dn = q - nose;
      double bump = std::exp(-Dot(dn, dn) / (2 * sigma * sigma));
      double z = 0.5 * dome + 0.5 * bump * (dome > 0 ? 1.0 : 0.0);
      if (z <= 0) continue;
      Vec s = q - (shift * z) * ex;
      Sample(img, s.x, s.y, &out.rgb[(static_cast<size_t>(y) * img.width + x) * 3]);
    }
  }
  return out;
}

std::string ZoomPan(const TempDir& dir, const std::string& still_png, const std::string& name) {
  return RunFfmpeg(dir,
                   {"-i", still_png, "-vf",
                    "zoompan=z='1+0.003*on':x='iw/2-(iw/zoom/2)+on/2':y='ih/2-(ih/zoom/2)+on/3':d=75:s=480x640:fps=25",
                    "-frames:v", "75"},
                   name);
}

std::string Rotated(const TempDir& dir, const std::string& still_png, const std::string& name) {
  return RunFfmpeg(dir,
                   {"-loop", "1", "-framerate", "25", "-i", still_png, "-vf",
                    "rotate='0.1*sin(2*PI*t/1.5)',crop=440:587:x='20+20*sin(2*PI*t)':y='26+8*t',scale=480:640",
                    "-frames:v", "75"},
                   name);
}

std::string Blinking(const bio::FaceModels& models, const TempDir& dir, const std::string& name) {
  Image base = Face();
  bio::Face f = DetectOne(models, base);
  const double closure[] = {0.3, 0.7, 1, 1, 1, 1, 0.7, 0.3};
  std::vector<Image> frames;
  for (int i = 0; i < 75; ++i) {
    Image img = i >= 35 && i < 43 ? CloseEyes(base, f, closure[i - 35]) : base;
    frames.push_back(AddSensorNoise(Shift(img, static_cast<int>(std::lround(3 * std::sin(i / 12.0))), i / 25), 2.0,
                                    static_cast<uint32_t>(i)));
  }
  return EncodeFrames(dir, frames, name);
}

std::string Challenge(const bio::FaceModels& models, const TempDir& dir,
                      const std::vector<std::string>& actions, const std::string& name) {
  Image base = Face();
  bio::Face f = DetectOne(models, base);
  // Half a second facing the camera, then the actions.
  std::vector<Image> frames(12, base);
  const int per = 63 / static_cast<int>(std::max<size_t>(1, actions.size()));
  for (const auto& action : actions) {
    for (int k = 0; k < per; ++k) {
      double phase = std::sin(M_PI * k / (per - 1));  // 0 -> 1 -> 0
      if (action == "blink") {
        frames.push_back(std::abs(k - per / 2) <= 4 ? CloseEyes(base, f, std::min(1.0, 1.4 - 0.2 * std::abs(k - per / 2))) : base);
      } else {
        frames.push_back(TurnHead(base, f, (action == "turn_left" ? 0.3 : -0.3) * phase));
      }
    }
  }
  // A camera's frames are never identical: each has its own sensor noise.
  for (size_t i = 0; i < frames.size(); ++i) frames[i] = AddSensorNoise(frames[i], 2.0, static_cast<uint32_t>(i));
  return EncodeFrames(dir, frames, name);
}

}  // namespace svc::testing::liveness
