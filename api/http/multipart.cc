#include "api/http/multipart.h"

#include <algorithm>
#include <cctype>

namespace svc::api {

namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Parameters of a header value: `form-data; name="a"; filename="b.jpg"`.
std::vector<std::pair<std::string, std::string>> Params(std::string_view v) {
  std::vector<std::pair<std::string, std::string>> out;
  size_t i = v.find(';');
  while (i != std::string_view::npos && i < v.size()) {
    ++i;
    while (i < v.size() && (v[i] == ' ' || v[i] == '\t')) ++i;
    size_t eq = v.find('=', i);
    if (eq == std::string_view::npos) break;
    std::string key = Lower(Trim(v.substr(i, eq - i)));
    size_t j = eq + 1;
    std::string value;
    if (j < v.size() && v[j] == '"') {
      ++j;
      while (j < v.size() && v[j] != '"') {
        if (v[j] == '\\' && j + 1 < v.size()) ++j;
        value += v[j++];
      }
      ++j;  // closing quote
      i = v.find(';', j);
    } else {
      size_t end = v.find(';', j);
      value = std::string(Trim(v.substr(j, end == std::string_view::npos ? end : end - j)));
      i = end;
    }
    out.emplace_back(std::move(key), std::move(value));
  }
  return out;
}

core::Status Malformed(std::string what) {
  return core::InvalidArgument("malformed multipart body: " + what, "BAD_REQUEST");
}

}  // namespace

core::Result<std::string> MultipartBoundary(std::string_view content_type) {
  std::string type = Lower(Trim(content_type.substr(0, content_type.find(';'))));
  if (type != "multipart/form-data") {
    return core::InvalidArgument("send the upload as multipart/form-data", "UNSUPPORTED_MEDIA_TYPE");
  }
  for (auto& [k, v] : Params(content_type)) {
    if (k == "boundary" && !v.empty() && v.size() <= 70) return v;
  }
  return core::InvalidArgument("multipart/form-data needs a boundary parameter",
                               "UNSUPPORTED_MEDIA_TYPE");
}

namespace {

constexpr size_t kMaxHeaderBytes = 16 * 1024;  // one part's headers
constexpr size_t kMaxPreamble = 64 * 1024;
constexpr size_t kReadPiece = 64 * 1024;

core::Result<MultipartPart> ParsePartHeaders(std::string_view headers) {
  MultipartPart part;
  bool disposition = false;
  size_t h = 0;
  while (h <= headers.size()) {
    size_t eol = headers.find("\r\n", h);
    std::string_view line = headers.substr(h, eol == std::string_view::npos ? eol : eol - h);
    if (!line.empty()) {
      size_t colon = line.find(':');
      if (colon == std::string_view::npos) return Malformed("a part header has no colon");
      std::string name = Lower(Trim(line.substr(0, colon)));
      std::string_view value = Trim(line.substr(colon + 1));
      if (name == "content-disposition") {
        if (Lower(Trim(value.substr(0, value.find(';')))) != "form-data") {
          return Malformed("a part is not form-data");
        }
        disposition = true;
        for (auto& [k, v] : Params(value)) {
          if (k == "name") part.name = v;
          if (k == "filename") {
            part.filename = v;
            part.has_filename = true;
          }
        }
      } else if (name == "content-type") {
        part.content_type = Lower(Trim(value.substr(0, value.find(';'))));
      }
    }
    if (eol == std::string_view::npos) break;
    h = eol + 2;
  }
  if (!disposition || part.name.empty()) return Malformed("a part has no form-data name");
  return part;
}

}  // namespace

MultipartReader::MultipartReader(std::string_view boundary, BodyReader* in)
    : in_(in), delim_("--" + std::string(boundary)), marker_("\r\n" + delim_) {}

core::Status MultipartReader::Fill() {
  if (eof_) return core::Status::Ok();
  SVC_ASSIGN_OR_RETURN(std::string more, in_->Read(kReadPiece));
  if (more.empty()) eof_ = true;
  buf_ += more;
  return core::Status::Ok();
}

core::Result<std::optional<MultipartPart>> MultipartReader::NextPart() {
  const std::optional<MultipartPart> none;
  if (closed_) return none;
  while (in_body_) {
    SVC_ASSIGN_OR_RETURN(std::string skipped, ReadBody(kReadPiece));
    (void)skipped;
  }
  if (!started_) {
    size_t pos;
    while ((pos = buf_.find(delim_)) == std::string::npos) {
      if (eof_ || buf_.size() > kMaxPreamble) return Malformed("no boundary");
      SVC_RETURN_IF_ERROR(Fill());
    }
    if (pos != 0 && (pos < 2 || buf_.compare(pos - 2, 2, "\r\n") != 0)) return Malformed("preamble");
    buf_.erase(0, pos + delim_.size());
    started_ = true;
  }
  // Right after a boundary: "--" closes; else transport padding, then CRLF.
  while (buf_.size() < 2 && !eof_) SVC_RETURN_IF_ERROR(Fill());
  if (buf_.compare(0, 2, "--") == 0) {
    closed_ = true;  // what follows (the epilogue) is ignored
    return none;
  }
  size_t pos = 0;
  for (;;) {
    while (pos < buf_.size() && (buf_[pos] == ' ' || buf_[pos] == '\t')) ++pos;
    if (pos + 2 <= buf_.size() || eof_ || pos > kMaxHeaderBytes) break;
    SVC_RETURN_IF_ERROR(Fill());
  }
  if (buf_.compare(pos, 2, "\r\n") != 0) return Malformed("expected CRLF after a boundary");
  buf_.erase(0, pos + 2);
  size_t headers_end;
  while ((headers_end = buf_.find("\r\n\r\n")) == std::string::npos) {
    if (eof_ || buf_.size() > kMaxHeaderBytes) return Malformed("part headers never end");
    SVC_RETURN_IF_ERROR(Fill());
  }
  SVC_ASSIGN_OR_RETURN(MultipartPart part, ParsePartHeaders(std::string_view(buf_).substr(0, headers_end)));
  buf_.erase(0, headers_end + 4);
  if (++parts_ > kMaxParts) return Malformed("too many parts");
  in_body_ = true;
  return std::optional<MultipartPart>(std::move(part));
}

core::Result<std::string> MultipartReader::ReadBody(size_t max) {
  if (!in_body_) return std::string();
  for (;;) {
    const size_t at = buf_.find(marker_);
    if (at == 0) {
      buf_.erase(0, marker_.size());
      in_body_ = false;
      return std::string();
    }
    // Bytes that cannot be the start of the marker are the part's.
    const size_t safe = at != std::string::npos ? at
                        : buf_.size() >= marker_.size() ? buf_.size() - (marker_.size() - 1)
                                                        : 0;
    if (safe > 0) {
      std::string out = buf_.substr(0, std::min(safe, max));
      buf_.erase(0, out.size());
      return out;
    }
    if (eof_) return Malformed("a part never ends");
    SVC_RETURN_IF_ERROR(Fill());
  }
}

core::Result<std::vector<MultipartPart>> ParseMultipart(std::string_view boundary, std::string_view body) {
  StringBodyReader in(body);
  MultipartReader reader(boundary, &in);
  std::vector<MultipartPart> parts;
  for (;;) {
    SVC_ASSIGN_OR_RETURN(auto part, reader.NextPart());
    if (!part.has_value()) return parts;
    for (;;) {
      SVC_ASSIGN_OR_RETURN(std::string piece, reader.ReadBody(1u << 20));
      if (piece.empty()) break;
      part->body += piece;
    }
    parts.push_back(std::move(*part));
  }
}

}  // namespace svc::api
