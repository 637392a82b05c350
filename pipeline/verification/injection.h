#pragma once
// Injection signals (docs/biometrics.md#injection-signals): how a capture was made, as its capture
// client states it (the `captureFacts` part of an upload: the camera's label, the track's settings
// and capabilities, the constraints asked, the frames' timing), and what the container of a
// liveness video says about the program that wrote it. Each signal is a score in [0, 1] with a
// reason code; they join the engine's pixel signals in the deepfake score (noisy-OR). Pure
// functions, HTTP-free.
//
// What they are worth: every fact here is the client's word or a header an attacker can rewrite.
// They catch the attacker who uses a stock virtual camera, a stock re-encoder or an editing
// program and does not bother to hide it, at no cost to a genuine applicant; a determined one
// forges them, and only the pixel and temporal signals remain (the forgeability table).

#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/json.h"
#include "core/status.h"
#include "pipeline/verification/engines.h"

namespace svc::pipeline::verification {

// The largest captureFacts part accepted (bytes of JSON).
inline constexpr size_t kCaptureFactsMaxBytes = 8192;
// The most frame intervals kept.
inline constexpr size_t kCaptureFactsMaxIntervals = 600;

struct NumberRange {
  std::optional<double> min, max;
};

// What the capture client says about how the capture was made. All optional.
struct CaptureFacts {
  std::string source;  // camera | file | ""
  std::string device_label;
  std::string facing_mode;  // the track's setting: user | environment | ""
  std::optional<double> width, height, frame_rate;  // the track's settings
  NumberRange cap_width, cap_height, cap_frame_rate;  // the device's capabilities
  std::optional<double> asked_width, asked_height, asked_frame_rate;  // the constraints asked
  std::string asked_facing_mode;
  std::string recorder;  // MediaRecorder | canvas | ""
  std::string recorder_mime;
  std::vector<double> frame_intervals_ms;  // between consecutive frames' capture times
};

// One field error of a captureFacts part (the upload's 422 VALIDATION_ERROR).
struct FactsError {
  std::string pointer;  // e.g. /settings/width
  std::string code;     // invalid_json | invalid_type | too_long | out_of_range
  std::string message;
};

// Parses a captureFacts part: a JSON object of at most kCaptureFactsMaxBytes, with
//   source "camera"|"file"; device {label ≤ 256 chars, facingMode}; settings {width, height,
//   frameRate, facingMode}; capabilities {width|height|frameRate: {min, max}}; constraints
//   {width, height, frameRate, facingMode}; recorder {api "MediaRecorder"|"canvas", mimeType};
//   frameIntervalsMs [numbers, at most kCaptureFactsMaxIntervals].
// Numbers are finite, 0…100000. Members not named are ignored (newer clients may say more).
std::variant<CaptureFacts, FactsError> ParseCaptureFacts(std::string_view text);

// The facts as stored (sealed): a normalised JSON object.
core::Json CaptureFactsJson(const CaptureFacts& f);

struct InjectionSignal {
  std::string code;  // the reason code
  double score = 0;  // 0..1
};

// The signals the stated facts raise for a capture of `kind` (capture_source is the upload's own
// captureSource part):
//   VIRTUAL_CAMERA             the camera's label names a virtual camera, a capture card or a
//                              browser's fake device, or is a file's path (0.9)
//   CAMERA_LABEL_MISSING       a camera capture whose camera has no label (0.3): browsers give
//                              the label once the camera is allowed
//   CAMERA_FACTS_INCONSISTENT  settings the device's own capabilities do not admit (0.5)
//   CONSTRAINTS_NOT_HONOURED   a facing mode asked and another given (0.3)
//   FRAME_TIMING_TOO_REGULAR   ≥ 30 intervals with a spread under 0.01 ms: no sensor's clock (0.5)
//   FRAME_TIMING_IRREGULAR     ≥ 30 intervals, a quarter of them over 2.5× the median, or a
//                              median outside 5…200 ms (0.3)
//   FACE_CAPTURE_FROM_FILE     a selfie chosen from a file (0.4)
std::vector<InjectionSignal> EvaluateCaptureFacts(const CaptureFacts& f, std::string_view kind,
                                                  std::string_view capture_source);

// What a video's container says about the program that wrote it, read from its headers (WebM:
// the Segment Info's MuxingApp and WritingApp; MP4/QuickTime: the ©too/©swr tags and the edit
// lists). Never decodes a frame; bounded work on any input.
struct ContainerFacts {
  std::string format;  // webm | mp4 | ""
  std::string muxing_app, writing_app, encoder;
  int max_edit_entries = 0;  // the largest edit list of any track (MP4)
};
ContainerFacts ReadContainerFacts(std::string_view bytes);

// The container's signals for a liveness video (capture_source and the stated facts as above;
// facts may be null):
//   CONTAINER_REENCODED  a camera capture whose container was written by a transcoder or an
//                        editor (FFmpeg's libavformat, HandBrake, …): a browser's recorder or a
//                        phone's camera never writes these (0.8)
//   CONTAINER_EDITED     a video without a camera claim whose container names an editing
//                        program, or a camera capture with a multi-entry edit list (0.5)
std::vector<InjectionSignal> EvaluateContainer(const ContainerFacts& c, std::string_view capture_source);

// The injection signals of a capture, as kept with it: {score (noisy-OR of the signals, 0 when
// none), reasonCodes, signals {code: score}}.
core::Json InjectionJson(const std::vector<InjectionSignal>& signals);

// The deepfake measurement with the injection signals joined: score = 1 − (1 − engine) ×
// Π (1 − signal); the reasons and the details' `signals` gain each injection signal (as
// injection_<code lower case>). An engine that measured nothing keeps its status: the injection
// signals alone are not the deepfake check.
void JoinInjectionSignals(BiometricScore& engine, const std::vector<InjectionSignal>& signals);

}  // namespace svc::pipeline::verification
