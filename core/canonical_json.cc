#include "core/canonical_json.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string_view>
#include <vector>

namespace svc::core {

std::string EcmaScriptNumber(double d) {
  if (d == 0) return "0";  // also -0
  std::string out;
  if (d < 0) {
    out = "-";
    d = -d;
  }
  // Shortest round-trip digits and exponent, from the scientific form "d.ddde±x".
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
  std::string sci(buf, res.ptr);
  size_t e = sci.find('e');
  std::string digits;
  for (size_t i = 0; i < e; ++i) {
    if (sci[i] != '.') digits += sci[i];
  }
  int exponent = std::stoi(sci.substr(e + 1));
  int k = static_cast<int>(digits.size());
  int n = exponent + 1;  // position of the decimal point relative to the digits
  if (k <= n && n <= 21) {
    out += digits + std::string(static_cast<size_t>(n - k), '0');
  } else if (0 < n && n <= 21) {
    out += digits.substr(0, static_cast<size_t>(n)) + "." + digits.substr(static_cast<size_t>(n));
  } else if (-6 < n && n <= 0) {
    out += "0." + std::string(static_cast<size_t>(-n), '0') + digits;
  } else {
    int x = n - 1;
    out += digits.substr(0, 1);
    if (k > 1) out += "." + digits.substr(1);
    out += "e";
    out += x < 0 ? "-" : "+";
    out += std::to_string(std::abs(x));
  }
  return out;
}

namespace {

// UTF-8 -> UTF-16 code units (for RFC 8785's member ordering).
Result<std::u16string> Utf16(std::string_view s) {
  std::u16string out;
  for (size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    uint32_t cp;
    int len;
    if (c < 0x80) {
      cp = c;
      len = 1;
    } else if ((c >> 5) == 0x6) {
      cp = c & 0x1f;
      len = 2;
    } else if ((c >> 4) == 0xe) {
      cp = c & 0x0f;
      len = 3;
    } else if ((c >> 3) == 0x1e) {
      cp = c & 0x07;
      len = 4;
    } else {
      return InvalidArgument("invalid UTF-8");
    }
    if (i + static_cast<size_t>(len) > s.size()) return InvalidArgument("invalid UTF-8");
    for (int j = 1; j < len; ++j) {
      unsigned char cc = static_cast<unsigned char>(s[i + static_cast<size_t>(j)]);
      if ((cc >> 6) != 0x2) return InvalidArgument("invalid UTF-8");
      cp = (cp << 6) | (cc & 0x3f);
    }
    if (cp >= 0x10000) {
      cp -= 0x10000;
      out += static_cast<char16_t>(0xd800 + (cp >> 10));
      out += static_cast<char16_t>(0xdc00 + (cp & 0x3ff));
    } else {
      out += static_cast<char16_t>(cp);
    }
    i += static_cast<size_t>(len);
  }
  return out;
}

Status Write(std::string& out, const Json& v) {
  switch (v.type()) {
    case Json::value_t::null: out += "null"; return Status::Ok();
    case Json::value_t::boolean: out += v.get<bool>() ? "true" : "false"; return Status::Ok();
    case Json::value_t::number_integer: out += std::to_string(v.get<int64_t>()); return Status::Ok();
    case Json::value_t::number_unsigned: out += std::to_string(v.get<uint64_t>()); return Status::Ok();
    case Json::value_t::number_float: {
      double d = v.get<double>();
      if (!std::isfinite(d)) return InvalidArgument("NaN and infinity are not JSON");
      out += EcmaScriptNumber(d);
      return Status::Ok();
    }
    case Json::value_t::string: {
      SVC_RETURN_IF_ERROR(Utf16(v.get_ref<const std::string&>()).status());
      AppendCanonicalString(out, v.get_ref<const std::string&>());
      return Status::Ok();
    }
    case Json::value_t::array: {
      out += '[';
      bool first = true;
      for (const auto& e : v) {
        if (!first) out += ',';
        first = false;
        SVC_RETURN_IF_ERROR(Write(out, e));
      }
      out += ']';
      return Status::Ok();
    }
    case Json::value_t::object: {
      std::vector<std::string_view> keys;
      for (auto it = v.begin(); it != v.end(); ++it) {
        SVC_RETURN_IF_ERROR(Utf16(it.key()).status());  // valid UTF-8
        keys.emplace_back(it.key());
      }
      std::sort(keys.begin(), keys.end(), Utf16Less);
      out += '{';
      bool first = true;
      for (std::string_view k : keys) {
        if (!first) out += ',';
        first = false;
        AppendCanonicalString(out, k);
        out += ':';
        SVC_RETURN_IF_ERROR(Write(out, v.at(std::string(k))));
      }
      out += '}';
      return Status::Ok();
    }
    default: return InvalidArgument("not a JSON value");
  }
}

}  // namespace

namespace {

// The code point at s[i] (valid UTF-8), advancing i.
uint32_t NextCodePoint(std::string_view s, size_t& i) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  int len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : 4;
  uint32_t cp = len == 1 ? c : len == 2 ? (c & 0x1f) : len == 3 ? (c & 0x0f) : (c & 0x07);
  for (int j = 1; j < len && i + static_cast<size_t>(j) < s.size(); ++j) {
    cp = (cp << 6) | (static_cast<unsigned char>(s[i + static_cast<size_t>(j)]) & 0x3f);
  }
  i += static_cast<size_t>(len);
  return cp;
}

}  // namespace

bool Utf16Less(std::string_view a, std::string_view b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (static_cast<unsigned char>(a[i]) < 0x80 && static_cast<unsigned char>(b[j]) < 0x80) {
      if (a[i] != b[j]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]);
      ++i;
      ++j;
      continue;
    }
    uint32_t x = NextCodePoint(a, i), y = NextCodePoint(b, j);
    if (x == y) continue;
    // UTF-16 order is code point order except that U+10000 and above (surrogate pairs, whose
    // first unit is 0xD800..0xDBFF) sort before U+E000..U+FFFF.
    uint32_t ux = x >= 0x10000 ? 0xd800 + ((x - 0x10000) >> 10) : x;
    uint32_t uy = y >= 0x10000 ? 0xd800 + ((y - 0x10000) >> 10) : y;
    if (ux != uy) return ux < uy;
    return x < y;  // the same high surrogate: the low ones order as the code points do
  }
  return a.size() - i < b.size() - j;
}



void AppendCanonicalString(std::string& out, std::string_view s) {
  // Most strings need no escape: appended at once.
  const size_t plain = PlainPrefix(s);
  if (plain == s.size()) {
    const size_t at = out.size();
    out.resize(at + s.size() + 2);
    out[at] = '"';
    std::memcpy(out.data() + at + 1, s.data(), s.size());
    out[at + 1 + s.size()] = '"';
    return;
  }
  out += '"';
  size_t start = 0;
  for (size_t i = plain; i < s.size(); ++i) {
    i += PlainPrefix(s.substr(i));  // to the next byte that needs escaping
    if (i >= s.size()) break;
    unsigned char c = static_cast<unsigned char>(s[i]);
    out.append(s.data() + start, i - start);
    start = i + 1;
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default: {
        static constexpr char kHex[] = "0123456789abcdef";
        out += "\\u00";
        out += kHex[c >> 4];
        out += kHex[c & 0xf];
      }
    }
  }
  out.append(s.data() + start, s.size() - start);
  out += '"';
}

Result<std::string> CanonicalJson(const Json& value) {
  std::string out;
  SVC_RETURN_IF_ERROR(Write(out, value));
  return out;
}

}  // namespace svc::core
