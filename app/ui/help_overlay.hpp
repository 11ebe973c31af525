// The keyboard-shortcut overlay (F1 or Help > Keyboard shortcuts): every shortcut the app has
// registered, grouped, over the window. Takes plain lines (shell/shortcuts.hpp builds them), so
// it never names an action itself.
#pragma once
#include <string>
#include <vector>

namespace bs::ui {

struct HelpLine {
  std::string group;  // "File", "View", ...
  std::string keys;   // "Ctrl+O"
  std::string what;   // "Open an image"
};

// Draws the overlay while *open; the close button, or a click outside it, clears *open.
void draw_help_overlay(const std::vector<HelpLine>& lines, const std::string& footer, bool* open);

}  // namespace bs::ui
