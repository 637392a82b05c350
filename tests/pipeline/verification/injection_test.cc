// The injection signals (pipeline/verification/injection.*): the captureFacts part parsed and
// refused field by field, the signals the stated facts raise, the containers' writers read from
// real files (FFmpeg's muxers) and from headers as a browser writes them, and their join with the
// engine's deepfake measurement.
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "pipeline/verification/injection.h"
#include "tests/support/temp_dir.h"

namespace pipeline_verification_injection_test {

using namespace svc;
using namespace svc::pipeline::verification;

namespace {

CaptureFacts Parsed(const std::string& text) {
  auto r = ParseCaptureFacts(text);
  REQUIRE_MESSAGE(std::holds_alternative<CaptureFacts>(r), text);
  return std::get<CaptureFacts>(r);
}

FactsError Refused(const std::string& text) {
  auto r = ParseCaptureFacts(text);
  REQUIRE_MESSAGE(std::holds_alternative<FactsError>(r), text);
  return std::get<FactsError>(r);
}

std::vector<std::string> Codes(const std::vector<InjectionSignal>& s) {
  std::vector<std::string> out;
  for (const auto& x : s) out.push_back(x.code);
  return out;
}

std::string Intervals(const std::vector<double>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}

// A camera's frame intervals at 30 fps with a sensor clock's jitter (±0.4 ms, deterministic).
std::vector<double> Jittered(size_t n) {
  std::vector<double> v;
  uint32_t x = 12345;
  for (size_t i = 0; i < n; ++i) {
    x = x * 1664525u + 1013904223u;
    v.push_back(33.333 + (static_cast<double>(x >> 8) / (1 << 24) - 0.5) * 0.8);
  }
  return v;
}

std::string ReadAll(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// EBML: an element of `id` (its bytes as written) around `body`, the size on 8 bytes.
std::string Element(std::string id, const std::string& body) {
  std::string size(8, '\0');
  size[0] = 0x01;
  for (int i = 0; i < 7; ++i) size[7 - i] = static_cast<char>((body.size() >> (8 * i)) & 0xFF);
  return id + size + body;
}

}  // namespace

TEST_CASE("captureFacts: a browser's statement parsed; every wrong member refused with its pointer") {
  auto f = Parsed(R"({"source":"camera","device":{"label":"FaceTime HD Camera"},
    "settings":{"width":1280,"height":720,"frameRate":30,"facingMode":"user"},
    "capabilities":{"width":{"min":1,"max":1920},"height":{"min":1,"max":1080},"frameRate":{"min":1,"max":30}},
    "constraints":{"width":1280,"facingMode":"user"},"recorder":{"api":"MediaRecorder","mimeType":"video/webm;codecs=vp8"},
    "frameIntervalsMs":[33.3,33.4],"newerMember":{"x":1}})");
  CHECK(f.source == "camera");
  CHECK(f.device_label == "FaceTime HD Camera");
  CHECK(*f.width == 1280);
  CHECK(*f.cap_width.max == 1920);
  CHECK(f.asked_facing_mode == "user");
  CHECK(f.recorder == "MediaRecorder");
  CHECK(f.frame_intervals_ms.size() == 2);
  CHECK(CaptureFactsJson(f)["device"]["label"] == "FaceTime HD Camera");
  CHECK(Parsed("{}").source.empty());

  CHECK(Refused("not json").code == "invalid_json");
  CHECK(Refused("[1,2]").code == "invalid_json");
  CHECK(Refused(R"({"source":"screen"})").pointer == "/source");
  auto e = Refused(R"({"settings":{"width":"wide"}})");
  CHECK(e.pointer == "/settings/width");
  CHECK(e.code == "invalid_type");
  CHECK(Refused(R"({"settings":{"frameRate":-1}})").code == "out_of_range");
  CHECK(Refused(R"({"capabilities":{"height":{"max":1e9}}})").pointer == "/capabilities/height/max");
  CHECK(Refused(R"({"device":{"label":")" + std::string(300, 'x') + R"("}})").code == "too_long");
  CHECK(Refused(R"({"device":"OBS"})").pointer == "/device");
  CHECK(Refused(R"({"frameIntervalsMs":[1,"2"]})").pointer == "/frameIntervalsMs/1");
  CHECK(Refused(R"({"frameIntervalsMs":)" + Intervals(std::vector<double>(601, 33)) + "}").code == "too_long");
  CHECK(Refused(std::string(kCaptureFactsMaxBytes + 1, ' ')).code == "too_long");
  CHECK(Refused(std::string(4000, '[') + std::string(4000, ']')).code == "invalid_json");  // deep: an array, not an object
}

TEST_CASE("captureFacts: virtual cameras, inconsistent settings, frame timing, a selfie from a file") {
  auto camera = [](const std::string& label) {
    return Codes(EvaluateCaptureFacts(Parsed(R"({"source":"camera","device":{"label":")" + label + R"("}})"), "selfie",
                                      "camera"));
  };
  for (const char* label : {"OBS Virtual Camera", "ManyCam Virtual Webcam", "fake_device_0", "Snap Camera",
                            "e2eSoft VCam", "Camo", "DroidCam Source 3", "Dummy video device (0x0000)", "OBS-Camera",
                            "/tmp/camera.y4m", "C:\\\\clips\\\\me.mp4", "me.webm"}) {
    CHECK_MESSAGE(camera(label) == std::vector<std::string>{"VIRTUAL_CAMERA"}, label);
  }
  for (const char* label : {"FaceTime HD Camera", "Integrated Camera (04f2:b6dd)", "HD Pro Webcam C920",
                            "camera2 1, facing front", "Camouflage Cam 1080p", "Front Camera"}) {
    CHECK_MESSAGE(camera(label).empty(), label);
  }
  CHECK(camera("") == std::vector<std::string>{"CAMERA_LABEL_MISSING"});

  auto codes = [](const std::string& json, const char* kind = "selfie", const char* source = "camera") {
    return Codes(EvaluateCaptureFacts(Parsed(json), kind, source));
  };
  CHECK(codes(R"({"source":"camera","device":{"label":"Cam"},"settings":{"width":3840},"capabilities":{"width":{"max":1920}}})") ==
        std::vector<std::string>{"CAMERA_FACTS_INCONSISTENT"});
  CHECK(codes(R"({"source":"camera","device":{"label":"Cam"},"settings":{"frameRate":30.4},"capabilities":{"frameRate":{"max":30}}})")
            .empty());  // within a frame a second
  CHECK(codes(R"({"source":"camera","device":{"label":"Cam"},"settings":{"facingMode":"environment"},"constraints":{"facingMode":"user"}})") ==
        std::vector<std::string>{"CONSTRAINTS_NOT_HONOURED"});

  const std::string cam = R"({"source":"camera","device":{"label":"Cam"},"frameIntervalsMs":)";
  CHECK(codes(cam + Intervals(Jittered(90)) + "}").empty());
  CHECK(codes(cam + Intervals(std::vector<double>(90, 33.333)) + "}") == std::vector<std::string>{"FRAME_TIMING_TOO_REGULAR"});
  CHECK(codes(cam + Intervals(std::vector<double>(20, 33.333)) + "}").empty());  // too few to say
  auto bursts = Jittered(90);
  for (size_t i = 0; i < bursts.size(); i += 3) bursts[i] = 120;  // a third of the frames late
  CHECK(codes(cam + Intervals(bursts) + "}") == std::vector<std::string>{"FRAME_TIMING_IRREGULAR"});
  auto slow = Jittered(40);
  for (double& x : slow) x += 367;  // 2.5 frames a second: no live camera stream
  CHECK(codes(cam + Intervals(slow) + "}") == std::vector<std::string>{"FRAME_TIMING_IRREGULAR"});

  // A selfie chosen from a file; a document from a file is what the flow asks for.
  CHECK(codes(R"({"source":"file"})") == std::vector<std::string>{"FACE_CAPTURE_FROM_FILE"});
  CHECK(codes(R"({"source":"file"})", "document_front", "file").empty());
  CHECK(Codes(EvaluateCaptureFacts(CaptureFacts{}, "selfie", "file")) == std::vector<std::string>{"FACE_CAPTURE_FROM_FILE"});
  // No facts stated: nothing judged about a camera (the API channel's backends say nothing).
  CHECK(EvaluateCaptureFacts(CaptureFacts{}, "liveness_video", "camera").empty());

  auto kept = InjectionJson(EvaluateCaptureFacts(Parsed(R"({"source":"camera","device":{"label":"OBS Virtual Camera"},
      "settings":{"width":3840},"capabilities":{"width":{"max":1920}}})"), "selfie", "camera"));
  CHECK(kept["reasonCodes"] == core::Json::array({"VIRTUAL_CAMERA", "CAMERA_FACTS_INCONSISTENT"}));
  CHECK(kept["score"].get<double>() == doctest::Approx(1 - 0.1 * 0.5));
  CHECK(InjectionJson({})["score"] == 0.0);
}

TEST_CASE("containers: FFmpeg's WebM and MP4 name their muxer; a browser's WebM does not; edit lists counted") {
  testing::TempDir dir;
  for (const char* ext : {"webm", "mp4"}) {
    const std::string out = dir.Sub(std::string("clip.") + ext);
    const std::string cmd = std::string("ffmpeg -loglevel error -y -f lavfi -i testsrc=size=64x48:rate=10 -t 1 ") +
                            (std::string(ext) == "webm" ? "-c:v libvpx-vp9 " : "-c:v mpeg4 ") + "'" + out + "'";
    REQUIRE(std::system(cmd.c_str()) == 0);
    auto c = ReadContainerFacts(ReadAll(out));
    CHECK(c.format == ext);
    const std::string writer = c.muxing_app + c.writing_app + c.encoder;
    CHECK_MESSAGE(writer.find("Lavf") != std::string::npos, ext << ": " << writer);
    CHECK(Codes(EvaluateContainer(c, "camera")) == std::vector<std::string>{"CONTAINER_REENCODED"});
    CHECK(EvaluateContainer(c, "").empty());  // FFmpeg is also what honest back ends use
  }

  // A recording Chromium's MediaRecorder made (tests/fixtures): written by "Chrome".
  auto recorded = ReadContainerFacts(ReadAll(std::string(SVC_TEST_SOURCE_DIR) + "/fixtures/chromium-mediarecorder-vp8.webm"));
  CHECK(recorded.format == "webm");
  CHECK(recorded.muxing_app == "Chrome");
  CHECK(recorded.writing_app == "Chrome");
  CHECK(EvaluateContainer(recorded, "camera").empty());

  // Built as Chrome's MediaRecorder writes a WebM: MuxingApp and WritingApp "Chrome", a Segment
  // of unknown size, then a Cluster.
  const std::string ebml = Element("\x1A\x45\xDF\xA3", Element("\x42\x82", "webm"));
  const std::string info = Element("\x15\x49\xA9\x66", Element("\x4D\x80", "Chrome") + Element("\x57\x41", "Chrome"));
  const std::string segment = std::string("\x18\x53\x80\x67\x01\xFF\xFF\xFF\xFF\xFF\xFF\xFF", 12) + info +
                              Element("\x1F\x43\xB6\x75", std::string(32, '\0'));
  auto chrome = ReadContainerFacts(ebml + segment);
  CHECK(chrome.format == "webm");
  CHECK(chrome.muxing_app == "Chrome");
  CHECK(chrome.writing_app == "Chrome");
  CHECK(EvaluateContainer(chrome, "camera").empty());

  // An editor's name on a video without a camera claim; a camera MP4 with a cut (two edits).
  ContainerFacts edited;
  edited.format = "mp4";
  edited.encoder = "Adobe Premiere Pro 2024.0";
  CHECK(Codes(EvaluateContainer(edited, "")) == std::vector<std::string>{"CONTAINER_EDITED"});
  auto box = [](const std::string& type, const std::string& body) {
    const uint32_t n = static_cast<uint32_t>(body.size() + 8);
    return std::string{static_cast<char>(n >> 24), static_cast<char>(n >> 16), static_cast<char>(n >> 8),
                       static_cast<char>(n)} +
           type + body;
  };
  const std::string elst = box("elst", std::string("\0\0\0\0\0\0\0\x02", 8) + std::string(24, '\0'));
  const std::string mp4 = box("ftyp", "isom\0\0\0\0isom") + box("moov", box("trak", box("edts", elst)));
  auto cut = ReadContainerFacts(mp4);
  CHECK(cut.max_edit_entries == 2);
  CHECK(Codes(EvaluateContainer(cut, "camera")) == std::vector<std::string>{"CONTAINER_EDITED"});

  // Headers that lie about their sizes, or stop: no signal, no crash, bounded work.
  for (const std::string& bad : {std::string("\x1A\x45\xDF\xA3\x01\xFF\xFF\xFF\xFF\xFF\xFF\xFF", 12),
                                 std::string("\x1A\x45\xDF\xA3\x00", 5), box("ftyp", "isom") + "\xFF\xFF\xFF\xFFmoov",
                                 box("ftyp", "isom") + box("moov", std::string("\0\0\0\x01moov", 8)),
                                 std::string(100, '\0'), std::string()}) {
    auto c = ReadContainerFacts(bad);
    CHECK(EvaluateContainer(c, "camera").empty());
  }
}

TEST_CASE("injection signals join the deepfake measurement; an engine that measured nothing yields to them") {
  BiometricScore engine;
  engine.status = "ok";
  engine.score = 0.2;
  engine.model_name = "pad/v1";
  engine.details = core::Json{{"signals", {{"recapture_pattern", {{"score", 0.1}}}}}};
  JoinInjectionSignals(engine, {{"VIRTUAL_CAMERA", 0.9}});
  CHECK(*engine.score == doctest::Approx(1 - 0.8 * 0.1));
  CHECK(engine.reasons == std::vector<std::string>{"VIRTUAL_CAMERA"});
  CHECK(engine.details["signals"]["injection_virtual_camera"]["score"] == 0.9);
  CHECK(engine.details["signals"].contains("recapture_pattern"));
  CHECK(engine.model_name == "pad/v1");

  BiometricScore none;
  none.status = "unavailable";
  JoinInjectionSignals(none, {});
  CHECK(none.status == "unavailable");  // nothing measured, nothing claimed
  JoinInjectionSignals(none, {{"CONTAINER_REENCODED", 0.8}});
  CHECK(none.status == "ok");
  CHECK(*none.score == doctest::Approx(0.8));
  CHECK(none.model_name == "injection-signals/v1");

  BiometricScore failed;
  failed.status = "error";
  JoinInjectionSignals(failed, {{"VIRTUAL_CAMERA", 0.9}});
  CHECK(failed.status == "error");
}

}  // namespace pipeline_verification_injection_test
