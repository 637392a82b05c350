#include "pipeline/verification/engines.h"

#include <cstdio>

namespace svc::pipeline::verification {

std::string TestOutcomeFor(std::string_view environment, const core::Json& policy) {
  if (environment != "test") return "";
  return core::StringOr(policy, "testOutcome");
}

documents::Date DateOf(core::Timestamp t) {
  documents::Date d;
  std::string s = core::FormatRfc3339(t);  // YYYY-MM-DDThh:mm:ss.sssZ
  std::sscanf(s.c_str(), "%4d-%2d-%2d", &d.year, &d.month, &d.day);
  return d;
}

core::Json CaptureAnalysisResult::ToJson() const {
  auto num = [](const std::optional<double>& v) { return v ? core::Json(*v) : core::Json(nullptr); };
  auto str = [](const std::string& s) { return s.empty() ? core::Json(nullptr) : core::Json(s); };
  core::Json j;
  j["status"] = status;
  j["errorCode"] = str(error_code);
  j["confidence"] = num(confidence);
  j["documentType"] = str(document_type);
  j["issuingCountry"] = str(issuing_country);
  j["livenessScore"] = num(liveness_score);
  j["faceMatchScore"] = num(face_match_score);
  j["qualityIssues"] = quality_issues;
  j["retryHints"] = retry_hints;
  j["requiresBackPage"] = requires_back_page;
  j["skipBack"] = skip_back;
  return j;
}

const std::vector<MediaKindSpec>& MediaKinds() {
  static const std::vector<MediaKindSpec> kinds = {
      {"document_front", {"image/jpeg", "image/png", "image/webp"}, 10u << 20},
      {"document_back", {"image/jpeg", "image/png", "image/webp"}, 10u << 20},
      {"selfie", {"image/jpeg", "image/png", "image/webp"}, 5u << 20},
      {"liveness_video", {"video/mp4", "video/webm", "video/quicktime"}, 30u << 20},
  };
  return kinds;
}

const MediaKindSpec* FindMediaKind(std::string_view kind) {
  for (const auto& k : MediaKinds()) {
    if (k.kind == kind) return &k;
  }
  return nullptr;
}

namespace {
bool StartsWith(std::string_view b, std::string_view prefix) {
  return b.size() >= prefix.size() && b.substr(0, prefix.size()) == prefix;
}
uint32_t Be16(std::string_view b, size_t i) {
  return (static_cast<uint32_t>(static_cast<unsigned char>(b[i])) << 8) |
         static_cast<unsigned char>(b[i + 1]);
}
uint32_t Be32(std::string_view b, size_t i) { return (Be16(b, i) << 16) | Be16(b, i + 2); }
uint32_t Le16(std::string_view b, size_t i) {
  return static_cast<unsigned char>(b[i]) |
         (static_cast<uint32_t>(static_cast<unsigned char>(b[i + 1])) << 8);
}
uint32_t Le24(std::string_view b, size_t i) {
  return Le16(b, i) | (static_cast<uint32_t>(static_cast<unsigned char>(b[i + 2])) << 16);
}
}  // namespace

bool MagicMatches(std::string_view mime, std::string_view b) {
  if (mime == "image/jpeg") return StartsWith(b, "\xFF\xD8\xFF");
  if (mime == "image/png") return StartsWith(b, std::string_view("\x89PNG\r\n\x1A\n", 8));
  if (mime == "image/webp") return b.size() >= 12 && StartsWith(b, "RIFF") && b.substr(8, 4) == "WEBP";
  if (mime == "video/webm") return StartsWith(b, "\x1A\x45\xDF\xA3");
  if (mime == "video/mp4" || mime == "video/quicktime") {
    return b.size() >= 12 && b.substr(4, 4) == "ftyp";
  }
  return false;
}

std::optional<std::pair<int, int>> ImageDimensions(std::string_view mime, std::string_view b) {
  if (mime == "image/png") {
    if (b.size() < 24 || b.substr(12, 4) != "IHDR") return std::nullopt;
    return std::make_pair(static_cast<int>(Be32(b, 16)), static_cast<int>(Be32(b, 20)));
  }
  if (mime == "image/jpeg") {
    size_t i = 2;
    while (i + 9 < b.size()) {
      if (static_cast<unsigned char>(b[i]) != 0xFF) return std::nullopt;
      unsigned char m = static_cast<unsigned char>(b[i + 1]);
      if (m == 0xFF) {  // fill byte
        ++i;
        continue;
      }
      if (m == 0xD8 || m == 0x01 || (m >= 0xD0 && m <= 0xD7)) {
        i += 2;
        continue;
      }
      uint32_t len = Be16(b, i + 2);
      if (len < 2) return std::nullopt;
      bool sof = m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC;
      if (sof) {
        return std::make_pair(static_cast<int>(Be16(b, i + 7)), static_cast<int>(Be16(b, i + 5)));
      }
      if (m == 0xDA || m == 0xD9) return std::nullopt;  // scan data before a frame header
      i += 2 + len;
    }
    return std::nullopt;
  }
  if (mime == "image/webp") {
    if (b.size() < 30) return std::nullopt;
    std::string_view chunk = b.substr(12, 4);
    if (chunk == "VP8 ") {
      return std::make_pair(static_cast<int>(Le16(b, 26) & 0x3FFF),
                            static_cast<int>(Le16(b, 28) & 0x3FFF));
    }
    if (chunk == "VP8L") {
      uint32_t b0 = static_cast<unsigned char>(b[21]), b1 = static_cast<unsigned char>(b[22]),
               b2 = static_cast<unsigned char>(b[23]), b3 = static_cast<unsigned char>(b[24]);
      int w = 1 + static_cast<int>(b0 | ((b1 & 0x3F) << 8));
      int h = 1 + static_cast<int>((b1 >> 6) | (b2 << 2) | ((b3 & 0x0F) << 10));
      return std::make_pair(w, h);
    }
    if (chunk == "VP8X") {
      return std::make_pair(1 + static_cast<int>(Le24(b, 24)), 1 + static_cast<int>(Le24(b, 27)));
    }
  }
  return std::nullopt;
}

}  // namespace svc::pipeline::verification
