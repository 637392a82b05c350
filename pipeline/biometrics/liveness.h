#pragma once
// Liveness from a short video of the person (frames sampled at about 10 per second).
//
// What is measured, frame by frame, on the one face tracked through the video:
//  - presence: exactly one face in at least 80 % of the frames (else FACE_NOT_CONTINUOUS or
//    MULTIPLE_FACES);
//  - blinks: the eye aspect ratio (EAR, from the six landmarks of each eye) of BOTH eyes falls
//    below 70 % of its median over the video and comes back. EAR is a ratio of distances, so
//    panning, zooming or rotating a photograph cannot change it; only eyelids moving can;
//  - depth (parallax): the landmarks of the face outline, eye corners and mouth corners are
//    aligned onto the first frame's with an affine map. Everything a flat picture can do in
//    front of a camera — move, zoom, rotate, tilt — is (to first order) affine, so a flat
//    picture's nose tip lands where it was. A head that turns moves the nose tip off that plane:
//    the horizontal offset, in inter-ocular distances, is the head's yaw (positive: turned to
//    the person's own left in an unmirrored recording).
//
// Passive score = 0.2 + 0.6 x blink evidence + 0.2 x parallax evidence, each evidence 0..1:
// blink 1 when both eyes close to <= 60 % of their median and reopen (0 at >= 80 %), parallax 1 at
// >= 0.10 inter-ocular distances (0 at <= 0.04, landmark jitter). A blink alone reaches the
// default pass threshold (0.75); parallax alone reaches review (0.40); a moved photograph stays
// near 0.2. Turns are measured against the video's start: the person starts facing the camera.
//
// Active mode: the server issued a challenge (an order of blink, turn_left, turn_right). The
// actions seen in the video must contain the challenge's actions in that order; then the score is
// max(passive, 0.9). When they do not, LIVENESS_CHALLENGE_FAILED and the score is capped at 0.35
// (below the default decline floor).
//
// What this resists and what it does not: docs/biometrics.md.

#include <string>
#include <vector>

#include "pipeline/biometrics/face_model.h"

namespace svc::pipeline::biometrics {

struct LivenessResult {
  double score = 0;
  int frames = 0;
  int frames_with_one_face = 0;
  bool blink = false;
  double blink_ratio = 1;   // lowest EAR of the more open eye / its median (1 = never closed)
  double parallax = 0;      // largest nose-tip offset from the face's plane, inter-ocular distances
  double yaw_min = 0, yaw_max = 0;  // signed horizontal offsets
  std::vector<std::string> actions;  // seen, in order: blink | turn_left | turn_right
  bool challenge_passed = false;     // active mode only
  // FACE_NOT_CONTINUOUS, MULTIPLE_FACES, NO_BLINK, NO_DEPTH_MOTION, LIVENESS_CHALLENGE_FAILED
  std::vector<std::string> reasons;
  int best_frame = -1;  // the frame with the largest face (face match without a selfie)
};

// Eye aspect ratio of one eye's six landmarks (first = 36 or 42).
double EyeAspectRatio(const Face& f, int first);

// `challenge`: the issued actions in order (active mode); empty for passive mode.
LivenessResult AssessLiveness(const FaceModels& models, const std::vector<Image>& frames,
                              const std::vector<std::string>& challenge = {});

// How the engine samples a liveness video: about 10 frames a second over 3 seconds, the longer
// side scaled to at most 640 pixels.
inline constexpr int kLivenessFrames = 30;
inline constexpr int kLivenessMaxSide = 640;
inline constexpr const char* kLivenessModelName =
    "svc_liveness_landmarks_v1 (blink, parallax, challenges; dlib 68-point landmarks)";

// Action names of the active mode.
inline constexpr const char* kLivenessActions[] = {"blink", "turn_left", "turn_right"};

}  // namespace svc::pipeline::biometrics
