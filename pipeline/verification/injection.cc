#include "pipeline/verification/injection.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdint>

namespace svc::pipeline::verification {

namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool Contains(std::string_view hay, std::string_view needle) { return hay.find(needle) != std::string_view::npos; }

// `word` as a whole word of `hay` (letters and digits around it are not part of it).
bool HasWord(std::string_view hay, std::string_view word) {
  for (size_t at = hay.find(word); at != std::string_view::npos; at = hay.find(word, at + 1)) {
    const bool before = at == 0 || !std::isalnum(static_cast<unsigned char>(hay[at - 1]));
    const size_t end = at + word.size();
    const bool after = end >= hay.size() || !std::isalnum(static_cast<unsigned char>(hay[end]));
    if (before && after) return true;
  }
  return false;
}

// ---- captureFacts ----

struct Reader {
  const core::Json& root;
  std::optional<FactsError> error;

  const core::Json* Member(const core::Json& obj, const char* key) {
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) return nullptr;
    return &*it;
  }
  void Fail(std::string pointer, std::string code, std::string message) {
    if (!error) error = FactsError{std::move(pointer), std::move(code), std::move(message)};
  }
  std::string String(const core::Json& obj, const char* key, const std::string& at, size_t max = 256) {
    const core::Json* v = Member(obj, key);
    if (v == nullptr) return "";
    if (!v->is_string()) {
      Fail(at + "/" + key, "invalid_type", std::string(key) + " must be a string");
      return "";
    }
    std::string s = v->get<std::string>();
    if (s.size() > max) {
      Fail(at + "/" + key, "too_long", std::string(key) + " must be at most " + std::to_string(max) + " characters");
      return "";
    }
    return s;
  }
  std::optional<double> Value(const core::Json& v, const std::string& pointer, const char* name) {
    if (!v.is_number()) {
      Fail(pointer, "invalid_type", std::string(name) + " must be a number");
      return std::nullopt;
    }
    double d = v.get<double>();
    if (!std::isfinite(d) || d < 0 || d > 100000) {
      Fail(pointer, "out_of_range", std::string(name) + " must be between 0 and 100000");
      return std::nullopt;
    }
    return d;
  }
  std::optional<double> Number(const core::Json& obj, const char* key, const std::string& at) {
    const core::Json* v = Member(obj, key);
    if (v == nullptr) return std::nullopt;
    return Value(*v, at + "/" + key, key);
  }
  const core::Json* Object(const core::Json& obj, const char* key, const std::string& at) {
    const core::Json* v = Member(obj, key);
    if (v == nullptr) return nullptr;
    if (!v->is_object()) {
      Fail(at + "/" + key, "invalid_type", std::string(key) + " must be an object");
      return nullptr;
    }
    return v;
  }
  NumberRange Range(const core::Json& obj, const char* key, const std::string& at) {
    NumberRange r;
    const core::Json* v = Object(obj, key, at);
    if (v == nullptr) return r;
    r.min = Number(*v, "min", at + "/" + key);
    r.max = Number(*v, "max", at + "/" + key);
    return r;
  }
};

// Labels of virtual cameras, capture cards and browsers' fake devices (lower case). Whole words
// for the short ones, substrings for the rest.
constexpr std::array<std::string_view, 33> kVirtualCameraParts = {
    "virtual",        "obs-camera",     "obs camera",  "manycam",      "xsplit",       "snap camera",
    "camtwist",       "e2esoft",        "v4l2loopback", "dummy video", "fake_device",  "fake video",
    "splitcam",       "droidcam",       "iriun",       "epoccam",      "ivcam",        "mmhmm",
    "nvidia broadcast", "streamlabs",   "vmix",        "cam link",     "unity video capture", "webcamoid",
    "akvcam",         "chromacam",      "youcam",      "avatarify",    "deepfacelive", "facerig",
    "animaze",        "prism live",     "screen capture"};
constexpr std::array<std::string_view, 4> kVirtualCameraWords = {"vcam", "camo", "obs", "elgato"};

// A label that is a file's path or name: a file played as a camera (Chromium's file-backed fake
// camera is labelled with its file's path).
bool IsFileLabel(std::string_view l) {
  if (!l.empty() && (l[0] == '/' || l[0] == '\\')) return true;
  if (l.size() >= 3 && std::isalpha(static_cast<unsigned char>(l[0])) && l[1] == ':' && (l[2] == '\\' || l[2] == '/')) {
    return true;
  }
  for (std::string_view ext : {".y4m", ".mjpeg", ".mjpg", ".mp4", ".webm", ".mkv", ".avi", ".mov"}) {
    if (l.size() >= ext.size() && l.substr(l.size() - ext.size()) == ext) return true;
  }
  return false;
}

bool IsVirtualCamera(std::string_view label) {
  const std::string l = Lower(label);
  if (IsFileLabel(l)) return true;
  for (auto p : kVirtualCameraParts) {
    if (Contains(l, p)) return true;
  }
  for (auto w : kVirtualCameraWords) {
    if (HasWord(l, w)) return true;
  }
  return false;
}

// Writers of containers that re-encode or remux (a camera never writes these) and editors.
constexpr std::array<std::string_view, 6> kTranscoders = {"lavf", "lavc", "handbrake", "mencoder", "mkvmerge",
                                                          "gstreamer"};
constexpr std::array<std::string_view, 22> kEditors = {
    "adobe",   "premiere", "after effects", "davinci", "resolve",  "final cut", "imovie",     "capcut",
    "shotcut", "kdenlive", "openshot",      "movavi",  "filmora",  "vsdc",      "clipchamp",  "camtasia",
    "lumafusion", "inshot", "powerdirector", "avidemux", "obs studio", "blender"};

bool NamesAny(const ContainerFacts& c, const auto& list) {
  for (const std::string* s : {&c.muxing_app, &c.writing_app, &c.encoder}) {
    const std::string l = Lower(*s);
    for (auto p : list) {
      if (Contains(l, p)) return true;
    }
  }
  return false;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// ---- container headers ----

struct Bytes {
  std::string_view b;
  size_t at = 0;
  bool Has(size_t n) const { return at <= b.size() && b.size() - at >= n; }
};

// An EBML variable-length integer: its length from the first byte's leading zeros (1..8).
// `keep_marker` for element ids.
std::optional<uint64_t> Vint(Bytes& s, bool keep_marker, bool* unknown = nullptr) {
  if (!s.Has(1)) return std::nullopt;
  const auto first = static_cast<unsigned char>(s.b[s.at]);
  int len = 1;
  while (len <= 8 && (first & (0x80 >> (len - 1))) == 0) ++len;
  if (len > 8 || !s.Has(static_cast<size_t>(len))) return std::nullopt;
  uint64_t v = keep_marker ? first : (first & (0xFF >> len));
  bool all_ones = (first & (0xFF >> len)) == (0xFF >> len);
  for (int i = 1; i < len; ++i) {
    const auto c = static_cast<unsigned char>(s.b[s.at + i]);
    v = (v << 8) | c;
    all_ones = all_ones && c == 0xFF;
  }
  if (unknown != nullptr) *unknown = !keep_marker && all_ones;
  s.at += static_cast<size_t>(len);
  return v;
}

void ReadWebm(std::string_view bytes, ContainerFacts& out) {
  Bytes s{bytes};
  int elements = 0;
  // The EBML header, then the Segment's children up to the first Cluster.
  while (s.Has(2) && elements++ < 4096) {
    auto id = Vint(s, true);
    bool unknown = false;
    auto size = Vint(s, false, &unknown);
    if (!id || !size) return;
    if (*id == 0x18538067) continue;  // Segment: descend
    if (*id == 0x1F43B675) return;    // Cluster: the headers are over
    const size_t len = unknown ? 0 : static_cast<size_t>(std::min<uint64_t>(*size, bytes.size()));
    if (*id == 0x1549A966) {  // Info
      if (unknown || !s.Has(len)) return;
      Bytes info{bytes.substr(s.at, len)};
      int children = 0;
      while (info.Has(2) && children++ < 256) {
        auto cid = Vint(info, true);
        auto csize = Vint(info, false);
        if (!cid || !csize || !info.Has(static_cast<size_t>(std::min<uint64_t>(*csize, bytes.size())))) break;
        std::string_view value = info.b.substr(info.at, static_cast<size_t>(*csize));
        if (*cid == 0x4D80) out.muxing_app = std::string(value.substr(0, 256));
        if (*cid == 0x5741) out.writing_app = std::string(value.substr(0, 256));
        info.at += static_cast<size_t>(*csize);
      }
      return;
    }
    if (unknown || !s.Has(len)) return;
    s.at += len;
  }
}

uint32_t Be32(std::string_view b, size_t at) {
  return (static_cast<uint32_t>(static_cast<unsigned char>(b[at])) << 24) |
         (static_cast<uint32_t>(static_cast<unsigned char>(b[at + 1])) << 16) |
         (static_cast<uint32_t>(static_cast<unsigned char>(b[at + 2])) << 8) |
         static_cast<uint32_t>(static_cast<unsigned char>(b[at + 3]));
}

// A tag's text: an iTunes-style `data` child (ilst) or a QuickTime international string (udta).
std::string TagText(std::string_view body) {
  if (body.size() >= 16 && body.substr(4, 4) == "data") {
    const uint32_t size = Be32(body, 0);
    if (size >= 16 && size <= body.size()) return std::string(body.substr(16, std::min<size_t>(size - 16, 256)));
    return "";
  }
  if (body.size() >= 4) {
    const size_t n = (static_cast<unsigned char>(body[0]) << 8) | static_cast<unsigned char>(body[1]);
    if (n <= body.size() - 4) return std::string(body.substr(4, std::min<size_t>(n, 256)));
  }
  return "";
}

void ReadMp4Boxes(std::string_view b, int depth, int& budget, ContainerFacts& out) {
  size_t at = 0;
  while (b.size() - at >= 8 && budget-- > 0) {
    uint64_t size = Be32(b, at);
    const std::string_view type = b.substr(at + 4, 4);
    size_t header = 8;
    if (size == 1) {
      if (b.size() - at < 16) return;
      size = (static_cast<uint64_t>(Be32(b, at + 8)) << 32) | Be32(b, at + 12);
      header = 16;
    } else if (size == 0) {
      size = b.size() - at;
    }
    if (size < header || size > b.size() - at) return;
    std::string_view body = b.substr(at + header, static_cast<size_t>(size) - header);
    if (depth < 8) {
      if (type == "moov" || type == "trak" || type == "edts" || type == "udta" || type == "ilst") {
        ReadMp4Boxes(body, depth + 1, budget, out);
      } else if (type == "meta") {
        // ISO's meta is a full box (4 bytes of version and flags); QuickTime's is not.
        const bool full = body.size() >= 8 && Be32(body, 0) == 0 && body.substr(4, 4) != "hdlr";
        ReadMp4Boxes(full ? body.substr(4) : body, depth + 1, budget, out);
      } else if (type == "elst" && body.size() >= 8) {
        out.max_edit_entries = std::max(out.max_edit_entries, static_cast<int>(std::min<uint32_t>(Be32(body, 4), 1 << 20)));
      } else if (type == "\xA9too" || type == "\xA9swr" || type == "\xA9""enc") {
        if (out.encoder.empty()) out.encoder = TagText(body);
      }
    }
    at += static_cast<size_t>(size);
  }
}

}  // namespace

std::variant<CaptureFacts, FactsError> ParseCaptureFacts(std::string_view text) {
  if (text.size() > kCaptureFactsMaxBytes) {
    return FactsError{"", "too_long", "captureFacts must be at most " + std::to_string(kCaptureFactsMaxBytes) + " bytes"};
  }
  core::Json j = core::ParseJsonOrDiscarded(text);
  if (j.is_discarded() || !j.is_object()) return FactsError{"", "invalid_json", "captureFacts must be a JSON object"};
  Reader r{j, std::nullopt};
  CaptureFacts f;
  f.source = r.String(j, "source", "");
  if (!f.source.empty() && f.source != "camera" && f.source != "file") {
    r.Fail("/source", "invalid_enum", "source must be one of: camera, file");
  }
  if (const core::Json* d = r.Object(j, "device", "")) {
    f.device_label = r.String(*d, "label", "/device");
    if (f.facing_mode.empty()) f.facing_mode = r.String(*d, "facingMode", "/device", 32);
  }
  if (const core::Json* s = r.Object(j, "settings", "")) {
    f.width = r.Number(*s, "width", "/settings");
    f.height = r.Number(*s, "height", "/settings");
    f.frame_rate = r.Number(*s, "frameRate", "/settings");
    std::string facing = r.String(*s, "facingMode", "/settings", 32);
    if (!facing.empty()) f.facing_mode = facing;
  }
  if (const core::Json* c = r.Object(j, "capabilities", "")) {
    f.cap_width = r.Range(*c, "width", "/capabilities");
    f.cap_height = r.Range(*c, "height", "/capabilities");
    f.cap_frame_rate = r.Range(*c, "frameRate", "/capabilities");
  }
  if (const core::Json* c = r.Object(j, "constraints", "")) {
    f.asked_width = r.Number(*c, "width", "/constraints");
    f.asked_height = r.Number(*c, "height", "/constraints");
    f.asked_frame_rate = r.Number(*c, "frameRate", "/constraints");
    f.asked_facing_mode = r.String(*c, "facingMode", "/constraints", 32);
  }
  if (const core::Json* c = r.Object(j, "recorder", "")) {
    f.recorder = r.String(*c, "api", "/recorder", 32);
    f.recorder_mime = r.String(*c, "mimeType", "/recorder", 128);
  }
  if (const core::Json* v = r.Member(j, "frameIntervalsMs")) {
    if (!v->is_array()) {
      r.Fail("/frameIntervalsMs", "invalid_type", "frameIntervalsMs must be an array of numbers");
    } else if (v->size() > kCaptureFactsMaxIntervals) {
      r.Fail("/frameIntervalsMs", "too_long",
             "frameIntervalsMs holds at most " + std::to_string(kCaptureFactsMaxIntervals) + " numbers");
    } else {
      for (size_t i = 0; i < v->size(); ++i) {
        auto d = r.Value((*v)[i], "/frameIntervalsMs/" + std::to_string(i), "a frame interval");
        if (d) f.frame_intervals_ms.push_back(*d);
      }
    }
  }
  if (r.error) return *r.error;
  return f;
}

core::Json CaptureFactsJson(const CaptureFacts& f) {
  auto num = [](const std::optional<double>& v) { return v ? core::Json(*v) : core::Json(nullptr); };
  auto range = [&](const NumberRange& r) { return core::Json{{"min", num(r.min)}, {"max", num(r.max)}}; };
  return core::Json{
      {"source", f.source},
      {"device", {{"label", f.device_label}, {"facingMode", f.facing_mode}}},
      {"settings", {{"width", num(f.width)}, {"height", num(f.height)}, {"frameRate", num(f.frame_rate)}}},
      {"capabilities",
       {{"width", range(f.cap_width)}, {"height", range(f.cap_height)}, {"frameRate", range(f.cap_frame_rate)}}},
      {"constraints",
       {{"width", num(f.asked_width)},
        {"height", num(f.asked_height)},
        {"frameRate", num(f.asked_frame_rate)},
        {"facingMode", f.asked_facing_mode}}},
      {"recorder", {{"api", f.recorder}, {"mimeType", f.recorder_mime}}},
      {"frameIntervalsMs", f.frame_intervals_ms}};
}

std::vector<InjectionSignal> EvaluateCaptureFacts(const CaptureFacts& f, std::string_view kind,
                                                  std::string_view capture_source) {
  std::vector<InjectionSignal> out;
  const bool camera = f.source == "camera";  // the camera's facts are judged only where stated
  const bool file = f.source == "file" || (f.source.empty() && capture_source == "file");
  if (camera) {
    if (!f.device_label.empty() && IsVirtualCamera(f.device_label)) out.push_back({"VIRTUAL_CAMERA", 0.9});
    if (f.device_label.empty()) out.push_back({"CAMERA_LABEL_MISSING", 0.3});
    auto outside = [](const std::optional<double>& v, const NumberRange& r, double slack) {
      return v && ((r.max && *v > *r.max + slack) || (r.min && *v + slack < *r.min));
    };
    if (outside(f.width, f.cap_width, 0.5) || outside(f.height, f.cap_height, 0.5) ||
        outside(f.frame_rate, f.cap_frame_rate, 1.0)) {
      out.push_back({"CAMERA_FACTS_INCONSISTENT", 0.5});
    }
    if (!f.asked_facing_mode.empty() && !f.facing_mode.empty() && f.asked_facing_mode != f.facing_mode) {
      out.push_back({"CONSTRAINTS_NOT_HONOURED", 0.3});
    }
    const auto& v = f.frame_intervals_ms;
    if (v.size() >= 30) {
      double mean = 0;
      for (double x : v) mean += x;
      mean /= static_cast<double>(v.size());
      double var = 0;
      for (double x : v) var += (x - mean) * (x - mean);
      const double spread = std::sqrt(var / static_cast<double>(v.size()));
      const double median = Median(v);
      size_t long_gaps = 0;
      for (double x : v) long_gaps += x > 2.5 * median ? 1 : 0;
      if (spread < 0.01) {
        out.push_back({"FRAME_TIMING_TOO_REGULAR", 0.5});
      } else if (median < 5 || median > 200 || long_gaps * 4 >= v.size()) {
        out.push_back({"FRAME_TIMING_IRREGULAR", 0.3});
      }
    }
  }
  if (file && kind == "selfie") out.push_back({"FACE_CAPTURE_FROM_FILE", 0.4});
  return out;
}

ContainerFacts ReadContainerFacts(std::string_view bytes) {
  ContainerFacts c;
  if (bytes.size() >= 4 && static_cast<unsigned char>(bytes[0]) == 0x1A && static_cast<unsigned char>(bytes[1]) == 0x45 &&
      static_cast<unsigned char>(bytes[2]) == 0xDF && static_cast<unsigned char>(bytes[3]) == 0xA3) {
    c.format = "webm";
    ReadWebm(bytes, c);
  } else if (bytes.size() >= 12 && bytes.substr(4, 4) == "ftyp") {
    c.format = "mp4";
    int budget = 20000;
    ReadMp4Boxes(bytes, 0, budget, c);
  }
  return c;
}

std::vector<InjectionSignal> EvaluateContainer(const ContainerFacts& c, std::string_view capture_source) {
  std::vector<InjectionSignal> out;
  const bool camera = capture_source == "camera";
  if (camera && (NamesAny(c, kTranscoders) || NamesAny(c, kEditors))) {
    out.push_back({"CONTAINER_REENCODED", 0.8});
  } else if (!camera && NamesAny(c, kEditors)) {
    out.push_back({"CONTAINER_EDITED", 0.5});
  } else if (camera && c.max_edit_entries > 1) {
    out.push_back({"CONTAINER_EDITED", 0.5});
  }
  return out;
}

core::Json InjectionJson(const std::vector<InjectionSignal>& signals) {
  double keep = 1;
  core::Json codes = core::Json::array();
  core::Json scores = core::Json::object();
  for (const auto& s : signals) {
    keep *= 1 - s.score;
    codes.push_back(s.code);
    scores[s.code] = s.score;
  }
  return core::Json{{"score", 1 - keep}, {"reasonCodes", codes}, {"signals", scores}};
}

void JoinInjectionSignals(BiometricScore& engine, const std::vector<InjectionSignal>& signals) {
  if (signals.empty()) return;
  const bool measured = engine.status == kOk && engine.score.has_value();
  if (!measured && engine.status != kUnavailable) return;  // an engine error stays one
  double keep = measured ? 1 - *engine.score : 1;
  if (!measured) {
    engine = BiometricScore{};
    engine.model_name = "injection-signals/v1";
    engine.details = core::Json{{"signals", core::Json::object()}};
  }
  if (!engine.details.is_object()) engine.details = core::Json::object();
  if (!engine.details.contains("signals") || !engine.details["signals"].is_object()) {
    engine.details["signals"] = core::Json::object();
  }
  for (const auto& s : signals) {
    keep *= 1 - s.score;
    if (std::find(engine.reasons.begin(), engine.reasons.end(), s.code) == engine.reasons.end()) {
      engine.reasons.push_back(s.code);
    }
    engine.details["signals"]["injection_" + Lower(s.code)] = core::Json{{"score", s.score}};
  }
  engine.score = std::clamp(1 - keep, 0.0, 1.0);
  engine.status = std::string(kOk);
}

}  // namespace svc::pipeline::verification
