#include <imgui.h>

#include <algorithm>
#include <cstdio>

#include "mapping/explain.hpp"
#include "mapping/schedule.hpp"
#include "ui/panels.hpp"
#include "ui/widgets.hpp"

namespace bs::ui {

namespace {
ImU32 block_colour(unsigned long long id) {
  // A cheap integer hash spread over hues, so neighbouring blocks differ.
  unsigned long long h = id * 0x9E3779B97F4A7C15ull;
  const float hue = static_cast<float>((h >> 40) & 0xffff) / 65535.0f;
  float r, g, b;
  ImGui::ColorConvertHSVtoRGB(hue, 0.55f, 0.92f, r, g, b);
  return ImGui::ColorConvertFloat4ToU32(ImVec4(r, g, b, 1));
}
}  // namespace

void draw_schedule_panel(const SideInput& in) {
  using mapping::Concept;
  const LaunchRecord& rec = *in.shown;
  if (rec.schedule.empty()) {
    ImGui::PushTextWrapPos(0);
    ImGui::TextColored(kDimColour, rec.config.grid.x == 0
                                       ? "A library kernel: its blocks are not ours to trace."
                                       : "No schedule recorded for this launch. Tick 'Record the "
                                         "block schedule' and change the configuration (or press "
                                         "Run once).");
    ImGui::PopTextWrapPos();
    return;
  }
  const auto& trace = rec.schedule;
  const bool simulated = rec.schedule_simulated;
  const unsigned units = in.limits->sm_count;
  const mapping::ScheduleSummary s = mapping::summarize(trace, units);
  const char* unit_name = simulated ? "worker" : "SM";
  if (simulated)
    ImGui::TextColored(kWarnColour, "SIMULATED: rows are CPU worker threads, not SMs");
  else
    ImGui::TextColored(kOkColour, "Recorded on the GPU (%%smid, %%globaltimer)");
  ui::item_tooltip(mapping::explain(simulated ? Concept::SimulatedSchedule : Concept::Schedule));
  char buf[128];
  std::snprintf(buf, sizeof buf, "%.1f us", s.makespan_ns / 1000.0);
  stat_row("makespan", buf, mapping::explain(Concept::Makespan));
  // Not the Timings tab's figure: this is the one traced launch, first block's start to last
  // block's end, with the cost of recording each block; the Timings tab's median is of the
  // untraced launches.
  ImGui::TextColored(kDimColour, "%s", simulated
                         ? "the one traced launch, first block's start to last block's end; recording each block "
                           "slows the simulator, so it is longer than the Timings tab's untraced median"
                         : "the one traced launch, first block's start to last block's end (the Timings tab's "
                           "median is of untraced launches, timed by events)");
  std::snprintf(buf, sizeof buf, "%u of %u", s.units_used, s.units);
  stat_row(simulated ? "workers used" : "SMs used", buf, mapping::explain(Concept::SmId));
  std::snprintf(buf, sizeof buf, "%llu .. %llu", s.min_blocks_per_unit, s.max_blocks_per_unit);
  stat_row("blocks per row", buf);
  std::snprintf(buf, sizeof buf, "%.2f", s.imbalance);
  stat_row("imbalance", buf, mapping::explain(Concept::Imbalance));
  std::snprintf(buf, sizeof buf, "%.2f", s.waves_observed);
  stat_row(simulated ? "rounds per worker" : "waves observed", buf,
           simulated ? "Blocks each CPU worker ran one after another (a worker runs one block at a "
                       "time): how the simulator spread this launch, not what a GPU would do. The "
                       "Launch tab's 'device waves' models the GPU."
                     : "Blocks an SM ran over the most blocks it held at once, for the busiest SM: "
                       "the rounds this launch really took. Compare the Launch tab's model.");

  // The timeline: one row per unit, one rectangle per block, in two phases (records, then paint).
  const float em = ImGui::GetFontSize();
  const float width = ImGui::GetContentRegionAvail().x;
  const float avail_h = std::max(em * 8, ImGui::GetContentRegionAvail().y - em * 2.5f);
  const float row_h = std::clamp(avail_h / std::max(1u, s.units), 1.0f, em);
  const float height = row_h * s.units;
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton("timeline", ImVec2(width, height));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->AddRectFilled(p0, ImVec2(p0.x + width, p0.y + height), IM_COL32(22, 24, 30, 255));
  const double span = std::max<double>(1.0, static_cast<double>(s.end_ns - s.start_ns));
  struct Rect { ImVec2 a, b; ImU32 c; };
  std::vector<Rect> rects;
  rects.reserve(trace.size());
  const BlockTrace* hovered = nullptr;
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  for (const BlockTrace& t : trace) {
    const float x0 = p0.x + static_cast<float>((t.start_ns - s.start_ns) / span * width);
    const float x1 = std::max(x0 + 1.0f, p0.x + static_cast<float>((t.end_ns - s.start_ns) / span * width));
    const float y0 = p0.y + row_h * t.unit;
    const unsigned long long id = t.block.x + 1000003ull * t.block.y + 7919ull * t.block.z;
    rects.push_back({ImVec2(x0, y0), ImVec2(x1, y0 + std::max(1.0f, row_h - 1)), block_colour(id)});
    if (ImGui::IsItemHovered() && mouse.x >= x0 && mouse.x < x1 && mouse.y >= y0 && mouse.y < y0 + row_h) hovered = &t;
  }
  for (const Rect& r : rects) dl->AddRectFilled(r.a, r.b, r.c);
  if (hovered) {
    ImGui::BeginTooltip();
    ImGui::Text("block (%u, %u, %u) on %s %u", hovered->block.x, hovered->block.y, hovered->block.z, unit_name, hovered->unit);
    ImGui::Text("%.2f .. %.2f us", (hovered->start_ns - s.start_ns) / 1000.0, (hovered->end_ns - s.start_ns) / 1000.0);
    ImGui::EndTooltip();
  }
  ImGui::TextColored(kDimColour, "rows: %s 0..%u   time: 0 .. %.1f us", unit_name, s.units - 1, span / 1000.0);
  // When "copied" was last said lives in ImGui's per-window storage, not in a static.
  ImGuiStorage* storage = ImGui::GetStateStorage();
  const ImGuiID copied_id = ImGui::GetID("schedule_copied_at");
  if (ImGui::SmallButton("Copy schedule JSON")) {
    const std::string json = mapping::schedule_to_json(trace, simulated, rec.config, rec.kernel, in.limits->name);
    ImGui::SetClipboardText(json.c_str());
    storage->SetFloat(copied_id, static_cast<float>(ImGui::GetTime()));
  }
  const double copied_at = storage->GetFloat(copied_id, -10.0f);
  ui::item_tooltip("Block, SM (or worker), start and end in ns; also --schedule-json FILE.");
  if (ImGui::GetTime() - copied_at < 2.0) {
    ImGui::SameLine();
    ImGui::TextColored(kOkColour, "copied %zu blocks to the clipboard", trace.size());
  }
}

}  // namespace bs::ui
