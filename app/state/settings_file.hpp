// Settings that persist between launches, as a small text file of `key = value` lines, and the
// binder that maps those keys onto plain fields in both directions. The list of fields kept is
// written once (state/user_settings.cpp, bind_user_settings): each is one line,
//     b.field("ui.text_scale", s.ui.text_scale, 0.5f, 3.0f);
// and the same line reads it (with its range checked) and writes it.
//
// Why text and not JSON: a person can read and fix it, and a line that does not parse costs only
// that line. A file that is not a blockscope settings file at all (no header), or a value out of
// range, is a message and the default for what it named: never a crash, never half a value.
#pragma once
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/dim.hpp"
#include "core/status.hpp"

namespace bs::app {

inline constexpr const char* kSettingsHeader = "# blockscope settings v1";

// The parsed lines of a settings file: key -> value (the value's text, trimmed).
struct SettingsText {
  std::map<std::string, std::string> values;
  std::vector<std::string> problems;  // lines that could not be read, said to the user once
};

// Parses a settings file's text. Lines: `key = value`, blank, or `# comment`. Without the header
// line the whole text is refused (one problem, no values): it is some other file.
SettingsText parse_settings_text(const std::string& text);

class SettingsBinder {
 public:
  // Reading fills bound fields from `text` (fields it does not name keep their values);
  // writing collects every bound field as a line.
  static SettingsBinder reader(const SettingsText& text) { return SettingsBinder(&text); }
  static SettingsBinder writer() { return SettingsBinder(nullptr); }

  void field(const std::string& key, bool& v);
  void field(const std::string& key, int& v, int lo, int hi);
  void field(const std::string& key, float& v, float lo, float hi);
  void field(const std::string& key, std::string& v);
  void field(const std::string& key, std::optional<Dim3>& v);  // "32x8x1", or absent
  void field(const std::string& key, std::optional<int>& v, int lo, int hi);
  // An enum by name: names lists every value with the word the file uses for it.
  template <class E>
  void field(const std::string& key, E& v, const std::vector<std::pair<const char*, E>>& names) {
    bound_.push_back(key);
    if (reading()) {
      const std::string* t = find(key);
      if (!t) return;
      for (const auto& [word, value] : names)
        if (*t == word) {
          v = value;
          return;
        }
      refuse(key, *t, "one of " + joined(names));
    } else {
      for (const auto& [word, value] : names)
        if (value == v) put(key, word);
    }
  }
  // Every key `prefix` + NAME as map[NAME] = value (a lab's settings, its options).
  void map(const std::string& prefix, std::map<std::string, std::string>& m);

  std::string text() const;  // writing: the header and one line per field, in bound order
  const std::vector<std::string>& problems() const { return problems_; }
  // Reading: keys of the file that no field bound (kept when the file is written again, so a
  // newer blockscope's settings survive an older one).
  std::map<std::string, std::string> unbound() const;

 private:
  explicit SettingsBinder(const SettingsText* in) : in_(in) {}
  bool reading() const { return in_ != nullptr; }
  const std::string* find(const std::string& key) const;
  void put(const std::string& key, const std::string& value);
  void refuse(const std::string& key, const std::string& value, const std::string& wanted);
  template <class E>
  static std::string joined(const std::vector<std::pair<const char*, E>>& names) {
    std::string s;
    for (const auto& n : names) s += (s.empty() ? "" : ", ") + std::string(n.first);
    return s;
  }

  const SettingsText* in_ = nullptr;
  std::vector<std::pair<std::string, std::string>> out_;
  std::vector<std::string> bound_;
  std::vector<std::string> bound_prefixes_;
  std::vector<std::string> problems_;
};

// Reads a settings file. A missing file is no problem (nothing is returned); an unreadable or
// foreign one gives a SettingsText with a problem and no values.
SettingsText read_settings_file(const std::filesystem::path& file);
// Writes `text` through a temporary file renamed over the old one (creating the folder), so a
// crash never leaves half a file. The recent files are written the same way.
Status write_settings_file(const std::filesystem::path& file, const std::string& text);

}  // namespace bs::app
