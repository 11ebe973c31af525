// The shell's UI, part 3: the status bar (the backend, what the open lab's selection did, facts
// worth a glance, the Messages button) and the loading modal.
#include <algorithm>

#include "shell/shell_ui.hpp"
#include "ui/widgets.hpp"

namespace bs::app {

// A launch on the worker worth saying in the status bar: one that has run for a while, or one
// expected to take long from the start (an image of 16384^2 on the simulator).
bool ShellUi::long_launch(const LabSlot& s) const {
  return s.launch.in_flight && (launches_.running_ms() > LaunchScheduler::kSlowLaunchMs ||
                                s.launch.expected_s >= LaunchScheduler::kLongLaunchS);
}

// The status bar shows the current state: the backend, how results reach the screen, and what
// the open lab's selection did. The history of messages is in View > Messages.
void ShellUi::draw_status_bar(LabSlot& s) {
  ImGui::Separator();
  const float em = ImGui::GetFontSize();
  const float gap = em;
  // The Messages button is always there, at the right end.
  const std::size_t unread = messages_.all().size() - std::min(messages_seen_, messages_.all().size());
  const std::string label = "Messages" + (unread ? " (" + std::to_string(unread) + " new)" : std::string()) + "##msgs";
  const float msgs_w = ImGui::CalcTextSize(label.c_str(), nullptr, true).x + ImGui::GetStyle().FramePadding.x * 2;
  const float right = ImGui::GetWindowContentRegionMax().x - msgs_w - gap;
  auto room = [&] { return right - ImGui::GetCursorPosX(); };

  // 1. The backend, short.
  const ComputeSession& compute = host_.compute();
  const bool gpu = compute.backend.kind == BackendKind::Cuda;
  const std::string backend = (gpu ? "GPU: " : "") + compute.backend.label;
  ui::text_clipped(backend.c_str(), std::max(em * 4, std::min(room() * 0.3f, ImGui::CalcTextSize(backend.c_str()).x)),
                   gpu ? ui::kOkColour : ui::kWarnColour);
  if (!compute.why_cpu.empty()) ui::item_tooltip(("Why the CPU: " + compute.why_cpu).c_str());
  else ui::item_tooltip(compute.backend.versions.c_str());

  // 2. What the open lab's selection did (the current state, never an old message); a new
  // warning or error (a file that did not load, a refused size) takes its place for
  // kNoticeS, in its colour, where the user is looking.
  std::string state;
  ImVec4 colour = ui::kDimColour;
  std::string tip;
  const LaunchRecord& last = s.launch.last;
  const Message* news = messages_.latest_problem();
  notice_.clear();
  if (news && notice_left_s() > 0) {
    notice_ = news->text;
    state = news->text;
    colour = news->level == Message::Error ? ui::kErrorColour : ui::kWarnColour;
    tip = news->text + (news->hint.empty() ? "" : "\n\n" + news->hint) + "\n\n(Ctrl+M: all messages)";
  } else if (!s.view) {
    state = s.failure.message;
    colour = ui::kErrorColour;
  } else if (long_launch(s)) {
    state = "simulating " + launches_.running_kernel() + "... " + ui::sig(launches_.running_ms() / 1000.0, 2) + " s";
    if (s.launch.expected_s >= LaunchScheduler::kLongLaunchS)
      state += " of about " + ui::sig(s.launch.expected_s, 2) + " s (Escape cancels)";
    colour = ui::kWarnColour;
    tip =
        "The CPU simulation runs this launch on a worker thread; the window stays live. Changing the "
        "selection or Escape cancels it." +
        (s.launch.expected_basis.empty() ? std::string()
                                         : " The time it should take is " + s.launch.expected_basis + ".");
  } else if (last.kernel.empty()) {
    state = s.view->lab().problem().ready ? "ready" : "no data yet";
  } else if (!last.ok()) {
    const bool cancelled = last.status.code == "cancelled";  // the user stopped it: no failure
    state = last.kernel + (cancelled ? " " : last.refused ? " refused: " : " failed: ") + last.status.message;
    if (!cancelled) colour = last.refused ? ui::kWarnColour : ui::kErrorColour;
    tip = last.status.message + (last.status.hint.empty() ? "" : "\n\n" + last.status.hint);
  } else {
    state = last.kernel + ", " + last.config_label + ": " + ui::ms_text(last.timing.median_ms) + ", " +
            (last.check.passed()   ? "correct"
             : last.check.failed() ? "WRONG"
                                   : "not checked");
    if (last.check.failed()) colour = ui::kErrorColour;
  }
  // What the window does next with the selection: continuous runs paced, paused or off.
  if (s.view && notice_.empty() && !long_launch(s) && !last.kernel.empty()) {
    state += "  |  " + launches_.continuous_plan(s, host_.backend().kind).says;
    if (tip.empty())
      tip =
          "Run continuously relaunches the selection so its timings fill up. In the window the CPU simulation "
          "repeats it every few seconds (Controls: the period), the GPU every frame while the window has the "
          "focus; both pause after " +
          ui::sig(LaunchScheduler::kIdlePauseS, 2) + " s without input, and any change launches at once.";
  }
  // 3. Facts worth a glance, where there is room after the state: what a frame costs to draw,
  // how results reach the screen, the GL renderer. They go before the state is cut.
  const std::string fps = "frame " + ui::ms_text(frame_ms_);
  const std::string mode = s.view ? s.view->interop_mode() : "no lab open";
  const std::string gl = "GL: " + window_.gl_renderer();
  ImGui::SameLine(0, gap);
  const float state_w = ImGui::CalcTextSize(state.c_str()).x;
  float extras = 0;
  const std::string* shown_extras[3] = {&fps, &mode, &gl};
  int n_extras = 0;
  for (const std::string* e : shown_extras) {
    const float w = ImGui::CalcTextSize(e->c_str()).x + gap;
    if (state_w + extras + w > room()) break;
    extras += w;
    ++n_extras;
  }
  state_line_ = state;
  ui::text_clipped(state.c_str(), std::max(em * 3, room() - extras), colour);
  if (!tip.empty()) ui::item_tooltip(tip.c_str());
  for (int i = 0; i < n_extras; ++i) {
    ImGui::SameLine(0, gap);
    const bool good = i == 1 && mode.find("zero-copy") != std::string::npos;
    ImGui::TextColored(good ? ui::kOkColour : ui::kDimColour, "%s", shown_extras[i]->c_str());
    if (i == 0)
      ui::item_tooltip(
          "What the last frame took to make and draw. The window draws only when something "
          "changes (input, a launch, progress), so an idle window costs nothing.");
    if (i == 2) ui::item_tooltip((window_.gl_version() + "\n" + window_.platform_description()).c_str());
  }
  ImGui::SameLine(std::max(ImGui::GetCursorPosX() + gap * 0.5f, ImGui::GetWindowContentRegionMax().x - msgs_w));
  if (ImGui::SmallButton(label.c_str())) show_messages_ = !show_messages_;
  if (const Message* m = messages_.latest())
    ui::item_tooltip(("latest: " + m->text + " (Ctrl+M: all messages)").c_str());
}

double ShellUi::notice_left_s() const {
  const Message* news = messages_.latest_problem();
  if (!news) return 0;
  const double age = std::chrono::duration<double>(std::chrono::system_clock::now() - news->when).count();
  return std::max(0.0, kNoticeS - age);
}

void ShellUi::draw_loading_modal() {
  if (!intake_.busy()) return;
  const AsyncLoadProgress p = intake_.progress();
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x + vp->WorkSize.x * 0.5f, vp->WorkPos.y + vp->WorkSize.y * 0.5f),
                          ImGuiCond_Always, ImVec2(0.5f, 0.5f));
  ImGui::SetNextWindowSize(ImVec2(ImGui::GetFontSize() * 26, 0));
  if (ImGui::Begin("Loading", nullptr,
                   ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoSavedSettings)) {
    ImGui::Text("File %zu of %zu: %s", std::min(p.files_done + 1, p.files_total), p.files_total,
                p.current_file.c_str());
    ImGui::ProgressBar(p.fraction());
    if (ImGui::Button("Cancel")) intake_.cancel_all();
    ImGui::SameLine();
    ImGui::TextColored(ui::kDimColour, "the current image stays until a new one has loaded");
  }
  ImGui::End();
}

}  // namespace bs::app
