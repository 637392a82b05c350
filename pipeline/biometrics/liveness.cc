#include "pipeline/biometrics/liveness.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>

namespace svc::pipeline::biometrics {

namespace {

using Point = std::pair<float, float>;

double Dist(Point a, Point b) { return std::hypot(double(a.first) - b.first, double(a.second) - b.second); }

// Points on (or near) the face's front: outline sides and chin, eye corners, mouth corners.
constexpr std::array<int, 9> kAnchors = {0, 16, 8, 36, 39, 42, 45, 48, 54};
constexpr int kNoseTip = 30;

constexpr double kClosed = 0.70;     // an eye is closed below this share of its median EAR
constexpr double kReopened = 0.85;   // and open again above it
constexpr double kTurn = 0.10;       // yaw (inter-ocular distances) that counts as a turn
constexpr double kJitter = 0.04;     // parallax a flat picture shows from landmark jitter

// Least-squares affine map taking `from`'s anchors onto `to`'s; returns where `from`'s nose tip
// lands, relative to `to`'s nose tip.
std::optional<Point> NoseOffset(const Face& from, const Face& to) {
  // Normal equations: M = sum [x y 1]^T [x y 1]; for each output coordinate c, M a = sum [x y 1] c.
  double m[3][3] = {};
  double bx[3] = {}, by[3] = {};
  for (int i : kAnchors) {
    double v[3] = {from.landmarks[i].first, from.landmarks[i].second, 1.0};
    for (int r = 0; r < 3; ++r) {
      for (int c = 0; c < 3; ++c) m[r][c] += v[r] * v[c];
      bx[r] += v[r] * to.landmarks[i].first;
      by[r] += v[r] * to.landmarks[i].second;
    }
  }
  auto det3 = [](const double a[3][3]) {
    return a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) -
           a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
           a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
  };
  double d = det3(m);
  if (std::abs(d) < 1e-9) return std::nullopt;
  auto solve = [&](const double b[3], double out[3]) {  // Cramer's rule
    for (int k = 0; k < 3; ++k) {
      double t[3][3];
      for (int r = 0; r < 3; ++r) {
        for (int c = 0; c < 3; ++c) t[r][c] = c == k ? b[r] : m[r][c];
      }
      out[k] = det3(t) / d;
    }
  };
  double ax[3], ay[3];
  solve(bx, ax);
  solve(by, ay);
  double x = from.landmarks[kNoseTip].first, y = from.landmarks[kNoseTip].second;
  return Point{static_cast<float>(ax[0] * x + ax[1] * y + ax[2] - to.landmarks[kNoseTip].first),
               static_cast<float>(ay[0] * x + ay[1] * y + ay[2] - to.landmarks[kNoseTip].second)};
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

double Round4(double x) { return std::round(x * 10000.0) / 10000.0; }

}  // namespace

double EyeAspectRatio(const Face& f, int first) {
  const auto& p = f.landmarks;
  double horizontal = Dist(p[first], p[first + 3]);
  if (horizontal <= 0) return 0;
  return (Dist(p[first + 1], p[first + 5]) + Dist(p[first + 2], p[first + 4])) / (2 * horizontal);
}

namespace {

// Faces in a frame. A full scan when there is no track (and every kFullScanEvery frames, to
// see anyone else joining); otherwise the detector runs on the region around the previous face,
// scaled so that the face is about 110 pixels (the detector's window is 80), and the landmarks
// are placed on the full-resolution frame only (not on the scaled region as well).
constexpr int kFullScanEvery = 10;

std::vector<Face> FindFaces(const FaceModels& models, const Image& frame, const Face* previous) {
  if (previous == nullptr) return models.Detect(frame);
  int w = previous->right - previous->left, h = previous->bottom - previous->top;
  int margin = static_cast<int>(0.6 * std::max(w, h));
  int left = std::max(0, previous->left - margin), top = std::max(0, previous->top - margin);
  int right = std::min(frame.width, previous->right + margin);
  int bottom = std::min(frame.height, previous->bottom + margin);
  if (right - left < 16 || bottom - top < 16) return models.Detect(frame);
  double s = std::min(1.0, 110.0 / std::max(1, w));
  Image roi = Crop(frame, left, top, right - left, bottom - top);
  if (s < 1.0) roi = Scale(roi, s);
  std::vector<Face> out;
  for (const Face& f : models.DetectBoxes(roi)) {
    out.push_back(models.Landmarks(frame, left + static_cast<int>(f.left / s), top + static_cast<int>(f.top / s),
                                   left + static_cast<int>(f.right / s), top + static_cast<int>(f.bottom / s)));
    out.back().detection_score = f.detection_score;
  }
  return out;
}

}  // namespace

LivenessResult AssessLiveness(const FaceModels& models, const std::vector<Image>& frames,
                              const std::vector<std::string>& challenge) {
  LivenessResult r;
  r.frames = static_cast<int>(frames.size());
  std::vector<Face> track;  // the face of each frame where exactly one was found
  int full_scans = 0, multiple = 0, biggest = 0;
  std::optional<Face> previous;
  for (size_t i = 0; i < frames.size(); ++i) {
    bool full = !previous.has_value() || i % kFullScanEvery == 0;
    auto faces = FindFaces(models, frames[i], full ? nullptr : &*previous);
    full_scans += full ? 1 : 0;
    if (faces.size() > 1) ++multiple;
    if (faces.size() != 1) {
      previous.reset();
      continue;
    }
    ++r.frames_with_one_face;
    const Face& f = faces[0];
    if (f.right - f.left > biggest) {
      biggest = f.right - f.left;
      r.best_frame = static_cast<int>(i);
    }
    track.push_back(f);
    previous = f;
  }
  if (r.frames == 0 || track.size() < 3 || r.frames_with_one_face < 0.8 * r.frames) {
    r.reasons.push_back(multiple * 2 > full_scans ? "MULTIPLE_FACES" : "FACE_NOT_CONTINUOUS");
    r.score = 0.05;
    if (!challenge.empty()) r.reasons.push_back("LIVENESS_CHALLENGE_FAILED");
    return r;
  }

  // Blinks: both eyes' EAR against their own medians.
  std::vector<double> left, right;
  for (const auto& f : track) {
    left.push_back(EyeAspectRatio(f, 36));
    right.push_back(EyeAspectRatio(f, 42));
  }
  double med_l = Median(left), med_r = Median(right);
  std::vector<double> open(track.size(), 1.0);  // the more open eye's share of its median
  if (med_l > 0 && med_r > 0) {
    for (size_t t = 0; t < track.size(); ++t) open[t] = std::max(left[t] / med_l, right[t] / med_r);
  }
  // The lowest value that is followed by the eyes open again.
  double after_max = 0;
  for (size_t t = track.size(); t-- > 0;) {
    if (after_max >= kReopened) r.blink_ratio = std::min(r.blink_ratio, open[t]);
    after_max = std::max(after_max, open[t]);
  }
  r.blink = r.blink_ratio < kClosed;

  // Depth: the nose tip's offset from the plane of the anchors, against the video's start (the
  // person starts facing the camera): the first frame, less the median offset of the first three.
  const Face& ref = track.front();
  double iod = Dist(ref.landmarks[36], ref.landmarks[45]);
  std::vector<Point> offsets(track.size(), Point{0, 0});
  for (size_t t = 0; t < track.size() && iod > 0; ++t) {
    if (auto off = NoseOffset(track[t], ref)) offsets[t] = {off->first / iod, off->second / iod};
  }
  auto start = [&](auto coord) {
    std::vector<double> v;
    for (size_t t = 0; t < std::min<size_t>(3, offsets.size()); ++t) v.push_back(coord(offsets[t]));
    return Median(v);
  };
  double x0 = start([](Point p) { return double(p.first); }), y0 = start([](Point p) { return double(p.second); });
  std::vector<double> yaw(track.size(), 0.0);
  for (size_t t = 0; t < track.size(); ++t) {
    // Image x grows to the person's left in an unmirrored recording; the nose tip of a head
    // turned to its own left moves that way.
    yaw[t] = offsets[t].first - x0;
    r.parallax = std::max(r.parallax, std::hypot(yaw[t], offsets[t].second - y0));
  }
  r.yaw_min = *std::min_element(yaw.begin(), yaw.end());
  r.yaw_max = *std::max_element(yaw.begin(), yaw.end());

  // Actions in order: a new action starts when the frame's state changes to it.
  std::string last;
  for (size_t t = 0; t < track.size(); ++t) {
    std::string state = open[t] < kClosed ? "blink" : yaw[t] > kTurn ? "turn_left"
                                                    : yaw[t] < -kTurn ? "turn_right" : "";
    if (!state.empty() && state != last && (r.actions.empty() || r.actions.back() != state)) {
      r.actions.push_back(state);
    }
    last = state;
  }

  double blink_evidence = std::clamp((0.8 - r.blink_ratio) / 0.2, 0.0, 1.0);
  double depth_evidence = std::clamp((r.parallax - kJitter) / (kTurn - kJitter), 0.0, 1.0);
  r.score = 0.2 + 0.6 * blink_evidence + 0.2 * depth_evidence;
  if (!r.blink) r.reasons.push_back("NO_BLINK");
  if (depth_evidence <= 0) r.reasons.push_back("NO_DEPTH_MOTION");
  if (!challenge.empty()) {
    size_t k = 0;
    for (const auto& a : r.actions) {
      if (k < challenge.size() && a == challenge[k]) ++k;
    }
    r.challenge_passed = k == challenge.size();
    if (r.challenge_passed) {
      r.score = std::max(r.score, 0.9);
    } else {
      r.score = std::min(r.score, 0.35);
      r.reasons.push_back("LIVENESS_CHALLENGE_FAILED");
    }
  }
  r.score = Round4(r.score);
  r.blink_ratio = Round4(r.blink_ratio);
  r.parallax = Round4(r.parallax);
  r.yaw_min = Round4(r.yaw_min);
  r.yaw_max = Round4(r.yaw_max);
  return r;
}

}  // namespace svc::pipeline::biometrics
