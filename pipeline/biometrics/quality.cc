#include "pipeline/biometrics/quality.h"

#include <algorithm>
#include <cmath>

namespace svc::pipeline::biometrics {

namespace {

// Thresholds (docs/biometrics.md). Sharpness is measured on a copy scaled to 640 pixels on the
// longer side so the number does not depend on the camera's resolution.
// Faces are smooth: their region's threshold is lower than a whole frame's (calibrated on the
// face-api demo photographs: a sharp face region measures ~45, a 2-pixel defocus ~3).
constexpr double kBlurBelow = 60.0;
constexpr double kFaceBlurBelow = 15.0;
constexpr double kDarkMean = 60.0, kBrightMean = 210.0;
constexpr double kClippedFraction = 0.25;
constexpr double kGlareFraction = 0.02;
constexpr double kMinFaceShare = 0.12;  // face width / image width, selfies
constexpr double kMinDocFaceShare = 0.05;

std::vector<double> Luma(const Image& img) {
  std::vector<double> y(static_cast<size_t>(img.width) * img.height);
  for (size_t i = 0; i < y.size(); ++i) {
    const uint8_t* p = &img.rgb[i * 3];
    y[i] = 0.299 * p[0] + 0.587 * p[1] + 0.114 * p[2];
  }
  return y;
}

void Add(QualityReport& r, const char* issue, const char* hint) {
  r.issues.emplace_back(issue);
  r.hints.emplace_back(hint);
}

}  // namespace

QualityMetrics Measure(const Image& image) {
  QualityMetrics m;
  if (image.width < 3 || image.height < 3) return m;
  int longer = std::max(image.width, image.height);
  Image small = longer > 640 ? Scale(image, 640.0 / longer) : image;
  auto y = Luma(small);
  int w = small.width, h = small.height;
  // Laplacian (4-neighbour) variance.
  double sum = 0, sum2 = 0;
  size_t n = 0;
  for (int r = 1; r + 1 < h; ++r) {
    for (int c = 1; c + 1 < w; ++c) {
      size_t i = static_cast<size_t>(r) * w + c;
      double l = y[i - 1] + y[i + 1] + y[i - w] + y[i + w] - 4 * y[i];
      sum += l;
      sum2 += l * l;
      ++n;
    }
  }
  if (n > 0) {
    double mean = sum / n;
    m.sharpness = sum2 / n - mean * mean;
  }
  size_t dark = 0, bright = 0, glare = 0;
  double total = 0;
  for (size_t i = 0; i < y.size(); ++i) {
    total += y[i];
    dark += y[i] < 16 ? 1 : 0;
    bright += y[i] > 245 ? 1 : 0;
    const uint8_t* p = &small.rgb[i * 3];
    int mx = std::max({p[0], p[1], p[2]}), mn = std::min({p[0], p[1], p[2]});
    glare += (mn > 235 && mx - mn < 20) ? 1 : 0;
  }
  m.mean_luma = total / y.size();
  m.dark_fraction = static_cast<double>(dark) / y.size();
  m.bright_fraction = static_cast<double>(bright) / y.size();
  m.glare_fraction = static_cast<double>(glare) / y.size();
  return m;
}

QualityReport AssessQuality(const Image& image, const std::vector<Face>& faces, CaptureKind kind) {
  QualityReport r;
  r.metrics = Measure(image);
  const auto& m = r.metrics;
  const int shorter = std::min(image.width, image.height);
  const int longer = std::max(image.width, image.height);
  // A document photo cropped to the card (1000×630) reads as well as a 1280×720 frame around it.
  if (kind == CaptureKind::kSelfie ? shorter < 480 : (longer < 960 || shorter < 540)) {
    Add(r, "low_resolution", kind == CaptureKind::kSelfie ? "move closer to the camera"
                                                          : "fill the frame with the document");
  }
  if (faces.empty()) {
    Add(r, "no_face", kind == CaptureKind::kSelfie ? "look straight at the camera"
                                                   : "make sure the photo on the document is visible");
  } else if (kind == CaptureKind::kSelfie && faces.size() > 1) {
    Add(r, "multiple_faces", "make sure only you are in the picture");
  }
  if (!faces.empty()) {
    const Face* f = &faces[0];
    for (const auto& x : faces) {
      if (x.right - x.left > f->right - f->left) f = &x;
    }
    double share = static_cast<double>(f->right - f->left) / std::max(1, image.width);
    if (share < (kind == CaptureKind::kSelfie ? kMinFaceShare : kMinDocFaceShare)) {
      Add(r, "face_too_small", kind == CaptureKind::kSelfie ? "move closer to the camera"
                                                            : "hold the document closer");
    }
    if (f->left < 0 || f->top < 0 || f->right >= image.width || f->bottom >= image.height) {
      Add(r, "face_cut_off", "keep your whole face inside the frame");
    }
  }
  // Sharpness where it matters: the (largest) face for selfies, the whole frame otherwise.
  double sharpness = m.sharpness, blur_below = kBlurBelow;
  if (kind == CaptureKind::kSelfie && !faces.empty()) {
    const Face* f = &faces[0];
    for (const auto& x : faces) {
      if (x.right - x.left > f->right - f->left) f = &x;
    }
    sharpness = Measure(Crop(image, f->left, f->top, f->right - f->left, f->bottom - f->top)).sharpness;
    blur_below = kFaceBlurBelow;
  }
  r.metrics.sharpness = sharpness;
  if (sharpness < blur_below) Add(r, "blurry", "hold still and let the camera focus");
  if (m.mean_luma < kDarkMean || m.dark_fraction > kClippedFraction) {
    Add(r, "too_dark", "find more light");
  } else if ((kind != CaptureKind::kDocument && m.mean_luma > kBrightMean) || m.bright_fraction > kClippedFraction) {
    // A document's card is mostly light (an INE's back averages ~214 when well exposed): only
    // clipped pixels say a document is over-exposed.
    Add(r, "too_bright", "avoid direct light on the camera");
  }
  if (kind == CaptureKind::kDocument && m.glare_fraction > kGlareFraction) {
    Add(r, "glare", "tilt the document to avoid glare");
  }
  // Score: 1 minus 0.25 per issue, faces missing count double; never below 0.
  double penalty = 0;
  for (const auto& i : r.issues) penalty += (i == "no_face") ? 0.5 : 0.25;
  r.score = std::max(0.0, 1.0 - penalty);
  return r;
}

}  // namespace svc::pipeline::biometrics
