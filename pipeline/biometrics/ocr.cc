#include "pipeline/biometrics/ocr.h"

#include <leptonica/allheaders.h>
#include <tesseract/baseapi.h>

#include <algorithm>
#include <memory>
#include <sstream>

// libgomp's C API (Tesseract links it); declared here so that this file needs no OpenMP flags.
extern "C" void omp_set_max_active_levels(int max_levels);

namespace svc::pipeline::biometrics {

namespace docs = pipeline::documents;

core::Result<std::string> OcrText(const Image& image) {
  SVC_ASSIGN_OR_RETURN(OcrPage page, OcrRead(image));
  return std::move(page.text);
}

core::Result<OcrPage> OcrRead(const Image& image, OcrCharset charset) {
  if (image.width <= 0 || image.height <= 0) return core::InvalidArgument("empty image");
  // One engine per thread, initialised once (loading the model costs more than a page).
  thread_local std::unique_ptr<tesseract::TessBaseAPI> engine;
  if (engine == nullptr) {
    // Debian's Tesseract parallelises its LSTM with OpenMP. Our callers already run one OCR per
    // worker thread; OpenMP teams on top of that oversubscribe the cores and spin, costing 5-10x
    // the CPU (measured: 650 ms -> 115 ms for one card side). Parallel regions started from this
    // thread run on it alone.
    omp_set_max_active_levels(0);
    auto fresh = std::make_unique<tesseract::TessBaseAPI>();
    if (fresh->Init(nullptr, "eng", tesseract::OEM_LSTM_ONLY) != 0) {
      return core::Unavailable("Tesseract's English model is missing: install tesseract-ocr-eng "
                               "(scripts/setup does)");
    }
    fresh->SetPageSegMode(tesseract::PSM_SINGLE_BLOCK);
    fresh->SetVariable("debug_file", "/dev/null");
    engine = std::move(fresh);
  }
  tesseract::TessBaseAPI& api = *engine;
  // Machine-readable text: no space (a space let in, Tesseract reads runs of '<' as gaps). Words:
  // letters and the space (without it Tesseract glues words: "MARIAJOSEFINA").
  api.SetVariable("tessedit_char_whitelist", charset == OcrCharset::kMachine ? "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789<"
                                                                             : "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 ");
  // Card-sized text reads best (and fastest) with the longer side near 1000 pixels: a 1280-pixel
  // card's MRZ was missed at full size and read at 960, in a seventh of the time.
  const Image* page = &image;
  Image scaled;
  double scale = 1;
  if (std::max(image.width, image.height) > kOcrMaxSide) {
    scale = double(kOcrMaxSide) / std::max(image.width, image.height);
    scaled = Scale(image, scale);
    page = &scaled;
  }
  api.SetImage(page->rgb.data(), page->width, page->height, 3, page->width * 3);
  api.SetSourceResolution(300);
  std::unique_ptr<char[]> text(api.GetUTF8Text());
  if (text == nullptr) {
    api.Clear();
    return core::Unavailable("Tesseract returned no text");
  }
  OcrPage read;
  read.text = text.get();
  read.scale = scale;
  // The words with their boxes, from the same recognition.
  std::unique_ptr<tesseract::ResultIterator> it(api.GetIterator());
  int line = -1;
  if (it != nullptr) {
    do {
      if (it->IsAtBeginningOf(tesseract::RIL_TEXTLINE)) ++line;
      std::unique_ptr<char[]> word(it->GetUTF8Text(tesseract::RIL_WORD));
      if (word == nullptr) continue;
      OcrWord w;
      w.text = word.get();
      w.line = std::max(0, line);
      it->BoundingBox(tesseract::RIL_WORD, &w.left, &w.top, &w.right, &w.bottom);
      w.confidence = it->Confidence(tesseract::RIL_WORD);
      read.words.push_back(std::move(w));
    } while (it->Next(tesseract::RIL_WORD));
  }
  api.Clear();
  return read;
}

namespace {

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::string clean;
    for (char c : line) {
      if ((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '<') clean += c;
    }
    if (!clean.empty()) out.push_back(clean);
  }
  return out;
}

// Fits a line to `length` by growing or shrinking its longest run of '<' (OCR adds or drops
// fillers); "" when it cannot.
std::string FitLength(std::string s, size_t length) {
  while (s.size() != length) {
    size_t best = std::string::npos, best_len = 0;
    for (size_t i = 0; i < s.size();) {
      if (s[i] != '<') {
        ++i;
        continue;
      }
      size_t j = i;
      while (j < s.size() && s[j] == '<') ++j;
      if (j - i > best_len) {
        best_len = j - i;
        best = i;
      }
      i = j;
    }
    if (best == std::string::npos) return "";
    if (s.size() > length) s.erase(best, 1);
    else s.insert(best, 1, '<');
  }
  return s;
}

// Variants of an OCR'd MRZ line, most likely first: with each 'K' or 'C' that touches a '<' read
// as '<' (Tesseract's systematic MRZ error), then as read. Check digits cannot tell 'K' from '<'
// (K = 20 contributes 0 mod 10 at every weight), so the order matters. In the names line a letter
// is only taken for a filler between fillers or at the line's end, so names keep their K.
std::vector<std::string> Variants(const std::string& line, size_t length, bool names) {
  std::vector<std::string> out;
  std::string fixed = line;
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = 0; i < fixed.size(); ++i) {
      bool left = i > 0 && fixed[i - 1] == '<';
      bool right = i + 1 < fixed.size() && fixed[i + 1] == '<';
      bool end = i + 1 == fixed.size();
      bool filler = names ? (left && (right || end)) : (left || right);
      if ((fixed[i] == 'K' || fixed[i] == 'C') && filler) {
        fixed[i] = '<';
        changed = true;
      }
    }
  }
  for (const std::string& v : {fixed, line}) {
    std::string f = FitLength(v, length);
    if (!f.empty() && std::find(out.begin(), out.end(), f) == out.end()) out.push_back(f);
  }
  return out;
}

}  // namespace

std::optional<MrzRead> FindMrz(const std::string& text, const docs::Date& today) {
  auto lines = Lines(text);
  auto try_format = [&](size_t count, size_t length) -> std::optional<MrzRead> {
    for (size_t start = 0; start + count <= lines.size(); ++start) {
      bool shaped = true;
      for (size_t k = 0; k < count; ++k) {
        size_t n = lines[start + k].size();
        shaped &= n + 6 >= length && n <= length + 8;
      }
      if (!shaped) continue;
      std::vector<std::vector<std::string>> options;
      bool usable = true;
      for (size_t k = 0; k < count; ++k) {
        bool names = (count == 3 && k == 2) || (count == 2 && k == 0);
        options.push_back(Variants(lines[start + k], length, names));
        usable &= !options.back().empty();
      }
      if (!usable) continue;
      // Every combination of the variants (at most 2^3): the check digits decide.
      std::vector<size_t> pick(count, 0);
      for (;;) {
        std::vector<std::string> candidate;
        for (size_t k = 0; k < count; ++k) candidate.push_back(options[k][pick[k]]);
        auto r = docs::CheckMrz(candidate, today);
        if (r.valid) return MrzRead{candidate, r};
        size_t k = 0;
        while (k < count && ++pick[k] == options[k].size()) pick[k++] = 0;
        if (k == count) break;
      }
    }
    return std::nullopt;
  };
  if (auto td1 = try_format(3, 30)) return td1;
  return try_format(2, 44);
}

std::optional<std::string> FindCurp(const std::string& text, const docs::Date& today) {
  auto plausible = [&](const std::string& c) {
    return core::mx::CheckCurp(c, today).valid;
  };
  // An 18-character candidate as read, then with the OCR confusions where digits belong (birth
  // date, homoclave, check digit): O->0, I->1, S->5, B->8; the homoclave (17th) may also be a
  // letter read as a digit. The check digit decides.
  auto accept = [&](const std::string& candidate) -> std::optional<std::string> {
    if (plausible(candidate)) return candidate;
    std::string fixed = candidate;
    for (size_t p : {4u, 5u, 6u, 7u, 8u, 9u, 16u, 17u}) {
      char& c = fixed[p];
      c = c == 'O' ? '0' : c == 'I' ? '1' : c == 'S' ? '5' : c == 'B' ? '8' : c;
    }
    if (plausible(fixed)) return fixed;
    std::string letter = fixed;
    char& h = letter[16];
    h = h == '0' ? 'O' : h == '1' ? 'I' : h == '5' ? 'S' : h == '8' ? 'B' : h;
    if (plausible(letter)) return letter;
    return std::nullopt;
  };
  const auto lines = Lines(text);
  for (const auto& line : lines) {
    for (size_t i = 0; i + 18 <= line.size(); ++i) {
      if (auto c = accept(line.substr(i, 18))) return c;
    }
  }
  // Tesseract sometimes reads one character too many inside a run ("MDFERRS" for "MDFRRS"): each
  // 19 characters with one left out, the CURP's structure and check digit deciding.
  for (const auto& line : lines) {
    for (size_t i = 0; i + 19 <= line.size(); ++i) {
      const std::string window = line.substr(i, 19);
      for (size_t d = 0; d < 19; ++d) {
        if (auto c = accept(window.substr(0, d) + window.substr(d + 1))) return c;
      }
    }
  }
  return std::nullopt;
}

std::optional<docs::NameParts> FindPrintedNames(const Image& image, const OcrPage& page) {
  static constexpr std::string_view kLabels[] = {"DOMICILIO", "CLAVE",     "CURP",      "FECHA",    "SECCION", "VIGENCIA",
                                                 "EMISION",   "ESTADO",    "MUNICIPIO", "LOCALIDAD", "REGISTRO", "SEXO",
                                                 "INSTITUTO", "CREDENCIAL"};
  auto is_label = [](const std::string& w) {
    for (auto l : kLabels) {
      if (w.rfind(l, 0) == 0) return true;
    }
    return false;
  };
  for (const OcrWord& label : page.words) {
    if (label.text.find("NOMBRE") == std::string::npos) continue;
    // The column under the label, in the image's pixels: from a letter's height left of the
    // label to the right edge, seven label heights down (three names and room to spare).
    const double k = 1.0 / page.scale;
    const int h = std::max(4, static_cast<int>((label.bottom - label.top) * k));
    const int left = std::max(0, static_cast<int>(label.left * k) - h);
    const int top = std::max(0, static_cast<int>(label.bottom * k) + 1);
    const int bottom = std::min(image.height, top + 8 * h);
    if (bottom - top < 2 * h || image.width - left < 4 * h) continue;
    auto column = OcrRead(Crop(image, left, top, image.width - left, bottom - top), OcrCharset::kWords);
    if (!column.ok()) continue;
    std::vector<std::string> names;
    std::istringstream in(column->text);
    std::string line;
    while (std::getline(in, line) && names.size() < 3) {
      std::string name;
      for (char c : line) {
        c = c == '0' ? 'O' : c == '1' ? 'I' : c == '5' ? 'S' : c == '8' ? 'B' : c;
        if (c >= 'A' && c <= 'Z') {
          name += c;
        } else if (c == ' ' && !name.empty() && name.back() != ' ') {
          name += ' ';
        }
      }
      while (!name.empty() && name.back() == ' ') name.pop_back();
      if (name.empty()) continue;
      if (is_label(name)) break;
      // A label printed on the same line to the right (SEXO H) is not part of the name.
      if (size_t sexo = name.find(" SEXO"); sexo != std::string::npos) name.erase(sexo);
      if (name.size() >= 2) names.push_back(name);
    }
    if (names.empty()) continue;
    float least = 100;
    for (const auto& w : column->words) {
      if (is_label(w.text)) break;
      least = std::min(least, w.confidence);
    }
    if (least < kNameWordConfidence) return std::nullopt;
    docs::NameParts n;
    n.surname1 = names[0];
    if (names.size() == 3) {
      n.surname2 = names[1];
      n.given_names = names[2];
    } else if (names.size() == 2) {
      n.given_names = names[1];  // one surname
    }
    return n;
  }
  return std::nullopt;
}

}  // namespace svc::pipeline::biometrics
