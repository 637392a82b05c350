#include "pipeline/kyb/list_loaders.h"

#include <cctype>
#include <map>
#include <memory>

#include "core/crypto.h"
#include "core/ids.h"
#include "core/json.h"
#include "core/mx_ids.h"
#include "pipeline/kyb/name_match.h"

namespace svc::pipeline::kyb {

namespace {

core::Status Bad(std::string_view format, const std::string& where, const std::string& what) {
  return core::InvalidArgument(std::string(format) + ": " + where + ": " + what);
}

std::string Trim(std::string_view s) {
  size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return std::string(s.substr(a, b - a));
}

std::vector<std::string> Split(std::string_view s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find(sep, start);
    if (end == std::string_view::npos) end = s.size();
    std::string t = Trim(s.substr(start, end - start));
    if (!t.empty()) out.push_back(std::move(t));
    start = end + 1;
  }
  return out;
}

void AddUnique(std::vector<std::string>& v, std::string s) {
  if (s.empty()) return;
  for (const auto& x : v) {
    if (x == s) return;
  }
  v.push_back(std::move(s));
}

// ParseCsv, its error named after the format and the file.
core::Result<std::vector<std::vector<std::string>>> Csv(std::string_view format, const std::string& file,
                                                       std::string_view text);

// ---- OFAC SDN.CSV / ALT.CSV ------------------------------------------------------------------

std::string OfacValue(const std::string& s) {
  std::string t = Trim(s);
  return t == "-0-" ? std::string() : t;
}

// "01 Jan 1960" -> "1960-01-01"; "Jan 1960", "circa 1960", "1960" -> "1960"; else "".
std::string OfacDate(std::string_view text) {
  static const std::map<std::string, int, std::less<>> kMonths = {
      {"jan", 1}, {"feb", 2}, {"mar", 3}, {"apr", 4}, {"may", 5}, {"jun", 6},
      {"jul", 7}, {"aug", 8}, {"sep", 9}, {"oct", 10}, {"nov", 11}, {"dec", 12}};
  std::vector<std::string> parts = Split(text, ' ');
  std::string year, month, day;
  for (const auto& p : parts) {
    std::string lower;
    for (char c : p) lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    if (p.size() == 4 && std::all_of(p.begin(), p.end(), ::isdigit)) {
      year = p;
    } else if (lower.size() >= 3 && kMonths.count(lower.substr(0, 3)) > 0 && std::isalpha(static_cast<unsigned char>(lower[0]))) {
      char m[3];
      std::snprintf(m, sizeof m, "%02d", kMonths.at(lower.substr(0, 3)));
      month = m;
    } else if (p.size() <= 2 && std::all_of(p.begin(), p.end(), ::isdigit)) {
      day = p.size() == 1 ? "0" + p : p;
    }
  }
  if (year.empty()) return "";
  if (!month.empty() && !day.empty()) return year + "-" + month + "-" + day;
  return year;
}

// Facts in an SDN entry's remarks: "DOB 01 Jan 1960; POB Culiacan, Sinaloa, Mexico; nationality
// Mexico; citizen Mexico; C.U.R.P. PEPJ800101HDFRRN03 (Mexico); R.F.C. PEPJ800101AB1 (Mexico)".
void ReadRemarks(const std::string& remarks, ListEntry& e) {
  for (std::string item : Split(remarks, ';')) {
    while (!item.empty() && item.back() == '.') item.pop_back();
    auto after = [&item](std::string_view label) -> std::optional<std::string> {
      if (item.size() > label.size() && item.compare(0, label.size(), label) == 0 && item[label.size()] == ' ') {
        return Trim(std::string_view(item).substr(label.size() + 1));
      }
      return std::nullopt;
    };
    if (auto v = after("DOB") ? after("DOB") : after("alt. DOB")) {
      for (const auto& d : Split(*v, ',')) {  // "DOB 1960, 1961" or "DOB 01 Jan 1960 to 1962"
        AddUnique(e.birth_dates, OfacDate(d.substr(0, d.find(" to "))));
      }
    } else if (auto n = after("nationality")) {
      AddUnique(e.nationalities, *n);
    } else if (auto c = after("citizen")) {
      AddUnique(e.nationalities, *c);
    } else {
      for (std::string_view label : {"R.F.C.", "C.U.R.P.", "Passport", "Cedula No.", "NIT #", "Tax ID No."}) {
        if (auto id = after(label)) {
          std::string number = id->substr(0, id->find(' '));
          AddUnique(e.id_numbers, number);
          break;
        }
      }
    }
  }
}

core::Result<std::vector<ListEntry>> LoadOfac(const std::vector<std::string>& files) {
  const std::string_view f = "ofac_sdn_csv";
  if (files.empty() || files.size() > 2) return Bad(f, "files", "SDN.CSV, and optionally ALT.CSV");
  SVC_ASSIGN_OR_RETURN(auto rows, Csv(f, "SDN.CSV", files[0]));
  std::vector<ListEntry> out;
  std::map<std::string, size_t> by_id;
  size_t line = 0;
  for (const auto& r : rows) {
    ++line;
    if (r.size() == 1 && Trim(r[0]).empty()) continue;
    if (r.size() == 1 && r[0].find('\x1a') != std::string::npos) continue;  // the DOS end-of-file mark
    if (r.size() != 12) {
      return Bad(f, "SDN.CSV row " + std::to_string(line), "has " + std::to_string(r.size()) + " fields, not 12");
    }
    const std::string id = Trim(r[0]);
    if (id.empty() || !std::all_of(id.begin(), id.end(), ::isdigit)) {
      return Bad(f, "SDN.CSV row " + std::to_string(line), "ent_num is not a number");
    }
    ListEntry e;
    e.entry_id = id;
    e.name = OfacValue(r[1]);
    if (e.name.empty()) return Bad(f, "SDN.CSV row " + std::to_string(line), "SDN_Name is empty");
    const std::string type = OfacValue(r[2]);
    e.kind = type == "individual" ? "person" : type.empty() ? "company" : "other";
    for (const auto& p : Split(OfacValue(r[3]), ']')) {  // "[SDNTK] [ILLICIT-DRUGS-EO14059]"
      std::string prog = Trim(p);
      if (!prog.empty() && prog.front() == '[') prog.erase(0, 1);
      AddUnique(e.programs, Trim(prog));
    }
    ReadRemarks(OfacValue(r[11]), e);
    if (by_id.count(id) > 0) return Bad(f, "SDN.CSV row " + std::to_string(line), "ent_num " + id + " repeats");
    by_id[id] = out.size();
    out.push_back(std::move(e));
  }
  if (files.size() == 2) {
    SVC_ASSIGN_OR_RETURN(auto alts, Csv(f, "ALT.CSV", files[1]));
    line = 0;
    for (const auto& r : alts) {
      ++line;
      if (r.size() == 1 && (Trim(r[0]).empty() || r[0].find('\x1a') != std::string::npos)) continue;
      if (r.size() != 5) {
        return Bad(f, "ALT.CSV row " + std::to_string(line), "has " + std::to_string(r.size()) + " fields, not 5");
      }
      auto it = by_id.find(Trim(r[0]));
      if (it == by_id.end()) return Bad(f, "ALT.CSV row " + std::to_string(line), "alias of an unknown ent_num " + Trim(r[0]));
      AddUnique(out[it->second].aliases, OfacValue(r[3]));
    }
  }
  return out;
}

// ---- A small XML reader (elements, text, entities; attributes skipped) -----------------------

struct XmlNode {
  std::string name;
  std::string text;
  std::vector<std::unique_ptr<XmlNode>> children;
  const XmlNode* Child(std::string_view n) const {
    for (const auto& c : children) {
      if (c->name == n) return c.get();
    }
    return nullptr;
  }
  std::string ChildText(std::string_view n) const {
    const XmlNode* c = Child(n);
    return c == nullptr ? std::string() : Trim(c->text);
  }
};

class XmlReader {
 public:
  explicit XmlReader(std::string_view s) : s_(s) {}

  core::Result<std::unique_ptr<XmlNode>> Document() {
    SkipProlog();
    SVC_ASSIGN_OR_RETURN(auto root, Element());
    SkipMisc();
    if (pos_ < s_.size()) return Error("content after the root element");
    return root;
  }

 private:
  core::Status Error(const std::string& what) const {
    size_t line = 1;
    for (size_t i = 0; i < pos_ && i < s_.size(); ++i) line += s_[i] == '\n';
    return core::InvalidArgument("line " + std::to_string(line) + ": " + what);
  }
  bool Starts(std::string_view t) const { return s_.substr(pos_, t.size()) == t; }
  void SkipSpace() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool SkipUntil(std::string_view end) {
    size_t at = s_.find(end, pos_);
    if (at == std::string_view::npos) return false;
    pos_ = at + end.size();
    return true;
  }
  void SkipMisc() {
    for (;;) {
      SkipSpace();
      if (Starts("<?")) {
        if (!SkipUntil("?>")) return;
      } else if (Starts("<!--")) {
        if (!SkipUntil("-->")) return;
      } else if (Starts("<!DOCTYPE")) {
        if (!SkipUntil(">")) return;
      } else {
        return;
      }
    }
  }
  void SkipProlog() {
    if (Starts("\xEF\xBB\xBF")) pos_ += 3;  // a UTF-8 byte-order mark
    SkipMisc();
  }
  core::Result<std::string> Name() {
    size_t start = pos_;
    while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_' ||
                                s_[pos_] == '-' || s_[pos_] == '.' || s_[pos_] == ':')) {
      ++pos_;
    }
    if (pos_ == start) return Error("an element name was expected");
    return std::string(s_.substr(start, pos_ - start));
  }
  core::Status AppendText(std::string_view raw, std::string& out) {
    for (size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] != '&') {
        out.push_back(raw[i]);
        continue;
      }
      size_t semi = raw.find(';', i);
      if (semi == std::string_view::npos || semi - i > 10) return Error("an unterminated entity");
      std::string_view ent = raw.substr(i + 1, semi - i - 1);
      if (ent == "amp") out.push_back('&');
      else if (ent == "lt") out.push_back('<');
      else if (ent == "gt") out.push_back('>');
      else if (ent == "quot") out.push_back('"');
      else if (ent == "apos") out.push_back('\'');
      else if (!ent.empty() && ent[0] == '#') {
        unsigned long cp = ent.size() > 1 && (ent[1] == 'x' || ent[1] == 'X')
                               ? std::strtoul(std::string(ent.substr(2)).c_str(), nullptr, 16)
                               : std::strtoul(std::string(ent.substr(1)).c_str(), nullptr, 10);
        if (cp == 0 || cp > 0x10FFFF) return Error("a bad character reference");
        if (cp < 0x80) {
          out.push_back(static_cast<char>(cp));
        } else if (cp < 0x800) {
          out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
          out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
        } else if (cp < 0x10000) {
          out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
          out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
          out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
        } else {
          out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
          out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
          out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
          out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
        }
      } else {
        return Error("an unknown entity &" + std::string(ent) + ";");
      }
      i = semi;
    }
    return core::Status::Ok();
  }
  core::Result<std::unique_ptr<XmlNode>> Element(int depth = 0) {
    if (depth > 64) return Error("elements nested too deep");
    if (!Starts("<")) return Error("an element was expected");
    ++pos_;
    auto node = std::make_unique<XmlNode>();
    SVC_ASSIGN_OR_RETURN(node->name, Name());
    // Attributes: name="value" or name='value', skipped.
    for (;;) {
      SkipSpace();
      if (pos_ >= s_.size()) return Error("the element " + node->name + " is not closed");
      if (Starts("/>")) {
        pos_ += 2;
        return node;
      }
      if (Starts(">")) {
        ++pos_;
        break;
      }
      SVC_RETURN_IF_ERROR(Name().status());
      SkipSpace();
      if (!Starts("=")) return Error("an attribute without a value");
      ++pos_;
      SkipSpace();
      if (pos_ >= s_.size() || (s_[pos_] != '"' && s_[pos_] != '\'')) return Error("an unquoted attribute value");
      const char q = s_[pos_++];
      size_t end = s_.find(q, pos_);
      if (end == std::string_view::npos) return Error("an unterminated attribute value");
      pos_ = end + 1;
    }
    // Content.
    for (;;) {
      if (pos_ >= s_.size()) return Error("the element " + node->name + " is not closed");
      if (Starts("</")) {
        pos_ += 2;
        SVC_ASSIGN_OR_RETURN(std::string closing, Name());
        SkipSpace();
        if (closing != node->name || !Starts(">")) {
          return Error("</" + closing + "> closes <" + node->name + ">");
        }
        ++pos_;
        return node;
      }
      if (Starts("<!--")) {
        if (!SkipUntil("-->")) return Error("an unterminated comment");
        continue;
      }
      if (Starts("<![CDATA[")) {
        pos_ += 9;
        size_t end = s_.find("]]>", pos_);
        if (end == std::string_view::npos) return Error("an unterminated CDATA section");
        node->text.append(s_.substr(pos_, end - pos_));
        pos_ = end + 3;
        continue;
      }
      if (Starts("<")) {
        SVC_ASSIGN_OR_RETURN(auto child, Element(depth + 1));
        node->children.push_back(std::move(child));
        continue;
      }
      size_t end = s_.find('<', pos_);
      if (end == std::string_view::npos) end = s_.size();
      SVC_RETURN_IF_ERROR(AppendText(s_.substr(pos_, end - pos_), node->text));
      pos_ = end;
    }
  }

  std::string_view s_;
  size_t pos_ = 0;
};

core::Result<std::vector<ListEntry>> LoadUn(const std::vector<std::string>& files) {
  const std::string_view f = "un_consolidated_xml";
  if (files.size() != 1) return Bad(f, "files", "one consolidated list file");
  auto doc = XmlReader(files[0]).Document();
  if (!doc.ok()) return Bad(f, "XML", std::string(doc.status().message()));
  const XmlNode& root = **doc;
  if (root.name != "CONSOLIDATED_LIST") return Bad(f, "root", "<" + root.name + "> is not <CONSOLIDATED_LIST>");
  std::vector<ListEntry> out;
  auto read = [&](const XmlNode& n, const std::string& kind, const char* alias_tag) -> core::Status {
    ListEntry e;
    e.kind = kind;
    e.entry_id = n.ChildText("REFERENCE_NUMBER");
    if (e.entry_id.empty()) e.entry_id = n.ChildText("DATAID");
    if (e.entry_id.empty()) return Bad(f, "<" + n.name + ">", "has neither REFERENCE_NUMBER nor DATAID");
    for (const char* part : {"FIRST_NAME", "SECOND_NAME", "THIRD_NAME", "FOURTH_NAME"}) {
      std::string p = n.ChildText(part);
      if (!p.empty()) e.name += (e.name.empty() ? "" : " ") + p;
    }
    if (e.name.empty()) return Bad(f, "<" + n.name + "> " + e.entry_id, "has no name");
    AddUnique(e.programs, n.ChildText("UN_LIST_TYPE"));
    for (const auto& c : n.children) {
      if (c->name == alias_tag) {
        AddUnique(e.aliases, c->ChildText("ALIAS_NAME"));
      } else if (c->name == "INDIVIDUAL_DATE_OF_BIRTH") {
        std::string d = c->ChildText("DATE");
        if (d.size() >= 10) d = d.substr(0, 10);
        if (d.empty()) d = c->ChildText("YEAR");
        AddUnique(e.birth_dates, d);
      } else if (c->name == "NATIONALITY") {
        for (const auto& v : c->children) {
          if (v->name == "VALUE") AddUnique(e.nationalities, Trim(v->text));
        }
      } else if (c->name == "INDIVIDUAL_DOCUMENT") {
        AddUnique(e.id_numbers, c->ChildText("NUMBER"));
      }
    }
    out.push_back(std::move(e));
    return core::Status::Ok();
  };
  for (const auto& group : root.children) {
    if (group->name != "INDIVIDUALS" && group->name != "ENTITIES") continue;
    const bool people = group->name == "INDIVIDUALS";
    for (const auto& n : group->children) {
      if (n->name != (people ? "INDIVIDUAL" : "ENTITY")) continue;
      SVC_RETURN_IF_ERROR(read(*n, people ? "person" : "company", people ? "INDIVIDUAL_ALIAS" : "ENTITY_ALIAS"));
    }
  }
  return out;
}

// ---- OpenSanctions targets.simple.csv and FollowTheMoney JSON -------------------------------

std::string KindOfSchema(std::string_view schema) {
  if (schema == "Person") return "person";
  if (schema == "Company" || schema == "Organization" || schema == "LegalEntity" || schema == "PublicBody") {
    return "company";
  }
  return "other";
}

core::Result<std::vector<ListEntry>> LoadOpenSanctionsCsv(const std::vector<std::string>& files) {
  const std::string_view f = "opensanctions_csv";
  if (files.size() != 1) return Bad(f, "files", "one targets.simple.csv file");
  SVC_ASSIGN_OR_RETURN(auto rows, Csv(f, "targets.simple.csv", files[0]));
  if (rows.empty()) return Bad(f, "header", "the file is empty");
  std::map<std::string, size_t> col;
  for (size_t i = 0; i < rows[0].size(); ++i) col[Trim(rows[0][i])] = i;
  for (const char* need : {"id", "schema", "name", "aliases", "birth_date", "countries", "identifiers", "sanctions"}) {
    if (col.count(need) == 0) return Bad(f, "header", std::string("has no column ") + need);
  }
  std::vector<ListEntry> out;
  for (size_t line = 1; line < rows.size(); ++line) {
    const auto& r = rows[line];
    if (r.size() == 1 && Trim(r[0]).empty()) continue;
    if (r.size() != rows[0].size()) {
      return Bad(f, "row " + std::to_string(line + 1),
                 "has " + std::to_string(r.size()) + " fields, the header " + std::to_string(rows[0].size()));
    }
    ListEntry e;
    e.entry_id = Trim(r[col["id"]]);
    e.name = Trim(r[col["name"]]);
    if (e.entry_id.empty() || e.name.empty()) return Bad(f, "row " + std::to_string(line + 1), "id or name is empty");
    e.kind = KindOfSchema(Trim(r[col["schema"]]));
    e.aliases = Split(r[col["aliases"]], ';');
    e.birth_dates = Split(r[col["birth_date"]], ';');
    e.nationalities = Split(r[col["countries"]], ';');
    e.id_numbers = Split(r[col["identifiers"]], ';');
    e.programs = Split(r[col["sanctions"]], ';');
    // A PEP has no sanction: its dataset says what list it is on.
    if (e.programs.empty()) e.programs = Split(r[col["dataset"]], ';');
    out.push_back(std::move(e));
  }
  return out;
}

// The FollowTheMoney schemas a name is screened against; the rest (Family, Occupancy, Position,
// Address, Ownership, Directorship, …) describe relations and are not list entries. Their kind
// is KindOfSchema's.
bool ScreenableSchema(std::string_view schema) {
  return schema == "Person" || schema == "Company" || schema == "Organization" || schema == "LegalEntity" ||
         schema == "PublicBody" || schema == "Vessel" || schema == "Airplane";
}

// An OpenSanctions export (entities.ftm.json) holds every entity of its datasets: the targets
// (sanctioned or exposed persons and companies) and what describes them (their families,
// positions, addresses, sanctions, identity documents). Only targets of screenable schemas become
// entries; an Identification or Passport gives its number to its holder, a Sanction its programme
// to its entity; everything else is skipped and counted by schema. An entity without `target` is
// taken as one (FollowTheMoney files that are not OpenSanctions exports have no such member).
core::Status LoadFtm(const std::vector<std::string>& files, LoadedList& out) {
  const std::string_view f = "ftm_json";
  if (files.size() != 1) return Bad(f, "files", "one file of entities, one JSON object a line");
  std::map<std::string, size_t> index;  // entity id -> entry
  std::vector<std::pair<std::string, std::string>> numbers, programmes;  // holder id, value
  size_t line = 0, start = 0;
  const std::string& text = files[0];
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string_view l(text.data() + start, end - start);
    start = end + 1;
    ++line;
    if (Trim(l).empty()) continue;
    core::Json j = core::ParseJsonOrDiscarded(l);
    const std::string where = "line " + std::to_string(line);
    if (!j.is_object()) return Bad(f, where, "is not a JSON object");
    const core::Json props = j.value("properties", core::Json());
    if (!j.value("id", core::Json()).is_string() || !j.value("schema", core::Json()).is_string() || !props.is_object()) {
      return Bad(f, where, "an entity needs id, schema and properties");
    }
    auto values = [&props](const char* name) {
      std::vector<std::string> v;
      auto it = props.find(name);
      if (it == props.end() || !it->is_array()) return v;
      for (const auto& x : *it) {
        if (x.is_string()) AddUnique(v, Trim(x.get<std::string>()));
      }
      return v;
    };
    const std::string schema = j["schema"].get<std::string>();
    if (schema == "Identification" || schema == "Passport") {
      for (const auto& holder : values("holder")) {
        for (const auto& n : values("number")) numbers.emplace_back(holder, n);
      }
      ++out.skipped["schema:" + schema];
      continue;
    }
    if (schema == "Sanction") {
      for (const auto& entity : values("entity")) {
        for (const auto& p : values("program")) programmes.emplace_back(entity, p);
      }
      ++out.skipped["schema:" + schema];
      continue;
    }
    if (!ScreenableSchema(schema)) {
      ++out.skipped["schema:" + schema];
      continue;
    }
    if (j.value("target", core::Json(true)) == core::Json(false)) {
      ++out.skipped["not_target:" + schema];
      continue;
    }
    ListEntry e;
    e.entry_id = j["id"].get<std::string>();
    e.kind = KindOfSchema(schema);
    std::vector<std::string> names = values("name");
    if (names.empty()) {
      ++out.skipped["unnamed:" + schema];
      continue;
    }
    e.name = names[0];
    for (size_t i = 1; i < names.size(); ++i) AddUnique(e.aliases, names[i]);
    for (const char* p : {"alias", "weakAlias", "previousName"}) {
      for (auto& a : values(p)) AddUnique(e.aliases, std::move(a));
    }
    e.birth_dates = values("birthDate");
    for (const char* p : {"nationality", "citizenship", "country", "jurisdiction"}) {
      for (auto& c : values(p)) AddUnique(e.nationalities, std::move(c));
    }
    for (const char* p : {"idNumber", "taxNumber", "registrationNumber", "passportNumber", "innCode", "ogrnCode",
                          "leiCode", "imoNumber"}) {
      for (auto& c : values(p)) AddUnique(e.id_numbers, std::move(c));
    }
    for (const char* p : {"program", "topics"}) {
      for (auto& c : values(p)) AddUnique(e.programs, std::move(c));
    }
    index[e.entry_id] = out.entries.size();
    out.entries.push_back(std::move(e));
  }
  for (auto& [holder, n] : numbers) {
    if (auto it = index.find(holder); it != index.end()) AddUnique(out.entries[it->second].id_numbers, std::move(n));
  }
  for (auto& [entity, p] : programmes) {
    if (auto it = index.find(entity); it != index.end()) AddUnique(out.entries[it->second].programs, std::move(p));
  }
  return core::Status::Ok();
}

// ---- The SAT's lists (Mexico): CFF art. 69-B and art. 69 ---------------------------------

bool ValidUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    if (n == 0 || i + n > s.size() || (n == 2 && c < 0xC2)) return false;
    for (size_t k = 1; k < n; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    }
    i += n;
  }
  return true;
}

// The SAT publishes its CSV files in Windows-1252 (Latin-1 with Windows' C1 range: accents, Ñ,
// and the odd “”–). A file that is valid UTF-8 (with or without a byte-order mark) is read as
// such; anything else as Windows-1252. Either way, UTF-8 out.
std::string SatText(std::string_view bytes) {
  if (bytes.substr(0, 3) == "\xEF\xBB\xBF") bytes.remove_prefix(3);
  if (ValidUtf8(bytes)) return std::string(bytes);
  static const char16_t kC1[32] = {0x20AC, 0xFFFD, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
                                   0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0xFFFD, 0x017D, 0xFFFD,
                                   0xFFFD, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
                                   0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0xFFFD, 0x017E, 0x0178};
  std::string out;
  out.reserve(bytes.size() + bytes.size() / 16);
  for (char ch : bytes) {
    const auto b = static_cast<unsigned char>(ch);
    const uint32_t cp = b < 0x80 ? b : b < 0xA0 ? kC1[b - 0x80] : b;
    if (cp < 0x80) {
      out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }
  return out;
}

// A SAT file's rows from its header row on: the SAT puts title lines above the header ("Información
// actualizada al …", the list's name); the header is the first of the first ten rows with a cell
// "RFC". `columns`: the folded header names a row is read by (name_match's folding: "Situación
// del contribuyente" → "situacion del contribuyente"), each with the first folded name of its
// alternatives found; a missing one is an error.
struct SatTable {
  std::vector<std::vector<std::string>> rows;
  size_t header = 0;  // index of the header row in `rows`
  std::map<std::string, size_t> col;  // folded header name -> column
};

core::Result<SatTable> ReadSatTable(std::string_view format, const std::string& file, std::string_view bytes,
                                    const std::vector<std::vector<std::string>>& needed) {
  SatTable t;
  SVC_ASSIGN_OR_RETURN(t.rows, Csv(format, file, SatText(bytes)));
  bool found = false;
  for (size_t i = 0; i < t.rows.size() && i < 10 && !found; ++i) {
    for (const auto& cell : t.rows[i]) found |= FoldName(cell) == "rfc";
    if (found) t.header = i;
  }
  if (!found) return Bad(format, file, "no header row with an RFC column in its first ten rows");
  std::map<std::string, size_t> folded;
  for (size_t i = 0; i < t.rows[t.header].size(); ++i) folded.emplace(FoldName(t.rows[t.header][i]), i);
  for (const auto& alternatives : needed) {
    bool have = false;
    for (const auto& name : alternatives) {
      if (auto it = folded.find(name); it != folded.end() && !have) {
        t.col[alternatives[0]] = it->second;
        have = true;
      }
    }
    if (!have) return Bad(format, file + " header", "has no column " + alternatives[0]);
  }
  return t;
}

// An RFC as the SAT lists write it, checked for its shape (length, letters and date digits; the
// check digit is the SAT's own business): its compact form, or "" when it is no RFC.
std::string SatRfc(std::string_view cell, bool& persona_moral) {
  const auto check = core::mx::CheckRfc(core::mx::NormaliseRfc(cell), core::mx::CivilDate{9999, 12, 31});
  for (const auto& r : check.reasons) {
    if (r == "rfc_length" || r == "rfc_format" || r == "rfc_generic") return "";
  }
  persona_moral = check.persona_moral;
  return core::mx::CompactIdentifier(check.rfc);
}

bool BlankRow(const std::vector<std::string>& r) {
  for (const auto& c : r) {
    if (!Trim(c).empty()) return false;
  }
  return true;
}

// A data row of a SAT table: its width the header's, and its RFC one (its compact form), or the
// error naming `where`. Blank rows are skipped by the caller.
core::Result<std::string> SatRowRfc(std::string_view format, const SatTable& t, const std::vector<std::string>& r,
                                    const std::string& where, bool& persona_moral) {
  const size_t width = t.rows[t.header].size();
  if (r.size() != width) {
    return Bad(format, where, "has " + std::to_string(r.size()) + " fields, the header " + std::to_string(width));
  }
  const std::string cell = r[t.col.at("rfc")];
  const std::string rfc = SatRfc(cell, persona_moral);
  if (rfc.empty()) return Bad(format, where, "\"" + Trim(cell) + "\" is not an RFC");
  return rfc;
}

// Listado_Completo_69-B.csv: one row per taxpayer (No, RFC, Nombre del Contribuyente, Situación
// del contribuyente, then the numbers and dates of the SAT's notices and DOF publications). The
// taxpayers whose presumption was disproved (Desvirtuado) or who won in court (Sentencia
// Favorable) are no concern: counted in `skipped`, not screened. A repeated RFC keeps its most
// severe situation (Definitivo over Presunto).
core::Status LoadSat69B(const std::vector<std::string>& files, LoadedList& out) {
  const std::string_view f = "sat_69b_csv";
  if (files.size() != 1) return Bad(f, "files", "one file, the SAT's Listado_Completo_69-B.csv");
  SVC_ASSIGN_OR_RETURN(SatTable t, ReadSatTable(f, "Listado_Completo_69-B.csv", files[0],
                                                {{"rfc"},
                                                 {"nombre del contribuyente", "nombre contribuyente", "razon social"},
                                                 {"situacion del contribuyente", "situacion"}}));
  std::map<std::string, size_t> index;  // RFC -> entry
  for (size_t i = t.header + 1; i < t.rows.size(); ++i) {
    const auto& r = t.rows[i];
    const std::string where = "row " + std::to_string(i + 1);
    if (BlankRow(r)) continue;
    bool moral = false;
    SVC_ASSIGN_OR_RETURN(const std::string rfc, SatRowRfc(f, t, r, where, moral));
    const std::string name = Trim(r[t.col["nombre del contribuyente"]]);
    if (name.empty()) return Bad(f, where, "the taxpayer's name is empty");
    const std::string situation = FoldName(r[t.col["situacion del contribuyente"]]);
    std::string program;
    if (situation == "definitivo") {
      program = std::string(kSat69BDefinitivo);
    } else if (situation == "presunto") {
      program = std::string(kSat69BPresunto);
    } else if (situation == "desvirtuado" || situation == "sentencia favorable") {
      ++out.skipped["cleared:" + situation];
      continue;
    } else {
      return Bad(f, where,
                 "situación \"" + Trim(r[t.col["situacion del contribuyente"]]) +
                     "\" is none of Presunto, Desvirtuado, Definitivo, Sentencia Favorable");
    }
    if (auto it = index.find(rfc); it != index.end()) {
      auto& programs = out.entries[it->second].programs;
      if (program == kSat69BDefinitivo) programs = {program};
      continue;
    }
    ListEntry e;
    e.entry_id = rfc;
    e.kind = moral ? "company" : "person";
    e.name = name;
    e.nationalities = {"MX"};
    e.id_numbers = {rfc};
    e.programs = {program};
    index.emplace(rfc, out.entries.size());
    out.entries.push_back(std::move(e));
  }
  return core::Status::Ok();
}

// The art. 69 lists of non-compliant taxpayers, one file per supuesto (Firmes, Exigibles, No
// localizados, Cancelados, Sentencias, …): RFC, Razón social, Tipo persona, Supuesto, and dates
// and amounts. Several files may be loaded as one version; a taxpayer on several is one entry
// with each supuesto among its programmes ("CFF 69: FIRMES").
core::Status LoadSat69(const std::vector<std::string>& files, LoadedList& out) {
  const std::string_view f = "sat_69_csv";
  if (files.empty()) return Bad(f, "files", "one or more of the SAT's art. 69 files (Firmes.csv, Exigibles.csv, …)");
  std::map<std::string, size_t> index;  // RFC -> entry
  for (size_t n = 0; n < files.size(); ++n) {
    const std::string file = "file " + std::to_string(n + 1);
    SVC_ASSIGN_OR_RETURN(SatTable t, ReadSatTable(f, file, files[n],
                                                  {{"rfc"},
                                                   {"razon social", "nombre denominacion o razon social",
                                                    "nombre o razon social", "nombre del contribuyente", "contribuyente"},
                                                   {"supuesto"}}));
    for (size_t i = t.header + 1; i < t.rows.size(); ++i) {
      const auto& r = t.rows[i];
      const std::string where = file + " row " + std::to_string(i + 1);
      if (BlankRow(r)) continue;
      bool moral = false;
      SVC_ASSIGN_OR_RETURN(const std::string rfc, SatRowRfc(f, t, r, where, moral));
      const std::string name = Trim(r[t.col["razon social"]]);
      const std::string supuesto = Trim(r[t.col["supuesto"]]);
      if (name.empty() || supuesto.empty()) return Bad(f, where, "the name or the supuesto is empty");
      std::string program = std::string(kSat69Prefix);
      for (char c : supuesto) program.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
      if (auto it = index.find(rfc); it != index.end()) {
        AddUnique(out.entries[it->second].programs, std::move(program));
        continue;
      }
      ListEntry e;
      e.entry_id = rfc;
      e.kind = moral ? "company" : "person";
      e.name = name;
      e.nationalities = {"MX"};
      e.id_numbers = {rfc};
      e.programs = {std::move(program)};
      index.emplace(rfc, out.entries.size());
      out.entries.push_back(std::move(e));
    }
  }
  return core::Status::Ok();
}

core::Result<std::vector<std::vector<std::string>>> Csv(std::string_view format, const std::string& file,
                                                       std::string_view text) {
  auto rows = ParseCsv(text);
  if (!rows.ok()) return Bad(format, file, std::string(rows.status().message()));
  return rows;
}

}  // namespace

std::string SatListing(const std::vector<std::string>& programs) {
  std::string found;
  for (const auto& p : programs) {
    if (p == kSat69BDefinitivo) return "69b_definitivo";
    if (p == kSat69BPresunto) found = "69b_presunto";
    if (found.empty() && p.rfind(kSat69Prefix, 0) == 0) found = "69";
  }
  return found;
}

const std::vector<std::string>& ListFormats() {
  static const std::vector<std::string> kFormats = {"ofac_sdn_csv", "un_consolidated_xml", "opensanctions_csv",
                                                    "ftm_json",     "sat_69b_csv",         "sat_69_csv"};
  return kFormats;
}

core::Result<std::vector<std::vector<std::string>>> ParseCsv(std::string_view text) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string field;
  bool quoted = false, was_quoted = false;
  size_t line = 1;
  auto end_field = [&] {
    row.push_back(std::move(field));
    field.clear();
    was_quoted = false;
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          field.push_back('"');
          ++i;
        } else {
          quoted = false;
        }
      } else {
        if (c == '\n') ++line;
        field.push_back(c);
      }
      continue;
    }
    if (c == '"') {
      if (!field.empty() || was_quoted) {
        if (was_quoted) return core::InvalidArgument("CSV line " + std::to_string(line) + ": text after a closing quote");
        field.push_back(c);  // a quote inside an unquoted field is kept (OFAC writes a few)
        continue;
      }
      quoted = was_quoted = true;
    } else if (c == ',') {
      end_field();
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      end_field();
      rows.push_back(std::move(row));
      row.clear();
      ++line;
    } else {
      if (was_quoted) return core::InvalidArgument("CSV line " + std::to_string(line) + ": text after a closing quote");
      field.push_back(c);
    }
  }
  if (quoted) return core::InvalidArgument("CSV line " + std::to_string(line) + ": a quoted field is not closed");
  if (!field.empty() || !row.empty() || was_quoted) {
    end_field();
    rows.push_back(std::move(row));
  }
  return rows;
}

core::Result<LoadedList> LoadList(std::string_view format, const std::vector<std::string>& files) {
  LoadedList list;
  list.format = std::string(format);
  core::Result<std::vector<ListEntry>> entries = core::InvalidArgument(
      "unknown list format " + std::string(format) +
      " (ofac_sdn_csv, un_consolidated_xml, opensanctions_csv, ftm_json, sat_69b_csv, sat_69_csv)");
  if (format == "ofac_sdn_csv") entries = LoadOfac(files);
  if (format == "un_consolidated_xml") entries = LoadUn(files);
  if (format == "opensanctions_csv") entries = LoadOpenSanctionsCsv(files);
  if (format == "ftm_json" || format == "sat_69b_csv" || format == "sat_69_csv") {
    core::Status st = format == "ftm_json"      ? LoadFtm(files, list)
                      : format == "sat_69b_csv" ? LoadSat69B(files, list)
                                                : LoadSat69(files, list);
    entries = st.ok() ? core::Result<std::vector<ListEntry>>(std::move(list.entries)) : core::Result<std::vector<ListEntry>>(st);
  }
  if (!entries.ok()) return entries.status();
  if (entries->empty()) return core::InvalidArgument(std::string(format) + ": the file holds no entry");
  list.entries = std::move(*entries);
  std::string all;
  for (const auto& f : files) all += core::Sha256(f);  // the hash of the files' hashes, in order
  list.content_hash = files.size() == 1 ? core::Sha256Hex(files[0]) : core::HexEncode(core::Sha256(all));
  return list;
}

}  // namespace svc::pipeline::kyb
