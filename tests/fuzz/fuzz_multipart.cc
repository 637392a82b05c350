// An upload: the content type's boundary (the input's first line), then the body held in memory
// and streamed through MultipartReader in small pieces (the path a capture takes).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "api/http/multipart.h"

namespace {
// Hands the body out in pieces of 7 bytes, as a socket might.
class Pieces : public svc::api::BodyReader {
 public:
  explicit Pieces(std::string_view body) : body_(body) {}
  svc::core::Result<std::string> Read(size_t max) override {
    const size_t n = std::min<size_t>({max, 7, body_.size() - at_});
    std::string out(body_.substr(at_, n));
    at_ += n;
    return out;
  }

 private:
  std::string_view body_;
  size_t at_ = 0;
};
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  const size_t nl = in.find('\n');
  const std::string_view type = in.substr(0, nl == std::string_view::npos ? in.size() : nl);
  const std::string_view body = nl == std::string_view::npos ? std::string_view() : in.substr(nl + 1);
  auto boundary = svc::api::MultipartBoundary(type);
  if (!boundary.ok()) return 0;
  (void)svc::api::ParseMultipart(*boundary, body);
  Pieces pieces(body);
  svc::api::MultipartReader reader(*boundary, &pieces);
  for (int i = 0; i < 64; ++i) {
    auto part = reader.NextPart();
    if (!part.ok() || !part->has_value()) break;
    for (int j = 0; j < 1024; ++j) {
      auto piece = reader.ReadBody(5);
      if (!piece.ok() || piece->empty()) break;
    }
  }
  return 0;
}
