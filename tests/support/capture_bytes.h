#pragma once
// Capture bytes for tests and benchmarks that run verification sessions through a real svc:
// minimal JPEG and MP4 bytes (enough for the magic-number and dimension checks; the sandbox
// engine reads the specimen from any of them) and a multipart body. No test framework here, so
// benchmarks include it too.

#include <array>
#include <string>
#include <vector>

namespace svc::testing {

// A JPEG header with a frame of w x h (enough for magic-number and dimension checks).
inline std::string Jpeg(int w, int h) {
  std::string b = "\xFF\xD8\xFF\xE0";
  b += std::string("\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00", 16);
  b += std::string("\xFF\xC0\x00\x11\x08", 5);
  b += static_cast<char>(h >> 8);
  b += static_cast<char>(h & 0xFF);
  b += static_cast<char>(w >> 8);
  b += static_cast<char>(w & 0xFF);
  b += std::string("\x03\x01\x22\x00\x02\x11\x01\x03\x11\x01", 10);
  b += "\xFF\xD9";
  return b;
}
inline std::string Mp4() {
  return std::string("\x00\x00\x00\x18" "ftypisom\x00\x00\x02\x00isomiso2", 24) +
         std::string("\x00\x00\x00\x10mdat", 8) + std::string(8, '\0');
}

inline std::string Multipart(const std::string& boundary, const std::vector<std::array<std::string, 4>>& parts) {
  // parts: name, filename ("" = a text field), content type, body
  std::string b;
  for (const auto& p : parts) {
    b += "--" + boundary + "\r\n";
    b += "Content-Disposition: form-data; name=\"" + p[0] + "\"";
    if (!p[1].empty()) b += "; filename=\"" + p[1] + "\"";
    b += "\r\n";
    if (!p[2].empty()) b += "Content-Type: " + p[2] + "\r\n";
    b += "\r\n" + p[3] + "\r\n";
  }
  b += "--" + boundary + "--\r\n";
  return b;
}

}  // namespace svc::testing
