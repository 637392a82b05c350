#pragma once
// Faces with dlib: detection (HOG frontal face detector), 68-point landmarks (the shape
// predictor from Debian's libdlib-data), alignment to 150x150 chips, and 128-d embeddings from
// dlib's ResNet face-recognition network.
//
// The network's weights are not in Debian. The npm package @vladmandic/face-api (MIT) ships the
// same network, ported to TensorFlow.js and uint8-quantised, as
// model/face_recognition_model.bin + model/face_recognition_model-weights_manifest.json.
// ImportFaceApiModel reads them, de-quantises, builds dlib's network (the anet_type of dlib's
// face-recognition example) with those weights and saves it as a dlib model file. Nothing is
// downloaded at run time.
//
// dlib stays inside the .cc files; callers see plain types.

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"

namespace svc::pipeline::biometrics {

using Embedding = std::array<float, 128>;
float Distance(const Embedding& a, const Embedding& b);  // Euclidean; dlib's "same" is < 0.6

// An 8-bit RGB image, row-major.
struct Image {
  int width = 0, height = 0;
  std::vector<uint8_t> rgb;  // width * height * 3
};
// Decodes JPEG or PNG bytes; kInvalidArgument when they are not a readable image.
core::Result<Image> DecodeImage(std::string_view bytes);
// Simple transforms (bilinear): scale, rotation about the centre (degrees, counter-clockwise),
// brightness offset (clamped).
Image Scale(const Image& image, double factor);
Image Rotate(const Image& image, double degrees);
Image Brighten(const Image& image, int delta);
Image Blur(const Image& image, double sigma);  // defocus-like, about `sigma` pixels
Image Crop(const Image& image, int left, int top, int width, int height);
// PNG bytes of an image (test fixtures compose documents with it).
core::Result<std::string> EncodePng(const Image& image);
// JPEG bytes at `quality` (1-100), 4:2:0 as cameras write them (the attack set uses it).
core::Result<std::string> EncodeJpeg(const Image& image, int quality);

struct ImportReport {
  size_t tensors = 0;          // weight tensors read from the manifest
  size_t bytes = 0;            // bytes of the weights file consumed
  size_t conv_layers = 0;
  std::string weights_sha256;  // of face_recognition_model.bin
  std::string output_path;
};
// `face_api_dir`: the package directory (holding model/). Writes `output_path` atomically.
core::Result<ImportReport> ImportFaceApiModel(const std::string& face_api_dir,
                                              const std::string& output_path);

struct Face {
  int left = 0, top = 0, right = 0, bottom = 0;  // detection box in image pixels
  double detection_score = 0;
  std::array<std::pair<float, float>, 68> landmarks{};
};

// The widest of the faces found (the one a capture is measured on), or null when none.
const Face* Largest(const std::vector<Face>& faces);

// Loaded models; thread-safe for concurrent use (each call uses its own network copy).
class FaceModels {
 public:
  // `recognition_model`: the file ImportFaceApiModel wrote; `shape_predictor`: dlib's 68-point
  // predictor (/usr/share/dlib/shape_predictor_68_face_landmarks.dat).
  static core::Result<std::unique_ptr<FaceModels>> Load(const std::string& recognition_model,
                                                        const std::string& shape_predictor);
  ~FaceModels();

  std::vector<Face> Detect(const Image& image) const;
  // The faces' boxes and detection scores only, without landmarks (a region searched for a face
  // whose landmarks are then placed on the whole frame).
  std::vector<Face> DetectBoxes(const Image& image) const;
  // The 68 landmarks of a face whose box is known (tracking a face across video frames).
  Face Landmarks(const Image& image, int left, int top, int right, int bottom) const;
  // The aligned 150x150 chip of a face (dlib's get_face_chip_details, padding 0.25).
  Image Chip(const Image& image, const Face& face) const;
  Embedding Embed(const Image& chip) const;

  static constexpr const char* kRecognitionModelName = "dlib_face_recognition_resnet_v1 (face-api weights)";

 private:
  FaceModels();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Default locations.
inline constexpr const char* kShapePredictorPath = "/usr/share/dlib/shape_predictor_68_face_landmarks.dat";
inline constexpr const char* kRecognitionModelFile = "models/face_recognition_resnet_v1.dat";

}  // namespace svc::pipeline::biometrics
