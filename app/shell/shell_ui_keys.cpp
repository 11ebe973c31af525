// The shell's UI, part 4: the keyboard shortcuts (shell/shortcuts.hpp), Escape, and the F12
// screenshot.
#include <imgui_internal.h>  // the popup stack, for Escape

#include <ctime>

#include "shell/shell_ui.hpp"

namespace bs::app {
namespace fs = std::filesystem;

// The shortcuts this room provides. Other features add theirs the same way, one line each (the
// sweep: start/cancel and export; the editor: compile and run).
void ShellUi::register_shortcuts() {
  auto view = [this]() -> LabView* { return host_.current().view.get(); };
  shortcuts_.add("file.open", "Ctrl+O", "File", "Open an image", [this] { open_file_browser(); });
  shortcuts_.add("file.screenshot", "F12", "File", "Save a screenshot of the window (PNG, in the working folder)",
                 [this] { screenshot_requested_ = true; });
  shortcuts_.add("file.quit", "Ctrl+Q", "File", "Quit", [this] { window_.request_close(); });
  shortcuts_.add("run.once", "Ctrl+R or F5", "Run", "Run the selection once (in the kernel editor: compile)", [this] {
    if (editor_.editor().has_keyboard()) return;  // the editor's own F5 compiles its tab
    host_.current().launch.dirty = true;
    host_.current().launch.paused_slow = false;
  });
  shortcuts_.add("run.continuous", "Ctrl+Shift+R", "Run", "Run continuously: on or off", [this] {
    LaunchState& st = host_.current().launch;
    st.continuous = !st.continuous;
    st.paused_slow = false;
  });
  shortcuts_.add("run.sweep", "Ctrl+W", "Run", "Sweep the selected kernel over its block shapes (again: cancel)",
                 [this] {
                   if (actions_.sweeping()) return actions_.cancel_sweep();
                   if (Status st = actions_.start_sweep(); !st) messages_.error(st);
                 });
  shortcuts_.add("file.export", "Ctrl+Shift+E", "File", "Export the sweep (else the last launch) as JSON",
                 [this] { experiments_.ask_export(experiments_host(host_.current())); });
  shortcuts_.add("editor.open", "Ctrl+E", "File", "Edit the selected kernel's CUDA in the kernel editor",
                 [this] { editor_.edit_kernel(); });
  // The kernel editor's own keys (it handles them while it has the keyboard): listed here so F1,
  // Help and the README show them.
  shortcuts_.add("editor.run", "Ctrl+Enter or F5", "Kernel editor",
                 "In the kernel editor: compile and run once, verified", nullptr);
  shortcuts_.add("editor.save", "Ctrl+S", "Kernel editor", "In the kernel editor: save the tab's `.cu` file", nullptr);
  shortcuts_.add("view.zoom_in", "+", "View", "Zoom in on the data", [view] {
    if (LabView* v = view()) v->zoom_by(1.25f);
  });
  shortcuts_.add("view.zoom_out", "-", "View", "Zoom out", [view] {
    if (LabView* v = view()) v->zoom_by(1 / 1.25f);
  });
  shortcuts_.add("view.fit", "0 or Home", "View", "Reset the view: fit the data", [view] {
    if (LabView* v = view()) v->reset_view();
  });
  shortcuts_.add("view.fullscreen", "F11", "View", "Fullscreen on or off",
                 [this] { window_.set_fullscreen(!window_.fullscreen()); });
  shortcuts_.add("view.left_panel", "Ctrl+[", "View", "Show or fold the controls panel",
                 [this] { state_.layout.left_open = !state_.layout.left_open; });
  shortcuts_.add("view.side_panel", "Ctrl+]", "View", "Show or fold the side tabs",
                 [this] { state_.layout.side_open = !state_.layout.side_open; });
  shortcuts_.add("view.text_larger", "Ctrl+=", "View", "Larger text", [this] {
    for (float t : kTextScales)
      if (t > state_.layout.text_scale + 0.01f) return set_text_scale(t);
  });
  shortcuts_.add("view.text_smaller", "Ctrl+-", "View", "Smaller text", [this] {
    for (auto it = std::rbegin(kTextScales); it != std::rend(kTextScales); ++it)
      if (*it < state_.layout.text_scale - 0.01f) return set_text_scale(*it);
  });
  shortcuts_.add("view.text_reset", "Ctrl+0", "View", "Text at 100%", [this] { set_text_scale(1.0f); });
  shortcuts_.add("view.messages", "Ctrl+M", "View", "Show or hide the messages",
                 [this] { show_messages_ = !show_messages_; });
  shortcuts_.add("help.keys", "F1 or ?", "Help", "This list of shortcuts", [this] { show_help_ = !show_help_; });
  shortcuts_.add("help.escape", "Escape", "Help",
                 "Close the open menu, popup or window; else stop a simulation that runs", [this] { handle_escape(); });
}

// Escape closes what is on top: a menu or popup, else the help overlay, the file browser, the
// messages, else leaves fullscreen, else stops a simulation running on the worker. A text field being edited keeps
// Escape (it undoes the edit): the registry does not fire plain keys while one has the keyboard.
void ShellUi::handle_escape() {
  // Menus, combos and context popups are all ImGui popups (blockscope has no modal ones).
  if (!ImGui::GetCurrentContext()->OpenPopupStack.empty()) {
    ImGui::ClosePopupToLevel(0, true);
    return;
  }
  if (show_help_) show_help_ = false;
  else if (file_browser_.is_open()) file_browser_.close();
  else if (show_messages_) show_messages_ = false;
  else if (window_.fullscreen()) window_.set_fullscreen(false);
  else if (host_.current().launch.in_flight) {
    // A slow simulation the user did not mean to wait for (the result card's Cancel).
    ViewContext ctx = host_.context();
    launches_.cancel(host_.current(), ctx, true);  // continuous runs go on as they were
  }
}

void ShellUi::take_screenshot_now() {
  screenshot_requested_ = false;
  char name[64];
  const std::time_t t = std::time(nullptr);
  std::strftime(name, sizeof name, "blockscope-%Y%m%d-%H%M%S.png", std::localtime(&t));
  std::error_code ec;
  const fs::path path = fs::absolute(name, ec);
  if (Status st = write_window_png(window_, path); !st) messages_.error(st);
  else messages_.info("Screenshot saved: " + path.string());
}

}  // namespace bs::app
