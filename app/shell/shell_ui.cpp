// The shell's UI, part 1: the frame's layout, the controls panel, the centre and the side tabs
// (shell_ui.hpp lists the other parts).
#include "shell/shell_ui.hpp"

#include <imgui_internal.h>  // the popup stack, for the status file

#include <algorithm>

#include "ui/help_overlay.hpp"
#include "ui/layout.hpp"
#include "ui/widgets.hpp"

namespace bs::app {
namespace fs = std::filesystem;

ShellUi::ShellUi(ShellRooms r, ShellActions actions)
    : window_(r.window),
      state_(r.state),
      messages_(r.messages),
      host_(r.host),
      launches_(r.launches),
      intake_(r.intake),
      editor_(r.editor),
      experiments_(r.experiments),
      measured_(r.measured),
      settings_(r.settings),
      actions_(std::move(actions)),
      centre_shown_(state_.centre),
      side_shown_(state_.panel) {
  register_shortcuts();
  make_shell_tabs();
  source_.set_before_sampling([this] { measured_.release_counters(); });
}

void ShellUi::open_file_browser() { file_browser_.open(intake_.recent_folder()); }

void ShellUi::reset_to_defaults() {
  pickers_.clear();
  set_text_scale(AppState{}.layout.text_scale);
}

void ShellUi::draw(const std::vector<Window::KeyPress>& presses) {
  capture_png_ = pending_png_.has_value();  // asked for in an earlier frame
  // Shortcuts from the key presses ImGui sees in this frame (none are lost between slow frames:
  // shell/input_queue.hpp); Escape is one of them.
  shortcuts_.handle(presses, ImGui::GetIO().WantTextInput);

  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(vp->WorkPos);
  ImGui::SetNextWindowSize(vp->WorkSize);
  ImGui::PushStyleVar(ImGuiStyleVar_WindowRounding, 0);
  ImGui::PushStyleVar(ImGuiStyleVar_WindowBorderSize, 0);
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                 ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_MenuBar |
                                 ImGuiWindowFlags_NoBringToFrontOnFocus;
  ImGui::Begin("blockscope", nullptr, flags);
  ImGui::PopStyleVar(2);
  draw_menu_bar();
  LabSlot& s = host_.current();

  // Three columns fitted to the window (ui/layout.hpp): the panels keep the user's widths where
  // there is room, shrink (and fold, side tabs first) where there is not; splitters between
  // them resize, strips give folded panels back.
  const float em = ImGui::GetFontSize();
  const float status_h = ImGui::GetFrameHeightWithSpacing() + 4;
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float body_h = std::max(em * 4, avail.y - status_h);
  const float gap = std::max(6.0f, em * 0.45f);
  const AppState defaults;
  const ui::Columns cols = ui::plan_columns(avail.x, em, gap, state_.layout);
  auto strip = [&](const char* id, float w, const char* arrow, const char* tip, auto unfold) {
    ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(2, 4));
    ImGui::PushStyleVar(ImGuiStyleVar_FramePadding, ImVec2(1, 4));
    ImGui::BeginChild(id, ImVec2(w, body_h), true, ImGuiWindowFlags_NoScrollbar);
    if (ImGui::Button(arrow, ImVec2(-1, em * 3))) unfold();
    ui::item_tooltip(tip);
    ImGui::EndChild();
    ImGui::PopStyleVar(2);
  };
  if (cols.left_open) {
    ImGui::BeginChild("controls", ImVec2(cols.left, body_h), true);
    draw_left_panel(s);
    ImGui::EndChild();
    ImGui::SameLine(0, 0);
    ui::splitter("##split_left", gap, body_h, em, &state_.layout.left_em, false, defaults.layout.left_em);
    ImGui::SameLine(0, 0);
  } else {
    strip("controls_strip", cols.left, ">",
          cols.left_folded_for_room ? "The controls (no room: the window is too narrow)" : "Show the controls (Ctrl+[)",
          [&] { state_.layout.left_open = true; });
    ImGui::SameLine(0, gap);
  }
  ImGui::BeginChild("view", ImVec2(cols.view, body_h), true,
                    ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
  draw_centre(s);
  ImGui::EndChild();
  if (cols.side_open) {
    ImGui::SameLine(0, 0);
    ui::splitter("##split_side", gap, body_h, em, &state_.layout.side_em, true, defaults.layout.side_em);
    ImGui::SameLine(0, 0);
    ImGui::BeginChild("side", ImVec2(cols.side, body_h), true);
    draw_side_panel(s);
    ImGui::EndChild();
  } else {
    ImGui::SameLine(0, gap);
    strip("side_strip", cols.side, "<",
          cols.side_folded_for_room
              ? "The side tabs: no room beside the data. Click to fold the controls and show them."
              : "Show the side tabs (Ctrl+])",
          [&] {
            state_.layout.side_open = true;
            if (cols.side_folded_for_room) state_.layout.left_open = false;
          });
  }
  draw_status_bar(s);
  ImGui::End();

  editor_.draw();
  if (auto chosen = file_browser_.draw()) intake_.enqueue({*chosen});
  ui::draw_messages_window(messages_, &show_messages_);
  if (show_messages_) messages_seen_ = messages_.all().size();
  draw_loading_modal();
  std::vector<ui::HelpLine> help;
  for (const Shortcut* k : shortcuts_.by_group()) help.push_back({k->group, k->keys, k->what});
  ui::draw_help_overlay(help,
                        "Wheel: zoom about the cursor. Drag: pan. Click: pin an element (click again to unpin). "
                        "Drop image files anywhere on the window.",
                        &show_help_);
  if (auto png = experiments_.draw_export_dialog(experiments_host(s))) pending_png_ = png;
  if (state_.show_demo) ImGui::ShowDemoWindow(&state_.show_demo);
}

void ShellUi::after_render() {
  if (screenshot_requested_) take_screenshot_now();  // the frame just drawn, before it is shown
  // A PNG export asked for in the previous frame: cut from this one, which no longer shows the
  // export dialog.
  if (capture_png_ && pending_png_) {
    const auto [what, path] = *pending_png_;
    pending_png_.reset();
    if (Status st = write_png_export(what, path); !st) messages_.error(st);
    else messages_.info("Wrote " + path);
  }
}

void ShellUi::draw_left_panel(LabSlot& s) {
  // The lab tabs (wrapping, never clipped): the state picks the tab; a click changes the state.
  {
    std::vector<std::string> titles;
    int open_now = 0;
    const auto& slots = host_.slots();
    for (std::size_t i = 0; i < slots.size(); ++i) {
      titles.push_back(slots[i].entry->title);
      if (slots[i].id() == state_.lab) open_now = static_cast<int>(i);
    }
    const int chosen = ui::wrapping_tabs("labs", titles, open_now);
    if (chosen != open_now) state_.lab = slots[static_cast<std::size_t>(chosen)].id();
  }
  // The fold button, at the right end of the lab's heading.
  const float heading_y = ImGui::GetCursorPosY();
  ImGui::SetCursorPos(ImVec2(ImGui::GetWindowContentRegionMax().x - ImGui::GetFrameHeight(), heading_y));
  if (ImGui::SmallButton("<##fold_left")) state_.layout.left_open = false;
  ui::item_tooltip("Fold the controls panel (Ctrl+[); drag the edge beside it to resize it");
  ImGui::SetCursorPosY(heading_y);
  if (!s.view) {
    ui::status_text(s.failure.ok() ? Status::failure("opening the lab...") : s.failure);
    return;
  }
  LaunchState& st = s.launch;
  ViewContext ctx = host_.context();
  ViewRequests requests;
  ImGui::PushTextWrapPos(0.0f);  // no line of the controls runs under the panel's edge
  ImGui::TextUnformatted((std::string(s.view->lab().title()) + " lab").c_str());
  ImGui::BeginDisabled(experiments_.forking());  // a sweep is copying this data
  s.view->draw_problem(ctx, requests);
  draw_settings(s);
  ImGui::EndDisabled();
  ImGui::Separator();
  const auto figures = ui::kernel_figures(launches_.timings(), s.id(), s.launch.shown.problem, s.view->lab().problem());
  ui::PickerInput in{&s.view->lab().kernels(), &host_.backend().limits, &st.last, &figures};
  if (ui::draw_kernel_picker(in, &s.kernel, &s.config, &pickers_[s.id()])) {
    st.dirty = true;
    st.paused_slow = false;
  }
  if (ImGui::Button("Edit kernel")) editor_.edit_kernel();
  ui::item_tooltip(
      "Open this kernel's CUDA source in the kernel editor (a built-in kernel opens as the lecture's "
      "template of it), change it, and compile it into this lab (Ctrl+Enter or F5 in the editor).");
  ImGui::Spacing();
  const TimingEntry* entry = st.last.ok() ? launches_.timings().find(key_of(st.last)) : nullptr;
  const lab::ProblemInfo problem = s.view->lab().problem();
  ui::ResultInput r{&st.last, &st.shown, entry, &problem, st.paused_slow && st.continuous, st.slow_ms, false, {}, 0};
  if (const lab::KernelInfo* k = s.view->lab().find_kernel(st.last.kernel)) r.uses_barriers = k->uses_barriers;
  // A launch on the worker that is slow, or of a selection other than the figures': say so.
  const bool other = st.last.kernel != s.kernel || !(st.last.request == s.config);
  if (st.in_flight && (other || launches_.running_ms() > LaunchScheduler::kSlowLaunchMs)) {
    r.running =
        s.kernel + ", " +
        (s.config.compiled >= 0 ? "configuration " + std::to_string(s.config.compiled) : block_text(s.config.block));
    r.running_s = launches_.running_ms() / 1000;
  }
  if (ui::draw_result_card(r)) launches_.cancel(s, ctx);
  if (ImGui::Checkbox("Run continuously", &st.continuous)) st.paused_slow = false;
  ui::item_tooltip(
      "Relaunch the selection so its timings fill up: on the GPU every frame while the window has "
      "the focus, on the CPU simulation at the period below it; both pause after a while without "
      "input (the status bar says). Off: relaunch only when something changes. Every new "
      "configuration is verified at once, its repeats every second.");
  ImGui::SameLine();
  if (ImGui::Button("Run once")) st.dirty = true;
  ui::item_tooltip("Ctrl+R or F5");
  if (st.continuous && host_.backend().kind == BackendKind::CpuSimulation) {
    // The simulation's repeats cost a core while they run: how often is the user's choice.
    static constexpr std::pair<double, const char*> kPeriods[] = {{LaunchScheduler::kAutoPeriod, "every 2 s or more"},
                                                                  {0.5, "every 0.5 s"},
                                                                  {2.0, "every 2 s"},
                                                                  {10.0, "every 10 s"},
                                                                  {0.0, "one after another"}};
    const char* shown = kPeriods[0].second;
    for (const auto& [p, name] : kPeriods)
      if (p == launches_.sim_period_s()) shown = name;
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted("repeats");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10);
    if (ImGui::BeginCombo("##continuous_period", shown)) {
      for (const auto& [p, name] : kPeriods)
        if (ImGui::Selectable(name, p == launches_.sim_period_s())) launches_.set_sim_period_s(p);
      ImGui::EndCombo();
    }
    ui::item_tooltip(
        "How often the CPU simulation relaunches while Run continuously is on. Every 2 s or more (the "
        "default): every 2 s, or further apart when a repeat and its frame cost more than 2% of a "
        "core (the status bar says the period). One after another keeps a core busy simulating. A "
        "change to the selection or the data launches at once whatever this says.");
  }
  experiments_.draw_controls(experiments_host(s));
  ImGui::Separator();
  ImGui::TextUnformatted("VIEW");
  s.view->draw_view_options(ctx, requests);
  if (requests.relaunch) st.dirty = true;
  if (requests.open_image) open_file_browser();
  ImGui::PopTextWrapPos();
}

// The lab's problem settings, one combo each; a change relaunches (and is remembered).
void ShellUi::draw_settings(LabSlot& s) {
  for (const lab::Setting& set : s.view->lab().settings()) {
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.45f);
    if (ImGui::BeginCombo(set.label.c_str(), set.value.c_str())) {
      for (const std::string& c : set.choices)
        if (ImGui::Selectable(c.c_str(), c == set.value) && c != set.value) host_.change_setting(s, set.key, c);
      ImGui::EndCombo();
    }
    ui::item_tooltip(set.help.c_str());
  }
}

// Beside each kernel in the list: the best median throughput its configurations reached on the
// problem shown (this session, this device) and its share of the lab's first ceiling.
void ShellUi::draw_centre(LabSlot& s) {
  data_visible_ = false;
  if (!s.view) return;
  draw_dock(s, Dock::Centre, state_.centre);
}

// The data with the overlay of the last launch, or, while this lab is being swept, of the point
// being measured (the window's own launches wait for the sweep).
void ShellUi::draw_data_tab(LabSlot& s) {
  ViewContext ctx = host_.context();
  ViewRequests requests;
  data_visible_ = true;
  data_min_ = ImGui::GetCursorScreenPos();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  data_max_ = ImVec2(data_min_.x + avail.x, data_min_.y + avail.y);
  if (auto plan = experiments_.measuring_plan(s.view->lab())) {
    s.view->draw_data(*plan, true, ctx, requests);
    const std::string note = experiments_.measuring_text() + "  (the overlay shows the point being measured)";
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 ts = ImGui::CalcTextSize(note.c_str());
    const ImVec2 at(data_min_.x + 8, data_max_.y - ts.y - 8);
    dl->AddRectFilled({at.x - 4, at.y - 2}, {at.x + ts.x + 4, at.y + ts.y + 2}, IM_COL32(60, 50, 10, 230), 3);
    dl->AddText(at, IM_COL32(255, 220, 90, 255), note.c_str());
  } else {
    const LaunchState& st = s.launch;
    const bool selection_ran = st.last.ok() || st.last.kernel.empty();
    // A selection this backend cannot run (the Hopper rungs on the CPU) still has its tiles and
    // fragment layouts: the view gets its refused record and draws them by the model.
    const bool layout_only = !st.last.ok() && st.last.status.call == "can_run";
    s.view->draw_data(layout_only ? st.last : st.shown, selection_ran, ctx, requests);
  }
  if (requests.relaunch) s.launch.dirty = true;
}

void ShellUi::draw_side_panel(LabSlot& s) {
  if (ImGui::SmallButton(">##fold_side")) state_.layout.side_open = false;
  ui::item_tooltip("Fold the side tabs (Ctrl+]); drag the edge beside them to resize them");
  ImGui::SameLine();
  if (!s.view) return;
  draw_dock(s, Dock::Side, state_.panel);
}

// ---------------------------------------------------------------------------------------------
// The tabs: the shell's own and the open lab's, one list (ui/tab.hpp)
// ---------------------------------------------------------------------------------------------

void ShellUi::make_shell_tabs() {
  auto side = [this](Panel p, void (*draw)(const ui::SideInput&)) {
    return Tab{
        .panel = p, .draw = [this, draw](TabContext&) { draw(side_input(host_.current())); }, .needs_launch = true};
  };
  Tab data{.panel = Panel::Data, .draw = [this](TabContext&) { draw_data_tab(host_.current()); }};
  data.background_s = [this] {
    const LabSlot& s = host_.current();
    return s.view && s.view->data_pending() ? 0.25 : 0.0;
  };
  Tab sweep{.panel = Panel::Sweep,
            .draw = [this](TabContext& c) { c.load = experiments_.draw_sweep_tab(experiments_host(host_.current())); }};
  // A sweep's progress, at its lowest rate: the window must not compete with what it measures.
  sweep.background_s = [this] { return experiments_.sweeping() ? 1.0 : 0.0; };
  sweep.title_note = [this] {
    return experiments_.sweeping_lab(host_.current().id()) ? std::string(" (running)") : "";
  };
  sweep.wants_front = [this] { return experiments_.take_front(host_.current().id(), Panel::Sweep); };
  sweep.hidden = [this] { experiments_.sweep_tab_hidden(); };
  Tab compare{.panel = Panel::Compare, .draw = [this](TabContext& c) {
                c.load = experiments_.draw_compare_tab(experiments_host(host_.current()));
              }};
  compare.wants_front = [this] { return experiments_.take_front(host_.current().id(), Panel::Compare); };
  Tab source{.panel = Panel::Source, .draw = [this](TabContext&) {
               const LabSlot& s = host_.current();
               source_.draw(s.view->lab(), s.launch.shown, messages_);
             }};
  source.background_s = [this] { return source_.pending() ? 0.25 : 0.0; };
  source.hidden = [this] { source_.hidden(); };
  source.holds_device = [this] { return source_.busy(); };
  source.follow = [this](lab::Lab& l, const LaunchRecord& shown, MessageLog& log) { source_.update(l, shown, log); };
  Tab runs{.panel = Panel::Runs,
           .draw =
               [this](TabContext& c) {
                 if (auto run = ui::draw_runs_panel(side_input(host_.current())))
                   c.load = LoadRequest{run->first, run->second};
               },
           .needs_launch = true};
  Tab measured{.panel = Panel::Measured,
               .draw = [this](TabContext& c) { measured_.draw(host_.current().view->lab(), c.shown, messages_); },
               .needs_launch = true};
  measured.background_s = [this] { return measured_.busy() || measured_.profile_pending() ? 0.25 : 0.0; };
  measured.holds_device = [this] { return measured_.busy(); };
  measured.follow = [this](lab::Lab& l, const LaunchRecord& shown, MessageLog& log) {
    measured_.update(l, shown, log);
  };
  tabs_ = {std::move(data),
           std::move(sweep),
           std::move(compare),
           std::move(source),
           side(Panel::Timings, ui::draw_timings_panel),
           side(Panel::Launch, ui::draw_launch_stats_panel),
           side(Panel::Schedule, ui::draw_schedule_panel),
           std::move(runs),
           std::move(measured)};
}

std::vector<Tab> ShellUi::open_tabs(const LabSlot& s, std::optional<Dock> dock) const {
  std::vector<Tab> out;
  auto take = [&](const Tab& t) {
    if (!dock || panel_name(t.panel).dock == *dock) out.push_back(t);
  };
  for (const Tab& t : tabs_) take(t);
  if (s.view)
    for (const Tab& t : s.view->tabs()) take(t);
  std::stable_sort(out.begin(), out.end(), [](const Tab& a, const Tab& b) { return a.panel < b.panel; });
  return out;
}

// Every open tab, the shell's and the open lab's, in no particular order: the frame loop asks them
// several times a frame, so the shell's are visited where they are, not copied and sorted.
template <class F>
void ShellUi::each_tab(const LabSlot& s, F&& f) const {
  for (const Tab& t : tabs_) f(t);
  if (s.view)
    for (const Tab& t : s.view->tabs()) f(t);
}

double ShellUi::background_s() const {
  double period = 0;
  each_tab(host_.current(), [&](const Tab& t) {
    if (const double p = t.background_s ? t.background_s() : 0; p > 0) period = period > 0 ? std::min(period, p) : p;
  });
  return period;
}

bool ShellUi::device_held() const {
  bool held = false;
  each_tab(host_.current(), [&](const Tab& t) { held = held || (t.holds_device && t.holds_device()); });
  return held;
}

void ShellUi::follow_launch() {
  LabSlot& s = host_.current();
  if (!s.view) return;
  each_tab(s, [&](const Tab& t) {
    if (t.follow) t.follow(s.view->lab(), s.launch.shown, messages_);
  });
}

// The tab strip of one dock (wrapping, never clipped) and its chosen tab. The state picks the tab
// (the command line, the settings, a click); a tab the open lab lacks (matmul's Pipeline while the
// Grayscale lab is open) shows the first instead and stays the choice for when it is back.
void ShellUi::draw_dock(LabSlot& s, Dock dock, Panel& chosen) {
  std::vector<Tab> tabs = open_tabs(s, dock);
  if (tabs.empty()) return;
  for (const Tab& t : tabs)
    if (t.wants_front && t.wants_front()) chosen = t.panel;
  int current = 0;
  std::vector<std::string> titles;
  for (const Tab& t : tabs) {
    if (t.panel == chosen) current = static_cast<int>(titles.size());
    titles.push_back(panel_name(t.panel).title + (t.title_note ? t.title_note() : std::string()));
  }
  const int clicked = ui::wrapping_tabs(dock == Dock::Centre ? "centre_tabs" : "side_tabs", titles, current);
  if (clicked != current) chosen = tabs[static_cast<std::size_t>(clicked)].panel;
  for (int i = 0; i < static_cast<int>(tabs.size()); ++i)
    if (i != clicked && tabs[static_cast<std::size_t>(i)].hidden) tabs[static_cast<std::size_t>(i)].hidden();
  const Tab& tab = tabs[static_cast<std::size_t>(clicked)];
  (dock == Dock::Centre ? centre_shown_ : side_shown_) = tab.panel;

  const LaunchState& st = s.launch;
  // The last launch that ran; while none has, the latest attempt (refused), which says why.
  TabContext ctx{st.shown.kernel.empty() ? st.last : st.shown, std::nullopt};
  const bool ran = st.shown.ok() && !st.shown.kernel.empty();
  // Every line of the side panel wraps at its edge rather than running under it.
  if (dock == Dock::Side) ImGui::PushTextWrapPos(0.0f);
  if (tab.needs_launch && !ran) {
    if (!ctx.shown.kernel.empty() && !ctx.shown.ok())
      ImGui::TextColored(ui::kDimColour, "No launch has run yet: the last one (%s) did not run: %s",
                         ctx.shown.kernel.c_str(), ctx.shown.status.message.c_str());
    else ImGui::TextColored(ui::kDimColour, "No launch has run yet.");
  } else {
    tab.draw(ctx);
  }
  if (dock == Dock::Side) ImGui::PopTextWrapPos();
  if (ctx.load && s.view->lab().find_kernel(ctx.load->kernel)) {
    host_.choose(s, ctx.load->kernel, ctx.load->config);
    s.launch.paused_slow = false;
    messages_.info("Loaded " + ctx.load->kernel + " " + block_text(ctx.load->config.block) + " into the lab");
  }
}

ui::SideInput ShellUi::side_input(const LabSlot& s) {
  const LaunchState& st = s.launch;
  side_problem_ = s.view->lab().problem();
  const lab::Backend& backend = host_.backend();
  ui::SideInput in;
  in.shown = &st.shown;
  in.book = &launches_.timings();
  in.entry = st.shown.ok() ? launches_.timings().find(key_of(st.shown)) : nullptr;
  in.problem = &side_problem_;
  in.kernels = &s.view->lab().kernels();
  in.limits = &backend.limits;
  in.backend = backend.kind;
  in.copy_note = backend.copy_note;
  return in;
}

ExperimentsHost ShellUi::experiments_host(LabSlot& s) {
  ExperimentsHost h;
  h.lab_id = s.id();
  if (!s.view) return h;
  h.lab = &s.view->lab();
  h.kernel = s.kernel;
  h.config = s.config;
  h.shown = &s.launch.shown;
  if (const TimingEntry* e = s.launch.shown.ok() ? launches_.timings().find(key_of(s.launch.shown)) : nullptr)
    h.shown_samples_ms.assign(e->history.kernel().begin(), e->history.kernel().end());
  LabView* view = s.view.get();
  h.draw_record = [this, view](const LaunchRecord& r, int slot, ImVec2 size, std::optional<PixelPos> inspect) {
    ViewContext ctx = host_.context();
    return view->draw_record(r, slot, size, inspect, ctx);
  };
  h.inspected = s.view->inspected();
  h.start_sweep = actions_.start_sweep;
  h.lines_of = [this](const LaunchRecord& r) { return source_.profile_of(r); };
  return h;
}

Status ShellUi::write_png_export(ExportWhat what, const fs::path& path) {
  if (what == ExportWhat::WindowPng) return write_window_png(window_, path);
  ImVec2 a = data_min_, b = data_max_;
  if (what == ExportWhat::HeatmapPng) {
    if (!experiments_.chart_visible())
      return Status::failure("the sweep's chart is not on screen", "show the Sweep tab, then export", "export");
    std::tie(a, b) = experiments_.chart_rect();
  } else if (!data_visible_) {
    return Status::failure("the data view is not on screen", "show the Data tab, then export", "export");
  }
  const ImVec2 scale = ImGui::GetIO().DisplayFramebufferScale;
  return write_window_png(window_, path,
                          PixelRegion{static_cast<int>(a.x * scale.x), static_cast<int>(a.y * scale.y),
                                      static_cast<int>(b.x * scale.x), static_cast<int>(b.y * scale.y)});
}

StatusReport::Ui ShellUi::status_ui() const {
  StatusReport::Ui ui;
  ui.help = show_help_;
  ui.file_browser = file_browser_.is_open();
  ui.messages_window = show_messages_;
  ui.fullscreen = window_.fullscreen();
  ui.text_scale = state_.layout.text_scale;
  ui.left_open = state_.layout.left_open;
  ui.side_open = state_.layout.side_open;
  ui.panel = panel_word(side_shown_);
  ui.centre = panel_word(centre_shown_);
  ui.popup_open = !ImGui::GetCurrentContext()->OpenPopupStack.empty();
  ui.state = state_line_;
  ui.notice = notice_;
  ui.frame_ms = frame_ms_;
  return ui;
}

}  // namespace bs::app
