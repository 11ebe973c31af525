#include "experiments/compare_view.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "mapping/launch_stats.hpp"
#include "sampling/line_table.hpp"
#include "ui/widgets.hpp"

namespace bs::app {
namespace {

using ui::fmt;

// One side's figures, as rows of the table under its pane.
void draw_figures(const CompareInput& in, const LaunchRecord& r, std::optional<PixelPos> at) {
  if (!r.ok()) {
    ui::status_text(r.status);
    return;
  }
  const Timing& t = r.timing;
  ui::stat_row("median", ui::ms_text(t.median_ms) + fmt("  +-%.2f%%", 100 * t.relative_ci()),
               "The median of the timed repeats and the half width of its 95% confidence interval.");
  ui::stat_row("95% interval", ui::sig(t.ci_low_ms, 4) + " .. " + ui::sig(t.ci_high_ms, 4) + " ms");
  ui::stat_row("repeats", std::to_string(t.repeats()) + (t.simulated ? " (simulated: CPU time)" : ""));
  const double thr = r.throughput(in.unit);
  ui::stat_row("throughput", ui::sig(thr, 4) + " " + unit_text(in.unit));
  const lab::KernelInfo* k = in.lab ? in.lab->find_kernel(r.kernel) : nullptr;
  if (!(k && k->timed_only) && r.config.grid.volume() > 0 && r.data_width > 0 && in.limits &&
      r.config.block.volume() <= in.limits->max_threads_per_block) {
    const mapping::LaunchStats s = mapping::compute_stats(r.scheme, r.config, r.data_width, r.data_height, r.attributes,
                                                          *in.limits, r.owners.get());
    ui::stat_row("occupancy", fmt("%.0f%%", 100 * s.occupancy.occupancy) + ", limited by " +
                                  mapping::to_string(s.occupancy.limiter));
    ui::stat_row("waves", ui::sig(s.waves.waves, 3) + fmt(", last wave %.0f%% full", 100 * s.waves.last_wave_fill));
    if (s.thread_counts_exact)
      ui::stat_row("idle threads", std::to_string(s.idle_threads) + fmt(" (%.2f%%)", s.idle_percent));
  }
  ui::stat_row("registers",
               r.attributes_measured ? std::to_string(r.attributes.registers_per_thread) : "n/a (simulated)");
  if (at && in.lab) {
    if (auto w = warp_sectors(*in.lab, r, *at)) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "%s (warp %u of block (%u, %u, %u), %u requests; ideal %s)",
                    ui::sig(w->per_request(), 3).c_str(), w->warp, w->block.x, w->block.y, w->block.z, w->requests,
                    ui::sig(w->requests ? static_cast<double>(w->ideal) / w->requests : 0, 3).c_str());
      ui::stat_row("sectors / request", buf,
                   "The hovered element's warp: 32-byte sectors its memory requests touch, per request. Fewer is "
                   "better; the ideal is what the bytes it moves could fit in.");
    } else ui::stat_row("sectors / request", "no warp of ours stores it");
  }
  ui::wrapped_text(r.check.failed() ? ui::kErrorColour : ui::kDimColour, "%s", r.check.summary().c_str());
}

}  // namespace

std::optional<WarpSectors> warp_sectors(const lab::Lab& lab, const LaunchRecord& r, PixelPos at) {
  auto owner = lab.owner(r, at.x, at.y);
  if (!owner) return std::nullopt;
  WarpSectors w;
  w.block = owner->thread.block;
  w.warp = owner->thread.warp_in_block;
  for (const mapping::WarpAccess& a : lab.warp_accesses(r, w.block, w.warp, static_cast<int>(owner->pass))) {
    ++w.requests;
    w.sectors += a.sectors;
    w.ideal += a.ideal_sectors;
  }
  if (w.requests == 0) return std::nullopt;
  return w;
}

namespace {

// The file name without its folders.
// Where the warps wait in A and in B, line by line (both pins profiled in the Source tab): each
// line's share of its kernel's stall samples, the change, and the main reason on each side.
void draw_line_diff(const LineProfile& a, const LineProfile& b) {
  const std::vector<sampling::LineDiff> rows = sampling::diff_lines(a, b);
  ImGui::Text("Where the warps wait, line by line (stall samples, %% of each kernel's)");
  ImGui::SameLine();
  ImGui::TextColored(ui::kDimColour, "A: %lld samples, B: %lld", a.total_samples, b.total_samples);
  const ImGuiTableFlags flags =
      ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit;
  const float h =
      ImGui::GetTextLineHeightWithSpacing() * static_cast<float>(std::min<std::size_t>(rows.size(), 8) + 1.5);
  if (!ImGui::BeginTable("line_diff", 6, flags, ImVec2(0, h))) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  const float em = ImGui::GetFontSize();
  const std::pair<const char*, float> columns[] = {{"line", 16}, {"A", 5},           {"B", 5},
                                                   {"B - A", 5}, {"A waits on", 13}, {"B waits on", 13}};
  for (const auto& [name, width] : columns) ImGui::TableSetupColumn(name, ImGuiTableColumnFlags_WidthFixed, width * em);
  ImGui::TableHeadersRow();
  for (const sampling::LineDiff& d : rows) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::Text("%s:%d", std::filesystem::path(d.file).filename().c_str(), d.line);
    ImGui::TableNextColumn();
    ImGui::Text("%.1f%%", d.share_a);
    ImGui::TableNextColumn();
    ImGui::Text("%.1f%%", d.share_b);
    ImGui::TableNextColumn();
    const double diff = d.diff();
    ImGui::TextColored(std::abs(diff) < 1 ? ui::kDimColour : diff > 0 ? ui::kWarnColour : ui::kOkColour, "%+.1f", diff);
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(d.top_a.c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(d.top_b.c_str());
  }
  ImGui::EndTable();
}

}  // namespace

CompareAction draw_compare_view(const CompareInput& in, CompareState* st) {
  CompareAction act;
  const float em = ImGui::GetFontSize();
  ImGui::BeginDisabled(!in.have_current);
  if (ImGui::Button("Pin the current launch as A")) act.pin_current = 0;
  ImGui::SameLine();
  if (ImGui::Button("... as B")) act.pin_current = 1;
  ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::BeginDisabled(!in.a->has_value() && !in.b->has_value());
  if (ImGui::Button("Swap")) act.swap = true;
  ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::TextColored(ui::kDimColour, "or right-click a sweep's cell");
  const Pin* pins[2] = {in.a->has_value() ? &**in.a : nullptr, in.b->has_value() ? &**in.b : nullptr};
  if (pins[0] && pins[1]) {
    const Timing& ta = pins[0]->record.timing;
    const Timing& tb = pins[1]->record.timing;
    if (pins[0]->record.ok() && pins[1]->record.ok() && ta.median_ms > 0 && tb.median_ms > 0) {
      const double ratio = tb.median_ms / ta.median_ms;
      const bool tie = ta.overlaps(tb);
      ImGui::PushTextWrapPos(0);
      ImGui::TextColored(
          tie ? ui::kWarnColour : ui::kOkColour, "B takes %.3fx A's time (%s)%s", ratio,
          ratio < 1   ? "B is faster"
          : ratio > 1 ? "A is faster"
                      : "equal",
          tie ? ": but their 95% intervals overlap, so they cannot be ranked" : ": their 95% intervals do not overlap");
      if (pins[0]->record.problem != pins[1]->record.problem)
        ImGui::TextColored(ui::kWarnColour, "A and B ran on different problems (%s / %s)",
                           pins[0]->record.problem.c_str(), pins[1]->record.problem.c_str());
      if (ta.simulated || tb.simulated) ImGui::TextColored(ui::kWarnColour, "simulated timings: CPU time, not a GPU's");
      if (const std::string changed = load_changed(ta, tb); !changed.empty())
        ImGui::TextColored(ui::kWarnColour, "A and B: %s.", changed.c_str());
      ImGui::PopTextWrapPos();
    }
    const LineProfile* la = pins[0]->record.lines.get();
    const LineProfile* lb = pins[1]->record.lines.get();
    if (la && lb && la->ok() && lb->ok()) draw_line_diff(*la, *lb);
    else if (la || lb)
      ImGui::TextColored(ui::kDimColour,
                         "Profile both launches in the Source tab to see where their warps wait, line by line.");
  }
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float col_w = (avail.x - em) / 2;
  const float pane_h = std::max(em * 6, avail.y * 0.5f);
  std::optional<PixelPos> inspect = st->hover ? st->hover : in.inspected;
  std::optional<PixelPos> hovered;
  for (int side = 0; side < 2; ++side) {
    if (side == 1) ImGui::SameLine(0, em);
    ImGui::BeginChild(side == 0 ? "compare_a" : "compare_b", ImVec2(col_w, 0), true);
    const Pin* p = pins[side];
    const char* name = side == 0 ? "A" : "B";
    if (!p) {
      ImGui::TextColored(ui::kDimColour, "%s: nothing pinned", name);
      ui::wrapped_text(ui::kDimColour,
                       "Pin the current launch with the button above, or right-click a cell of "
                       "a sweep and choose \"Pin as %s\".",
                       name);
      ImGui::EndChild();
      continue;
    }
    ImGui::Text("%s: %s  %s", name, p->record.kernel.c_str(), p->record.config_label.c_str());
    ImGui::SameLine();
    ImGui::TextColored(ui::kDimColour, "(from %s)", p->from.c_str());
    ImGui::PushID(side);
    if (ImGui::SmallButton("load")) act.load = side;
    ui::item_tooltip("Load this configuration into the lab's controls.");
    ImGui::SameLine();
    if (ImGui::SmallButton("unpin")) act.clear = side;
    ImGui::PopID();
    if (in.draw_data) {
      const float w = ImGui::GetContentRegionAvail().x;
      if (auto h = in.draw_data(p->record, side, ImVec2(w, pane_h), inspect)) hovered = h;
    }
    if (inspect) ImGui::TextColored(ui::kDimColour, "element (%lld, %lld)", inspect->x, inspect->y);
    draw_figures(in, p->record, inspect);
    ImGui::EndChild();
  }
  st->hover = hovered;
  return act;
}

}  // namespace bs::app
