// The App's habits, kept apart from the frame (app.cpp) so each stays readable:
//   8. settings kept between launches (state/user_settings.hpp), reset to defaults
//   9. keyboard shortcuts (shell/shortcuts.hpp), the help overlay, Escape, screenshots
//  10. text size and fonts (ui/fonts.hpp)
#include <epoxy/gl.h>
#include <imgui.h>
#include <imgui_impl_opengl3.h>
#include <imgui_internal.h>

#include <algorithm>
#include <ctime>

#include "platform/png.hpp"
#include "shell/app.hpp"
#include "state/user_settings.hpp"
#include "ui/help_overlay.hpp"
#include "ui/theme.hpp"
#include "ui/widgets.hpp"

namespace bs::app {
namespace fs = std::filesystem;

namespace {

// Settings are compared and written at most this often; and at exit.
constexpr double kSettingsCheckS = 1.0;

}  // namespace

// ---------------------------------------------------------------------------------------------
// 8. settings kept between launches
// ---------------------------------------------------------------------------------------------

std::vector<std::string> App::lab_ids() const {
  std::vector<std::string> ids;
  for (const LabEntry& e : catalog_) ids.push_back(e.id);
  return ids;
}

// Reads the settings file (if this run keeps settings) under the command line's state: flags
// win. A file that cannot be read is a message and the defaults.
void App::load_settings() {
  settings_folder_ = settings_folder(options_.config_dir, window_.glfw_handle() != nullptr);
  settings_file_ = settings_path(settings_folder_);
  if (settings_file_.empty()) return;
  LoadedSettings loaded = load_user_settings(settings_file_, lab_ids());
  if (!loaded.problems.empty()) {
    std::string detail;
    for (const auto& p : loaded.problems) detail += (detail.empty() ? "" : "; ") + p;
    messages_.warn("Settings: some of " + settings_file_.string() + " could not be used", detail);
  }
  // What the file says now (before the flags), so an unchanged session does not rewrite it.
  settings_written_ = loaded.found && loaded.problems.empty() ? user_settings_text(loaded.state, lab_ids(), loaded.unbound) : "";
  merge_saved_under(state_, loaded.state);
  settings_keep_ = std::move(loaded.unbound);
}

// The slots' live choices into the state the settings are written from.
void App::remember_slots() {
  for (Slot& s : slots_) {
    if (!s.view) continue;
    LabMemory& m = state_.remembered[s.entry->id];
    m.selection = SelectionRequest{};
    m.selection.kernel = s.kernel;
    if (const lab::KernelInfo* k = s.view->lab().find_kernel(s.kernel)) {
      if (k->style == lab::ConfigStyle::Compiled) m.selection.compiled = s.config.compiled;
      else if (!k->timed_only) m.selection.block = s.config.block;
    }
    m.view = s.view->view_state();
    m.options = s.view->option_values();
  }
}

void App::save_settings_if_changed(bool force) {
  if (settings_file_.empty()) return;
  const auto now = Clock::now();
  if (!force && std::chrono::duration<double>(now - settings_checked_).count() < kSettingsCheckS) return;
  settings_checked_ = now;
  remember_slots();
  const std::string text = user_settings_text(state_, lab_ids(), settings_keep_);
  if (text == settings_written_) return;
  if (Status st = write_settings_file(settings_file_, text); !st) {
    if (!settings_failed_) messages_.error(st);  // said once; the session goes on
    settings_failed_ = true;
    return;
  }
  settings_failed_ = false;
  settings_written_ = text;
}

void App::save_settings() { save_settings_if_changed(true); }

// Back to a first launch's choices: every lab's kernel, configuration, view and options, the
// layout and the text size. The images and matrices loaded stay.
void App::reset_to_defaults() {
  const AppState d;
  state_.panel = d.panel;
  state_.trace_schedule = d.trace_schedule;
  state_.layout = d.layout;
  state_.remembered.clear();
  state_.selection = SelectionRequest{};
  state_.view_given = false;
  settings_keep_.clear();
  for (Slot& s : slots_) {
    state_.lab_settings[s.entry->id].clear();
    if (!s.view) continue;
    lab::Lab& lab = s.view->lab();
    for (const lab::Setting& set : lab.settings())
      if (!set.choices.empty() && set.value != set.choices.front())
        if (Status st = lab.set_setting(set.key, set.choices.front()); !st) messages_.error(st);
    s.view->reset_options();
    ViewState& v = s.view->view_state();
    v = ViewState{};
    s.view->reset_view();
    const auto& kernels = lab.kernels();
    if (!kernels.empty()) {
      s.kernel = kernels.front().id;
      s.config = lab.default_config(kernels.front());
    }
    s.picker = ui::PickerState{};
    s.continuous = true;
    s.paused_slow = false;
    ++s.problem_gen;
    s.dirty = true;
  }
  set_text_scale(d.layout.text_scale);
  messages_.info("Settings reset to defaults" +
                 (settings_file_.empty() ? std::string(" (this run keeps no settings)") : " (" + settings_file_.string() + ")"));
  save_settings_if_changed(true);
}

// ---------------------------------------------------------------------------------------------
// 9. keyboard shortcuts, the help overlay, Escape
// ---------------------------------------------------------------------------------------------

// The shortcuts this room provides. Other features add theirs the same way, one line each (the
// sweep: start/cancel and export; the editor: compile and run).
void App::register_shortcuts() {
  auto open_image = [this] {
    file_browser_.open(recent_.paths.empty() ? fs::path() : recent_.paths.front().parent_path());
  };
  auto view = [this]() -> LabView* { return current().view.get(); };
  shortcuts_.add("file.open", "Ctrl+O", "File", "Open an image", open_image);
  shortcuts_.add("file.screenshot", "F12", "File", "Save a screenshot of the window (PNG, in the working folder)",
                 [this] { screenshot_requested_ = true; });
  shortcuts_.add("file.quit", "Ctrl+Q", "File", "Quit", [this] { window_.request_close(); });
  shortcuts_.add("run.once", "Ctrl+R or F5", "Run", "Run the selection once (in the kernel editor: compile)", [this] {
    if (editor_ && editor_->has_keyboard()) return;  // the editor's own F5 compiles its tab
    current().dirty = true;
    current().paused_slow = false;
  });
  shortcuts_.add("run.continuous", "Ctrl+Shift+R", "Run", "Run continuously: on or off", [this] {
    current().continuous = !current().continuous;
    current().paused_slow = false;
  });
  shortcuts_.add("run.sweep", "Ctrl+W", "Run", "Sweep the selected kernel over its block shapes (again: cancel)",
                 [this] {
                   if (sweeping()) return cancel_sweep();
                   if (Status st = start_sweep(); !st) messages_.error(st);
                 });
  shortcuts_.add("file.export", "Ctrl+Shift+E", "File", "Export the sweep (else the last launch) as JSON",
                 [this] { experiments_->ask_export(host(current())); });
  shortcuts_.add("editor.open", "Ctrl+E", "File", "Edit the selected kernel's CUDA in the kernel editor",
                 [this] { edit_kernel(); });
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
  shortcuts_.add("view.messages", "Ctrl+M", "View", "Show or hide the messages", [this] { show_messages_ = !show_messages_; });
  shortcuts_.add("help.keys", "F1 or ?", "Help", "This list of shortcuts", [this] { show_help_ = !show_help_; });
  shortcuts_.add("help.escape", "Escape", "Help", "Close the open menu, popup or window", [this] { handle_escape(); });
}

// Escape closes what is on top: a menu or popup, else the help overlay, the file browser, the
// messages, else leaves fullscreen. A text field being edited keeps Escape (it undoes the edit):
// the registry does not fire plain keys while one has the keyboard.
void App::handle_escape() {
  // Menus, combos and context popups are all ImGui popups (blockscope has no modal ones).
  if (!ImGui::GetCurrentContext()->OpenPopupStack.empty()) {
    ImGui::ClosePopupToLevel(0, true);
    return;
  }
  if (show_help_) show_help_ = false;
  else if (file_browser_.is_open()) file_browser_.close();
  else if (show_messages_) show_messages_ = false;
  else if (window_.fullscreen()) window_.set_fullscreen(false);
}

void App::draw_help_menu() {
  if (!ImGui::BeginMenu("Help")) return;
  if (ImGui::MenuItem("Keyboard shortcuts", "F1")) show_help_ = true;
  ImGui::Separator();
  // Every shortcut, runnable from here too.
  std::string group;
  for (const Shortcut& s : shortcuts_.all()) {
    if (s.id == "help.escape" || s.id == "help.keys") continue;
    if (s.group != group) {
      if (!group.empty()) ImGui::Separator();
      group = s.group;
      ImGui::TextDisabled("%s", group.c_str());
    }
    if (ImGui::MenuItem(s.what.c_str(), s.keys.c_str()) && s.action) s.action();
  }
  ImGui::Separator();
  ImGui::TextDisabled("blockscope %s", BLOCKSCOPE_VERSION);
  ImGui::TextDisabled("settings: %s", settings_file_.empty() ? "not kept this run" : settings_file_.string().c_str());
  ImGui::TextDisabled("fonts: %s", fonts_.description().c_str());
  ImGui::EndMenu();
}

void App::take_screenshot_now() {
  screenshot_requested_ = false;
  char name[64];
  const std::time_t t = std::time(nullptr);
  std::strftime(name, sizeof name, "blockscope-%Y%m%d-%H%M%S.png", std::localtime(&t));
  std::error_code ec;
  const fs::path path = fs::absolute(name, ec);
  if (Status st = write_screenshot(path); !st) messages_.error(st);
  else messages_.info("Screenshot saved: " + path.string());
}

// ---------------------------------------------------------------------------------------------
// 10. text size and fonts
// ---------------------------------------------------------------------------------------------

void App::set_text_scale(float scale) { state_.layout.text_scale = std::clamp(scale, 0.5f, 3.0f); }

// Before each frame: the theme and fonts follow the text size, and the font atlas gains the
// characters the window has to show (file names, messages, the data's name) the first time they
// turn up. Both rebuild the atlas, between frames only.
void App::update_fonts() {
  const auto& all = messages_.all();
  for (std::size_t i = std::min(font_scanned_messages_, all.size()); i < all.size(); ++i) {
    fonts_.need(all[i].text);
    fonts_.need(all[i].detail);
  }
  font_scanned_messages_ = all.size();
  for (const auto& p : recent_.paths) fonts_.need(p.string());
  file_browser_.each_label([this](const std::string& label) { fonts_.need(label); });
  if (Slot* s = slot(state_.lab); s && s->view) fonts_.need(s->view->lab().problem().name);

  const float scale = ui_scale_ * state_.layout.text_scale;
  if (scale == fonts_scale_ && !fonts_.rebuild_due()) return;
  if (scale != fonts_scale_) ui::apply_theme(scale);
  fonts_.build(14.0f * scale);
  fonts_scale_ = scale;
  if (imgui_ready_) {
    ImGui_ImplOpenGL3_DestroyFontsTexture();
    ImGui_ImplOpenGL3_CreateFontsTexture();
  }
  if (!fonts_.missing().empty() && !fonts_missing_said_) {
    fonts_missing_said_ = true;
    char cp[16];
    std::snprintf(cp, sizeof cp, "U+%04X", static_cast<unsigned>(*fonts_.missing().begin()));
    messages_.warn("Some characters have no font here and show as \xef\xbf\xbd (first: " + std::string(cp) + ")",
                   "fonts used: " + fonts_.description() +
                       ". Install a font package that covers them (fonts-noto-cjk: Chinese, Japanese and Korean; "
                       "fonts-noto: most other scripts) and restart blockscope.");
  }
}

}  // namespace bs::app
