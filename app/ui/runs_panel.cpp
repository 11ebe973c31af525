// The Runs tab: every configuration run this session on the lab's current problem, side by side
// (median with its interval, throughput, the check), best first; a click loads one back into
// the lab. Intervals that overlap with the best are marked: those cannot be ranked against it.
#include <imgui.h>

#include <algorithm>
#include <cstdio>

#include "ui/panels.hpp"
#include "ui/widgets.hpp"

namespace bs::ui {
using app::TimingEntry;

std::optional<std::pair<std::string, KernelConfig>> draw_runs_panel(const SideInput& in) {
  std::optional<std::pair<std::string, KernelConfig>> chosen;
  const LaunchRecord& shown = *in.shown;
  std::vector<const TimingEntry*> rows;
  for (const TimingEntry& e : in.book->entries())
    if (e.key.lab == shown.lab && e.key.problem == shown.problem) rows.push_back(&e);
  if (rows.empty()) {
    ImGui::TextColored(kDimColour, "Configurations you run appear here.");
    return chosen;
  }
  auto median = [](const TimingEntry* e) { return e->history.kernel_summary().median; };
  std::sort(rows.begin(), rows.end(), [&](const TimingEntry* a, const TimingEntry* b) {
    const bool wa = a->last.check.failed(), wb = b->last.check.failed();
    if (wa != wb) return wb;  // wrong results last: never ranked
    return median(a) < median(b);
  });
  const ThroughputUnit unit = in.problem ? in.problem->throughput_unit : ThroughputUnit::GBPerS;
  std::vector<double> best_samples(rows.front()->history.kernel().begin(), rows.front()->history.kernel().end());
  const auto [best_lo, best_hi] = median_interval_95(best_samples);
  ImGui::TextColored(kDimColour, "every configuration run on %s this session; click a row to load it",
                     shown.problem.c_str());
  const ImGuiTableFlags flags =
      ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_ScrollY;
  bool any_barriers = false, any_load_change = false;
  const float table_h = ImGui::GetContentRegionAvail().y - ImGui::GetTextLineHeightWithSpacing() * 4;
  if (!ImGui::BeginTable("runs", 5, flags, ImVec2(0, std::max(ImGui::GetFontSize() * 6, table_h)))) return chosen;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("kernel, config", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableSetupColumn("median ms");
  ImGui::TableSetupColumn(unit_text(unit));
  ImGui::TableSetupColumn("runs");
  ImGui::TableSetupColumn("check");
  ImGui::TableHeadersRow();
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const TimingEntry& e = *rows[i];
    const double m = median(&e);
    std::vector<double> samples(e.history.kernel().begin(), e.history.kernel().end());
    const auto [lo, hi] = median_interval_95(samples);
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    bool barriers = false;
    if (in.kernels)
      for (const auto& k : *in.kernels) barriers |= k.id == e.key.kernel && k.uses_barriers;
    const bool slow_to_simulate = barriers && e.last.timing.simulated;
    any_barriers |= slow_to_simulate;
    const std::string label = e.key.kernel + (slow_to_simulate ? " *" : "") + "  " + e.key.config;
    const bool current = e.key.kernel == shown.kernel && e.key.config == shown.config_label;
    if (ImGui::Selectable((label + "##run" + std::to_string(i)).c_str(), current, ImGuiSelectableFlags_SpanAllColumns))
      chosen = std::pair{e.last.kernel, e.last.request};
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(sig(m, 4).c_str());
    char tip[160];
    std::snprintf(tip, sizeof tip, "95%% interval of the median: %s .. %s ms%s", sig(lo, 4).c_str(), sig(hi, 4).c_str(),
                  i > 0 && lo <= best_hi ? "\noverlaps the best: these two cannot be ranked" : "");
    item_tooltip(tip);
    if (i > 0 && lo <= best_hi && !e.last.check.failed()) {
      ImGui::SameLine();
      ImGui::TextColored(kWarnColour, "~");
    }
    // Simulated times stretch with the machine's load: a row timed under another load than the
    // best's does not rank against it (core/machine_load.hpp).
    if (const std::string changed = i > 0 ? load_changed(e.last.timing, rows.front()->last.timing) : std::string();
        !changed.empty()) {
      ImGui::SameLine();
      ImGui::TextColored(kWarnColour, "load");
      item_tooltip(("Against the best (first row): " + changed + ".").c_str());
      any_load_change = true;
    }
    ImGui::TableNextColumn();
    const double t = m > 0 ? e.last.counted(unit) / (m * 1e6) : 0;
    if (e.last.check.failed()) ImGui::TextColored(kDimColour, "---");
    else ImGui::TextUnformatted(sig(t, 4).c_str());
    ImGui::TableNextColumn();
    ImGui::Text("%zu", e.runs);
    ImGui::TableNextColumn();
    // The measure that decides, against its limit: "ok 0.03 <= 1" (the worst error over its
    // tolerance for matmul, max |out - ref| for grayscale). Secondary figures (a relative error,
    // the absolute error) are in the tooltip, where they cannot read as the verdict.
    const Check& c = e.last.check;
    if (c.passed()) ImGui::TextColored(kOkColour, "ok %s <= %s", sig_trim(c.worst).c_str(), sig_trim(c.limit).c_str());
    else if (c.failed())
      ImGui::TextColored(kErrorColour, "WRONG %s > %s", sig_trim(c.worst).c_str(), sig_trim(c.limit).c_str());
    else ImGui::TextColored(kWarnColour, "unchecked");
    item_tooltip((c.summary() +
                  (c.measure.empty() ? "" : "\n\nThe figure shown is " + c.measure + " against its limit.") +
                  (c.note.empty() ? "" : "\n" + c.note))
                     .c_str());
  }
  ImGui::EndTable();
  if (any_barriers)
    ImGui::TextColored(kWarnColour,
                       "* synchronises its threads (__syncthreads): the CPU simulation runs "
                       "them as fibers and switches at every barrier, so these rungs are "
                       "far slower here than on a GPU; do not rank the ladder by them.");
  if (any_load_change)
    ImGui::TextColored(kWarnColour,
                       "load: timed while the machine was busier or quieter than for the best; "
                       "run both again to rank them (simulated times stretch with the load).");
  (void)best_lo;
  return chosen;
}

}  // namespace bs::ui
