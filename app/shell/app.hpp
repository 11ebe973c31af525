// The running app: the shell that hosts labs. One object owns the compute session, the labs'
// views (made through the catalog, one per lab, when the lab is first opened), the message log
// and the UI state, and draws one frame at a time. It reaches a lab only through LabView and
// lab::Lab: it never names one. Window mode and headless mode drive the same App; only the
// Window differs (platform/window.hpp).
//
// Section index of app.cpp:
//   1. creation and shutdown (ImGui context, theme, the first lab, the images named)
//   2. labs: opening one, the selection, compute switching, device faults
//   2b. the kernel editor: its lab lookup, what it asks for, .cu files dropped or named
//   3. images in (drops, command line, file browser) and the loader's outcomes
//   4. launching: when, with which options, and what is kept of the record
//   5. the frame: menus, the three panels, the status bar
//   6. outputs for headless runs (screenshot, the lab's output, schedule JSON, summary)
//   7. the status file (--status-file, for scripts and tests)
// and of app_habits.cpp (the first hour's habits, kept apart so the frame stays readable):
//   8. settings kept between launches, reset to defaults
//   9. keyboard shortcuts, the help overlay, Escape
//  10. text size and fonts
//  11. experiments: sweeps, exports (the room is app/experiments; these are the shell's hooks)
#pragma once
#include <imgui.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/options.hpp"
#include "core/launch_record.hpp"
#include "experiments/experiments.hpp"
#include "editor/kernel_editor.hpp"
#include "editor/kernel_files.hpp"
#include "image/async_image_loader.hpp"
#include "labs/lab_view.hpp"
#include "platform/window.hpp"
#include "shell/async_launch.hpp"
#include "shell/compute_session.hpp"
#include "shell/measured_tab.hpp"
#include "shell/shortcuts.hpp"
#include "shell/status_report.hpp"
#include "state/app_state.hpp"
#include "state/recent_files.hpp"
#include "state/timing_book.hpp"
#include "ui/file_browser.hpp"
#include "ui/fonts.hpp"
#include "ui/messages.hpp"
#include "ui/panels.hpp"

namespace bs::app {

using Clock = std::chrono::steady_clock;

class App {
 public:
  // The window's GL context must be current. Opens the lab the state names and loads the images
  // named on the command line (or the built-in sample) synchronously so the first frame shows
  // them.
  static Result<std::unique_ptr<App>> create(Window& window, CliOptions options,
                                             ComputeSession compute, LabCatalog catalog);
  ~App();
  App(const App&) = delete;
  App& operator=(const App&) = delete;

  // Draws one frame into the window's framebuffer; present() shows it (windowed) or keeps it for
  // a screenshot (headless: read it before presenting).
  void frame();
  void present();
  bool should_close() { return window_.should_close(); }
  bool loading() const { return loader_.busy(); }

  // Headless outputs.
  Status write_screenshot(const std::filesystem::path& path);
  Status write_output(const std::filesystem::path& path);  // the open lab's result, as a PNG
  Status write_schedule_json(const std::filesystem::path& path);
  // A --kernel-file or a dropped .cu compiling and running its first launch (off the UI thread),
  // or images loading: headless runs keep drawing frames until this is false.
  bool busy() const { return loader_.busy() || (editor_ && editor_->busy()); }
  // --kernel-file's first compile and launch: the run modes' exit code.
  const editor::KernelFileOutcome& kernel_file_outcome() const { return editor_->kernel_file_outcome(); }
  // One line per fact of the open lab's last attempt, for headless runs to print.
  std::string summary() const;
  // The open lab's latest attempt (may be refused) and the last launch that ran.
  const LaunchRecord& last_launch() const;
  const LaunchRecord& shown_launch() const;
  const MessageLog& messages() const { return messages_; }
  bool had_load_failure() const { return had_load_failure_; }  // headless exit code 1
  // Headless --profile: the profile asked for has not been shown yet (keep drawing frames).
  bool profile_pending() const { return measured_.profile_pending(); }
  std::string interop_mode() const;
  bool device_faulted() const { return device_faulted_; }
  const std::string& backend_label() const { return compute_.backend.label; }
  const lab::Backend& backend() const { return compute_.backend; }
  const std::string& lab_id() const { return state_.lab; }

  // Driving the app the way the UI does (tests, the self-test tool): open a lab, select a kernel
  // and configuration, install an image as a finished drop does, ask for a relaunch.
  Status open_lab(const std::string& id);
  Status select(const std::string& kernel, const KernelConfig& config);
  Status install_image_for_test(Rgba8Image image);
  void request_relaunch();
  LabView* current_view();
  // The kernel editor's actions, for menus, buttons and the app's shortcut system: open the
  // editor on the open lab's kernel ("Edit kernel"), and compile the editor's active tab (what
  // Ctrl+Enter and F5 do while the editor has the keyboard).
  void edit_kernel();
  editor::KernelEditor& kernel_editor() { return *editor_; }
  AppState& state() { return state_; }
  // The keyboard shortcuts (Help > Keyboard shortcuts lists them; so does the README).
  const ShortcutRegistry& shortcuts() const { return shortcuts_; }
  // Where settings are kept this run (empty: nowhere, e.g. headless without --config-dir).
  const std::filesystem::path& settings_file() const { return settings_file_; }
  // Writes the settings now if they changed (also done every second and at exit).
  void save_settings();
  void reset_to_defaults();
  // True while a launch runs on the worker thread (the CPU simulation in the window).
  bool launch_in_flight() const { return async_.busy(); }
  // For the self-test's fault injection: the compute session moves to the CPU as after a
  // sticky device fault reported as `fault`.
  void handle_device_fault(const Status& fault);

  // Experiments (app/experiments): a sweep of the open lab's selected kernel (every kernel with
  // state().sweep.ladder) on a worker thread; the window keeps drawing while it runs, and its
  // own launches pause. --sweep asks for one as soon as the lab's data is ready.
  Status start_sweep();
  void cancel_sweep();
  bool sweeping() const;  // running, or asked for and not started yet
  const lab::SweepResult* sweep_result() const;  // the open lab's latest (live while running)
  // Writes a sweep or the current launch (JSON, CSV) now; a PNG (the sweep's chart, the data
  // view, the window) is cut from the frame just rendered: call it after frame(), before
  // present(), as write_screenshot. Nothing measured is lost when the path cannot be written.
  Status export_to(ExportWhat what, const std::filesystem::path& path);

 private:
  // One lab of the catalog: its view once opened, what is selected in it, and its launches.
  struct Slot {
    const LabEntry* entry = nullptr;
    std::unique_ptr<LabView> view;
    Status failure;                // why the view could not be made
    std::string kernel;
    KernelConfig config;
    ui::PickerState picker;
    LaunchRecord last;             // the latest attempt (may be refused)
    LaunchRecord shown;            // the last launch that ran: what the views show
    Check check;                   // the latest verdict for the selection (kept between checks)
    std::string check_for;         // the kernel|config|problem `check` belongs to
    int problem_gen = 0;           // bumped whenever the lab's problem changes (the fork's key)
    bool dirty = true;
    bool continuous = true;
    bool in_flight = false;        // its launch runs on the worker thread
    bool no_async = false;         // its view or lab cannot take runs made elsewhere
    bool paused_slow = false;
    double slow_ms = 0;
    std::chrono::steady_clock::time_point verified_at{};
  };

  App(Window& window, CliOptions options, ComputeSession compute, LabCatalog catalog);
  Status init_gl_and_imgui();
  ViewContext context();

  // 2. labs
  Slot* slot(const std::string& id);
  Slot& current();
  Status ensure_view(Slot& s);
  void apply_settings(Slot& s);
  void draw_settings(Slot& s);
  void apply_selection_request(Slot& s, const SelectionRequest& request);
  void switch_compute(ComputeSession next);
  void draw_compute_menu();

  // 2b. the kernel editor
  editor::LabContext lab_context(const std::string& id);
  void apply_editor_requests(const editor::EditorRequests& r);
  void open_kernel_file(const std::filesystem::path& path);
  void show_editor_lab();  // open the lab of the editor's kernel where the window shows another

  // 3. images in
  void enqueue_files(std::vector<std::filesystem::path> paths);
  void take_loaded_images();
  Status install_image(Rgba8Image image);

  // 4. launching
  void relaunch(Slot& s);
  lab::RunOptions run_options(Slot& s, bool changed);
  void keep_record(Slot& s, LaunchRecord rec, double pipeline_ms, bool changed, bool verified,
                   const std::string& key);
  bool launch_async(Slot& s, bool changed);
  void take_async_result();
  std::string problem_key(Slot& s);
  void problem_changed(Slot& s);

  // 5. the frame
  void draw_ui();
  void draw_menu_bar();
  void draw_left_panel(Slot& s);
  void draw_centre(Slot& s);
  std::map<std::string, std::string> kernel_figures(Slot& s) const;
  void draw_side_panel(Slot& s);
  void draw_status_bar(Slot& s);
  void draw_loading_modal();

  // 7. the status file
  void write_status_file();

  // 8. settings (app_habits.cpp)
  std::vector<std::string> lab_ids() const;
  void load_settings();
  void remember_slots();
  void save_settings_if_changed(bool force);
  // 9. shortcuts, help, Escape
  void register_shortcuts();
  void handle_escape();
  void draw_help_menu();
  void take_screenshot_now();
  // 10. text size and fonts
  void set_text_scale(float scale);
  void update_fonts();
  // 11. experiments
  ExperimentsHost host(Slot& s);
  void draw_data_tab(Slot& s);
  Status write_png_export(ExportWhat what, const std::filesystem::path& path);

  Window& window_;
  CliOptions options_;
  AppState& state_;
  ComputeSession compute_;
  LabCatalog catalog_;
  std::vector<Slot> slots_;
  LoadLimits limits_;
  AsyncImageLoader loader_;
  RecentFiles recent_;
  std::filesystem::path recent_path_;
  std::string imgui_ini_path_;
  bool imgui_ready_ = false;
  TimingBook timings_;
  double frame_ms_ = 0;
  bool show_messages_ = false;
  std::size_t messages_seen_ = 0;
  bool device_faulted_ = false;
  bool had_load_failure_ = false;
  float ui_scale_ = 1.0f;
  int frame_index_ = 0;
  ui::FileBrowser file_browser_;
  std::unique_ptr<editor::KernelEditor> editor_;
  MessageLog messages_;
  std::chrono::steady_clock::time_point last_frame_time_;
  MeasuredTab measured_;  // the Measured tab: hardware counters, profiled off the UI thread
  std::optional<StatusFileWriter> status_writer_;  // --status-file
  bool status_write_failed_ = false;               // said once, not every frame
  AsyncLaunch async_;                              // the CPU simulation's launches in the window

  // 8. settings kept between launches
  std::filesystem::path settings_folder_, settings_file_;
  std::map<std::string, std::string> settings_keep_;  // keys of a newer blockscope, kept
  std::string settings_written_;                      // the file's text as last written or read
  Clock::time_point settings_checked_{};
  bool settings_failed_ = false;                      // a write failed: said once
  // 9. shortcuts and the help overlay
  ShortcutRegistry shortcuts_;
  bool show_help_ = false;
  bool screenshot_requested_ = false;
  // 10. fonts
  ui::FontSet fonts_;
  float fonts_scale_ = 0;  // the scale the theme and fonts were last built for
  std::size_t font_scanned_messages_ = 0;
  bool fonts_missing_said_ = false;
  // 11. experiments
  std::unique_ptr<Experiments> experiments_;       // sweeps, Compare, exports
  bool sweep_on_start_ = false;                    // --sweep: once the lab's data is ready
  std::optional<std::pair<ExportWhat, std::string>> pending_png_;  // cut after the next frame
  ImVec2 data_min_{0, 0}, data_max_{0, 0};          // where the data view was drawn
  bool data_visible_ = false;
};

}  // namespace bs::app
