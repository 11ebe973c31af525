// What ran, or why nothing did: the selection's time (median of its own runs, with the 95%
// interval), its throughput against the lab's ceilings, and the verdict of the lab's reference,
// side by side. A wrong result is never shown as a fast one.
#include <imgui.h>

#include <algorithm>

#include "ui/panels.hpp"
#include "ui/widgets.hpp"

namespace bs::ui {
using app::TimingEntry;
using app::TimingSummary;
namespace {

std::string dims(const Dim3& d) {
  return std::to_string(d.x) + " x " + std::to_string(d.y) + " x " + std::to_string(d.z);
}

}  // namespace

bool draw_result_card(const ResultInput& in) {
  const LaunchRecord* last = in.last;
  bool cancel = false;
  ImGui::PushTextWrapPos(0.0f);
  // A slow simulated launch: what runs, for how long, a way to stop it, and whose figures the
  // card still shows (the previous launch's, until this one finishes).
  if (!in.running.empty()) {
    ImGui::TextColored(kWarnColour, "Simulating %s... %s s", in.running.c_str(), sig(in.running_s, 2).c_str());
    if (ImGui::SmallButton("Cancel the simulation")) cancel = true;
    item_tooltip("Stops this launch; the views keep the last launch that ran. Run once (Ctrl+R) starts it again.");
    if (last && last->ok() && !last->kernel.empty())
      ImGui::TextColored(kDimColour, "The figures below are from the previous launch (%s, %s):", last->kernel.c_str(),
                         last->config_label.c_str());
    else ImGui::TextColored(kDimColour, "No figures until it finishes.");
    ImGui::Separator();
  }
  // While a new launch runs, the last one's error is not said beside it (issue 36 item 15: a
  // refusal stayed under "Simulating ..." as if the new run had failed too).
  if (!in.running.empty() && last && !last->ok()) {
    ImGui::PopTextWrapPos();
    return cancel;
  }
  if (last && !last->ok() && !last->kernel.empty()) {
    const bool cancelled = last->status.code == "cancelled";
    if (cancelled) {
      // The user stopped it: said in the normal colour, not as a failure.
      ImGui::TextUnformatted("Cancelled: nothing new to show");
      ImGui::TextUnformatted(last->status.message.c_str());
      ImGui::TextColored(kDimColour, "%s", last->status.hint.c_str());
    } else {
      ImGui::TextColored(kErrorColour, last->refused ? "Refused before launch: nothing ran" : "Launch failed");
      status_text(last->status);
    }
    if (in.shown && in.shown->ok() && !in.shown->kernel.empty())
      ImGui::TextColored(kDimColour, "The views show the last launch that ran: %s, %s.", in.shown->kernel.c_str(),
                         in.shown->config_label.c_str());
    ImGui::PopTextWrapPos();
    return cancel;
  }
  if (!last || !last->ok() || !in.entry) {
    if (in.running.empty()) ImGui::TextColored(kDimColour, "No run of this configuration yet.");
    ImGui::PopTextWrapPos();
    return cancel;
  }
  const LaunchRecord& r = *last;
  stat_row("gridDim", r.request.compiled >= 0 && r.config.grid.x == 0 ? "the library's own" : dims(r.config.grid),
           "Blocks in x, y and z, as the lab really launched them.");
  stat_row("blockDim", r.config.grid.x == 0 ? "the library's own" : dims(r.config.block));
  const TimingSummary k = in.entry->history.kernel_summary();
  ImGui::Text("%s", ms_text(k.median).c_str());
  ImGui::SameLine();
  ImGui::TextColored(kDimColour, "kernel time, median of %zu run%s of this configuration", k.count,
                     k.count == 1 ? "" : "s");
  item_tooltip(
      "The kernel alone (CUDA events on the GPU, the simulator's clock on the CPU). The pipeline's time "
      "(getting the result on screen, the check against the reference, the schedule's trace) is the "
      "Timings tab's second figure.");
  const bool passed = r.check.passed();
  const ThroughputUnit unit = in.problem ? in.problem->throughput_unit : ThroughputUnit::GBPerS;
  const double throughput = k.median > 0 ? r.counted(unit) / (k.median * 1e6) : 0;
  if (r.check.failed()) {
    ImGui::TextColored(kErrorColour, "WRONG RESULT: %s withheld", unit_text(unit));
  } else {
    ImGui::TextColored(passed ? kOkColour : kWarnColour, "%s %s", sig(throughput, 4).c_str(), unit_text(unit));
    if (in.problem)
      for (const auto& c : in.problem->ceilings)
        if (c.value > 0 && c.unit == unit) {
          // Beside the figure where the whole share fits, else on a line of its own (never
          // wrapped into a column of single letters).
          const std::string share = sig(100 * throughput / c.value, 3) + "% of " + c.name;
          ImGui::SameLine();
          if (ImGui::GetContentRegionAvail().x < ImGui::CalcTextSize(share.c_str()).x) ImGui::NewLine();
          ImGui::TextColored(kDimColour, "%s", share.c_str());
          if (!c.note.empty()) item_tooltip(c.note.c_str());
        }
  }
  if (r.check.state == Check::State::NotChecked) ImGui::TextColored(kWarnColour, "%s", r.check.summary().c_str());
  else if (passed)
    ImGui::TextColored(kOkColour, "correct: %s %s <= %s", r.check.measure.c_str(), sig_trim(r.check.worst).c_str(),
                       sig_trim(r.check.limit).c_str());
  else ImGui::TextColored(kErrorColour, "%s", r.check.summary().c_str());
  item_tooltip(("Checked against " + r.check.against + ".\n" + r.check.summary() +
                (r.check.note.empty() ? "" : "\n" + r.check.note))
                   .c_str());
  if (r.timing.simulated) {
    ImGui::TextColored(kWarnColour, "simulated on the CPU: times are the simulator's, not a GPU's");
    if (r.timing.others_load >= 0) {
      ImGui::TextColored(kDimColour, "while timed, other programs kept %.1f cores busy", r.timing.others_load);
      item_tooltip(
          "A CPU simulation's time stretches with what else the machine runs (up to about 10x on a "
          "busy two-core machine). The Runs tab and Compare mark times taken under different loads.");
    }
  }
  if (r.timing.simulated && in.uses_barriers) {
    ImGui::TextColored(kWarnColour,
                       "This rung synchronises its threads (__syncthreads): the simulator runs "
                       "each block's threads as fibers and switches at every barrier, which "
                       "costs far more on a CPU than on a GPU. So on the simulation the ladder "
                       "can look backwards: on a GPU the tiled rungs are the fast ones.");
  }
  if (in.paused_slow)
    ImGui::TextColored(kWarnColour,
                       "continuous runs paused: one launch with its check and trace takes %s "
                       "(the kernel alone: %s)",
                       ms_text(in.slow_ms).c_str(), ms_text(k.median).c_str());
  ImGui::PopTextWrapPos();
  return cancel;
}

}  // namespace bs::ui
