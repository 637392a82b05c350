#include "pipeline/biometrics/face_model.h"

#include <dlib/dnn.h>
#include <dlib/image_io.h>
#include <dlib/image_processing.h>
#include <dlib/image_processing/frontal_face_detector.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>

#include "core/crypto.h"
#include "core/json.h"

namespace svc::pipeline::biometrics {

namespace {

// dlib's face-recognition ResNet (dlib/examples/dnn_face_recognition_ex.cpp), inference form.
template <template <int, template <typename> class, int, typename> class block, int N,
          template <typename> class BN, typename SUBNET>
using residual = dlib::add_prev1<block<N, BN, 1, dlib::tag1<SUBNET>>>;
template <template <int, template <typename> class, int, typename> class block, int N,
          template <typename> class BN, typename SUBNET>
using residual_down =
    dlib::add_prev2<dlib::avg_pool<2, 2, 2, 2, dlib::skip1<dlib::tag2<block<N, BN, 2, dlib::tag1<SUBNET>>>>>>;
template <int N, template <typename> class BN, int stride, typename SUBNET>
using block = BN<dlib::con<N, 3, 3, 1, 1, dlib::relu<BN<dlib::con<N, 3, 3, stride, stride, SUBNET>>>>>;
template <int N, typename SUBNET>
using ares = dlib::relu<residual<block, N, dlib::affine, SUBNET>>;
template <int N, typename SUBNET>
using ares_down = dlib::relu<residual_down<block, N, dlib::affine, SUBNET>>;
template <typename SUBNET>
using alevel0 = ares_down<256, SUBNET>;
template <typename SUBNET>
using alevel1 = ares<256, ares<256, ares_down<256, SUBNET>>>;
template <typename SUBNET>
using alevel2 = ares<128, ares<128, ares_down<128, SUBNET>>>;
template <typename SUBNET>
using alevel3 = ares<64, ares<64, ares<64, ares_down<64, SUBNET>>>>;
template <typename SUBNET>
using alevel4 = ares<32, ares<32, ares<32, SUBNET>>>;
using anet_type = dlib::loss_metric<dlib::fc_no_bias<
    128, dlib::avg_pool_everything<alevel0<alevel1<alevel2<alevel3<alevel4<dlib::max_pool<
             3, 3, 2, 2, dlib::relu<dlib::affine<dlib::con<32, 7, 7, 2, 2, dlib::input_rgb_image_sized<150>>>>>>>>>>>>>;

struct Tensor {
  std::string name;
  std::vector<long> shape;
  std::vector<float> values;
};

core::Result<std::vector<Tensor>> ReadWeights(const std::string& model_dir, size_t* consumed,
                                              std::string* sha256) {
  std::ifstream mf(model_dir + "/face_recognition_model-weights_manifest.json");
  if (!mf) return core::NotFound("no face_recognition_model-weights_manifest.json in " + model_dir);
  std::stringstream ms;
  ms << mf.rdbuf();
  core::Json manifest = core::ParseJsonOrDiscarded(ms.str());
  std::ifstream bf(model_dir + "/face_recognition_model.bin", std::ios::binary);
  if (!bf) return core::NotFound("no face_recognition_model.bin in " + model_dir);
  std::stringstream bs;
  bs << bf.rdbuf();
  std::string bin = std::move(bs).str();
  *sha256 = core::Sha256Hex(bin);
  if (!manifest.is_array() || manifest.empty() || !manifest[0].contains("weights")) {
    return core::InvalidArgument("the weights manifest is not a TensorFlow.js manifest");
  }
  std::vector<Tensor> out;
  size_t off = 0;
  for (const auto& w : manifest[0]["weights"]) {
    Tensor t;
    t.name = core::StringOr(w, "name");
    size_t n = 1;
    for (const auto& d : w["shape"]) {
      t.shape.push_back(d.get<long>());
      n *= static_cast<size_t>(d.get<long>());
    }
    t.values.resize(n);
    const core::Json* q = w.contains("quantization") ? &w["quantization"] : nullptr;
    if (q != nullptr && q->contains("scale") && (*q)["scale"].is_number()) {
      double scale = (*q)["scale"].get<double>(), min = (*q)["min"].get<double>();
      std::string dtype = core::StringOr(*q, "dtype");
      size_t width = dtype == "uint8" ? 1 : dtype == "uint16" ? 2 : 0;
      if (width == 0) return core::InvalidArgument("unsupported quantisation " + dtype);
      if (off + n * width > bin.size()) return core::InvalidArgument("the weights file is short");
      for (size_t i = 0; i < n; ++i) {
        const auto* p = reinterpret_cast<const unsigned char*>(bin.data() + off + i * width);
        unsigned v = width == 1 ? p[0] : static_cast<unsigned>(p[0] | (p[1] << 8));
        t.values[i] = static_cast<float>(min + scale * v);
      }
      off += n * width;
    } else {
      if (core::StringOr(w, "dtype") != "float32") return core::InvalidArgument("unsupported dtype");
      if (off + n * 4 > bin.size()) return core::InvalidArgument("the weights file is short");
      std::memcpy(t.values.data(), bin.data() + off, n * 4);  // little-endian float32
      off += n * 4;
    }
    out.push_back(std::move(t));
  }
  *consumed = off;
  if (off != bin.size()) return core::InvalidArgument("the weights file has trailing bytes");
  return out;
}

dlib::matrix<dlib::rgb_pixel> ToDlib(const Image& img) {
  dlib::matrix<dlib::rgb_pixel> m(img.height, img.width);
  for (int r = 0; r < img.height; ++r) {
    for (int c = 0; c < img.width; ++c) {
      const uint8_t* p = &img.rgb[(static_cast<size_t>(r) * img.width + c) * 3];
      m(r, c) = dlib::rgb_pixel(p[0], p[1], p[2]);
    }
  }
  return m;
}

Image FromDlib(const dlib::matrix<dlib::rgb_pixel>& m) {
  Image img;
  img.width = static_cast<int>(m.nc());
  img.height = static_cast<int>(m.nr());
  img.rgb.resize(static_cast<size_t>(img.width) * img.height * 3);
  for (long r = 0; r < m.nr(); ++r) {
    for (long c = 0; c < m.nc(); ++c) {
      uint8_t* p = &img.rgb[(static_cast<size_t>(r) * img.width + c) * 3];
      p[0] = m(r, c).red;
      p[1] = m(r, c).green;
      p[2] = m(r, c).blue;
    }
  }
  return img;
}

}  // namespace

float Distance(const Embedding& a, const Embedding& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += double(a[i] - b[i]) * double(a[i] - b[i]);
  return static_cast<float>(std::sqrt(s));
}

core::Result<Image> DecodeImage(std::string_view bytes) {
  dlib::matrix<dlib::rgb_pixel> m;
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  try {
    if (bytes.size() >= 3 && p[0] == 0xFF && p[1] == 0xD8 && p[2] == 0xFF) {
      dlib::load_jpeg(m, p, bytes.size());
    } else if (bytes.size() >= 8 && std::memcmp(p, "\x89PNG", 4) == 0) {
      dlib::load_png(m, p, bytes.size());
    } else {
      return core::InvalidArgument("not a JPEG or PNG image");
    }
  } catch (const std::exception& e) {
    return core::InvalidArgument(std::string("unreadable image: ") + e.what());
  }
  if (m.size() == 0) return core::InvalidArgument("empty image");
  return FromDlib(m);
}

Image Scale(const Image& image, double factor) {
  auto in = ToDlib(image);
  dlib::matrix<dlib::rgb_pixel> out(std::max<long>(1, std::lround(in.nr() * factor)),
                                    std::max<long>(1, std::lround(in.nc() * factor)));
  dlib::resize_image(in, out, dlib::interpolate_bilinear());
  return FromDlib(out);
}

Image Rotate(const Image& image, double degrees) {
  auto in = ToDlib(image);
  dlib::matrix<dlib::rgb_pixel> out;
  dlib::rotate_image(in, out, degrees * dlib::pi / 180.0, dlib::interpolate_bilinear());
  return FromDlib(out);
}

Image Brighten(const Image& image, int delta) {
  Image out = image;
  for (auto& v : out.rgb) v = static_cast<uint8_t>(std::clamp(int(v) + delta, 0, 255));
  return out;
}

Image Blur(const Image& image, double sigma) {
  // Defocus-like: down to 1/(2 sigma) and back up (bilinear), without the zeroed border
  // dlib's spatial filters leave.
  if (sigma <= 0.5) return image;
  auto in = ToDlib(image);
  dlib::matrix<dlib::rgb_pixel> small(std::max<long>(1, std::lround(in.nr() / (2 * sigma))),
                                      std::max<long>(1, std::lround(in.nc() / (2 * sigma))));
  dlib::resize_image(in, small, dlib::interpolate_bilinear());
  dlib::matrix<dlib::rgb_pixel> out(in.nr(), in.nc());
  dlib::resize_image(small, out, dlib::interpolate_bilinear());
  return FromDlib(out);
}

Image Crop(const Image& image, int left, int top, int width, int height) {
  Image out;
  left = std::clamp(left, 0, image.width);
  top = std::clamp(top, 0, image.height);
  out.width = std::clamp(width, 0, image.width - left);
  out.height = std::clamp(height, 0, image.height - top);
  out.rgb.resize(static_cast<size_t>(out.width) * out.height * 3);
  for (int r = 0; r < out.height; ++r) {
    std::memcpy(&out.rgb[static_cast<size_t>(r) * out.width * 3],
                &image.rgb[(static_cast<size_t>(top + r) * image.width + left) * 3],
                static_cast<size_t>(out.width) * 3);
  }
  return out;
}

namespace {

// dlib writes images to files only: through a temporary file.
template <typename Save>
core::Result<std::string> EncodeThroughFile(const char* ext, Save save) {
  auto path = std::filesystem::temp_directory_path() /
              ("svc-img-" + core::Sha256Hex(core::RandomBytes(16)).substr(0, 16) + ext);
  try {
    save(path.string());
  } catch (const std::exception& e) {
    return core::Unavailable(std::string("cannot encode the image: ") + e.what());
  }
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  std::error_code ec;
  std::filesystem::remove(path, ec);
  return std::move(ss).str();
}

}  // namespace

core::Result<std::string> EncodePng(const Image& image) {
  return EncodeThroughFile(".png", [&](const std::string& path) { dlib::save_png(ToDlib(image), path); });
}

core::Result<std::string> EncodeJpeg(const Image& image, int quality) {
  return EncodeThroughFile(".jpg", [&](const std::string& path) {
    dlib::save_jpeg(ToDlib(image), path, std::clamp(quality, 1, 100));
  });
}

core::Result<ImportReport> ImportFaceApiModel(const std::string& face_api_dir,
                                              const std::string& output_path) {
  ImportReport report;
  SVC_ASSIGN_OR_RETURN(auto weights,
                       ReadWeights(face_api_dir + "/model", &report.bytes, &report.weights_sha256));
  report.tensors = weights.size();
  anet_type net;
  // The port's scale layers are per channel: dlib's affine in convolution mode.
  dlib::visit_computational_layers(net, [](auto& l) {
    if constexpr (std::is_same_v<std::decay_t<decltype(l)>, dlib::affine_>) l = dlib::affine_(dlib::CONV_MODE);
  });
  dlib::matrix<dlib::rgb_pixel> blank(150, 150);
  dlib::assign_all_pixels(blank, dlib::rgb_pixel(0, 0, 0));
  net(blank);  // allocates every layer's parameters
  std::vector<dlib::tensor*> convs;
  std::vector<dlib::affine_*> affines;
  dlib::tensor* fc = nullptr;
  dlib::visit_computational_layers(net, [&](auto& l) {
    using T = std::decay_t<decltype(l)>;
    if constexpr (std::is_same_v<T, dlib::fc_<128, dlib::FC_NO_BIAS>>) {
      fc = &l.get_layer_params();
    } else if constexpr (std::is_same_v<T, dlib::affine_>) {
      affines.push_back(&l);
    } else if constexpr (requires { l.num_filters(); }) {
      convs.push_back(&l.get_layer_params());
    }
  });
  // Visited from the output down; the manifest lists from the input up.
  std::reverse(convs.begin(), convs.end());
  std::reverse(affines.begin(), affines.end());
  if (convs.size() != 29 || affines.size() != 29 || fc == nullptr ||
      weights.size() != convs.size() * 4 + 1) {
    return core::InvalidArgument("the manifest does not describe dlib's face-recognition ResNet");
  }
  size_t wi = 0;
  for (size_t c = 0; c < convs.size(); ++c) {
    const Tensor& f = weights[wi++];
    const Tensor& b = weights[wi++];
    const Tensor& g = weights[wi++];
    const Tensor& be = weights[wi++];
    if (f.shape.size() != 4) return core::InvalidArgument("bad filter shape in " + f.name);
    long kh = f.shape[0], kw = f.shape[1], in = f.shape[2], out = f.shape[3];
    if (static_cast<long>(convs[c]->size()) != out * in * kh * kw + out ||
        static_cast<long>(b.values.size()) != out || static_cast<long>(g.values.size()) != out ||
        static_cast<long>(be.values.size()) != out) {
      return core::InvalidArgument("layer sizes differ at " + f.name);
    }
    // dlib's input layer divides by 256, the port's by 255: fold the difference into the first
    // (linear) convolution.
    float input_scale = c == 0 ? 256.0f / 255.0f : 1.0f;
    float* p = convs[c]->host();
    for (long o = 0; o < out; ++o) {
      for (long i = 0; i < in; ++i) {
        for (long r = 0; r < kh; ++r) {
          for (long q = 0; q < kw; ++q) {
            // TensorFlow.js filters are [h][w][in][out]; dlib's are [out][in][h][w].
            p[((o * in + i) * kh + r) * kw + q] = input_scale * f.values[((r * kw + q) * in + i) * out + o];
          }
        }
      }
    }
    for (long o = 0; o < out; ++o) p[out * in * kh * kw + o] = b.values[o];
    auto gamma = affines[c]->get_gamma();
    auto beta = affines[c]->get_beta();
    if (static_cast<long>(gamma.size()) != out) return core::InvalidArgument("scale size at " + g.name);
    for (long o = 0; o < out; ++o) {
      gamma.host()[o] = g.values[o];
      beta.host()[o] = be.values[o];
    }
  }
  const Tensor& fw = weights[wi++];
  if (fw.values.size() != fc->size()) return core::InvalidArgument("fc size differs");
  std::memcpy(fc->host(), fw.values.data(), fw.values.size() * sizeof(float));  // [in][out] both
  report.conv_layers = convs.size();

  std::filesystem::path out_path(output_path);
  std::error_code ec;
  std::filesystem::create_directories(out_path.parent_path(), ec);
  std::string tmp = output_path + ".tmp";
  try {
    dlib::serialize(tmp) << net;
  } catch (const std::exception& e) {
    return core::Unavailable(std::string("cannot write the model: ") + e.what());
  }
  std::filesystem::rename(tmp, out_path, ec);
  if (ec) return core::Unavailable("cannot place the model: " + ec.message());
  report.output_path = output_path;
  return report;
}

struct FaceModels::Impl {
  anet_type prototype_net;
  dlib::frontal_face_detector prototype_detector;
  dlib::shape_predictor predictor;
  std::mutex mu;
  std::vector<std::unique_ptr<anet_type>> nets;  // free copies
  std::vector<std::unique_ptr<dlib::frontal_face_detector>> detectors;

  template <typename T>
  std::unique_ptr<T> Take(std::vector<std::unique_ptr<T>>& pool, const T& prototype) {
    std::lock_guard lock(mu);
    if (pool.empty()) return std::make_unique<T>(prototype);
    auto p = std::move(pool.back());
    pool.pop_back();
    return p;
  }
  template <typename T>
  void Give(std::vector<std::unique_ptr<T>>& pool, std::unique_ptr<T> p) {
    std::lock_guard lock(mu);
    pool.push_back(std::move(p));
  }
  // The detector's boxes on an image (a detector of the pool).
  template <typename Img>
  std::vector<dlib::rect_detection> Faces(const Img& img) {
    auto det = Take(detectors, prototype_detector);
    std::vector<dlib::rect_detection> found;
    (*det)(img, found);
    Give(detectors, std::move(det));
    return found;
  }
};

FaceModels::FaceModels() : impl_(std::make_unique<Impl>()) {}
FaceModels::~FaceModels() = default;

core::Result<std::unique_ptr<FaceModels>> FaceModels::Load(const std::string& recognition_model,
                                                           const std::string& shape_predictor) {
  std::unique_ptr<FaceModels> m(new FaceModels());
  if (!std::filesystem::exists(recognition_model)) {
    return core::NotFound("no face-recognition model at " + recognition_model +
                          ": run `svc models import` (scripts/setup does)");
  }
  if (!std::filesystem::exists(shape_predictor)) {
    return core::NotFound("no landmark model at " + shape_predictor +
                          ": install Debian's libdlib-data (scripts/setup does)");
  }
  try {
    dlib::deserialize(recognition_model) >> m->impl_->prototype_net;
    dlib::deserialize(shape_predictor) >> m->impl_->predictor;
  } catch (const std::exception& e) {
    return core::DataLoss(std::string("cannot load a face model: ") + e.what());
  }
  m->impl_->prototype_detector = dlib::get_frontal_face_detector();
  return m;
}

const Face* Largest(const std::vector<Face>& faces) {
  const Face* best = nullptr;
  for (const auto& f : faces) {
    if (best == nullptr || f.right - f.left > best->right - best->left) best = &f;
  }
  return best;
}

namespace {

Face BoxOf(const dlib::rect_detection& d) {
  Face f;
  f.left = static_cast<int>(d.rect.left());
  f.top = static_cast<int>(d.rect.top());
  f.right = static_cast<int>(d.rect.right());
  f.bottom = static_cast<int>(d.rect.bottom());
  f.detection_score = d.detection_confidence;
  return f;
}

}  // namespace

std::vector<Face> FaceModels::Detect(const Image& image) const {
  auto img = ToDlib(image);
  std::vector<Face> out;
  for (const auto& d : impl_->Faces(img)) {
    Face f = BoxOf(d);
    auto shape = impl_->predictor(img, d.rect);
    for (unsigned i = 0; i < shape.num_parts() && i < 68; ++i) {
      f.landmarks[i] = {static_cast<float>(shape.part(i).x()), static_cast<float>(shape.part(i).y())};
    }
    out.push_back(f);
  }
  return out;
}

std::vector<Face> FaceModels::DetectBoxes(const Image& image) const {
  std::vector<Face> out;
  for (const auto& d : impl_->Faces(ToDlib(image))) out.push_back(BoxOf(d));
  return out;
}

Face FaceModels::Landmarks(const Image& image, int left, int top, int right, int bottom) const {
  auto img = ToDlib(image);
  dlib::rectangle box(left, top, right, bottom);
  auto shape = impl_->predictor(img, box);
  Face f;
  f.left = left, f.top = top, f.right = right, f.bottom = bottom;
  for (unsigned i = 0; i < shape.num_parts() && i < 68; ++i) {
    f.landmarks[i] = {static_cast<float>(shape.part(i).x()), static_cast<float>(shape.part(i).y())};
  }
  return f;
}

Image FaceModels::Chip(const Image& image, const Face& face) const {
  auto img = ToDlib(image);
  std::vector<dlib::point> parts;
  for (const auto& [x, y] : face.landmarks) parts.emplace_back(std::lround(x), std::lround(y));
  dlib::full_object_detection shape(
      dlib::rectangle(face.left, face.top, face.right, face.bottom), parts);
  dlib::matrix<dlib::rgb_pixel> chip;
  dlib::extract_image_chip(img, dlib::get_face_chip_details(shape, 150, 0.25), chip);
  return FromDlib(chip);
}

Embedding FaceModels::Embed(const Image& chip) const {
  auto net = impl_->Take(impl_->nets, impl_->prototype_net);
  dlib::matrix<float, 0, 1> e = (*net)(ToDlib(chip));
  impl_->Give(impl_->nets, std::move(net));
  Embedding out{};
  for (long i = 0; i < e.size() && i < 128; ++i) out[static_cast<size_t>(i)] = e(i);
  return out;
}

}  // namespace svc::pipeline::biometrics
