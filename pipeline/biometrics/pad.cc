#include "pipeline/biometrics/pad.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <optional>

namespace svc::pipeline::biometrics {

namespace {

// Calibration of each signal: score = 1 / (1 + exp(-(measure - mid) / width)). Set on the attack
// set's calibration draw (svc_bench_pad --calibration), reported on another draw
// (docs/biometrics.md#attack-signals has the figures).
struct Curve {
  double mid, width;
};
constexpr Curve kRecapture{6.0, 0.12};       // ln(peak power / its ring's median)
constexpr Curve kColour{0.30, 0.04};         // chroma power above its rings' medians, share of the band's
constexpr Curve kFaceNoise{0.85, 0.08};      // ln(noise floor around / noise floor on the face)
constexpr Curve kForeheadNoise{0.35, 0.05};  // ln(noise floor of the forehead / on the face)
constexpr Curve kFaceDetail{0.40, 0.04};     // ln(sharpest detail around / in the eyes and mouth)
constexpr Curve kFrameRepeats{0.45, 0.04};   // share of repeats among one beat's frame pairs

double Logistic(double x, Curve c) { return 1.0 / (1.0 + std::exp(-(x - c.mid) / c.width)); }

double LumaOf(const uint8_t* p) { return 0.299 * p[0] + 0.587 * p[1] + 0.114 * p[2]; }

using Complex = std::complex<double>;

// In-place radix-2 FFT of a power-of-two length.
void Fft(std::vector<Complex>& a) {
  const size_t n = a.size();
  for (size_t i = 1, j = 0; i < n; ++i) {
    size_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(a[i], a[j]);
  }
  for (size_t len = 2; len <= n; len <<= 1) {
    const double ang = -2.0 * M_PI / static_cast<double>(len);
    const Complex wl(std::cos(ang), std::sin(ang));
    for (size_t i = 0; i < n; i += len) {
      Complex w(1.0, 0.0);
      for (size_t k = 0; k < len / 2; ++k) {
        Complex u = a[i + k], v = a[i + k + len / 2] * w;
        a[i + k] = u + v;
        a[i + k + len / 2] = u - v;
        w *= wl;
      }
    }
  }
}

// The power spectrum of an n x n real plane (row-major), Hann-windowed, mean removed.
std::vector<double> PowerSpectrum(std::vector<double> plane, int n) {
  double mean = 0;
  for (double v : plane) mean += v;
  mean /= static_cast<double>(plane.size());
  std::vector<double> hann(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) hann[static_cast<size_t>(i)] = 0.5 - 0.5 * std::cos(2 * M_PI * i / (n - 1));
  std::vector<Complex> data(plane.size());
  for (int y = 0; y < n; ++y) {
    for (int x = 0; x < n; ++x) {
      size_t i = static_cast<size_t>(y) * n + x;
      data[i] = (plane[i] - mean) * hann[static_cast<size_t>(x)] * hann[static_cast<size_t>(y)];
    }
  }
  std::vector<Complex> line(static_cast<size_t>(n));
  for (int y = 0; y < n; ++y) {
    std::copy_n(&data[static_cast<size_t>(y) * n], n, line.begin());
    Fft(line);
    std::copy_n(line.begin(), n, &data[static_cast<size_t>(y) * n]);
  }
  for (int x = 0; x < n; ++x) {
    for (int y = 0; y < n; ++y) line[static_cast<size_t>(y)] = data[static_cast<size_t>(y) * n + x];
    Fft(line);
    for (int y = 0; y < n; ++y) data[static_cast<size_t>(y) * n + x] = line[static_cast<size_t>(y)];
  }
  std::vector<double> power(data.size());
  for (size_t i = 0; i < data.size(); ++i) power[i] = std::norm(data[i]);
  return power;
}

// A square window on the face, a power of two on a side (128 for a face box of 140 pixels or
// more, else 64; smaller when the image is), centred on the nose, kept inside the image. Nullopt
// when under 64.
struct Window {
  int left = 0, top = 0, size = 0;
};
std::optional<Window> FaceWindow(const Image& image, const Face& face) {
  // Inside the face: a window wider than it takes in the neck, the hair and the clothes, whose
  // lace, weave or stripes are periodic too (a lace choker below the chin read as a screen).
  int face_w = face.right - face.left;
  int size = face_w >= 140 ? 128 : 64;
  while (size > std::min(image.width, image.height)) size /= 2;
  if (size < 64) return std::nullopt;
  // Centred on the nose (landmarks 27-35), which sits on the face whatever the box.
  double cx = 0, cy = 0;
  for (int i = 27; i <= 35; ++i) {
    cx += face.landmarks[static_cast<size_t>(i)].first;
    cy += face.landmarks[static_cast<size_t>(i)].second;
  }
  cx /= 9;
  cy /= 9;
  Window w;
  w.size = size;
  w.left = std::clamp(static_cast<int>(cx) - size / 2, 0, image.width - size);
  w.top = std::clamp(static_cast<int>(cy) - size / 2, 0, image.height - size);
  return w;
}

enum class Plane { kLuma, kRedGreen, kBlueGreen };
std::vector<double> Extract(const Image& image, const Window& w, Plane which) {
  std::vector<double> out(static_cast<size_t>(w.size) * w.size);
  for (int y = 0; y < w.size; ++y) {
    for (int x = 0; x < w.size; ++x) {
      const uint8_t* p = &image.rgb[(static_cast<size_t>(w.top + y) * image.width + w.left + x) * 3];
      out[static_cast<size_t>(y) * w.size + x] = which == Plane::kLuma       ? LumaOf(p)
                                                 : which == Plane::kRedGreen ? double(p[0]) - p[1]
                                                                             : double(p[2]) - p[1];
    }
  }
  return out;
}

// The largest isolated spectral peak of a plane: ln(its power / the median power of its ring),
// over frequencies of periods of 2 to 16 pixels, at local maxima only. Left out: the two axes
// (straight edges and the window put energy there) and the lines of the JPEG block grid (a
// frequency a multiple of n/8 on either axis, n/16 for chroma subsampled 2x2).
double LargestPeak(const std::vector<double>& power, int n, int grid) {
  const int half = n / 2, rmin = n / 16;
  auto at = [&](int u, int v) {  // u, v in [-half, half)
    int x = (u + n) % n, y = (v + n) % n;
    return power[static_cast<size_t>(y) * n + x];
  };
  std::vector<std::vector<float>> rings(static_cast<size_t>(half));
  for (int v = 0; v < half; ++v) {
    for (int u = -half; u < half; ++u) {
      int r = static_cast<int>(std::lround(std::sqrt(double(u) * u + double(v) * v)));
      if (r < rmin || r >= half) continue;
      rings[static_cast<size_t>(r)].push_back(static_cast<float>(std::log(at(u, v) + 1e-9)));
    }
  }
  std::vector<double> median(static_cast<size_t>(half), 0.0);
  for (int r = rmin; r < half; ++r) {
    auto& ring = rings[static_cast<size_t>(r)];
    if (ring.empty()) continue;
    auto mid = ring.begin() + static_cast<std::ptrdiff_t>(ring.size() / 2);
    std::nth_element(ring.begin(), mid, ring.end());
    median[static_cast<size_t>(r)] = *mid;
  }
  auto near_multiple = [](int x, int step) {
    int m = ((x % step) + step) % step;
    return m <= 1 || m >= step - 1;
  };
  double best = 0;
  for (int v = 2; v < half - 1; ++v) {
    for (int u = -half + 1; u < half - 1; ++u) {
      if (std::abs(u) <= 1) continue;
      int r = static_cast<int>(std::lround(std::sqrt(double(u) * u + double(v) * v)));
      if (r < rmin || r >= half) continue;
      // JPEG's blocks put energy on whole lines of the spectrum (block edges every 8 pixels across
      // any content), not only where two such lines cross.
      if (near_multiple(u, n / grid) || near_multiple(v, n / grid)) continue;
      double p = at(u, v);
      bool peak = true;
      for (int dv = -1; dv <= 1 && peak; ++dv) {
        for (int du = -1; du <= 1; ++du) {
          if ((du != 0 || dv != 0) && at(u + du, v + dv) > p) {
            peak = false;
            break;
          }
        }
      }
      if (!peak) continue;
      best = std::max(best, std::log(p + 1e-9) - median[static_cast<size_t>(r)]);
    }
  }
  return best;
}

struct Pt {
  double x, y;
};
bool InPolygon(const std::vector<Pt>& poly, double x, double y) {
  bool in = false;
  for (size_t i = 0, j = poly.size() - 1; i < poly.size(); j = i++) {
    if ((poly[i].y > y) != (poly[j].y > y) &&
        x < (poly[j].x - poly[i].x) * (y - poly[i].y) / (poly[j].y - poly[i].y) + poly[i].x) {
      in = !in;
    }
  }
  return in;
}

double Percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  auto it = v.begin() + static_cast<std::ptrdiff_t>(q * static_cast<double>(v.size() - 1));
  std::nth_element(v.begin(), it, v.end());
  return *it;
}

// The power spectra of the face's window (FaceWindow) in the three planes, computed once for the
// two measures that read them.
struct Spectra {
  int n = 0;
  std::vector<double> luma, red_green, blue_green;
};
std::optional<Spectra> FaceSpectra(const Image& image, const Face& face) {
  auto w = FaceWindow(image, face);
  if (!w) return std::nullopt;
  return Spectra{w->size, PowerSpectrum(Extract(image, *w, Plane::kLuma), w->size),
                 PowerSpectrum(Extract(image, *w, Plane::kRedGreen), w->size),
                 PowerSpectrum(Extract(image, *w, Plane::kBlueGreen), w->size)};
}

double RecaptureOf(const Spectra& s) {
  return std::max({LargestPeak(s.luma, s.n, 8), LargestPeak(s.red_green, s.n, 16), LargestPeak(s.blue_green, s.n, 16), 0.0});
}

// The colour a display's sub-pixels alias into, as distinct from the colour of a face and of a
// camera's noise: per plane (luma and the two chroma differences), in every frequency ring of
// periods 3 to 12 pixels, the power above 3x the ring's median; the chroma's excess as a share of
// all three planes' power in those rings. Noise is flat within a ring (white per pixel, or in
// blotches, whatever the chroma's resolution in the file), and a face's colour edges spread
// along their orientation; a moire is a few peaks. The axes and the lines of JPEG's block grid
// are left out as for the recapture pattern. (The share of the chroma's band-passed energy,
// measured before, read a full-resolution chroma's noise and a real photograph's colourful detail
// as a screen: BENCHMARKS.md#attack-formats.)
double ColourOf(const Spectra& s) {
  const int n = s.n, half = n / 2;
  const int rlo = n / 12, rhi = n / 3;
  auto near_multiple = [](int x, int step) {
    int m = ((x % step) + step) % step;
    return m <= 1 || m >= step - 1;
  };
  double total = 0;
  auto excess_of = [&](const std::vector<double>& power, int grid) {
    std::vector<std::vector<double>> rings(static_cast<size_t>(rhi + 1));
    std::vector<std::pair<int, double>> cells;
    for (int v = 2; v < half; ++v) {  // half the plane: a real plane's spectrum is symmetric
      for (int u = -half; u < half; ++u) {
        if (std::abs(u) <= 1 || near_multiple(u, n / grid) || near_multiple(v, n / grid)) continue;
        int r = static_cast<int>(std::lround(std::sqrt(double(u) * u + double(v) * v)));
        if (r < rlo || r > rhi) continue;
        double p = power[static_cast<size_t>(v) * n + (u + n) % n];
        rings[static_cast<size_t>(r)].push_back(p);
        cells.push_back({r, p});
      }
    }
    std::vector<double> median(rings.size(), 0.0);
    for (size_t r = 0; r < rings.size(); ++r) {
      auto& ring = rings[r];
      if (ring.empty()) continue;
      auto mid = ring.begin() + static_cast<std::ptrdiff_t>(ring.size() / 2);
      std::nth_element(ring.begin(), mid, ring.end());
      median[r] = *mid;
    }
    double excess = 0;
    for (const auto& [r, p] : cells) {
      total += p;
      excess += std::max(0.0, p - 3 * median[static_cast<size_t>(r)]);
    }
    return excess;
  };
  excess_of(s.luma, 8);
  const double chroma = excess_of(s.red_green, 16) + excess_of(s.blue_green, 16);
  return chroma / (total + 1e-9);
}

}  // namespace

std::vector<double> BoxMean(const std::vector<double>& in, int w, int h, int r) {
  std::vector<double> tmp(in.size()), out(in.size());
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      double s = 0;
      for (int k = -r; k <= r; ++k) s += in[static_cast<size_t>(y) * w + std::clamp(x + k, 0, w - 1)];
      tmp[static_cast<size_t>(y) * w + x] = s / (2 * r + 1);
    }
  }
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      double s = 0;
      for (int k = -r; k <= r; ++k) s += tmp[static_cast<size_t>(std::clamp(y + k, 0, h - 1)) * w + x];
      out[static_cast<size_t>(y) * w + x] = s / (2 * r + 1);
    }
  }
  return out;
}

double RecapturePatternMeasure(const Image& image, const Face& face) {
  auto s = FaceSpectra(image, face);
  return s ? RecaptureOf(*s) : 0;
}

double ScreenColourMeasure(const Image& image, const Face& face) {
  auto s = FaceSpectra(image, face);
  return s ? ColourOf(*s) : 0;
}

namespace {

// The face region's two measures, read together.
struct FaceRegionMeasures {
  double noise = 0;   // ln(noise floor around / on the face)
  double detail = 0;  // ln(sharpest detail around / in the eyes and mouth)
  double forehead = 0;  // ln(noise floor of the forehead / on the face): both skin, one focus
};
FaceRegionMeasures MeasureFaceRegion(const Image& image, const Face& face);

}  // namespace

double FaceNoiseMeasure(const Image& image, const Face& face) { return MeasureFaceRegion(image, face).noise; }
double FaceDetailMeasure(const Image& image, const Face& face) { return MeasureFaceRegion(image, face).detail; }
double FaceForeheadMeasure(const Image& image, const Face& face) { return MeasureFaceRegion(image, face).forehead; }

namespace {

FaceRegionMeasures MeasureFaceRegion(const Image& image, const Face& face) {
  FaceRegionMeasures out;
  const auto& lm = face.landmarks;
  // The face: the jaw line (0-16) closed by the brows (26-17) — what a face swap replaces.
  std::vector<Pt> hull;
  for (int i = 0; i <= 16; ++i) hull.push_back({lm[static_cast<size_t>(i)].first, lm[static_cast<size_t>(i)].second});
  for (int i = 26; i >= 17; --i) hull.push_back({lm[static_cast<size_t>(i)].first, lm[static_cast<size_t>(i)].second});
  Pt c{0, 0};
  for (const auto& p : hull) {
    c.x += p.x / hull.size();
    c.y += p.y / hull.size();
  }
  auto scaled = [&](double k) {
    std::vector<Pt> poly;
    for (const auto& p : hull) poly.push_back({c.x + k * (p.x - c.x), c.y + k * (p.y - c.y)});
    return poly;
  };
  const auto outer = scaled(1.6), inner_limit = scaled(1.15);
  // The forehead: a band above the brows (what a face swap's mask, jaw line to brows, leaves).
  std::vector<Pt> forehead;
  {
    double iod0 = std::hypot(lm[45].first - lm[36].first, lm[45].second - lm[36].second);
    for (int i = 17; i <= 26; ++i) forehead.push_back({lm[static_cast<size_t>(i)].first, lm[static_cast<size_t>(i)].second - 0.2 * iod0});
    for (int i = 26; i >= 17; --i) forehead.push_back({lm[static_cast<size_t>(i)].first, lm[static_cast<size_t>(i)].second - 0.7 * iod0});
  }
  // Features (eyes, brows, nose, mouth) carry detail of their own: their boxes are left out.
  struct Box {
    double l, t, r, b;
  };
  std::vector<Box> features;
  auto box_of = [&](int from, int to, double pad) {
    Box b{1e9, 1e9, -1e9, -1e9};
    for (int i = from; i <= to; ++i) {
      b.l = std::min<double>(b.l, lm[static_cast<size_t>(i)].first);
      b.r = std::max<double>(b.r, lm[static_cast<size_t>(i)].first);
      b.t = std::min<double>(b.t, lm[static_cast<size_t>(i)].second);
      b.b = std::max<double>(b.b, lm[static_cast<size_t>(i)].second);
    }
    return Box{b.l - pad, b.t - pad, b.r + pad, b.b + pad};
  };
  double iod = std::hypot(lm[45].first - lm[36].first, lm[45].second - lm[36].second);
  if (iod < 16) return out;  // too small a face to tell
  features.push_back(box_of(17, 26, 0.12 * iod));
  features.push_back(box_of(36, 47, 0.2 * iod));
  features.push_back(box_of(27, 35, 0.12 * iod));
  features.push_back(box_of(48, 67, 0.15 * iod));
  // The region to read: the outer polygon's bounding box, inside the image.
  double l = 1e9, t = 1e9, r = -1e9, b = -1e9;
  for (const auto& p : outer) {
    l = std::min(l, p.x);
    r = std::max(r, p.x);
    t = std::min(t, p.y);
    b = std::max(b, p.y);
  }
  const int x0 = std::clamp(static_cast<int>(l), 0, image.width), x1 = std::clamp(static_cast<int>(r), 0, image.width);
  const int y0 = std::clamp(static_cast<int>(t), 0, image.height), y1 = std::clamp(static_cast<int>(b), 0, image.height);
  const int w = x1 - x0, h = y1 - y0;
  if (w < 32 || h < 32) return out;
  std::vector<double> y(static_cast<size_t>(w) * h);
  for (int yy = 0; yy < h; ++yy) {
    for (int xx = 0; xx < w; ++xx) {
      y[static_cast<size_t>(yy) * w + xx] = LumaOf(&image.rgb[(static_cast<size_t>(y0 + yy) * image.width + x0 + xx) * 3]);
    }
  }
  auto smooth = BoxMean(y, w, h, 1);
  // 8x8 blocks on the image's grid: energy of the residual under the 3x3 mean; clipped blocks
  // (no noise survives clipping) are left out.
  std::vector<double> inside, around, above;
  for (int by = (8 - y0 % 8) % 8; by + 8 <= h; by += 8) {
    for (int bx = (8 - x0 % 8) % 8; bx + 8 <= w; bx += 8) {
      double e = 0;
      bool clipped = false;
      for (int yy = by; yy < by + 8; ++yy) {
        for (int xx = bx; xx < bx + 8; ++xx) {
          size_t i = static_cast<size_t>(yy) * w + xx;
          clipped |= y[i] > 250 || y[i] < 5;
          e += (y[i] - smooth[i]) * (y[i] - smooth[i]);
        }
      }
      if (clipped) continue;
      e /= 64;
      double cx = x0 + bx + 4, cy = y0 + by + 4;
      bool feature = false;
      for (const auto& f : features) feature |= cx + 4 > f.l && cx - 4 < f.r && cy + 4 > f.t && cy - 4 < f.b;
      if (InPolygon(forehead, cx, cy)) above.push_back(e);
      if (InPolygon(hull, cx, cy)) {
        if (!feature) inside.push_back(e);
      } else if (InPolygon(outer, cx, cy) && !InPolygon(inner_limit, cx, cy)) {
        around.push_back(e);
      }
    }
  }
  if (inside.size() < 6 || around.size() < 6) return out;
  // The noise floor: the flatter blocks of each region (texture and edges stay out of it).
  double floor_in = Percentile(inside, 0.3), floor_around = Percentile(around, 0.3);
  out.noise = std::log((floor_around + 0.3) / (floor_in + 0.3));
  if (above.size() >= 4) out.forehead = std::log((Percentile(above, 0.3) + 0.3) / (floor_in + 0.3));
  // The sharpest detail: the 90th percentile of the residual's magnitude in the eyes and the
  // mouth (where a face is sharpest when in focus) against the ring around the face.
  std::vector<double> eyes_mouth, ring;
  for (int yy = 0; yy < h; ++yy) {
    for (int xx = 0; xx < w; ++xx) {
      double px = x0 + xx, py = y0 + yy;
      double v = std::abs(y[static_cast<size_t>(yy) * w + xx] - smooth[static_cast<size_t>(yy) * w + xx]);
      bool feature = false;
      for (size_t f = 1; f < features.size(); f += 2) {  // eyes, mouth
        feature |= px > features[f].l && px < features[f].r && py > features[f].t && py < features[f].b;
      }
      if (feature) eyes_mouth.push_back(v);
      else if ((xx % 2 == 0) && (yy % 2 == 0) && InPolygon(outer, px, py) && !InPolygon(inner_limit, px, py)) ring.push_back(v);
    }
  }
  if (eyes_mouth.size() < 64 || ring.size() < 64) return out;
  out.detail = std::log((Percentile(ring, 0.9) + 0.5) / (Percentile(eyes_mouth, 0.9) + 0.5));
  return out;
}

}  // namespace


std::vector<PadSignal> StillSignals(const Image& image, const Face& face) {
  std::vector<PadSignal> out;
  const auto spectra = FaceSpectra(image, face);
  double m = spectra ? RecaptureOf(*spectra) : 0;
  out.push_back({"recapture_pattern", "RECAPTURE_PATTERN", m, Logistic(m, kRecapture)});
  m = spectra ? ColourOf(*spectra) : 0;
  out.push_back({"screen_colour", "SCREEN_COLOUR_MOIRE", m, Logistic(m, kColour)});
  auto region = MeasureFaceRegion(image, face);
  out.push_back({"face_noise", "FACE_NOISE_MISMATCH", region.noise, Logistic(region.noise, kFaceNoise)});
  out.push_back({"forehead_noise", "FACE_NOISE_MISMATCH", region.forehead, Logistic(region.forehead, kForeheadNoise)});
  out.push_back({"face_detail", "FACE_DETAIL_MISMATCH", region.detail, Logistic(region.detail, kFaceDetail)});
  return out;
}

double FrameRepeatMeasure(const std::vector<bool>& repeats, const std::vector<bool>& comparable) {
  double best = 0;
  const int n = static_cast<int>(repeats.size());
  for (int period = 2; period <= 8; ++period) {
    for (int phase = 0; phase < period; ++phase) {
      int pairs = 0, hits = 0;
      for (int i = phase; i < n; i += period) {
        if (static_cast<size_t>(i) < comparable.size() && !comparable[static_cast<size_t>(i)]) continue;
        ++pairs;
        hits += repeats[static_cast<size_t>(i)] ? 1 : 0;
      }
      if (pairs >= 10) best = std::max(best, static_cast<double>(hits) / pairs);
    }
  }
  return best;
}

PadSignal FrameRepeatSignal(const std::vector<bool>& repeats, const std::vector<bool>& comparable) {
  double m = FrameRepeatMeasure(repeats, comparable);
  return {"frame_repeats", "VIDEO_FRAME_REPEATS", m, m > 0 ? Logistic(m, kFrameRepeats) : 0.0};
}

PadResult Combine(std::vector<PadSignal> signals) {
  PadResult r;
  double genuine = 1;
  for (const auto& s : signals) {
    genuine *= 1 - std::clamp(s.score, 0.0, 1.0);
    if (s.score >= 0.5 &&
        std::find(r.reasons.begin(), r.reasons.end(), s.reason_code) == r.reasons.end()) {
      r.reasons.push_back(s.reason_code);
    }
  }
  r.score = 1 - genuine;
  r.signals = std::move(signals);
  return r;
}

core::Json PadResult::ToJson() const {
  core::Json s = core::Json::object();
  auto round4 = [](double v) { return std::round(v * 10000.0) / 10000.0; };
  for (const auto& x : signals) {
    // A signal measured on two captures (the selfie and the video's frame) keeps the higher.
    if (s.contains(x.name) && s[x.name]["score"].get<double>() >= round4(x.score)) continue;
    s[x.name] = {{"measure", round4(x.measure)}, {"score", round4(x.score)}};
  }
  return {{"score", round4(score)}, {"signals", s}, {"reasons", reasons}};
}

}  // namespace svc::pipeline::biometrics
