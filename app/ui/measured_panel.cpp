// The Measured tab (see measured_panel.hpp). Layout, top to bottom: the button with what a
// profile costs, progress while one runs, then for the latest result: which launch it measured,
// the table (counter | hardware | blockscope | ratio), the main warp stall reasons, and the
// sentence on the largest disagreement. Where counters cannot be read the tab says why and how
// to fix it, in the counter library's words.
#include "ui/measured_panel.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "measured/profile_launch.hpp"
#include "ui/widgets.hpp"

namespace bs::ui {
namespace {

std::string bytes_text(double b) { return std::isfinite(b) ? measured::decimal_bytes(b) : "-"; }

std::string value_text(double v, const std::string& unit) {
  if (!std::isfinite(v)) return "-";
  if (unit == "B") return bytes_text(v);
  if (unit == "%" || unit == "% of peak") return sig_trim(v, 3) + "%";
  if (unit == "GB/s") return sig(v, 4) + " GB/s";
  return sig_trim(v, 4);
}

// The ratio column: "0.89x", or "-5.7 pt" for occupancy; coloured by how far from agreement.
void draw_comparison(const measured::CounterRow& row) {
  const double c = row.comparison();
  if (!std::isfinite(c)) {
    ImGui::TextColored(kDimColour, "%s", std::isfinite(row.measured) ? "" : "-");
    return;
  }
  char buf[48];
  double off = 0;
  if (row.points) {
    std::snprintf(buf, sizeof buf, "%+.1f pt", c);
    off = std::fabs(c) / 100.0;
  } else {
    std::snprintf(buf, sizeof buf, "%sx", sig_trim(c, 3).c_str());
    off = c > 0 ? std::fabs(std::log(c)) : 10.0;
  }
  const ImVec4 colour = off < 0.05 ? kOkColour : off < 0.25 ? kWarnColour : kErrorColour;
  ImGui::TextColored(colour, "%s", buf);
}

void draw_table(const LaunchCounters& c) {
  const ImGuiTableFlags flags =
      ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_SizingStretchProp;
  if (!ImGui::BeginTable("measured", 4, flags)) return;
  ImGui::TableSetupColumn("counter", ImGuiTableColumnFlags_WidthStretch, 1.5f);
  ImGui::TableSetupColumn("hardware", ImGuiTableColumnFlags_WidthStretch, 1.0f);
  ImGui::TableSetupColumn("blockscope", ImGuiTableColumnFlags_WidthStretch, 1.0f);
  ImGui::TableSetupColumn("ratio", ImGuiTableColumnFlags_WidthStretch, 0.6f);
  ImGui::TableHeadersRow();
  for (const measured::CounterRow& row : measured::counter_rows(c)) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(row.name.c_str());
    item_tooltip(row.help.c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(value_text(row.measured, row.unit).c_str());
    item_tooltip(row.help.c_str());
    ImGui::TableNextColumn();
    if (std::isfinite(row.model)) {
      ImGui::TextUnformatted(value_text(row.model, row.unit).c_str());
      // Where the model's figure comes from.
      std::string from;
      if (row.unit == "B") from = "counted: " + c.model_bytes_note;
      else if (row.name.find("sectors") != std::string::npos) from = "the Memory tab's model over " + c.sectors_sample;
      else if (row.points) from = "theoretical: " + c.occupancy_note;
      if (!from.empty()) item_tooltip(from.c_str());
    } else {
      ImGui::TextColored(kDimColour, "-");
    }
    ImGui::TableNextColumn();
    draw_comparison(row);
  }
  ImGui::EndTable();
}

void draw_stalls(const LaunchCounters& c) {
  if (c.stalls.empty()) return;
  ImGui::TextColored(kDimColour, "Main warp stall reasons (cycles per issued instruction)");
  item_tooltip(
      "Why warps were not issuing, from smsp__average_warps_issue_stalled_<reason>: "
      "long_scoreboard waits on global or local memory, lg_throttle on the load/store "
      "queue (too many memory instructions in flight), barrier on __syncthreads, "
      "short_scoreboard on shared memory, not_selected means a warp was ready but "
      "another was chosen (no stall at all), wait is a fixed dependency delay.");
  const std::size_t n = std::min<std::size_t>(4, c.stalls.size());
  for (std::size_t i = 0; i < n; ++i) {
    const CounterStall& s = c.stalls[i];
    char label[160];
    std::snprintf(label, sizeof label, "%s  %s%%  (%s)", s.reason.c_str(), sig(s.share_pct, 3).c_str(),
                  sig(s.cycles_per_issue, 3).c_str());
    ImGui::ProgressBar(static_cast<float>(std::clamp(s.share_pct / 100.0, 0.0, 1.0)), ImVec2(-1, 0), label);
  }
}

// A launch's profile: where it ran, the table, the stalls, the sentence; or why counters could
// not be read.
void draw_result(const LaunchCounters& c) {
  if (!c.measured()) {
    ImGui::TextColored(kErrorColour, "Counters could not be read.");
    status_text(c.status);
    return;
  }
  char line[256];
  std::snprintf(line, sizeof line, "%s (%s): %d passes, %s s; the kernel took %s us as profiled", c.device.c_str(),
                c.chip.c_str(), c.passes, sig(c.profile_wall_ms / 1000.0, 2).c_str(),
                sig(c.duration_ns / 1000.0, 4).c_str());
  ImGui::TextColored(kDimColour, "%s", line);
  if (c.range == "user")
    item_tooltip(
        "This driver refused kernel ranges: the range holds the launch's latency too, so "
        "the duration and shares of peak are diluted.");
  draw_table(c);
  ImGui::Spacing();
  draw_stalls(c);
  ImGui::Spacing();
  ImGui::TextColored(kWarnColour, "Where they disagree most");
  ImGui::TextUnformatted(measured::largest_disagreement(c).c_str());
  if (!c.sectors_sample.empty())
    ImGui::TextColored(kDimColour, "Model sectors per request: %s.", c.sectors_sample.c_str());
}

// What blockscope predicts for a launch no profile has measured yet.
void draw_model(const LaunchCounters& m, bool simulated) {
  ImGui::TextColored(kDimColour, "blockscope's model of this launch:");
  if (simulated)
    item_tooltip(
        "On the CPU simulation, occupancy and waves follow CUDA's rules for the "
        "simulator's device (one SM per worker), and the bandwidth is the simulator's.");
  stat_row("bytes counted", bytes_text(m.model_bytes),
           m.model_bytes_note.empty() ? nullptr : m.model_bytes_note.c_str());
  if (std::isfinite(m.model_bandwidth_gbs))
    stat_row("bandwidth", sig(m.model_bandwidth_gbs, 4) + " GB/s",
             "The bytes counted over the launch's timed median, as the result card shows.");
  const std::string sectors =
      std::isfinite(m.model_ld_sectors_per_request) || std::isfinite(m.model_st_sectors_per_request)
          ? "load " + value_text(m.model_ld_sectors_per_request, "") + ", store " +
                value_text(m.model_st_sectors_per_request, "")
          : std::string("-");
  stat_row("sectors / request", sectors, ("The Memory tab's model over " + m.sectors_sample + ".").c_str());
  if (std::isfinite(m.theoretical_occupancy_pct)) {
    stat_row("occupancy (theory)", sig_trim(m.theoretical_occupancy_pct, 3) + "%", m.occupancy_note.c_str());
    stat_row("waves", sig(m.model_waves, 3) + " (the last " + sig(m.model_last_wave_fill_pct, 3) + "% full)",
             "Blocks over the slots the whole GPU offers at that occupancy.");
  } else if (!m.occupancy_note.empty()) {
    stat_row("occupancy (theory)", "-", m.occupancy_note.c_str());
  }
}

}  // namespace

bool draw_measured_panel(const MeasuredInput& in) {
  bool clicked = false;
  ImGui::PushTextWrapPos(0.0f);
  const bool busy = in.progress.busy;
  const bool can = in.refusal.ok() && in.shown && in.shown->ok() && !busy;
  if (!can) ImGui::BeginDisabled();
  if (ImGui::Button("Profile this launch")) clicked = true;
  if (!can) ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::TextColored(kDimColour, "hardware counters, about 0.4 s");
  item_tooltip(
      "Replays the launch the views show once per counter pass (about 15 on Hopper) "
      "through CUPTI's range profiler, each pass from an emptied L2, on a worker thread: "
      "the window stays live, and the app holds its own launches until it is done. "
      "Never part of the per-frame path.");
  if (!in.refusal.ok()) {
    ImGui::TextColored(kWarnColour, "%s", in.refusal.message.c_str());
    if (!in.refusal.hint.empty()) ImGui::TextColored(kDimColour, "%s", in.refusal.hint.c_str());
  }
  if (busy) {
    const int total = std::max(in.progress.passes_total, 1);
    const float f =
        in.progress.passes_total > 0 ? static_cast<float>(in.progress.passes_done) / static_cast<float>(total) : 0.0f;
    char label[160];
    if (in.progress.passes_total > 0)
      std::snprintf(label, sizeof label, "%s %s: pass %d of %d, %.1f s", in.progress.stage.c_str(),
                    in.progress.kernel.c_str(), std::min(in.progress.passes_done + 1, total), total,
                    in.progress.elapsed_s);
    else std::snprintf(label, sizeof label, "%s, %.1f s", in.progress.stage.c_str(), in.progress.elapsed_s);
    ImGui::ProgressBar(std::clamp(f, 0.0f, 1.0f), ImVec2(-1, 0), label);
    if (in.launches_paused) ImGui::TextColored(kDimColour, "The app's own launches wait until the profile is done.");
  }
  ImGui::Separator();

  const LaunchRecord* r = in.result && in.result->counters ? in.result : nullptr;
  const bool same = r && in.shown && in.shown->kernel == r->kernel && in.shown->config_label == r->config_label &&
                    in.shown->problem == r->problem && in.shown->settings == r->settings;
  if (same) {
    ImGui::Text("%s, %s, on %s", r->kernel.c_str(), r->config_label.c_str(), r->problem.c_str());
    draw_result(*r->counters);
  } else {
    if (in.shown && in.shown->ok())
      ImGui::Text("%s, %s, on %s", in.shown->kernel.c_str(), in.shown->config_label.c_str(), in.shown->problem.c_str());
    if (in.model) draw_model(*in.model, in.shown && in.shown->backend == BackendKind::CpuSimulation);
    if (in.refusal.ok() && !busy) ImGui::TextColored(kDimColour, "Press the button to measure it beside the hardware.");
    if (r) {
      ImGui::Spacing();
      const std::string title = "Last profile: " + r->kernel + ", " + r->config_label + " (not the launch shown)";
      if (ImGui::CollapsingHeader(title.c_str())) {
        ImGui::TextColored(kDimColour, "on %s", r->problem.c_str());
        draw_result(*r->counters);
      }
    }
  }
  ImGui::PopTextWrapPos();
  return clicked;
}

}  // namespace bs::ui
