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

core::Result<std::vector<MultipartPart>> ParseMultipart(std::string_view boundary,
                                                        std::string_view body) {
  std::string delim = "--" + std::string(boundary);
  std::vector<MultipartPart> parts;
  size_t pos = body.find(delim);
  if (pos == std::string_view::npos) return Malformed("no boundary");
  if (pos != 0 && (pos < 2 || body.substr(pos - 2, 2) != "\r\n")) return Malformed("preamble");
  pos += delim.size();
  for (;;) {
    if (body.substr(pos, 2) == "--") return parts;  // closing delimiter
    // Transport padding, then CRLF.
    while (pos < body.size() && (body[pos] == ' ' || body[pos] == '\t')) ++pos;
    if (body.substr(pos, 2) != "\r\n") return Malformed("expected CRLF after a boundary");
    pos += 2;
    size_t headers_end = body.find("\r\n\r\n", pos);
    if (headers_end == std::string_view::npos) return Malformed("part headers never end");
    MultipartPart part;
    bool disposition = false;
    std::string_view headers = body.substr(pos, headers_end - pos);
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
    size_t content = headers_end + 4;
    size_t next = body.find("\r\n" + delim, content);
    if (next == std::string_view::npos) return Malformed("a part never ends");
    part.body = body.substr(content, next - content);
    parts.push_back(std::move(part));
    if (parts.size() > 16) return Malformed("too many parts");
    pos = next + 2 + delim.size();
  }
}

}  // namespace svc::api
