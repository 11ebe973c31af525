#include "shell/shortcuts.hpp"

#include <algorithm>

#include <GLFW/glfw3.h>
#include <imgui.h>

#include <cstdlib>

namespace bs::app {
namespace {

std::vector<std::string> split_on(const std::string& s, const std::string& sep) {
  std::vector<std::string> parts;
  std::size_t at = 0;
  while (true) {
    const std::size_t next = s.find(sep, at);
    parts.push_back(s.substr(at, next == std::string::npos ? std::string::npos : next - at));
    if (next == std::string::npos) return parts;
    at = next + sep.size();
  }
}

// The chords one key name stands for (the keypad's + and - count as + and -).
std::vector<KeyChord> key_named(const std::string& name) {
  if (name.size() == 1) {
    const char c = name[0];
    if (c >= 'A' && c <= 'Z') return {{GLFW_KEY_A + (c - 'A')}};
    if (c >= '0' && c <= '9') return {{GLFW_KEY_0 + (c - '0')}, {GLFW_KEY_KP_0 + (c - '0')}};
    if (c == '+') return {{GLFW_KEY_EQUAL, false, false, false, true}, {GLFW_KEY_KP_ADD, false, false, false, true}};
    if (c == '=') return {{GLFW_KEY_EQUAL}};
    if (c == '-') return {{GLFW_KEY_MINUS}, {GLFW_KEY_KP_SUBTRACT}};
    if (c == '?') return {{GLFW_KEY_SLASH, false, true}};
    if (c == '[') return {{GLFW_KEY_LEFT_BRACKET}};
    if (c == ']') return {{GLFW_KEY_RIGHT_BRACKET}};
  }
  if (name.size() >= 2 && name.size() <= 3 && name[0] == 'F') {
    const int n = std::atoi(name.c_str() + 1);
    if (n >= 1 && n <= 12) return {{GLFW_KEY_F1 + n - 1}};
  }
  if (name == "Escape") return {{GLFW_KEY_ESCAPE}};
  if (name == "Home") return {{GLFW_KEY_HOME}};
  if (name == "Space") return {{GLFW_KEY_SPACE}};
  if (name == "Tab") return {{GLFW_KEY_TAB}};
  if (name == "Enter") return {{GLFW_KEY_ENTER}, {GLFW_KEY_KP_ENTER}};
  return {};
}

bool plain(const KeyChord& c) { return !c.ctrl && !c.alt && !(c.key >= GLFW_KEY_F1 && c.key <= GLFW_KEY_F12); }

}  // namespace

Result<std::vector<KeyChord>> parse_keys(const std::string& keys) {
  std::vector<KeyChord> out;
  for (const std::string& alt : split_on(keys, " or ")) {
    bool ctrl = false, shift = false, alt_mod = false;
    std::string rest = alt;
    for (;;) {
      if (rest.starts_with("Ctrl+") && rest.size() > 5) ctrl = true, rest = rest.substr(5);
      else if (rest.starts_with("Shift+") && rest.size() > 6) shift = true, rest = rest.substr(6);
      else if (rest.starts_with("Alt+") && rest.size() > 4) alt_mod = true, rest = rest.substr(4);
      else break;
    }
    const std::vector<KeyChord> named = key_named(rest);
    if (named.empty()) return Status::failure("no key is called '" + rest + "' (in '" + keys + "')", "", "parse_keys");
    for (KeyChord c : named) {
      c.ctrl = ctrl;
      c.alt = alt_mod;
      c.shift = c.shift || shift;
      out.push_back(c);
    }
  }
  return out;
}

void ShortcutRegistry::add(std::string id, std::string keys, std::string group, std::string what,
                           std::function<void()> action) {
  Shortcut s{std::move(id), std::move(keys), std::move(group), std::move(what), {}, std::move(action)};
  if (auto chords = parse_keys(s.keys)) s.chords = std::move(chords.value());
  for (Shortcut& old : shortcuts_)
    if (old.id == s.id) {
      old = std::move(s);  // a feature may replace a default action
      return;
    }
  shortcuts_.push_back(std::move(s));
}

std::vector<Window::KeyPress> ShortcutRegistry::handle(const std::vector<Window::KeyPress>& presses,
                                                       bool typing) const {
  std::vector<Window::KeyPress> rest;
  for (const Window::KeyPress& p : presses) {
    const bool ctrl = p.mods & GLFW_MOD_CONTROL, shift = p.mods & GLFW_MOD_SHIFT, alt = p.mods & GLFW_MOD_ALT;
    const Shortcut* hit = nullptr;
    for (const Shortcut& s : shortcuts_) {
      for (const KeyChord& c : s.chords) {
        if (c.key != p.key || c.ctrl != ctrl || c.alt != alt || (!c.any_shift && c.shift != shift)) continue;
        if (plain(c) && typing) continue;
        hit = &s;
        break;
      }
      if (hit) break;
    }
    if (hit && hit->action) hit->action();
    else rest.push_back(p);
  }
  return rest;
}

bool ShortcutRegistry::run(const std::string& id) const {
  const Shortcut* s = find(id);
  if (!s || !s->action) return false;
  s->action();
  return true;
}

std::vector<const Shortcut*> ShortcutRegistry::by_group() const {
  std::vector<const Shortcut*> out;
  std::vector<std::string> groups;
  for (const Shortcut& s : shortcuts_)
    if (std::find(groups.begin(), groups.end(), s.group) == groups.end()) groups.push_back(s.group);
  for (const std::string& g : groups)
    for (const Shortcut& s : shortcuts_)
      if (s.group == g) out.push_back(&s);
  return out;
}

const Shortcut* ShortcutRegistry::find(const std::string& id) const {
  for (const Shortcut& s : shortcuts_)
    if (s.id == id) return &s;
  return nullptr;
}

}  // namespace bs::app
