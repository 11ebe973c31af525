// The running app: the composition root of the shell that hosts labs, and its frame loop. App
// makes the rooms below, wires them together, owns the GL/ImGui lifecycle and draws one frame at
// a time; each room does one job and most are testable on their own:
//   lab_host          the labs as slots, the selection, settings applied, compute switching and
//                     fault recovery (GL-free)
//   launch_scheduler  when a lab launches, with which options, on which thread, the records kept
//                     (GL-free; async_launch runs the CPU simulation on a worker)
//   image_intake      images named, dropped or opened; the background loader; recent files
//   editor_bridge     the kernel editor's lab lookups and requests
//   settings_keeper   settings kept between launches
//   headless_outputs  screenshot, the lab's output, schedule JSON, the summary, the status snapshot
//   shell_ui*.cpp     the menus, the layout and panels, the status bar, shortcuts, fonts
//   input_queue       the window's input handed to ImGui a frame's worth at a time (no key lost)
//   frame_pacer       when the next frame is drawn: an idle window sleeps in the event loop
//   measured_tab      the Measured tab's profiles; app/experiments: sweeps, Compare, exports
// It reaches a lab only through LabView and lab::Lab: it never names one. Window mode and headless
// mode drive the same App; only the Window differs (platform/window.hpp).
#pragma once
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "cli/options.hpp"
#include "core/launch_record.hpp"
#include "editor/kernel_editor.hpp"
#include "experiments/experiments.hpp"
#include "labs/lab_view.hpp"
#include "platform/window.hpp"
#include "shell/compute_session.hpp"
#include "shell/editor_bridge.hpp"
#include "shell/frame_pacer.hpp"
#include "shell/frame_phases.hpp"
#include "shell/headless_outputs.hpp"
#include "shell/image_intake.hpp"
#include "shell/input_queue.hpp"
#include "shell/lab_host.hpp"
#include "shell/launch_scheduler.hpp"
#include "sampling/pc_sampler.hpp"
#include "shell/measured_tab.hpp"
#include "shell/settings_keeper.hpp"
#include "shell/shell_ui.hpp"
#include "shell/shortcuts.hpp"
#include "shell/status_report.hpp"
#include "state/app_state.hpp"
#include "ui/messages.hpp"

namespace bs::app {

class App {
 public:
  // The window's GL context must be current. Opens the lab the state names and loads the images
  // named on the command line (or the built-in sample) synchronously so the first frame shows
  // them.
  // `sampling`: the process's PC sampler (sampling::keep_cubins, made before the first launch),
  // for the Source tab's stall samples per line; none: the tab says why.
  static Result<std::unique_ptr<App>> create(Window& window, CliOptions options, ComputeSession compute,
                                             LabCatalog catalog, sampling::SamplerHandle sampling = {});
  ~App();
  App(const App&) = delete;
  App& operator=(const App&) = delete;

  // Draws one frame into the window's framebuffer; present() shows it (windowed) or keeps it for
  // a screenshot (headless: read it before presenting).
  void frame();
  void present();
  // Windowed: sleeps in the event loop until the next frame is worth drawing (input, a launch
  // finished, progress to show; shell/frame_pacer.hpp). Call before frame().
  void wait_for_next_frame();
  // How long wait_for_next_frame() would sleep now, in seconds (0: draw at once).
  double idle_wait_s() const;
  // Where the frames' time went, per phase (frame_phases.hpp): headless runs print it at exit.
  const FramePhases& frame_phases() const { return phases_; }
  bool should_close() { return window_.should_close(); }
  bool loading() const { return intake_.busy(); }

  // Headless outputs (shell/headless_outputs.hpp).
  Status write_screenshot(const std::filesystem::path& path);
  Status write_output(const std::filesystem::path& path);  // the open lab's result, as a PNG
  Status write_schedule_json(const std::filesystem::path& path);
  // A --kernel-file or a dropped .cu compiling and running its first launch (off the UI thread),
  // or images loading: headless runs keep drawing frames until this is false.
  bool busy() const { return intake_.busy() || editor_.busy(); }
  // --kernel-file's first compile and launch: the run modes' exit code.
  const editor::KernelFileOutcome& kernel_file_outcome() const { return editor_.editor().kernel_file_outcome(); }
  // One line per fact of the open lab's last attempt, for headless runs to print.
  std::string summary() const { return launch_summary(host_); }
  // The open lab's latest attempt (may be refused) and the last launch that ran.
  const LaunchRecord& last_launch() const { return host_.current().launch.last; }
  const LaunchRecord& shown_launch() const { return host_.current().launch.shown; }
  const MessageLog& messages() const { return messages_; }
  bool had_load_failure() const { return intake_.had_load_failure(); }  // headless exit code 1
  // Headless --profile: the profile asked for has not been shown yet (keep drawing frames).
  bool profile_pending() const {
    return measured_.profile_pending() ||
           (compare_script_ != CompareScript::Off && compare_script_ != CompareScript::Done);
  }
  // The Source tab (issue 22): waiting for its listing (headless keeps drawing frames), and its
  // state for tests (state().centre shows it).
  bool source_pending() const { return ui_.source_tab().pending(); }
  SourceTab& source_tab() { return ui_.source_tab(); }
  std::string interop_mode() const;
  bool device_faulted() const { return host_.device_faulted(); }
  const std::string& backend_label() const { return host_.backend().label; }
  const lab::Backend& backend() const { return host_.backend(); }
  const std::string& lab_id() const { return state_.lab; }

  // Driving the app the way the UI does (tests, the self-test tool): open a lab, select a kernel
  // and configuration, install an image as a finished drop does, ask for a relaunch.
  Status open_lab(const std::string& id) { return host_.open_lab(id); }
  Status select(const std::string& kernel, const KernelConfig& config) { return host_.select(kernel, config); }
  // One of the open lab's problem settings, as its combo in the controls changes it.
  void change_setting(const std::string& key, const std::string& value) {
    host_.change_setting(host_.current(), key, value);
  }
  Status install_image_for_test(Rgba8Image image) { return host_.install_image(std::move(image)); }
  void request_relaunch() { host_.current().launch.dirty = true; }
  LabView* current_view() { return host_.current().view.get(); }
  // The kernel editor's actions, for menus, buttons and the app's shortcut system: open the
  // editor on the open lab's kernel ("Edit kernel").
  void edit_kernel() { editor_.edit_kernel(); }
  editor::KernelEditor& kernel_editor() { return editor_.editor(); }
  AppState& state() { return state_; }
  // The keyboard shortcuts (Help > Keyboard shortcuts lists them; so does the README).
  const ShortcutRegistry& shortcuts() const { return ui_.shortcuts(); }
  // Where settings are kept this run (empty: nowhere, e.g. headless without --config-dir).
  const std::filesystem::path& settings_file() const { return settings_.file(); }
  // Writes the settings now if they changed (also done every second and at exit).
  void save_settings() { settings_.save_if_changed(host_, true); }
  void reset_to_defaults();
  // True while a launch runs on the worker thread (the CPU simulation in the window).
  bool launch_in_flight() const { return launches_.in_flight(); }
  // Launch attempts kept so far (ran, refused or cancelled): tests count the window's own
  // launches with it (none while a sweep measures).
  std::size_t launch_records_kept() const { return launches_.records_kept(); }
  // For the self-test's fault injection: the compute session moves to the CPU as after a
  // sticky device fault reported as `fault`.
  void handle_device_fault(const Status& fault) { host_.handle_device_fault(fault); }

  // Experiments (app/experiments): a sweep of the open lab's selected kernel (every kernel with
  // state().sweep.ladder) on a worker thread; the window keeps drawing while it runs, and its
  // own launches pause. --sweep asks for one as soon as the lab's data is ready.
  Status start_sweep();
  void cancel_sweep();
  bool sweeping() const;                         // running, or asked for and not started yet
  const lab::SweepResult* sweep_result() const;  // the open lab's latest (live while running)
  // Writes a sweep or the current launch (JSON, CSV) now; a PNG (the sweep's chart, the data
  // view, the window) is cut from the frame just rendered: call it after frame(), before
  // present(), as write_screenshot. Nothing measured is lost when the path cannot be written.
  Status export_to(ExportWhat what, const std::filesystem::path& path);

 private:
  App(Window& window, CliOptions options, ComputeSession compute, LabCatalog catalog);
  Status init_gl_and_imgui();
  void launch_step();          // the open lab: its problem updated, then the launch policy
  void compare_script_step();  // --compare-block: A profiled, B launched and profiled, both pinned
  // Continuous runs paced on the worker (the CPU simulation in the window): a repeat that is due
  // while nothing else asks for a frame starts here, between frames; the frame that shows its
  // result is the only one it costs. True when one started.
  bool start_due_repeat();
  std::optional<double> repeat_cpu_start_;  // the process's CPU seconds when a paced repeat started
  // This frame's share of the window's input, handed to ImGui; returns the key presses in it
  // (for the shortcuts).
  std::vector<Window::KeyPress> feed_input();
  void write_status_file();
  void export_finished_sweep();  // the window's --sweep --json: written when the sweep ends

  Window& window_;
  CliOptions options_;
  AppState& state_;
  MessageLog messages_;
  LaunchScheduler launches_;
  LabHost host_;
  ImageIntake intake_;
  EditorBridge editor_;
  MeasuredTab measured_;
  enum class CompareScript {
    Off,
    WaitA,
    WaitBLaunch,
    WaitB,
    Done
  } compare_script_ = CompareScript::Off;     // the Measured tab: hardware counters, profiled off the UI thread
  std::unique_ptr<Experiments> experiments_;  // sweeps, Compare, exports
  SettingsKeeper settings_;
  ShellUi ui_;
  InputQueue input_;
  FramePacer pacer_;
  FramePhases phases_;  // where each frame's time went (frame_phases.hpp)
  bool frame_had_input_ = false;
  std::size_t activity_seen_ = 0;  // messages and records at the last frame: a change means a frame to settle
  std::optional<StatusFileWriter> status_writer_;  // --status-file
  OutputDigestCache status_digest_;                // its result digest, made once per result
  bool status_write_failed_ = false;               // said once, not every frame
  std::string imgui_ini_path_;
  bool imgui_ready_ = false;
  bool sweep_on_start_ = false;  // --sweep: once the lab's data is ready
  bool sweep_exported_ = false;  // the window's --sweep --json was written
};

}  // namespace bs::app
