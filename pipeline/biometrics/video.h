#pragma once
// Video frames for liveness: decodes an uploaded video (MP4/QuickTime with H.264, WebM with
// VP8/VP9 — whatever Debian's FFmpeg libraries decode) from memory and samples frames evenly
// over its length, converted to RGB and scaled so the longer side is at most `max_side`.

#include <string_view>
#include <vector>

#include "core/status.h"
#include "pipeline/biometrics/face_model.h"

namespace svc::pipeline::biometrics {

struct VideoSample {
  std::vector<Image> frames;
  double duration_seconds = 0;
  int width = 0, height = 0;  // as coded
  std::string codec;
  // Every decoded frame compared with the one before it (its luma, every 4th pixel of every 4th
  // row): `repeated_frames` of `frame_pairs` were identical (no pixel off by more than 1). A
  // camera's frames never are: each has its own sensor noise. A file played into a camera at
  // another frame rate repeats frames.
  int frame_pairs = 0;
  int repeated_frames = 0;
};

// kInvalidArgument when the bytes are not a decodable video.
core::Result<VideoSample> SampleVideo(std::string_view bytes, int max_frames, int max_side);

}  // namespace svc::pipeline::biometrics
