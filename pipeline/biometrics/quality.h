#pragma once
// Image quality of a capture, measured on the pixels: sharpness (variance of the Laplacian of
// the grey image), exposure (mean luminance and clipped shadows/highlights), glare (saturated
// specular blobs, for documents), and for faces their count, size relative to the frame and
// whether they are cut by the frame. Each problem becomes a reason code a client can act on
// (`qualityIssues`) with a hint a person can follow (`retryHints`). Pure functions.

#include <string>
#include <vector>

#include "pipeline/biometrics/face_model.h"

namespace svc::pipeline::biometrics {

struct QualityMetrics {
  double sharpness = 0;        // variance of the Laplacian (grey, 0..255 scale)
  double mean_luma = 0;        // 0..255
  double dark_fraction = 0;    // pixels with luma < 16
  double bright_fraction = 0;  // pixels with luma > 245
  double glare_fraction = 0;   // near-white, low-saturation pixels (specular reflections)
};
QualityMetrics Measure(const Image& image);

struct QualityReport {
  QualityMetrics metrics;
  std::vector<std::string> issues;  // no_face, multiple_faces, face_too_small, face_cut_off,
                                    // blurry, too_dark, too_bright, glare, low_resolution
  std::vector<std::string> hints;
  double score = 0;  // 0..1: 1 = no issue; each issue lowers it (documented weights)
};

enum class CaptureKind { kSelfie, kDocument };
// `faces`: what the detector found in `image`.
QualityReport AssessQuality(const Image& image, const std::vector<Face>& faces, CaptureKind kind);

}  // namespace svc::pipeline::biometrics
