#pragma once
// Presentation-attack and synthesis signals on the face captures (docs/biometrics.md#attack-signals).
//
// Each signal is a measurement on the pixels with its own calibration: a logistic curve turns the
// measurement into a 0..1 score (0.5 at its midpoint), and a score at or above 0.5 names its
// reason code. The signals are combined by a noisy-OR into the deepfake score, the chance that the
// capture is not a live face presented to a camera:
//
//   deepfake = 1 - prod(1 - s_i)
//
// so no single threshold decides, a strong signal alone is enough, and weak ones add up.
//
// Signals on a still (a selfie, or the liveness video's sharpest face frame):
//   recapture_pattern  RECAPTURE_PATTERN     a periodic pattern over the face: a screen's pixel
//                                            grid or its moiré, a print's halftone. Isolated peaks
//                                            in the 2-D power spectrum (luma and chroma) of a
//                                            window around the face, each measured against the
//                                            median of its frequency ring (natural images have
//                                            smooth spectra; JPEG's 8x8 grid is left out)
//   screen_colour      SCREEN_COLOUR_MOIRE   colour where a camera sees none: the chroma's share of
//                                            the fine detail (sub-pixel stripes alias into colour
//                                            bands; a camera's demosaicing and JPEG's chroma
//                                            subsampling leave a live face's fine detail grey)
//   face_noise         FACE_NOISE_MISMATCH   the face's noise floor far below its surroundings':
//                                            a face pasted from a generator or another, smoother
//                                            picture (a face swap), blended into a photograph
//                                            that kept its sensor noise
//   forehead_noise     FACE_NOISE_MISMATCH   the same against the forehead above the brows — skin
//                                            in the same light and focus as the cheeks, which a
//                                            swap's mask (jaw line to brows) leaves as it was
//   face_detail        FACE_DETAIL_MISMATCH  the eyes and mouth blurrier than the hair and skin
//                                            around the face: a face rendered at a generator's
//                                            resolution (80-160 pixels) and scaled up into a
//                                            sharper photograph (an eye in focus is a face's
//                                            sharpest detail)
// Signals on the liveness video (the liveness stage's own measures are not repeated here):
//   frame_repeats      VIDEO_FRAME_REPEATS   consecutive decoded frames identical to the pixel on
//                                            a beat: a file played into a camera at another
//                                            frame rate (FrameRepeatSignal)
//
// What this is: signal-based presentation-attack detection, calibrated on the attack set that
// tests/support/attack_set.* makes (svc_bench_pad). It is not a trained deepfake classifier.

#include <string>
#include <vector>

#include "core/json.h"
#include "pipeline/biometrics/face_model.h"

namespace svc::pipeline::biometrics {

struct PadSignal {
  std::string name;  // recapture_pattern | screen_colour | face_noise | forehead_noise | face_detail |
                     // frame_repeats
  std::string reason_code;  // named when score >= 0.5
  double measure = 0;       // the raw measurement
  double score = 0;         // 0..1
};

struct PadResult {
  std::vector<PadSignal> signals;
  double score = 0;                  // the combined deepfake score, 0..1
  std::vector<std::string> reasons;  // the codes of the signals at or above 0.5
  core::Json ToJson() const;         // {score, signals: {name: {measure, score}}, reasons}
};

// The still-image signals of one face in `image` (the face the detector found, landmarks placed).
std::vector<PadSignal> StillSignals(const Image& image, const Face& face);

// Frame repetition of a decoded video, from each consecutive pair's "identical" flag. A file
// played into a camera at another frame rate repeats frames on a beat (25 fps into 30: every
// sixth; 24: every fifth; 20: every third; 15: every other), while an encoder that skips a nearly
// still frame of a live recording does so where the picture happens to rest. The measure: the
// best share of repeats among the pairs of one beat (period 2 to 8 frames, any phase, at least 10
// comparable pairs), 0 without repeats. `comparable` (empty: all) leaves out the pairs with a
// B-frame, which change less on the encoder's own beat.
PadSignal FrameRepeatSignal(const std::vector<bool>& repeats, const std::vector<bool>& comparable = {});
double FrameRepeatMeasure(const std::vector<bool>& repeats, const std::vector<bool>& comparable = {});

// Combines signals: the noisy-OR and the reasons.
PadResult Combine(std::vector<PadSignal> signals);

// A box mean of radius `r` over a w x h plane (a (2r+1)^2 box, one pass along each axis), borders
// clamped. (The test fixtures' camera noise and swap mask smooth with it too.)
std::vector<double> BoxMean(const std::vector<double>& in, int w, int h, int r);

// The measurements alone (for calibration and tests).
double RecapturePatternMeasure(const Image& image, const Face& face);
double ScreenColourMeasure(const Image& image, const Face& face);
double FaceNoiseMeasure(const Image& image, const Face& face);
double FaceDetailMeasure(const Image& image, const Face& face);
double FaceForeheadMeasure(const Image& image, const Face& face);

inline constexpr const char* kPadModelName =
    "svc_pad_signals_v2 (spectral peaks, chroma peaks, noise floor, detail, frame repeats)";

}  // namespace svc::pipeline::biometrics
