#include "tests/support/attack_set.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>

#include <jpeglib.h>

#include "tests/support/liveness_fixtures.h"
#include "tests/support/sample_captures.h"

namespace svc::testing::attacks {

namespace bio = pipeline::biometrics;
using bio::Image;

namespace {

using Rng = std::mt19937;
double Uniform(Rng& rng, double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); }
int UniformInt(Rng& rng, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }

// Bilinear sample of channel values (0..255 doubles), clamped at the borders.
void At(const Image& img, double x, double y, double out[3]) {
  x = std::clamp(x, 0.0, img.width - 1.001);
  y = std::clamp(y, 0.0, img.height - 1.001);
  int x0 = static_cast<int>(x), y0 = static_cast<int>(y);
  double fx = x - x0, fy = y - y0;
  for (int k = 0; k < 3; ++k) {
    auto p = [&](int xx, int yy) { return double(img.rgb[(static_cast<size_t>(yy) * img.width + xx) * 3 + k]); };
    out[k] = (1 - fy) * ((1 - fx) * p(x0, y0) + fx * p(x0 + 1, y0)) + fy * ((1 - fx) * p(x0, y0 + 1) + fx * p(x0 + 1, y0 + 1));
  }
}

uint8_t Byte(double v) { return static_cast<uint8_t>(std::clamp(std::lround(v), 0L, 255L)); }

Image Blank(int w, int h) {
  Image img;
  img.width = w;
  img.height = h;
  img.rgb.assign(static_cast<size_t>(w) * h * 3, 0);
  return img;
}

// out(x, y) = f(x, y) for every output pixel.
template <typename F>
Image Render(int w, int h, F f) {
  Image out = Blank(w, h);
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      double v[3];
      f(x, y, v);
      uint8_t* p = &out.rgb[(static_cast<size_t>(y) * w + x) * 3];
      for (int k = 0; k < 3; ++k) p[k] = Byte(v[k]);
    }
  }
  return out;
}

// Gamma and gain, as exposure does.
Image Expose(const Image& img, double gain, double gamma) {
  Image out = img;
  for (auto& v : out.rgb) v = Byte(255.0 * std::pow(std::clamp(gain * v / 255.0, 0.0, 1.0), gamma));
  return out;
}

// The selfie's framing of a source face: a crop around it (the face about 35-45 % of the width),
// `width` pixels wide, 3:4, rolled by `roll` degrees about the face.
Image Frame(const SourceFace& s, int width, double roll, double face_share) {
  const auto& f = s.face;
  double fw = f.right - f.left;
  double cx = 0.5 * (f.left + f.right), cy = 0.5 * (f.top + f.bottom) + 0.1 * fw;
  double crop_w = fw / face_share, scale = crop_w / width;  // source pixels per output pixel
  int height = width * 4 / 3;
  double c = std::cos(roll * M_PI / 180), sn = std::sin(roll * M_PI / 180);
  return Render(width, height, [&](int x, int y, double v[3]) {
    double dx = (x - width / 2.0) * scale, dy = (y - height / 2.0) * scale;
    At(s.photo, cx + c * dx - sn * dy, cy + sn * dx + c * dy, v);
  });
}

struct Framed {
  Image image;  // before sensor noise
  double noise = 0;
  int quality = 90;
};
Framed BonaFideFrame(const SourceFace& s, Rng& rng, int width) {
  Framed f;
  // Each draw in a statement of its own, in the order g++ made them when they were arguments of
  // one call (an order C++ leaves to the compiler: clang's draws made another set).
  const double share = Uniform(rng, 0.35, 0.45);
  const double roll = Uniform(rng, -6, 6);
  f.image = Frame(s, width, roll, share);
  const double gamma = Uniform(rng, 0.85, 1.15);
  const double gain = Uniform(rng, 0.85, 1.15);
  f.image = Expose(f.image, gain, gamma);
  f.noise = Uniform(rng, 0.8, 3.0);
  f.quality = UniformInt(rng, 70, 95);
  return f;
}

std::string Jpeg(const Image& img, int quality) {
  auto bytes = bio::EncodeJpeg(img, quality);
  return bytes.ok() ? *bytes : std::string();
}

// A JPEG with chroma at full resolution (4:4:4): libjpeg with every component sampled 1x1, as
// cameras and editors that keep the colour's detail write it.
std::string Jpeg444(const Image& img, int quality) {
  jpeg_compress_struct c{};
  jpeg_error_mgr err{};
  c.err = jpeg_std_error(&err);
  jpeg_create_compress(&c);
  unsigned char* buffer = nullptr;
  unsigned long size = 0;  // NOLINT(runtime/int): libjpeg's type
  jpeg_mem_dest(&c, &buffer, &size);
  c.image_width = static_cast<JDIMENSION>(img.width);
  c.image_height = static_cast<JDIMENSION>(img.height);
  c.input_components = 3;
  c.in_color_space = JCS_RGB;
  jpeg_set_defaults(&c);
  jpeg_set_quality(&c, quality, TRUE);
  for (int k = 0; k < 3; ++k) {
    c.comp_info[k].h_samp_factor = 1;
    c.comp_info[k].v_samp_factor = 1;
  }
  jpeg_start_compress(&c, TRUE);
  std::vector<uint8_t> row(static_cast<size_t>(img.width) * 3);
  while (c.next_scanline < c.image_height) {
    std::copy_n(&img.rgb[static_cast<size_t>(c.next_scanline) * img.width * 3], row.size(), row.begin());
    JSAMPROW rows[1] = {row.data()};
    jpeg_write_scanlines(&c, rows, 1);
  }
  jpeg_finish_compress(&c);
  std::string out(reinterpret_cast<const char*>(buffer), size);
  jpeg_destroy_compress(&c);
  std::free(buffer);
  return out;
}

// How a still is saved, drawn apart from the set's other draws (so a face does not always get the
// same format): most phones and browsers write JPEG with chroma at half resolution each way
// (4:2:0), some keep it whole (4:4:4), and an upload can be a PNG.
struct Saved {
  std::string mime, format, bytes;
};
Saved Save(const Image& img, int quality, Rng& format_rng) {
  const int pick = UniformInt(format_rng, 0, 3);
  if (pick == 1) return {"image/jpeg", "jpeg444", Jpeg444(img, quality)};
  if (pick == 3) {
    auto png = bio::EncodePng(img);
    return {"image/png", "png", png.ok() ? *png : std::string()};
  }
  return {"image/jpeg", "jpeg420", Jpeg(img, quality)};
}

// The camera's noise on a still (the stills are saved 4:4:4 and PNG too, which keep the chroma's).
Image CameraNoise(const Image& img, double sigma, uint32_t seed) { return liveness::AddCameraNoise(img, sigma, seed); }

// ---- Print replay ----
Image Print(const Image& src, Rng& rng, std::map<std::string, double>* drawn) {
  const double cell_camera = Uniform(rng, 1.5, 4.0);  // a halftone cell in camera pixels (100-200 lpi)
  const double zoom = Uniform(rng, 0.9, 1.15);        // camera pixels per print unit
  (*drawn)["cell"] = cell_camera;
  const double cell = cell_camera / zoom;             // in print units (the source's pixels)
  const double roll = Uniform(rng, -8, 8) * M_PI / 180;
  const double paper = Uniform(rng, 0.82, 0.95), ink = Uniform(rng, 0.8, 0.92);
  const double light = Uniform(rng, -0.25, 0.25);
  const double angles[4] = {15, 75, 0, 45};  // C, M, Y, K
  double ca[4], sa[4];
  for (int i = 0; i < 4; ++i) {
    ca[i] = std::cos(angles[i] * M_PI / 180);
    sa[i] = std::sin(angles[i] * M_PI / 180);
  }
  const int w = src.width, h = src.height;
  const double c = std::cos(roll), s = std::sin(roll);
  Image out = Render(w, h, [&](int x, int y, double v[3]) {
    double acc[3] = {0, 0, 0};
    for (int sy = 0; sy < 2; ++sy) {
      for (int sx = 0; sx < 2; ++sx) {
        double dx = (x + 0.25 + 0.5 * sx - w / 2.0) / zoom, dy = (y + 0.25 + 0.5 * sy - h / 2.0) / zoom;
        double px = w / 2.0 + c * dx - s * dy, py = h / 2.0 + s * dx + c * dy;
        double rgb[3];
        At(src, px, py, rgb);
        double r = rgb[0] / 255, g = rgb[1] / 255, b = rgb[2] / 255;
        double k = 1 - std::max({r, g, b});
        double cmyk[4] = {k < 1 ? (1 - r - k) / (1 - k) : 0, k < 1 ? (1 - g - k) / (1 - k) : 0,
                          k < 1 ? (1 - b - k) / (1 - k) : 0, k};
        double refl[3] = {paper, paper, paper};
        for (int i = 0; i < 4; ++i) {
          double u = (ca[i] * px + sa[i] * py) / cell, vv = (-sa[i] * px + ca[i] * py) / cell;
          double du = u - std::floor(u) - 0.5, dv = vv - std::floor(vv) - 0.5;
          double radius = std::sqrt(std::clamp(cmyk[i], 0.0, 1.0) / M_PI);
          if (std::hypot(du, dv) >= radius) continue;
          if (i == 0) refl[0] *= 1 - ink;
          if (i == 1) refl[1] *= 1 - ink;
          if (i == 2) refl[2] *= 1 - ink;
          if (i == 3) {
            for (double& q : refl) q *= 1 - ink;
          }
        }
        double shade = 1 + light * (double(x) / w - 0.5);
        for (int k2 = 0; k2 < 3; ++k2) acc[k2] += 255 * refl[k2] * shade / 4;
      }
    }
    for (int k2 = 0; k2 < 3; ++k2) v[k2] = acc[k2];
  });
  return bio::Blur(out, Uniform(rng, 0.6, 1.3));
}

// ---- Screen replay ----
Image Screen(const Image& src, Rng& rng, std::map<std::string, double>* drawn) {
  // A phone or tablet held before the camera: a display pixel is 0.5-1.8 camera pixels (a face a
  // few centimetres wide on a 300-450 ppi display, filmed at arm's length).
  const double pitch = Uniform(rng, 0.5, 1.8);
  (*drawn)["pitch"] = pitch;
  const double roll = Uniform(rng, -10, 10) * M_PI / 180;
  const double brightness = Uniform(rng, 0.9, 1.2);
  const int w = src.width, h = src.height;
  // What the display shows: the picture at its own pixel count.
  Image shown = bio::Scale(src, 1.0 / pitch);
  const double c = std::cos(roll), s = std::sin(roll);
  // Each camera pixel integrates what falls on it: enough samples that a display's sub-pixel
  // (a third of its pixel) is seen several times.
  const int k = std::clamp(static_cast<int>(std::ceil(4.0 / pitch)), 3, 9);
  Image out = Render(w, h, [&](int x, int y, double v[3]) {
    double acc[3] = {0, 0, 0};
    for (int sy = 0; sy < k; ++sy) {
      for (int sx = 0; sx < k; ++sx) {
        double dx = x + (sx + 0.5) / k - w / 2.0, dy = y + (sy + 0.5) / k - h / 2.0;
        double qx = (c * dx - s * dy) / pitch + shown.width / 2.0, qy = (s * dx + c * dy) / pitch + shown.height / 2.0;
        int ix = static_cast<int>(std::floor(qx)), iy = static_cast<int>(std::floor(qy));
        if (ix < 0 || iy < 0 || ix >= shown.width || iy >= shown.height) continue;
        double fx = qx - ix, fy = qy - iy;
        int stripe = std::min(2, static_cast<int>(fx * 3));
        double within = fx * 3 - stripe;
        if (within < 0.1 || within > 0.9 || fy < 0.06 || fy > 0.94) continue;  // the black matrix
        // A white display lights each channel on a third of the area times the stripes' fill
        // (0.8 x 0.88).
        acc[stripe] += shown.rgb[(static_cast<size_t>(iy) * shown.width + ix) * 3 + stripe] * brightness /
                       (k * k * 0.8 * 0.88 / 3.0);
      }
    }
    for (int ch = 0; ch < 3; ++ch) v[ch] = acc[ch];
  });
  return bio::Blur(out, Uniform(rng, 0.55, 1.0));
}

// ---- Face swap ----
struct Similarity {
  double a = 1, b = 0, tx = 0, ty = 0;  // x' = a x - b y + tx, y' = b x + a y + ty
};
// Least-squares similarity mapping `from` landmarks onto `to`.
Similarity Fit(const bio::Face& from, const bio::Face& to) {
  double fx = 0, fy = 0, tx = 0, ty = 0;
  for (size_t i = 0; i < 68; ++i) {
    fx += from.landmarks[i].first / 68;
    fy += from.landmarks[i].second / 68;
    tx += to.landmarks[i].first / 68;
    ty += to.landmarks[i].second / 68;
  }
  double num_a = 0, num_b = 0, den = 0;
  for (size_t i = 0; i < 68; ++i) {
    double x = from.landmarks[i].first - fx, y = from.landmarks[i].second - fy;
    double u = to.landmarks[i].first - tx, v = to.landmarks[i].second - ty;
    num_a += x * u + y * v;
    num_b += x * v - y * u;
    den += x * x + y * y;
  }
  Similarity s;
  s.a = num_a / den;
  s.b = num_b / den;
  s.tx = tx - (s.a * fx - s.b * fy);
  s.ty = ty - (s.b * fx + s.a * fy);
  return s;
}

bool Inside(const std::vector<std::pair<double, double>>& poly, double x, double y) {
  bool in = false;
  for (size_t i = 0, j = poly.size() - 1; i < poly.size(); j = i++) {
    if ((poly[i].second > y) != (poly[j].second > y) &&
        x < (poly[j].first - poly[i].first) * (y - poly[i].second) / (poly[j].second - poly[i].second) + poly[i].first) {
      in = !in;
    }
  }
  return in;
}

std::optional<Image> Swap(const bio::FaceModels& models, const Image& target, const Image& donor, Rng& rng,
                          std::map<std::string, double>* drawn) {
  auto tf = models.Detect(target), df = models.Detect(donor);
  if (tf.empty() || df.empty()) return std::nullopt;
  // The face the pipeline measures (the largest) takes the framed face of the donor's picture
  // (the largest there too: a group photograph's frame can hold a neighbour's face at its edge,
  // and pasting that one made a smear no one would present).
  const bio::Face& t = *bio::Largest(tf);
  const bio::Face& d = *bio::Largest(df);
  Similarity m = Fit(d, t);
  double det = m.a * m.a + m.b * m.b;
  // The donor in the target's frame (inverse map), at a generator's resolution.
  Image warped = Render(target.width, target.height, [&](int x, int y, double v[3]) {
    double dx = x - m.tx, dy = y - m.ty;
    At(donor, (m.a * dx + m.b * dy) / det, (-m.b * dx + m.a * dy) / det, v);
  });
  double face_w = t.right - t.left;
  double generated = Uniform(rng, 80, 160);
  if (face_w > generated) warped = bio::Blur(warped, 0.5 * face_w / generated);
  (*drawn)["face"] = face_w;
  (*drawn)["generated"] = generated;
  // The mask: the jaw line closed by the brows, shrunk a little, feathered.
  std::vector<std::pair<double, double>> hull;
  for (int i = 0; i <= 16; ++i) hull.push_back(t.landmarks[static_cast<size_t>(i)]);
  for (int i = 26; i >= 17; --i) hull.push_back(t.landmarks[static_cast<size_t>(i)]);
  double cx = 0, cy = 0;
  for (auto& p : hull) {
    cx += p.first / hull.size();
    cy += p.second / hull.size();
  }
  for (auto& p : hull) p = {cx + 0.95 * (p.first - cx), cy + 0.95 * (p.second - cy)};
  std::vector<double> alpha(static_cast<size_t>(target.width) * target.height, 0.0);
  for (int y = 0; y < target.height; ++y) {
    for (int x = 0; x < target.width; ++x) alpha[static_cast<size_t>(y) * target.width + x] = Inside(hull, x, y) ? 1 : 0;
  }
  int feather = std::max(1, static_cast<int>(Uniform(rng, 0.03, 0.08) * face_w));
  liveness::BoxSmooth(alpha, target.width, target.height, feather);  // a soft ramp
  // Colour transfer: the donor's face takes the target's mean and spread, channel by channel.
  double ms[3] = {0, 0, 0}, ss[3] = {0, 0, 0}, mt[3] = {0, 0, 0}, st[3] = {0, 0, 0}, n = 0;
  for (size_t i = 0; i < alpha.size(); ++i) {
    if (alpha[i] < 0.99) continue;
    ++n;
    for (int k = 0; k < 3; ++k) {
      double a = warped.rgb[i * 3 + k], b = target.rgb[i * 3 + k];
      ms[k] += a;
      ss[k] += a * a;
      mt[k] += b;
      st[k] += b * b;
    }
  }
  if (n < 100) return std::nullopt;
  Image out = target;
  for (int k = 0; k < 3; ++k) {
    ms[k] /= n;
    mt[k] /= n;
    ss[k] = std::sqrt(std::max(1.0, ss[k] / n - ms[k] * ms[k]));
    st[k] = std::sqrt(std::max(1.0, st[k] / n - mt[k] * mt[k]));
  }
  for (size_t i = 0; i < alpha.size(); ++i) {
    if (alpha[i] <= 0) continue;
    for (int k = 0; k < 3; ++k) {
      double face = (warped.rgb[i * 3 + k] - ms[k]) * st[k] / ss[k] + mt[k];
      out.rgb[i * 3 + k] = Byte(alpha[i] * face + (1 - alpha[i]) * target.rgb[i * 3 + k]);
    }
  }
  return out;
}

// ---- Videos ----
constexpr int kVideoW = 480;

// `n` frames of the person before the camera: drifting by a few pixels, blinking once (eyes
// closing over 8 frames from `blink_at`), each with its own sensor noise.
std::vector<Image> LiveFrames(const bio::FaceModels& models, const Image& base, int n, int blink_at, double noise,
                              uint32_t seed) {
  auto faces = models.Detect(base);
  std::vector<Image> frames;
  const double closure[] = {0.3, 0.7, 1, 1, 1, 1, 0.7, 0.3};
  for (int i = 0; i < n; ++i) {
    Image img = base;
    if (!faces.empty() && i >= blink_at && i < blink_at + 8) img = liveness::CloseEyes(base, faces[0], closure[i - blink_at]);
    // Drift: whole pixels, edges repeated.
    int dx = static_cast<int>(std::lround(3 * std::sin(i / 12.0))), dy = i / 30;
    Image moved = img;
    for (int y = 0; y < img.height; ++y) {
      int sy = std::clamp(y - dy, 0, img.height - 1);
      for (int x = 0; x < img.width; ++x) {
        int sx = std::clamp(x - dx, 0, img.width - 1);
        std::copy_n(&img.rgb[(static_cast<size_t>(sy) * img.width + sx) * 3], 3, &moved.rgb[(static_cast<size_t>(y) * img.width + x) * 3]);
      }
    }
    frames.push_back(liveness::AddSensorNoise(moved, noise, seed * 1000u + static_cast<uint32_t>(i)));
  }
  return frames;
}

// A still moved before the camera: pan, zoom and roll over the video, each frame with its noise.
std::vector<Image> MovedStill(const Image& still, int n, Rng& rng, double noise, uint32_t seed) {
  double zoom_rate = Uniform(rng, -0.003, 0.004), roll_amp = Uniform(rng, 0, 4), pan_x = Uniform(rng, -25, 25),
         pan_y = Uniform(rng, -15, 15);
  std::vector<Image> frames;
  for (int i = 0; i < n; ++i) {
    double t = double(i) / n, z = 1 + zoom_rate * i, r = roll_amp * std::sin(2 * M_PI * t) * M_PI / 180;
    double c = std::cos(r) / z, s = std::sin(r) / z;
    Image f = Render(still.width, still.height, [&](int x, int y, double v[3]) {
      double dx = x - still.width / 2.0 - pan_x * t, dy = y - still.height / 2.0 - pan_y * t;
      At(still, still.width / 2.0 + c * dx - s * dy, still.height / 2.0 + s * dx + c * dy, v);
    });
    frames.push_back(liveness::AddSensorNoise(f, noise, seed * 1000u + static_cast<uint32_t>(i)));
  }
  return frames;
}

// sample3's leftmost face (the liveness fixtures' face, at about (567, 376), 215 px).
const SourceFace& LiveFace(const std::vector<SourceFace>& faces) {
  const SourceFace* best = &faces.front();
  double best_d = 1e18;
  for (const auto& f : faces) {
    if (f.name.rfind("face-api/sample3.jpg", 0) != 0) continue;
    double d = std::hypot(0.5 * (f.face.left + f.face.right) - 674, 0.5 * (f.face.top + f.face.bottom) - 483);
    if (d < best_d) {
      best_d = d;
      best = &f;
    }
  }
  return *best;
}

// The element of `id` (its bytes as written, 2 bytes) inside `info`, at its first byte: its value
// rewritten to `to`, the length kept by an EBML Void after it. False when it does not fit.
bool RewriteString(std::string& bytes, size_t from, size_t to_end, const std::string& id, const std::string& to) {
  const size_t at = bytes.find(id, from);
  if (at == std::string::npos || at + 3 > to_end) return false;
  const auto size_byte = static_cast<unsigned char>(bytes[at + 2]);
  if ((size_byte & 0x80) == 0) return false;  // a one-byte size, as FFmpeg writes these
  const size_t len = size_byte & 0x7F;
  if (len < to.size() + 2 || at + 3 + len > to_end) return false;
  const size_t rest = len - to.size() - 2;  // the Void's payload
  std::string value = to + std::string("\xEC", 1) + static_cast<char>(0x80 | rest) + std::string(rest, '\0');
  bytes[at + 2] = static_cast<char>(0x80 | to.size());
  bytes.replace(at + 3, len, value);
  return true;
}

// An FFmpeg WebM made to say what a browser's MediaRecorder says of itself (MuxingApp and
// WritingApp "Chrome", as the chromium widget test's recordings do): the set's videos stand for
// captures recorded in the browser. Its Info's other elements and its frames are untouched.
std::string AsBrowserRecording(std::string webm) {
  const size_t info = webm.find(std::string("\x15\x49\xA9\x66", 4));
  if (info == std::string::npos) return webm;
  const size_t end = std::min(webm.size(), info + 256);
  RewriteString(webm, info, end, std::string("\x4D\x80", 2), "Chrome");
  RewriteString(webm, info, end, std::string("\x57\x41", 2), "Chrome");
  return webm;
}

// A recording re-encoded by a stock transcoder (FFmpeg): H.264 in MP4 or VP8 in WebM, at a
// quality and a scale of the attacker's choosing. Its container says who wrote it.
std::string Reencoded(const TempDir& work, const std::string& recording, int i, Rng& rng) {
  const std::string in = work.Sub("recording-" + std::to_string(i) + ".webm");
  {
    std::ofstream f(in, std::ios::binary);
    f.write(recording.data(), static_cast<std::streamsize>(recording.size()));
  }
  const bool mp4 = i % 2 == 0;
  const std::string out = work.Sub("reencoded-" + std::to_string(i) + (mp4 ? ".mp4" : ".webm"));
  const double scale = Uniform(rng, 0.6, 1.0);
  const std::string codec = mp4 ? "-c:v libx264 -crf " + std::to_string(UniformInt(rng, 20, 32)) + " -pix_fmt yuv420p"
                                : "-c:v libvpx -b:v " + std::to_string(UniformInt(rng, 300, 1500)) + "k";
  const std::string cmd = "ffmpeg -loglevel error -y -i '" + in + "' -vf 'scale=trunc(iw*" + std::to_string(scale) +
                          "/2)*2:-2' " + codec + " '" + out + "'";
  if (std::system(cmd.c_str()) != 0) return "";
  std::string bytes = ReadFile(out);
  std::filesystem::remove(in);
  std::filesystem::remove(out);
  return bytes;
}

// A JPEG's chroma sampling from its frame header (the luma's factors over the chroma's 1x1).
std::string JpegSampling(const std::string& b) {
  size_t i = 2;
  while (i + 4 <= b.size() && static_cast<unsigned char>(b[i]) == 0xFF) {
    const auto marker = static_cast<unsigned char>(b[i + 1]);
    const size_t len = (static_cast<unsigned char>(b[i + 2]) << 8) | static_cast<unsigned char>(b[i + 3]);
    if ((marker == 0xC0 || marker == 0xC1 || marker == 0xC2) && i + 11 < b.size()) {
      const auto f = static_cast<unsigned char>(b[i + 11]);  // the first component's factors
      const int h = f >> 4, v = f & 15;
      return h == 1 && v == 1 ? "jpeg444" : h == 2 && v == 1 ? "jpeg422" : h == 2 && v == 2 ? "jpeg420" : "jpeg";
    }
    i += 2 + len;
  }
  return "jpeg";
}

}  // namespace

std::vector<SourceFace> SourceFaces(const bio::FaceModels& models) {
  std::vector<std::pair<std::string, std::string>> photos;
  for (int i = 1; i <= 6; ++i) {
    std::string n = "sample" + std::to_string(i) + ".jpg";
    photos.push_back({"face-api/" + n, std::string(SVC_FACE_API_DIR) + "/demo/" + n});
  }
  const std::string dlib_faces = "/usr/share/doc/libdlib19.1/examples/faces";
  if (std::filesystem::is_directory(dlib_faces)) {
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(dlib_faces)) {
      if (e.path().extension() == ".jpg") names.push_back(e.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    for (const auto& n : names) photos.push_back({"dlib/" + n, dlib_faces + "/" + n});
  }
  std::vector<SourceFace> out;
  for (const auto& [name, path] : photos) {
    const std::string bytes = ReadFile(path);
    auto img = bio::DecodeImage(bytes);
    if (!img.ok()) continue;
    auto faces = models.Detect(*img);
    for (size_t i = 0; i < faces.size(); ++i) {
      if (faces[i].right - faces[i].left < 90) continue;
      out.push_back({*img, faces[i], name + "#" + std::to_string(i), JpegSampling(bytes)});
    }
  }
  return out;
}

std::vector<Sample> Make(const bio::FaceModels& models, const std::vector<SourceFace>& faces, const std::string& species,
                         const std::string& kind, int count, uint32_t seed, const TempDir& work) {
  std::vector<Sample> out;
  if (faces.empty()) return out;
  Rng rng(seed), format_rng(seed ^ 0x5A7EDu);
  const bool video = kind == "liveness_video" || species == "photo_replay" || species == "virtual_camera" ||
                     species == "reencoded_video";
  for (int i = 0; i < count; ++i) {
    const SourceFace& src = faces[static_cast<size_t>(i) % faces.size()];
    Sample s;
    s.species = species;
    s.source = src.name;
    if (!video) {
      Framed f = BonaFideFrame(src, rng, UniformInt(rng, 480, 800));
      Image shot = CameraNoise(f.image, f.noise, seed + static_cast<uint32_t>(i));
      double noise = f.noise;  // the noise of the camera that took the still
      if (species == "print_replay") {
        noise = Uniform(rng, 1.0, 3.0);  // drawn before the print (see BonaFideFrame)
        shot = CameraNoise(Print(f.image, rng, &s.drawn), noise, seed + 7u * i);
      } else if (species == "screen_replay") {
        noise = Uniform(rng, 1.0, 3.0);
        shot = CameraNoise(Screen(f.image, rng, &s.drawn), noise, seed + 7u * i);
      } else if (species == "face_swap") {
        const SourceFace& donor = faces[(static_cast<size_t>(i) + 1 + static_cast<size_t>(UniformInt(rng, 0, 1000))) % faces.size()];
        Framed d = BonaFideFrame(donor, rng, shot.width);
        auto swapped = Swap(models, shot, d.image, rng, &s.drawn);
        if (!swapped) continue;
        shot = *swapped;
        s.source += " <- " + donor.name;
        f.quality = UniformInt(rng, 75, 95);
      }
      s.kind = "selfie";
      s.drawn["noise"] = noise;
      s.drawn["q"] = f.quality;
      Saved saved = Save(shot, f.quality, format_rng);
      s.mime = saved.mime;
      s.format = saved.format;
      s.bytes = std::move(saved.bytes);
    } else {
      // The live videos (and the file a virtual camera plays) are of the one face whose blink
      // the synthesis is verified on (the liveness fixtures' sample3 face): on other faces the
      // warped lids may not close, and a video that never blinks is no bona fide capture.
      const SourceFace& live = species == "photo_replay" ? src : LiveFace(faces);
      if (species != "photo_replay") s.source = live.name;
      Framed f = BonaFideFrame(live, rng, kVideoW);
      const int n = 90;  // 3 seconds at 30 frames a second
      std::vector<Image> frames;
      if (species == "photo_replay") {
        Image still = liveness::AddSensorNoise(f.image, f.noise, seed + static_cast<uint32_t>(i));
        frames = MovedStill(still, n, rng, Uniform(rng, 1.0, 3.0), seed + static_cast<uint32_t>(i));
      } else if (species == "virtual_camera") {
        const int rates[] = {15, 20, 24, 25};
        const int rate = rates[i % 4];  // each rate in turn
        s.source += " at " + std::to_string(rate) + " fps";
        auto file = LiveFrames(models, f.image, rate * 3, UniformInt(rng, rate / 2, rate * 2), f.noise, seed + i);
        for (int j = 0; j < n; ++j) frames.push_back(file[static_cast<size_t>(j * rate / 30)]);
      } else {
        frames = LiveFrames(models, f.image, n, UniformInt(rng, 15, 60), f.noise, seed + i);
      }
      // Recorded as a browser's MediaRecorder records: VP9 in WebM, real-time (no B-frames), the
      // container saying Chrome wrote it. A re-encoded one: that recording through a transcoder.
      s.kind = "liveness_video";
      s.mime = "video/webm";
      s.format = "webm";
      s.bytes = AsBrowserRecording(liveness::EncodeFrames(work, frames, species + "-" + std::to_string(i) + ".webm", 30));
      if (species == "reencoded_video" && !s.bytes.empty()) {
        s.mime = i % 2 == 0 ? "video/mp4" : "video/webm";
        s.format = i % 2 == 0 ? "mp4" : "webm";
        s.bytes = Reencoded(work, s.bytes, i, rng);
      }
    }
    if (!s.bytes.empty()) out.push_back(std::move(s));
  }
  return out;
}

}  // namespace svc::testing::attacks
