// The experiments the shell offers every lab: sweeps (started from the left panel, run on a
// worker thread, shown in the centre's Sweep tab), Compare (two pinned configurations side by
// side) and exports. Lab-neutral: the shell hands it the open lab (lab::Lab), what is selected,
// and a function that draws a record's data (the lab's view); it never names a lab.
//
// Per frame the shell calls poll() (new points, the finished result, a device fault to handle),
// asks sweeping() before relaunching (the GPU is shared: the window's own launches pause while a
// sweep measures), asks forking() before changing a lab's problem, and draws draw_controls() and,
// as two of its centre tabs (ui/tab.hpp), draw_sweep_tab() and draw_compare_tab(). Export requests that need the
// rendered frame (PNGs) come back to the shell, which cuts them from the frame after it is rendered.
#pragma once
#include <imgui.h>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "experiments/compare_view.hpp"
#include "experiments/exports.hpp"
#include "experiments/sweep_model.hpp"
#include "experiments/sweep_runner.hpp"
#include "experiments/sweep_view.hpp"
#include "state/sweep_settings.hpp"
#include "ui/messages.hpp"
#include "ui/tab.hpp"

namespace bs::app {

// What the shell gives for one call: the open lab and its selection.
struct ExperimentsHost {
  lab::Lab* lab = nullptr;
  std::string lab_id;
  std::string kernel;  // selected
  KernelConfig config;
  const LaunchRecord* shown = nullptr;  // the last launch that ran (may be empty)
  // Every kernel time of shown's configuration the panels summarise ("median of 240 runs"):
  // the launch exports write these, not shown's single run.
  std::vector<double> shown_samples_ms;
  DrawRecordFn draw_record;  // the lab view's draw of a record into a rectangle
  std::optional<PixelPos> inspected;
  // The shell's start of a sweep (the window's own launch stops, the frames settle no more); the
  // Sweep button calls it. Empty: the button starts the sweep here.
  std::function<Status()> start_sweep;
  // The Source tab's stall samples of exactly this launch, or null: a pinned launch carries them
  // (Compare's per-line diff). Empty: none.
  std::function<std::shared_ptr<const LineProfile>(const LaunchRecord&)> lines_of;
};

class Experiments {
 public:
  // `cupti_library`: the libcupti that sweeps with hardware counters load (--cupti; empty: search).
  Experiments(SweepSettings& settings, MessageLog& messages, std::string cupti_library = {});

  // Sweeps the selected kernel (every kernel with settings.ladder) of `lab` with the settings.
  Status start_sweep(const lab::Lab& lab, const std::string& kernel);
  void cancel_sweep();
  bool sweeping() const { return runner_.running(); }
  bool forking() const { return runner_.forking(); }
  // A sweep started and waits for the window to finish its GL work before it measures
  // (sweep_runner.hpp): the shell calls sweep_go() once it did (glFinish).
  bool sweep_waits_for_go() const { return runner_.waiting_for_go(); }
  void sweep_go() { runner_.go(); }
  std::string sweeping_lab() const { return runner_.lab_id(); }
  // Once a frame: the worker's new points and, when it ends, its result. A sticky device fault
  // that stopped a sweep is returned once, for the shell to move to the CPU.
  std::optional<Status> poll();
  // The sweep of `lab_id` shown in its Sweep tab (live while it runs); nullptr before any.
  const lab::SweepResult* result(const std::string& lab_id) const;
  // The plan of the point being measured, on the window's lab (its overlay shows in the data
  // view); nullopt when no sweep of this lab runs.
  std::optional<LaunchRecord> measuring_plan(lab::Lab& lab);
  std::string measuring_text() const;  // "sweep point 23 of 66: gray_2d 16x8"

  // The Sweep button, its settings and, while one runs, the progress with the time left and
  // Cancel.
  void draw_controls(const ExperimentsHost& host);
  // The Sweep tab (the heatmap of the host lab's sweep, live while it runs) and the Compare tab
  // (the two pins). Each returns a configuration to load into the lab when the user clicked one.
  std::optional<LoadRequest> draw_sweep_tab(const ExperimentsHost& host);
  std::optional<LoadRequest> draw_compare_tab(const ExperimentsHost& host);
  // True once after a sweep of `lab_id` started or ended (its Sweep tab comes to the front), or
  // after both pins were set (Compare).
  bool take_front(const std::string& lab_id, Panel tab);
  // Frames the Sweep tab is not drawn: its chart is not on screen (no PNG of it).
  void sweep_tab_hidden() { chart_visible_ = false; }
  // The Sweep tab's title note while the sweep of `lab_id` runs.
  bool sweeping_lab(const std::string& lab_id) const { return runner_.running() && runner_.lab_id() == lab_id; }
  // Where the sweep's chart was drawn last (screen coordinates), for its PNG.
  std::pair<ImVec2, ImVec2> chart_rect() const { return {chart_min_, chart_max_}; }
  bool chart_visible() const { return chart_visible_; }

  // Pins for Compare.
  void pin(const std::string& lab_id, int side, const LaunchRecord& record, std::string from);
  // Pins the host's launch shown as A (0) or B (1), with its stall samples per line when the
  // Source tab has them (host.lines_of).
  void pin_current(const ExperimentsHost& host, int side);
  const std::optional<Pin>& pinned(const std::string& lab_id, int side);

  // Exports of text (JSON, CSV) now; PNGs are the shell's (they need the rendered frame).
  Status export_text(ExportWhat what, const std::string& path, const ExperimentsHost& host);
  // File > Export: the items, and the dialog asking for the path. Returns a PNG request for the
  // shell when the user confirmed one.
  void draw_export_menu(const ExperimentsHost& host);
  // The export dialog for the sweep's JSON, else the last launch's (the Ctrl+Shift+E shortcut).
  void ask_export(const ExperimentsHost& host);
  std::optional<std::pair<ExportWhat, std::string>> draw_export_dialog(const ExperimentsHost& host);

 private:
  struct LabSweep {
    std::optional<lab::SweepResult> result;  // live while running, then the final one
    std::vector<PointFacts> facts;
    SweepViewState view;
    std::optional<Pin> a, b;
    CompareState compare;
    bool select_sweep_tab = false;  // once, when a sweep starts or ends
    bool select_compare_tab = false;
  };
  LabSweep& of(const std::string& lab_id) { return labs_[lab_id]; }

  SweepSettings& settings_;
  MessageLog& messages_;
  std::string cupti_library_;  // for sweeps with hardware counters
  SweepRunner runner_;
  std::map<std::string, LabSweep> labs_;
  std::string plan_key_;
  std::optional<LaunchRecord> plan_;
  ImVec2 chart_min_{0, 0}, chart_max_{0, 0};
  bool chart_visible_ = false;
  // The export dialog.
  std::optional<ExportWhat> asking_;
  std::string export_path_;
  bool open_dialog_ = false;
  int focus_path_frames_ = 0;  // frames the path field is given the keyboard after the dialog opens
};

}  // namespace bs::app
