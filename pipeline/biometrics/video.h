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
};

// kInvalidArgument when the bytes are not a decodable video.
core::Result<VideoSample> SampleVideo(std::string_view bytes, int max_frames, int max_side);

}  // namespace svc::pipeline::biometrics
