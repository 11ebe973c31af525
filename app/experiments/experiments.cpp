// Section index
//   1. starting, polling and the point being measured
//   2. the controls (Sweep, its settings, the progress, Cancel)
//   3. the centre's tabs (Sweep, Compare)
//   4. pins
//   5. exports
#include "experiments/experiments.hpp"

#include <algorithm>
#include <cstdio>
#include <cctype>
#include <cmath>
#include <utility>

#include "device/cuda_device.hpp"
#include "lab/report.hpp"
#include "ui/widgets.hpp"

namespace bs::app {
namespace {

std::string seconds_text(double s) {
  char buf[32];
  if (s < 0) return "estimating time left";
  if (s < 60) std::snprintf(buf, sizeof buf, "about %.0f s left", std::max(1.0, s));
  else std::snprintf(buf, sizeof buf, "about %.0f min %02.0f s left", std::floor(s / 60), std::fmod(s, 60));
  return buf;
}

// The sweep a set of settings names on a lab.
lab::SweepSpec make_spec(const SweepSettings& s, BackendKind backend, const std::string& kernel) {
  lab::SweepSpec spec;
  if (!s.ladder) spec.kernels = {kernel};
  if (!s.all_blocks) {
    const lab::BlockList list = lab::parse_block_list(s.block_list);
    spec.blocks = list.shapes;
    spec.refused_inputs = list.refused;
  }
  spec.timing = lab::default_sweep_policy(backend);
  if (s.warmup >= 0) spec.timing.warmup = s.warmup;
  if (s.min_repeats > 0) {
    spec.timing.min_repeats = s.min_repeats;
    spec.timing.max_repeats = std::max(spec.timing.max_repeats, s.min_repeats);
  }
  if (s.target_ci > 0) spec.timing.target_ci = s.target_ci;
  if (s.point_budget_ms > 0) spec.timing.budget_ms = s.point_budget_ms;
  spec.timing.flush_l2 = s.flush_l2 && backend == BackendKind::Cuda;
  return spec;
}

}  // namespace

Experiments::Experiments(SweepSettings& settings, MessageLog& messages, std::string cupti_library)
    : settings_(settings), messages_(messages), cupti_library_(std::move(cupti_library)) {}

// ---------------------------------------------------------------------------------------------
// 1. starting, polling and the point being measured
// ---------------------------------------------------------------------------------------------

Status Experiments::start_sweep(const lab::Lab& lab, const std::string& kernel) {
  if (runner_.running()) return Status::failure("a sweep is already running", "cancel it first", "sweep");
  const lab::ProblemInfo problem = lab.problem();
  if (!problem.ready) return problem.status;
  if (!settings_.ladder && !lab.find_kernel(kernel))
    return Status::failure("no kernel '" + kernel + "' in the " + std::string(lab.title()) + " lab", "", "sweep");
  lab::SweepSpec spec = make_spec(settings_, lab.backend().kind, kernel);
  const lab::KernelInfo* k = lab.find_kernel(kernel);
  const bool free_block = settings_.ladder || (k && k->style == lab::ConfigStyle::FreeBlock);
  if (!settings_.all_blocks && spec.blocks.empty() && free_block)
    return Status::failure("the list '" + settings_.block_list + "' names no block shape",
                           "write shapes such as 32x8,16x16,256", "sweep");
  const std::size_t points = lab::sweep_points(lab, spec, nullptr).size();
  if (points == 0) return Status::failure("nothing to sweep", "", "sweep");
  LabSweep& ls = of(std::string(lab.id()));
  // The live result: the header now, the points as they finish.
  lab::SweepResult live;
  live.lab = std::string(lab.id());
  live.title = std::string(lab.title());
  live.problem = problem.summary;
  live.unit = problem.throughput_unit;
  live.backend = to_string(lab.backend().kind);
  live.device = lab.backend().label;
  live.versions = lab.backend().versions;
  live.settings = lab.setting_values();
  live.kernels = lab.kernels();
  live.ceilings = problem.ceilings;
  live.limits = lab.backend().limits;
  live.policy = spec.timing;
  live.planned = points;
  live.refusals = spec.refused_inputs;
  live.complete = false;
  std::optional<counters::CounterOptions> counters;
  if (settings_.counters) counters = counters::CounterOptions{.cupti_library = cupti_library_};
  if (Status s = runner_.start(lab, std::move(spec), counters); !s) return s;
  ls.result = std::move(live);
  ls.facts.clear();
  ls.select_sweep_tab = true;
  plan_key_.clear();
  plan_.reset();
  messages_.info("Sweeping " + (settings_.ladder ? std::string("every kernel") : kernel) + " of the " +
                 std::string(lab.title()) + " lab: " + std::to_string(points) + " points");
  return Status::success();
}

void Experiments::cancel_sweep() {
  if (runner_.running()) runner_.cancel();
}

std::optional<Status> Experiments::poll() {
  const std::string id = runner_.lab_id();
  if (id.empty()) return std::nullopt;
  LabSweep& ls = of(id);
  std::vector<LaunchRecord> fresh = runner_.take_new_records();
  if (!fresh.empty() && ls.result) {
    for (LaunchRecord& r : fresh) {
      if (r.refused) {
        const std::string label = r.request.compiled >= 0 ? r.config_label : block_text(r.request.block);
        ls.result->refusals.push_back(r.kernel + " " + label + ": " + r.status.message);
      }
      ls.result->records.push_back(std::move(r));
    }
    ls.facts = point_facts(*ls.result);
  }
  std::optional<lab::SweepResult> done = runner_.take_result();
  if (!done) return std::nullopt;
  std::optional<Status> fault;
  if (done->fault.sticky_app_fault()) fault = done->fault;
  char buf[256];
  std::snprintf(buf, sizeof buf, "Sweep %s: %zu of %zu points in %.1f s", done->complete ? "finished" : "stopped",
                done->records.size(), done->planned, done->wall_s);
  if (!done->fault.ok())
    messages_.error(
        Status::failure(buf + std::string(": ") + done->note, done->fault.hint, done->fault.call, done->fault.code));
  else if (!done->complete) messages_.warn(buf, done->note);
  else messages_.info(buf);
  if (done->planned == 0 && ls.result) done->planned = ls.result->planned;
  ls.result = std::move(done);
  ls.facts = point_facts(*ls.result);
  ls.select_sweep_tab = true;
  plan_.reset();
  plan_key_.clear();
  return fault;
}

const lab::SweepResult* Experiments::result(const std::string& lab_id) const {
  auto it = labs_.find(lab_id);
  return it != labs_.end() && it->second.result ? &*it->second.result : nullptr;
}

std::optional<LaunchRecord> Experiments::measuring_plan(lab::Lab& lab) {
  if (!runner_.running() || runner_.forking() || runner_.lab_id() != lab.id()) return std::nullopt;
  const SweepRunner::Progress p = runner_.progress();
  if (p.sweep.current.kernel.empty()) return std::nullopt;
  const std::string key = p.sweep.current.kernel + "|" + p.sweep.current.label;
  if (key != plan_key_) {
    plan_key_ = key;
    LaunchRecord r = lab.plan(p.sweep.current.kernel, p.sweep.current.config);
    plan_ = r.ok() ? std::optional<LaunchRecord>(std::move(r)) : std::nullopt;
  }
  return plan_;
}

std::string Experiments::measuring_text() const {
  if (!runner_.running()) return {};
  const SweepRunner::Progress p = runner_.progress();
  if (p.forking) return "sweep: copying the lab's data for the sweep...";
  return "sweep point " + std::to_string(std::min(p.sweep.done + 1, p.sweep.total)) + " of " +
         std::to_string(p.sweep.total) + ": " + p.sweep.current.kernel + " " + p.sweep.current.label;
}

// ---------------------------------------------------------------------------------------------
// 2. the controls
// ---------------------------------------------------------------------------------------------

void Experiments::draw_controls(const ExperimentsHost& host) {
  const float em = ImGui::GetFontSize();
  ImGui::Separator();
  ImGui::TextUnformatted("EXPERIMENTS");
  if (runner_.running()) {
    const SweepRunner::Progress p = runner_.progress();
    const float fraction = p.sweep.total ? static_cast<float>(p.sweep.done) / p.sweep.total : 0.0f;
    const std::string overlay = std::to_string(p.sweep.done) + " / " + std::to_string(p.sweep.total) + ", " +
                                (p.forking ? "copying the data" : seconds_text(p.sweep.eta_s));
    ImGui::ProgressBar(fraction, ImVec2(-1, 0), overlay.c_str());
    ImGui::BeginDisabled(runner_.cancelling());
    if (ImGui::Button(runner_.cancelling() ? "Cancelling..." : "Cancel")) runner_.cancel();
    ImGui::EndDisabled();
    ui::item_tooltip("Stops after the point being measured; every point already measured is kept.");
    ImGui::SameLine();
    ImGui::PushTextWrapPos(0);
    if (runner_.lab_id() != host.lab_id)
      ImGui::TextColored(ui::kDimColour, "sweeping the %s lab", runner_.lab_id().c_str());
    else ImGui::TextColored(ui::kDimColour, "%s", measuring_text().c_str());
    ImGui::TextColored(ui::kWarnColour, "The window's own launches pause while the sweep measures.");
    ImGui::PopTextWrapPos();
    return;
  }
  const bool ready = host.lab && host.lab->problem().ready;
  ImGui::BeginDisabled(!ready);
  if (ImGui::Button("Sweep")) {
    if (Status s = host.start_sweep ? host.start_sweep() : start_sweep(*host.lab, host.kernel); !s) messages_.error(s);
  }
  ImGui::EndDisabled();
  ui::item_tooltip(
      "Run the selected kernel over every block shape (x, y powers of two, x*y*z <= 1024) or every "
      "compiled configuration, each validated, warmed up, repeated until its median is stable and "
      "verified; the Sweep tab shows the heatmap. The window stays live.");
  ImGui::SameLine();
  ImGui::Checkbox("every kernel", &settings_.ladder);
  ui::item_tooltip("A ladder sweep: every kernel of the lab, each over its shapes or configurations.");
  if (ImGui::TreeNode("sweep settings")) {
    if (ImGui::RadioButton("every power-of-two shape", settings_.all_blocks)) settings_.all_blocks = true;
    if (ImGui::RadioButton("these shapes:", !settings_.all_blocks)) settings_.all_blocks = false;
    char buf[512];
    std::snprintf(buf, sizeof buf, "%s", settings_.block_list.c_str());
    ImGui::SetNextItemWidth(-1);
    if (ImGui::InputText("##blocklist", buf, sizeof buf)) {
      settings_.block_list = buf;
      settings_.all_blocks = false;
    }
    ui::item_tooltip(
        "Comma-separated shapes such as 32x8,16x16,256. A shape the kernel cannot take is refused "
        "with the reason and the rest still run.");
    ImGui::Checkbox("flush the L2 before each repeat", &settings_.flush_l2);
    ui::item_tooltip("Cold caches: overwrite a buffer twice the L2's size before every timed repeat (GPU only).");
    ImGui::Checkbox("hardware counters per point", &settings_.counters);
    ui::item_tooltip(
        "Once every point is timed, profile each one's launch through CUPTI (about 0.4 s a point on "
        "the GPU): DRAM bytes, L2 hit rate, sectors per request, achieved occupancy and stalls beside "
        "the model, in the cell's tooltip, as colours (colour by) and in the exports. The timings are "
        "taken first and are unaffected. GPU only: on the CPU simulation the sweep says so.");
    const BackendKind kind = host.lab ? host.lab->backend().kind : BackendKind::CpuSimulation;
    const TimingPolicy d = lab::default_sweep_policy(kind);
    float ci = static_cast<float>(100 * (settings_.target_ci > 0 ? settings_.target_ci : d.target_ci));
    ImGui::SetNextItemWidth(em * 6);
    if (ImGui::InputFloat("target CI (+-%)", &ci, 0, 0, "%.2f") && ci > 0) settings_.target_ci = ci / 100;
    float budget = static_cast<float>(settings_.point_budget_ms > 0 ? settings_.point_budget_ms : d.budget_ms);
    ImGui::SetNextItemWidth(em * 6);
    if (ImGui::InputFloat("budget per point (ms)", &budget, 0, 0, "%.0f") && budget > 0)
      settings_.point_budget_ms = budget;
    int reps = settings_.min_repeats > 0 ? settings_.min_repeats : d.min_repeats;
    ImGui::SetNextItemWidth(em * 6);
    if (ImGui::InputInt("repeats at least", &reps, 0) && reps > 0) settings_.min_repeats = std::min(reps, 100000);
    if (ImGui::SmallButton("defaults")) {
      settings_.target_ci = settings_.point_budget_ms = 0;
      settings_.min_repeats = 0;
      settings_.warmup = -1;
    }
    ui::item_tooltip(
        "The backend's policy: one warm-up, at least 5 repeats (6 on the CPU), then until the "
        "median's 95% interval is within +-1% or the point has used 100 ms (60 ms on the CPU).");
    ImGui::TreePop();
  }
}

// ---------------------------------------------------------------------------------------------
// 3. the centre's tabs
// ---------------------------------------------------------------------------------------------

bool Experiments::take_front(const std::string& lab_id, Panel tab) {
  LabSweep& ls = of(lab_id);
  bool& flag = tab == Panel::Sweep ? ls.select_sweep_tab : ls.select_compare_tab;
  return std::exchange(flag, false);
}

std::optional<LoadRequest> Experiments::draw_sweep_tab(const ExperimentsHost& host) {
  std::optional<LoadRequest> load;
  chart_visible_ = false;
  LabSweep& ls = of(host.lab_id);
  const bool running_here = sweeping_lab(host.lab_id);
  if (!ls.result) {
    ui::wrapped_text(ui::kDimColour,
                     "No sweep yet. Press Sweep in the left panel to run the selected kernel over "
                     "every block shape (or every compiled configuration); the heatmap fills in "
                     "here as the points finish.");
    return load;
  }
  SweepViewInput in;
  in.result = &*ls.result;
  if (ls.facts.size() != ls.result->records.size()) ls.facts = point_facts(*ls.result);
  in.facts = &ls.facts;
  in.running = running_here;
  in.metric = &settings_.metric;
  if (running_here) {
    const SweepRunner::Progress p = runner_.progress();
    if (p.sweep.measuring) in.measuring = p.sweep.current;
  }
  // Its own scrolling region: the chart fits the tab, the notes under it scroll.
  ImGui::BeginChild("sweep_result", ImVec2(0, 0), false);
  const SweepViewAction act = draw_sweep_view(in, &ls.view, &chart_min_, &chart_max_);
  ImGui::EndChild();
  chart_visible_ = chart_max_.x > chart_min_.x;
  auto record = [&](int i) -> const LaunchRecord& { return ls.result->records[static_cast<std::size_t>(i)]; };
  if (act.load >= 0) load = LoadRequest{record(act.load).kernel, record(act.load).request};
  if (act.pin_a >= 0) pin(host.lab_id, 0, record(act.pin_a), "sweep");
  if (act.pin_b >= 0) pin(host.lab_id, 1, record(act.pin_b), "sweep");
  return load;
}

std::optional<LoadRequest> Experiments::draw_compare_tab(const ExperimentsHost& host) {
  std::optional<LoadRequest> load;
  LabSweep& ls = of(host.lab_id);
  CompareInput in;
  in.a = &ls.a;
  in.b = &ls.b;
  in.lab = host.lab;
  in.limits = host.lab ? &host.lab->backend().limits : nullptr;
  if (host.lab) {
    const lab::ProblemInfo p = host.lab->problem();
    in.unit = p.throughput_unit;
    in.ceilings = p.ceilings;
  }
  in.draw_data = host.draw_record;
  in.inspected = host.inspected;
  in.have_current = host.shown && host.shown->ok() && !host.shown->kernel.empty();
  const CompareAction act = draw_compare_view(in, &ls.compare);
  if (act.pin_current >= 0 && in.have_current) pin_current(host, act.pin_current);
  if (act.load >= 0) {
    const std::optional<Pin>& p = act.load == 0 ? ls.a : ls.b;
    if (p) load = LoadRequest{p->record.kernel, p->record.request};
  }
  if (act.clear == 0) ls.a.reset();
  if (act.clear == 1) ls.b.reset();
  if (act.swap) std::swap(ls.a, ls.b);
  return load;
}

// ---------------------------------------------------------------------------------------------
// 4. pins
// ---------------------------------------------------------------------------------------------

void Experiments::pin_current(const ExperimentsHost& host, int side) {
  if (!host.shown) return;
  LaunchRecord r = *host.shown;
  if (host.lines_of && !r.lines) r.lines = host.lines_of(r);
  pin(host.lab_id, side, r, "controls");
}

void Experiments::pin(const std::string& lab_id, int side, const LaunchRecord& record, std::string from) {
  LabSweep& ls = of(lab_id);
  Pin p{record, std::move(from)};
  p.record.schedule.clear();  // the compare view needs the launch, not its trace
  (side == 0 ? ls.a : ls.b) = std::move(p);
  ls.select_compare_tab = ls.a.has_value() && ls.b.has_value();
  messages_.info(std::string("Pinned ") + (side == 0 ? "A" : "B") + ": " + record.kernel + " " + record.config_label);
}

const std::optional<Pin>& Experiments::pinned(const std::string& lab_id, int side) {
  LabSweep& ls = of(lab_id);
  return side == 0 ? ls.a : ls.b;
}

// ---------------------------------------------------------------------------------------------
// 5. exports
// ---------------------------------------------------------------------------------------------

Status Experiments::export_text(ExportWhat what, const std::string& path, const ExperimentsHost& host) {
  std::string text;
  switch (what) {
    case ExportWhat::SweepJson:
    case ExportWhat::SweepCsv: {
      const lab::SweepResult* r = result(host.lab_id);
      if (!r) return Status::failure("there is no sweep of this lab to export", "run a sweep first", "export");
      text = what == ExportWhat::SweepJson ? sweep_json(*r) : sweep_csv(*r);
      break;
    }
    case ExportWhat::LaunchJson:
    case ExportWhat::LaunchCsv: {
      if (!host.lab || !host.shown || !host.shown->ok() || host.shown->kernel.empty())
        return Status::failure("no launch has run yet", "run the selection once", "export");
      // What the panel shows: the median and interval of every run of this configuration kept
      // (the Timings tab's "median of N runs"), not the last run alone.
      LaunchRecord r = *host.shown;
      if (!host.shown_samples_ms.empty()) {
        r.timing.samples_ms = host.shown_samples_ms;
        summarize(r.timing);
      }
      text = what == ExportWhat::LaunchJson ? launch_json(*host.lab, r) : launch_csv(*host.lab, r);
      break;
    }
    default: return Status::failure("a PNG is cut from the rendered frame by the window", "", "export");
  }
  return lab::write_text_file(path, text);
}

void Experiments::draw_export_menu(const ExperimentsHost& host) {
  if (!ImGui::BeginMenu("Export")) return;
  const bool sweep = result(host.lab_id) != nullptr;
  const bool launch = host.shown && host.shown->ok() && !host.shown->kernel.empty();
  const struct {
    ExportWhat what;
    bool enabled;
    const char* why;
  } items[] = {{ExportWhat::SweepJson, sweep, "run a sweep first"},
               {ExportWhat::SweepCsv, sweep, "run a sweep first"},
               {ExportWhat::LaunchJson, launch, "no launch has run yet"},
               {ExportWhat::LaunchCsv, launch, "no launch has run yet"},
               {ExportWhat::HeatmapPng, chart_visible_, "show the Sweep tab's chart first"},
               {ExportWhat::DataViewPng, true, ""},
               {ExportWhat::WindowPng, true, ""}};
  for (const auto& it : items) {
    std::string label = export_label(it.what);
    label[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(label[0])));
    // A greyed item says why in its own label (a tooltip on a disabled menu item is easily missed).
    label += it.enabled ? "..." : std::string("  (") + it.why + ")";
    if (ImGui::MenuItem(label.c_str(), it.what == ExportWhat::SweepJson && it.enabled ? "Ctrl+Shift+E" : nullptr, false,
                        it.enabled)) {
      asking_ = it.what;
      export_path_ = default_export_path(it.what, host.lab_id);
      open_dialog_ = true;
    }
    if (!it.enabled && *it.why) ui::item_tooltip(it.why);
  }
  ImGui::EndMenu();
}

void Experiments::ask_export(const ExperimentsHost& host) {
  const bool launch = host.shown && host.shown->ok() && !host.shown->kernel.empty();
  if (result(host.lab_id)) asking_ = ExportWhat::SweepJson;
  else if (launch) asking_ = ExportWhat::LaunchJson;
  else return messages_.warn("Nothing to export yet", "run a launch or a sweep first");
  export_path_ = default_export_path(*asking_, host.lab_id);
  open_dialog_ = true;
}

std::optional<std::pair<ExportWhat, std::string>> Experiments::draw_export_dialog(const ExperimentsHost& host) {
  std::optional<std::pair<ExportWhat, std::string>> png;
  if (open_dialog_) {
    ImGui::OpenPopup("Export");
    open_dialog_ = false;
    focus_path_frames_ = 2;  // the menu that asked may take the focus back in the first frame
  }
  if (!ImGui::BeginPopupModal("Export", nullptr, ImGuiWindowFlags_AlwaysAutoResize)) return png;
  if (!asking_) {
    ImGui::CloseCurrentPopup();
    ImGui::EndPopup();
    return png;
  }
  ImGui::Text("Write %s to:", export_label(*asking_));
  char buf[1024];
  std::snprintf(buf, sizeof buf, "%s", export_path_.c_str());
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 32);
  if (focus_path_frames_ > 0) {
    ImGui::SetKeyboardFocusHere();
    --focus_path_frames_;
  }
  if (ImGui::InputText("##export_path", buf, sizeof buf, ImGuiInputTextFlags_AutoSelectAll)) export_path_ = buf;
  // Enter in the path writes, as the Write button does (the field keeps what was typed).
  const bool enter =
      ImGui::IsItemDeactivated() && (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Enter), false) ||
                                     ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_KeyPadEnter), false));
  ImGui::TextColored(ui::kDimColour, "A relative path is relative to the folder blockscope started in. Enter writes.");
  if (ImGui::Button("Write") || enter) {
    if (export_needs_frame(*asking_)) {
      png = std::pair{*asking_, export_path_};
    } else if (Status s = export_text(*asking_, export_path_, host); !s) {
      messages_.error(s);  // the results stay in memory: try another path
    } else {
      messages_.info("Wrote " + export_path_);
    }
    asking_.reset();
    ImGui::CloseCurrentPopup();
  }
  ImGui::SameLine();
  if (ImGui::Button("Cancel")) {
    asking_.reset();
    ImGui::CloseCurrentPopup();
  }
  ImGui::EndPopup();
  return png;
}

}  // namespace bs::app
