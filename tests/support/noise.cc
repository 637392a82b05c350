// The synthetic clips' and stills' sensor and camera noise (tests/support/liveness_fixtures.h).
// Apart from the fixtures' other drawing because it is most of their time: about a million normal
// draws a 640x480 frame, two thirds of unit.pipeline.liveness under the sanitizers at -O1. Under
// the sanitizers this file alone is compiled at -O2 without instrumentation (tests/CMakeLists.txt);
// the draws and so every fixture are the same bytes in every build.
#include <algorithm>
#include <cmath>
#include <random>

#include "tests/support/liveness_fixtures.h"

namespace svc::testing::liveness {

using pipeline::biometrics::Image;

namespace {

// std::mt19937 over 32-bit words: the same sequence, but its own template instantiations, so the
// linker cannot pick another file's instrumented -O1 copy of the engine or of
// normal_distribution for these calls (they are not inlined).
using Engine = std::mersenne_twister_engine<uint32_t, 32, 624, 397, 31, 0x9908b0dfU, 11, 0xffffffffU, 7,
                                            0x9d2c5680U, 15, 0xefc60000U, 18, 1812433253U>;

}  // namespace

Image AddSensorNoise(const Image& img, double sigma, uint32_t seed) {
  Image out = img;
  Engine rng(seed);
  std::normal_distribution<double> luma(0.0, sigma), chroma(0.0, sigma / 2);
  for (size_t i = 0; i < out.rgb.size(); i += 3) {
    double l = luma(rng);
    for (size_t k = 0; k < 3; ++k) {
      out.rgb[i + k] = static_cast<uint8_t>(std::clamp(std::lround(out.rgb[i + k] + l + chroma(rng)), 0L, 255L));
    }
  }
  return out;
}

Image AddCameraNoise(const Image& img, double sigma, uint32_t seed) {
  Image out = img;
  Engine rng(seed);
  std::normal_distribution<double> unit(0.0, 1.0);
  const int w = img.width, h = img.height;
  const size_t n = static_cast<size_t>(w) * h;
  // Two chroma planes (red and blue difference) of white noise, smoothed by two box passes of
  // radius 2 (a 9-pixel tent): about a fifth of the luma's spread per channel, blotches 5-9 pixels wide.
  std::vector<double> cr(n), cb(n);
  for (size_t i = 0; i < n; ++i) {
    cr[i] = sigma * unit(rng);
    cb[i] = sigma * unit(rng);
  }
  BoxSmooth(cr, w, h, 2);
  BoxSmooth(cb, w, h, 2);
  for (size_t i = 0; i < n; ++i) {
    const double l = sigma * unit(rng);
    const double d[3] = {l + 1.402 * cr[i], l - 0.344 * cb[i] - 0.714 * cr[i], l + 1.772 * cb[i]};
    for (size_t k = 0; k < 3; ++k) {
      out.rgb[i * 3 + k] = static_cast<uint8_t>(std::clamp(std::lround(out.rgb[i * 3 + k] + d[k]), 0L, 255L));
    }
  }
  return out;
}

}  // namespace svc::testing::liveness
