// The shell's UI: everything the window draws around the labs' own views, cut into files by
// feature as Tracy cuts its one big view (TracyView_*.cpp):
//   shell_ui.cpp             the frame's layout (three columns fitted to the window, splitters,
//                            folded strips), the controls panel, the centre and the side tabs
//   shell_ui_menus.cpp       the menu bar: File, Compute, View, Help
//   shell_ui_status_bar.cpp  the status bar and the loading modal
//   shell_ui_keys.cpp        the keyboard shortcuts, Escape, the F12 screenshot
//   shell_ui_fonts.cpp       text size, the theme and fonts (characters added as they turn up)
// It draws from the rooms the App composes (the lab host, the launch scheduler, image intake, the
// editor bridge, experiments, the Measured tab) and keeps only the UI's own state: which windows
// are open, the kernel pickers' typing, the file browser, where the data view was drawn.
#pragma once
#include <imgui.h>

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "experiments/experiments.hpp"
#include "platform/window.hpp"
#include "shell/editor_bridge.hpp"
#include "shell/headless_outputs.hpp"
#include "shell/image_intake.hpp"
#include "shell/lab_host.hpp"
#include "shell/launch_scheduler.hpp"
#include "shell/measured_tab.hpp"
#include "shell/source_tab.hpp"
#include "shell/settings_keeper.hpp"
#include "shell/shortcuts.hpp"
#include "shell/status_report.hpp"
#include "state/app_state.hpp"
#include "ui/file_browser.hpp"
#include "ui/fonts.hpp"
#include "ui/messages.hpp"
#include "ui/panels.hpp"
#include "ui/tab.hpp"

namespace bs::app {

// What the UI asks of the App (they touch several rooms at once).
struct ShellActions {
  std::function<void()> reset_to_defaults;
  std::function<Status()> start_sweep;
  std::function<void()> cancel_sweep;
  std::function<bool()> sweeping;
};

// The rooms the UI draws from; all outlive it.
struct ShellRooms {
  Window& window;
  AppState& state;
  MessageLog& messages;
  LabHost& host;
  LaunchScheduler& launches;
  ImageIntake& intake;
  EditorBridge& editor;
  Experiments& experiments;
  MeasuredTab& measured;
  const SettingsKeeper& settings;
};

class ShellUi {
 public:
  ShellUi(ShellRooms rooms, ShellActions actions);

  // Before ImGui::NewFrame: the theme and fonts follow the text size, and the font atlas gains
  // the characters the window has to show (`renderer_ready`: rebuild the GL font texture too).
  void update_fonts(bool renderer_ready);
  // The scale of the monitor's content (1 headless), times the text size the user chose.
  void set_content_scale(float scale) { ui_scale_ = scale; }
  void set_text_scale(float scale);

  // Between ImGui::NewFrame and ImGui::Render: this frame's key presses (those handed to ImGui
  // with it) to the shortcuts, then the whole UI.
  void draw(const std::vector<Window::KeyPress>& presses);
  // What the last frame cost to make (the status bar shows it: an idle window draws no frames,
  // so frames per second would say nothing).
  void set_frame_cost_ms(double ms) { frame_ms_ = ms; }
  // After the frame is rendered, before it is shown: the F12 screenshot and a PNG export asked for
  // in an earlier frame are cut from it.
  void after_render();

  // The experiments' view of a slot: the lab, its selection, and its view's draw of a record.
  ExperimentsHost experiments_host(LabSlot& s);
  // A PNG export of the frame just rendered: the window, the data view or the sweep's chart.
  Status write_png_export(ExportWhat what, const std::filesystem::path& path);
  // The UI's part of the status file.
  StatusReport::Ui status_ui() const;

  // The tabs of the open lab `s` (the shell's and its view's), of one dock or both, in the order of
  // the table of tab names.
  std::vector<Tab> open_tabs(const LabSlot& s, std::optional<Dock> dock = std::nullopt) const;
  template <class F>
  void each_tab(const LabSlot& s, F&& f) const;
  // How often the window should wake to show the open tabs' work in progress (the shortest
  // period any of them asks for, seconds); 0: none has any.
  double background_s() const;
  // A tab's work must be the only work on the device (Tab::holds_device): launches and new images wait.
  bool device_held() const;
  bool long_launch(const LabSlot& s) const;
  // Gives the open lab and its shown launch to every tab that follows launches (Tab::follow).
  void follow_launch();
  const ShortcutRegistry& shortcuts() const { return shortcuts_; }
  // A new warning or error shows in the status bar, in its colour, this long (seconds).
  static constexpr double kNoticeS = 10;
  // How much longer the status bar shows the newest warning or error (0: none shown).
  double notice_left_s() const;
  // View > Reset to defaults, for the UI: the kernel pickers' typing and the text size.
  void reset_to_defaults();
  // The centre's Source tab (issue 22): its state, for the App.
  SourceTab& source_tab() { return source_; }
  const SourceTab& source_tab() const { return source_; }

 private:
  // shell_ui.cpp
  void draw_left_panel(LabSlot& s);
  void draw_settings(LabSlot& s);
  void draw_centre(LabSlot& s);
  void draw_data_tab(LabSlot& s);
  void draw_side_panel(LabSlot& s);
  void make_shell_tabs();
  void draw_dock(LabSlot& s, Dock dock, Panel& chosen);
  ui::SideInput side_input(const LabSlot& s);
  void open_file_browser();
  // shell_ui_menus.cpp
  void draw_menu_bar();
  void draw_compute_menu();
  void draw_help_menu();
  // shell_ui_status_bar.cpp
  void draw_status_bar(LabSlot& s);
  void draw_loading_modal();
  // shell_ui_keys.cpp
  void register_shortcuts();
  void handle_escape();
  void take_screenshot_now();

  Window& window_;
  AppState& state_;
  MessageLog& messages_;
  LabHost& host_;
  LaunchScheduler& launches_;
  ImageIntake& intake_;
  EditorBridge& editor_;
  Experiments& experiments_;
  MeasuredTab& measured_;
  const SettingsKeeper& settings_;
  ShellActions actions_;

  SourceTab source_;
  std::vector<Tab> tabs_;            // the shell's own tabs (make_shell_tabs); the open lab's view adds its own
  Panel centre_shown_, side_shown_;  // the tabs drawn last (the status file)
  lab::ProblemInfo side_problem_;    // the problem the side tabs' input points to
  ShortcutRegistry shortcuts_;
  ui::FileBrowser file_browser_;
  std::map<std::string, ui::PickerState> pickers_;  // per lab id: blockDim being typed
  bool show_messages_ = false;
  std::size_t messages_seen_ = 0;
  bool show_help_ = false;
  bool screenshot_requested_ = false;
  double frame_ms_ = 0;
  std::string state_line_, notice_;  // what the status bar said last (the status file reports it)
  // A PNG export asked for in the export dialog: cut from the frame after the next one.
  std::optional<std::pair<ExportWhat, std::string>> pending_png_;
  bool capture_png_ = false;                // the pending PNG was asked for in an earlier frame
  ImVec2 data_min_{0, 0}, data_max_{0, 0};  // where the data view was drawn
  bool data_visible_ = false;
  // Fonts.
  float ui_scale_ = 1.0f;
  ui::FontSet fonts_;
  float fonts_scale_ = 0;  // the scale the theme and fonts were last built for
  std::size_t font_scanned_messages_ = 0;
  bool fonts_missing_said_ = false;
};

}  // namespace bs::app
