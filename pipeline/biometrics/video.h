#pragma once
// Video frames for liveness: decodes an uploaded video (MP4/QuickTime with H.264, WebM with
// VP8/VP9 — whatever Debian's FFmpeg libraries decode) from memory and samples frames evenly
// over its length, converted to RGB and scaled so the longer side is at most `max_side`.

#include <string_view>
#include <vector>

#include "core/status.h"
#include "pipeline/biometrics/face_model.h"

namespace svc::pipeline::biometrics {

inline constexpr double kRepeatShare = 0.35;

struct VideoSample {
  std::vector<Image> frames;
  double duration_seconds = 0;
  int width = 0, height = 0;  // as coded
  std::string codec;
  // Every decoded frame compared with the one before it (its luma, every 4th pixel of every 4th
  // row): the pairs whose mean change is at most kRepeatShare of the median of the 15 pairs
  // around them (or under 0.05 levels) are repeats. A camera's pictures move and carry fresh sensor noise; a
  // repeated picture, even re-encoded, changes a fraction of that.
  int frame_pairs = 0;
  int repeated_frames = 0;
  std::vector<bool> repeats;     // per consecutive pair, in decoding order
  std::vector<bool> comparable;  // per pair: neither frame a B-frame (those change less by design)
};

// kInvalidArgument when the bytes are not a decodable video.
core::Result<VideoSample> SampleVideo(std::string_view bytes, int max_frames, int max_side);

}  // namespace svc::pipeline::biometrics
