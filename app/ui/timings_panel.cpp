// The Timings tab: the statistics of the configuration the views show, from its own runs only
// (last, median with its 95% interval, min, max), its throughput against each of the lab's
// ceilings, the pipeline time apart from the kernel time, and the history of the configurations
// run so far (one line each), so a change of block shape reads as a step, not a blur.
#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <deque>

#include "ui/panels.hpp"
#include "ui/widgets.hpp"

namespace bs::ui {
using app::TimingEntry;
using app::TimingSummary;
namespace {

ImU32 series_colour(std::size_t i) {
  static constexpr ImU32 colours[] = {IM_COL32(110, 190, 255, 255), IM_COL32(255, 170, 90, 255),
                                      IM_COL32(120, 210, 110, 255), IM_COL32(230, 110, 110, 255),
                                      IM_COL32(220, 220, 90, 255),  IM_COL32(190, 150, 255, 255),
                                      IM_COL32(90, 200, 220, 255),  IM_COL32(240, 140, 200, 255)};
  return colours[i % (sizeof colours / sizeof colours[0])];
}

}  // namespace

void draw_timings_panel(const SideInput& in) {
  const LaunchRecord& rec = *in.shown;
  if (!in.entry) {
    ImGui::TextColored(kDimColour, "No timings of this configuration yet.");
    return;
  }
  const TimingSummary k = in.entry->history.kernel_summary();
  const TimingSummary p = in.entry->history.pipeline_summary();
  wrapped_text(kDimColour, "%s, %s: kernel time by %s", rec.kernel.c_str(), rec.config_label.c_str(),
               rec.timing.clock.c_str());
  // Four figures side by side where they fit, else two rows of two: never run together, never
  // cut mid-number.
  const char* heads[] = {"last", "median", "min", "max"};
  const double values[] = {k.last, k.median, k.min, k.max};
  float widest = 0;
  for (double v : values) widest = std::max(widest, ImGui::CalcTextSize(ms_text(v).c_str()).x);
  const float cell = widest + ImGui::GetFontSize() * 1.2f;
  const int columns = ImGui::GetContentRegionAvail().x >= 4 * cell ? 4 : 2;
  if (ImGui::BeginTable("kt", columns, ImGuiTableFlags_SizingStretchSame)) {
    for (int row = 0; row < 4 / columns; ++row) {
      for (int c = 0; c < columns; ++c) {
        ImGui::TableNextColumn();
        ImGui::TextColored(kDimColour, "%s", heads[row * columns + c]);
      }
      for (int c = 0; c < columns; ++c) {
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(ms_text(values[row * columns + c]).c_str());
      }
    }
    ImGui::EndTable();
  }
  // The interval of the median over this configuration's runs.
  std::vector<double> samples(in.entry->history.kernel().begin(), in.entry->history.kernel().end());
  const auto [lo, hi] = median_interval_95(samples);
  char buf[160];
  std::snprintf(buf, sizeof buf, "%s .. %s ms (%zu runs)", sig(lo, 4).c_str(), sig(hi, 4).c_str(), k.count);
  stat_row("median, 95%", buf,
           "A 95% confidence interval of the median, from the order statistics of this "
           "configuration's runs: two configurations whose intervals overlap cannot be ranked.");
  const ThroughputUnit unit = in.problem ? in.problem->throughput_unit : ThroughputUnit::GBPerS;
  const bool flops = unit == ThroughputUnit::GflopPerS;
  const double throughput = k.median > 0 ? rec.counted(unit) / (k.median * 1e6) : 0;
  if (rec.check.failed()) {
    ImGui::TextColored(kErrorColour, "%s withheld: the result is wrong", unit_text(unit));
  } else {
    stat_row(flops ? "arithmetic" : "bandwidth", sig(throughput, 4) + " " + unit_text(unit),
             flops ? "FLOPs counted over the median time." : "Bytes the kernel must move over its median time.");
    if (!rec.bytes_note.empty() && !flops) ImGui::TextColored(kDimColour, "  counted: %s", rec.bytes_note.c_str());
    if (in.problem)
      for (const auto& c : in.problem->ceilings) {
        if (c.value <= 0 || c.unit != unit) continue;
        const float frac = static_cast<float>(throughput / c.value);
        std::snprintf(buf, sizeof buf, "%s%% of %s (%s %s)", sig(100 * frac, 3).c_str(), c.name.c_str(),
                      sig(c.value, 4).c_str(), unit_text(c.unit));
        ImGui::ProgressBar(std::clamp(frac, 0.0f, 1.0f), ImVec2(-1, 0), buf);
        item_tooltip(c.note.c_str());
      }
    if (in.problem && in.problem->ceilings.empty() && !in.copy_note.empty()) {
      wrapped_text(kDimColour, "%s", in.copy_note.c_str());
    }
  }
  ImGui::Spacing();
  stat_row("frame pipeline", ms_text(p.last) + " (median " + ms_text(p.median) + ")",
           "Launch plus getting the result on screen (mapping the GL buffer for CUDA, unmapping, "
           "the texture update), CPU wall clock to glFinish. The kernel time above is only the "
           "kernel.");

  // History: the shown configuration and the others run on this problem, one line each.
  std::vector<PlotSeries> series;
  std::vector<std::string> names;
  names.reserve(in.book->entries().size());
  std::size_t i = 0;
  for (const TimingEntry& e : in.book->entries()) {
    if (e.key.lab != rec.lab || e.key.problem != rec.problem) continue;
    const bool current = &e == in.entry;
    names.push_back(e.key.kernel + " " + e.key.config);
    series.push_back({&e.history.kernel(), current ? IM_COL32(255, 255, 255, 255) : series_colour(i++), nullptr});
    if (series.size() >= 8) break;
  }
  for (std::size_t s = 0; s < series.size(); ++s) series[s].label = names[s].c_str();
  ImGui::TextColored(kDimColour, "kernel time per run (white: this configuration)");
  line_plot("history", series.data(), static_cast<int>(series.size()), ImVec2(0, ImGui::GetFontSize() * 8), "ms");
  if (rec.timing.simulated) ImGui::TextColored(kWarnColour, "CPU simulation: times are the simulator's, not a GPU's.");
}

}  // namespace bs::ui
