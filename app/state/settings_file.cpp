#include "state/settings_file.hpp"

#include <charconv>
#include <cmath>
#include <fstream>

namespace bs::app {
namespace {

constexpr std::size_t kMaxSettingsBytes = 256 * 1024;  // far above any real file

std::string trim(const std::string& s) {
  const auto a = s.find_first_not_of(" \t\r");
  if (a == std::string::npos) return {};
  const auto b = s.find_last_not_of(" \t\r");
  return s.substr(a, b - a + 1);
}

bool printable(const std::string& s) {
  for (unsigned char c : s)
    if (c < 0x20 || c == 0x7f) return false;
  return true;
}

std::optional<long long> to_int(const std::string& s) {
  long long v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

std::string float_text(float v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", static_cast<double>(v));
  return buf;
}

}  // namespace

SettingsText parse_settings_text(const std::string& text) {
  SettingsText out;
  std::size_t start = 0, line_no = 0;
  bool header = false;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = trim(text.substr(start, end - start));
    start = end + 1;
    ++line_no;
    if (line_no == 1) {
      header = line == kSettingsHeader;
      if (!header) {
        out.problems.push_back("it is not a blockscope settings file (its first line is not '" +
                               std::string(kSettingsHeader) + "')");
        return out;
      }
      continue;
    }
    if (line.empty() || line[0] == '#') continue;
    const auto eq = line.find('=');
    const std::string key = eq == std::string::npos ? "" : trim(line.substr(0, eq));
    if (key.empty() || !printable(line)) {
      out.problems.push_back("line " + std::to_string(line_no) + " is not KEY = VALUE");
      continue;
    }
    out.values[key] = trim(line.substr(eq + 1));
  }
  if (!header) out.problems.push_back("the file is empty");
  return out;
}

const std::string* SettingsBinder::find(const std::string& key) const {
  auto it = in_->values.find(key);
  return it == in_->values.end() ? nullptr : &it->second;
}

void SettingsBinder::put(const std::string& key, const std::string& value) { out_.emplace_back(key, value); }

void SettingsBinder::refuse(const std::string& key, const std::string& value, const std::string& wanted) {
  problems_.push_back(key + " = '" + value + "' is not " + wanted + "; kept the default");
}

void SettingsBinder::field(const std::string& key, bool& v) {
  bound_.push_back(key);
  if (!reading()) return put(key, v ? "true" : "false");
  const std::string* t = find(key);
  if (!t) return;
  if (*t == "true") v = true;
  else if (*t == "false") v = false;
  else refuse(key, *t, "true or false");
}

void SettingsBinder::field(const std::string& key, int& v, int lo, int hi) {
  std::optional<int> bound = v;
  field(key, bound, lo, hi);
  v = *bound;
}

void SettingsBinder::field(const std::string& key, float& v, float lo, float hi) {
  bound_.push_back(key);
  if (!reading()) return put(key, float_text(v));
  const std::string* t = find(key);
  if (!t) return;
  float f = 0;
  auto [p, ec] = std::from_chars(t->data(), t->data() + t->size(), f);
  if (t->empty() || ec != std::errc() || p != t->data() + t->size() || !std::isfinite(f) || f < lo || f > hi)
    return refuse(key, *t, "a number from " + float_text(lo) + " to " + float_text(hi));
  v = f;
}

void SettingsBinder::field(const std::string& key, std::string& v) {
  bound_.push_back(key);
  if (!reading()) {
    if (printable(v)) put(key, v);
    return;
  }
  if (const std::string* t = find(key)) v = *t;
}

void SettingsBinder::field(const std::string& key, std::optional<Dim3>& v) {
  bound_.push_back(key);
  if (!reading()) {
    if (v) put(key, std::to_string(v->x) + "x" + std::to_string(v->y) + "x" + std::to_string(v->z));
    return;
  }
  const std::string* t = find(key);
  if (!t) return;
  unsigned d[3] = {1, 1, 1};
  int parts = 0;
  bool ok = true;
  for (std::size_t at = 0; ok;) {
    const std::size_t x = std::min(t->find('x', at), t->size());
    const auto n = to_int(t->substr(at, x - at));
    ok = parts < 3 && n && *n >= 1 && *n <= 65535;
    if (ok) d[parts++] = static_cast<unsigned>(*n);
    if (x == t->size()) break;
    at = x + 1;
  }
  if (!ok) return refuse(key, *t, "a block shape such as 256 or 32x8x1");
  v = Dim3{d[0], d[1], d[2]};
}

void SettingsBinder::field(const std::string& key, std::optional<int>& v, int lo, int hi) {
  bound_.push_back(key);
  if (!reading()) {
    if (v) put(key, std::to_string(*v));
    return;
  }
  const std::string* t = find(key);
  if (!t) return;
  const auto n = to_int(*t);
  if (!n || *n < lo || *n > hi)
    return refuse(key, *t, "a whole number from " + std::to_string(lo) + " to " + std::to_string(hi));
  v = static_cast<int>(*n);
}

void SettingsBinder::map(const std::string& prefix, std::map<std::string, std::string>& m) {
  bound_prefixes_.push_back(prefix);
  if (!reading()) {
    for (const auto& [k, v] : m)
      if (printable(k) && printable(v) && !k.empty() && k.find('=') == std::string::npos) put(prefix + k, v);
    return;
  }
  for (auto it = in_->values.lower_bound(prefix); it != in_->values.end() && it->first.starts_with(prefix); ++it)
    if (it->first.size() > prefix.size()) m[it->first.substr(prefix.size())] = it->second;
}

std::string SettingsBinder::text() const {
  std::string s = std::string(kSettingsHeader) +
                  "\n# Written by blockscope when you quit; View > Reset to defaults starts afresh.\n";
  for (const auto& [k, v] : out_) s += k + " = " + v + "\n";
  return s;
}

std::map<std::string, std::string> SettingsBinder::unbound() const {
  std::map<std::string, std::string> rest;
  if (!reading()) return rest;
  for (const auto& [k, v] : in_->values) {
    bool known = false;
    for (const auto& b : bound_) known |= b == k;
    for (const auto& p : bound_prefixes_) known |= k.starts_with(p);
    if (!known) rest[k] = v;
  }
  return rest;
}

SettingsText read_settings_file(const std::filesystem::path& file) {
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) return {};
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    SettingsText t;
    t.problems.push_back("it cannot be opened");
    return t;
  }
  std::string text(kMaxSettingsBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (text.size() > kMaxSettingsBytes) {
    SettingsText t;
    t.problems.push_back("it is larger than any settings file blockscope writes");
    return t;
  }
  return parse_settings_text(text);
}

Status write_settings_file(const std::filesystem::path& file, const std::string& text) {
  std::error_code ec;
  if (file.has_parent_path()) std::filesystem::create_directories(file.parent_path(), ec);
  if (ec)
    return Status::failure("cannot create the folder " + file.parent_path().string() + ": " + ec.message(),
                           "check that your config folder is writable", "create_directories");
  std::filesystem::path temporary = file;
  temporary += ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out)
      return Status::failure("cannot write " + temporary.string(), "check that your config folder is writable", "open");
    out << text;
    out.flush();
    if (!out) return Status::failure("cannot write " + temporary.string(), "is the disk full?", "write");
  }
  std::filesystem::rename(temporary, file, ec);
  if (ec) {
    const std::string why = ec.message();
    std::filesystem::remove(temporary, ec);
    return Status::failure("cannot replace " + file.string() + ": " + why, "check that your config folder is writable",
                           "rename");
  }
  return Status::success();
}

}  // namespace bs::app
