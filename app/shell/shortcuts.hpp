// Keyboard shortcuts: one registry that the menus, the help overlay (F1) and the README's list
// read, so a shortcut shown anywhere is one that works. A feature adds its own with one line:
//     shortcuts_.add("sweep.start", "Ctrl+W", "Run", "Start or cancel a sweep", [this] { ... });
// Keys are written as people read them: "Ctrl+O", "F11", "Ctrl+Shift+R", "?", "+", "-", "0",
// alternatives joined by " or " ("Ctrl+R or F5").
//
// Plain keys (no Ctrl or Alt, not an F key) never fire while a text field has the keyboard, so
// typing "0" into a block field does not reset the view.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "core/status.hpp"
#include "platform/window.hpp"

namespace bs::app {

// One key with its modifiers. `key` is the GLFW key code: ImGui 1.86's GLFW backend indexes
// io.KeysDown by it.
struct KeyChord {
  int key = 0;
  bool ctrl = false, shift = false, alt = false;
  bool any_shift = false;  // "+" is Shift+= on many layouts, "=" on others: both count
};

struct Shortcut {
  std::string id;     // "view.fit"
  std::string keys;   // "0" as shown
  std::string group;  // "File", "View", "Run", "Help": the help overlay's headings
  std::string what;   // "Fit the data to the view"
  std::vector<KeyChord> chords;
  std::function<void()> action;  // empty: a key another room handles itself (the editor's), listed only
};

// Parses "Ctrl+Shift+S or F12" into chords; a Status names the part it does not know.
Result<std::vector<KeyChord>> parse_keys(const std::string& keys);

class ShortcutRegistry {
 public:
  // Adds a shortcut. Keys that do not parse are a programming error caught by the tests
  // (test_shortcuts checks every registered one): the shortcut is still listed, with no chord.
  void add(std::string id, std::string keys, std::string group, std::string what, std::function<void()> action);
  // Runs the action of each shortcut among `presses` (the window's key presses since the last
  // frame; Window::take_key_presses). `typing`: a text field has the keyboard (plain keys are
  // its). Returns the presses no shortcut took.
  std::vector<Window::KeyPress> handle(const std::vector<Window::KeyPress>& presses, bool typing) const;
  // Runs one by id (the menus, tests); false when there is no such shortcut.
  bool run(const std::string& id) const;
  const Shortcut* find(const std::string& id) const;
  const std::vector<Shortcut>& all() const { return shortcuts_; }
  // All of them, each group's together (groups in the order they first appear): one heading
  // per group in the Help menu and the F1 list.
  std::vector<const Shortcut*> by_group() const;

 private:
  std::vector<Shortcut> shortcuts_;
};

}  // namespace bs::app
