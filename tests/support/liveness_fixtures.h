#pragma once
// Liveness videos synthesised from a real photograph (the leftmost face of sample3 in
// @vladmandic/face-api, a 480x640 crop around it), encoded with the ffmpeg command line. The codec follows the
// file name: .mp4 = H.264, .webm = VP9. Each function returns the video's bytes.
//
//  - ZoomPan / Rotated: a still picture moved in front of the camera (a replayed print or
//    screen): ffmpeg's zoompan and rotate filters.
//  - Blinking: the face held still with a small drift, blinking once (the upper lids warped down
//    over the eyes: skin above the lid stretches down, the lash line lands on the lower lid).
//  - Challenge: the face, after half a second facing the camera, performing actions in order:
//    blink, and head turns made by warping the
//    face along a depth relief (the nose moves most, the outline not at all), which is what a
//    turning head looks like to first order and what no flat picture can do.

#include <memory>
#include <string>
#include <vector>

#include "pipeline/biometrics/face_model.h"
#include "tests/support/attack_set.h"
#include "tests/support/temp_dir.h"

namespace svc::testing::liveness {

// The face models (@vladmandic/face-api's, imported once per process into a temporary directory
// kept for the process's life, with dlib's shape predictor).
std::shared_ptr<const pipeline::biometrics::FaceModels> Models();
// The attack set's source faces (tests/support/attack_set.h), found with Models() once per process.
const std::vector<attacks::SourceFace>& SourceFaces();

pipeline::biometrics::Image Face();
// `closure` 0 (open) .. 1 (shut).
pipeline::biometrics::Image CloseEyes(const pipeline::biometrics::Image& img,
                                      const pipeline::biometrics::Face& face, double closure);
// `amount`: the nose tip's horizontal shift in inter-ocular distances; positive = the person's
// own left (image right in an unmirrored recording).
pipeline::biometrics::Image TurnHead(const pipeline::biometrics::Image& img,
                                     const pipeline::biometrics::Face& face, double amount);

// Frames to a video at `fps` frames a second (ffmpeg; the codec follows the name).
std::string EncodeFrames(const TempDir& dir, const std::vector<pipeline::biometrics::Image>& frames,
                         const std::string& name, int fps = 25);
// Gaussian noise as a camera's sensor adds it (luma `sigma`, chroma half), the same for a seed.
pipeline::biometrics::Image AddSensorNoise(const pipeline::biometrics::Image& img, double sigma, uint32_t seed);
// Two box passes of `radius` along each axis (a tent), borders clamped: a soft ramp of a mask, or
// noise smoothed into blotches.
void BoxSmooth(std::vector<double>& v, int w, int h, int radius);
// The noise a phone's still leaves after its camera pipeline: luma noise pixel by pixel (`sigma`),
// chroma noise weaker and in blotches several pixels wide (demosaicing spreads each pixel's colour
// over its neighbours, and in-camera noise reduction smooths chroma far more than luma). What a
// still saved with chroma at full resolution (JPEG 4:4:4, PNG) carries; AddSensorNoise's chroma,
// white and independent per pixel, is no camera's and 4:2:0 alone hides it.
pipeline::biometrics::Image AddCameraNoise(const pipeline::biometrics::Image& img, double sigma, uint32_t seed);

std::string ZoomPan(const TempDir& dir, const std::string& still_png, const std::string& name);
std::string Rotated(const TempDir& dir, const std::string& still_png, const std::string& name);
std::string Blinking(const pipeline::biometrics::FaceModels& models, const TempDir& dir,
                     const std::string& name);
std::string Challenge(const pipeline::biometrics::FaceModels& models, const TempDir& dir,
                      const std::vector<std::string>& actions, const std::string& name);

}  // namespace svc::testing::liveness
