#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "mapping/cluster.hpp"
#include "mapping/explain.hpp"
#include "mapping/schedule.hpp"
#include "mapping/thread_map.hpp"
#include "ui/panels.hpp"
#include "ui/widgets.hpp"

namespace bs::ui {

namespace {
using ClusterRunPtr = const mapping::ClusterRun*;
ImU32 block_colour(unsigned long long id) {
  // A cheap integer hash spread over hues, so neighbouring blocks (or clusters) differ.
  unsigned long long h = (id + 1) * 0x9E3779B97F4A7C15ull;
  const float hue = static_cast<float>((h >> 40) & 0xffff) / 65535.0f;
  float r, g, b;
  ImGui::ColorConvertHSVtoRGB(hue, 0.55f, 0.92f, r, g, b);
  return ImGui::ColorConvertFloat4ToU32(ImVec4(r, g, b, 1));
}
// The launch's thread block clusters as the trace shows them: whether the recorded cluster of
// every block agrees with the model, how many clusters ran all their blocks at one moment, the
// SMs each ran on, and what can be said of GPCs.
void draw_cluster_summary(const mapping::ClusterSchedule& cs, const LaunchRecord& rec, bool simulated) {
  using mapping::Concept;
  char buf[200];
  ImGui::Separator();
  ImGui::PushTextWrapPos(0);
  if (cs.recorded) ImGui::TextColored(kOkColour, "Clusters, recorded on the GPU (%%clusterid, %%cluster_ctarank)");
  else if (cs.recorded_blocks > 0)
    ImGui::TextColored(kWarnColour, "Clusters: only %llu of %zu blocks recorded theirs", cs.recorded_blocks,
                       rec.schedule.size());
  else
    ImGui::TextColored(kWarnColour, "Clusters: the model (blockIdx / cluster dims); %s",
                       simulated ? "the simulator has no clusters to record"
                                 : "this GPU or build recorded none (sm_90 and later read them)");
  ImGui::PopTextWrapPos();
  ui::item_tooltip(mapping::explain(Concept::ClusterSchedule));
  stat_row("clusters", mapping::cluster_dims_text(rec.config), mapping::explain(Concept::Cluster));
  if (cs.recorded_blocks > 0) {
    if (cs.mismatches == 0) {
      std::snprintf(buf, sizeof buf, "all %llu recorded blocks agree", cs.recorded_blocks);
      stat_row("record vs model", buf,
               "Each block's %clusterid, %cluster_ctarank, %nclusterid and %cluster_nctarank against the "
               "PTX ISA's model: blockIdx / cluster dims, its place in the cluster (x fastest), gridDim / "
               "cluster dims.");
    } else {
      std::snprintf(buf, sizeof buf, "%llu of %llu blocks differ", cs.mismatches, cs.recorded_blocks);
      stat_row("record vs model", buf);
      wrapped_text(kErrorColour, "%s", cs.first_mismatch.c_str());
    }
  }
  std::snprintf(buf, sizeof buf, "%llu of %zu clusters", cs.co_scheduled, cs.clusters.size());
  stat_row("co-scheduled", buf,
           "Clusters whose blocks were all running at one moment (the latest start before the earliest "
           "end). The hardware guarantees it for the blocks of a cluster.");
  std::string groups;
  std::size_t shown_groups = 0;
  for (const auto& g : cs.sm_groups) {
    if (g.size() < 2) continue;
    if (shown_groups++ == 6) {
      groups += " ...";
      break;
    }
    groups += groups.empty() ? "{" : " {";
    for (std::size_t i = 0; i < g.size() && i < 8; ++i) groups += (i ? "," : "") + std::to_string(g[i]);
    groups += g.size() > 8 ? ",...}" : "}";
  }
  wrapped_text(kDimColour,
               "GPC: not recorded (PTX has no GPC register). The blocks of a cluster run on SMs of one GPC, "
               "so SMs that shared a cluster are in one GPC: %s",
               groups.empty() ? "none shared one" : groups.c_str());
}

// The summary of one traced launch: what recorded it, its makespan, rows used, blocks per row,
// imbalance and waves.
void draw_schedule_stats(const mapping::ScheduleSummary& s, bool simulated) {
  using mapping::Concept;
  if (simulated) ImGui::TextColored(kWarnColour, "SIMULATED: rows are CPU worker threads, not SMs");
  else ImGui::TextColored(kOkColour, "Recorded on the GPU (%%smid, %%globaltimer)");
  ui::item_tooltip(mapping::explain(simulated ? Concept::SimulatedSchedule : Concept::Schedule));
  char buf[128];
  std::snprintf(buf, sizeof buf, "%.1f us", s.makespan_ns / 1000.0);
  stat_row("makespan", buf, mapping::explain(Concept::Makespan));
  // Not the Timings tab's figure: this is the one traced launch, first block's start to last
  // block's end, with the cost of recording each block; the Timings tab's median is of the
  // untraced launches.
  ImGui::TextColored(kDimColour, "%s",
                     simulated ? "the one traced launch, first block's start to last block's end; recording each block "
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
}

// The hovered block: where and when it ran, and its cluster.
void block_tooltip(const BlockTrace& b, const mapping::ScheduleSummary& s, const char* unit_name, ClusterRunPtr cluster,
                   bool simulated) {
  ImGui::BeginTooltip();
  ImGui::Text("block (%u, %u, %u) on %s %u", b.block.x, b.block.y, b.block.z, unit_name, b.unit);
  ImGui::Text("%.2f .. %.2f us", (b.start_ns - s.start_ns) / 1000.0, (b.end_ns - s.start_ns) / 1000.0);
  if (b.cluster)
    ImGui::Text("recorded: cluster (%u, %u, %u), rank %u of %u", b.cluster->id.x, b.cluster->id.y, b.cluster->id.z,
                b.cluster->rank, b.cluster->blocks);
  if (cluster) ImGui::TextUnformatted(mapping::cluster_line(*cluster, simulated).c_str());
  ImGui::EndTooltip();
}

// The clusters' legend, `height` tall: one line a cluster, the hovered one first, then any whose
// blocks did not run at one moment, then the rest in order.
void draw_cluster_legend(const mapping::ClusterSchedule& cs, ClusterRunPtr hovered_cluster, bool simulated,
                         float height) {
  const float em = ImGui::GetFontSize();
  std::vector<std::size_t> order;
  order.reserve(cs.clusters.size());
  for (int pass = 0; pass < 3; ++pass)
    for (std::size_t i = 0; i < cs.clusters.size(); ++i) {
      const mapping::ClusterRun& c = cs.clusters[i];
      const bool hot = &c == hovered_cluster, late = !c.co_scheduled && c.blocks.size() > 1;
      if ((pass == 0 && hot) || (pass == 1 && !hot && late) || (pass == 2 && !hot && !late)) order.push_back(i);
    }
  ImGui::BeginChild("cluster_legend", ImVec2(0, height), true);
  ImGuiListClipper clip;
  clip.Begin(static_cast<int>(order.size()));
  while (clip.Step())
    for (int i = clip.DisplayStart; i < clip.DisplayEnd; ++i) {
      const mapping::ClusterRun& c = cs.clusters[order[static_cast<std::size_t>(i)]];
      const ImVec2 at = ImGui::GetCursorScreenPos();
      ImGui::GetWindowDrawList()->AddRectFilled(at, ImVec2(at.x + em * 0.8f, at.y + em * 0.8f), block_colour(c.linear));
      ImGui::Dummy(ImVec2(em, em * 0.8f));
      ImGui::SameLine();
      const std::string line = mapping::cluster_line(c, simulated);
      if (&c == hovered_cluster) ImGui::TextColored(ImVec4(1, 1, 1, 1), "%s", line.c_str());
      else if (!c.co_scheduled && c.blocks.size() > 1) ImGui::TextColored(kErrorColour, "%s", line.c_str());
      else ImGui::TextUnformatted(line.c_str());
    }
  ImGui::EndChild();
}

// "Copy schedule JSON", and for two seconds after a copy, what it copied. When "copied" was last
// said lives in ImGui's per-window storage, not in a static.
void copy_schedule_button(const LaunchRecord& rec, bool simulated, const std::string& device) {
  ImGuiStorage* storage = ImGui::GetStateStorage();
  const ImGuiID copied_id = ImGui::GetID("schedule_copied_at");
  if (ImGui::SmallButton("Copy schedule JSON")) {
    const std::string json = mapping::schedule_to_json(rec.schedule, simulated, rec.config, rec.kernel, device);
    ImGui::SetClipboardText(json.c_str());
    storage->SetFloat(copied_id, static_cast<float>(ImGui::GetTime()));
  }
  const double copied_at = storage->GetFloat(copied_id, -10.0f);
  ui::item_tooltip("Block, SM (or worker), start and end in ns; also --schedule-json FILE.");
  if (ImGui::GetTime() - copied_at < 2.0) {
    ImGui::SameLine();
    ImGui::TextColored(kOkColour, "copied %zu blocks to the clipboard", rec.schedule.size());
  }
}

}  // namespace

void draw_schedule_panel(const SideInput& in) {
  const LaunchRecord& rec = *in.shown;
  if (rec.schedule.empty()) {
    wrapped_text(kDimColour, rec.config.grid.x == 0 ? "A library kernel: its blocks are not ours to trace."
                                                    : "No schedule recorded for this launch. Tick 'Record the "
                                                      "block schedule' and change the configuration (or press "
                                                      "Run once).");
    return;
  }
  const auto& trace = rec.schedule;
  const bool simulated = rec.schedule_simulated;
  const unsigned units = in.limits->sm_count;
  const mapping::ScheduleSummary s = mapping::summarize(trace, units);
  const char* unit_name = simulated ? "worker" : "SM";
  draw_schedule_stats(s, simulated);

  // Clusters: launches with cluster dims, or traces whose blocks recorded clusters of several.
  bool clustered = rec.config.cluster.volume() > 1;
  for (std::size_t i = 0; i < trace.size() && !clustered && i < 64; ++i)
    clustered = trace[i].cluster && trace[i].cluster->blocks > 1;
  mapping::ClusterSchedule cs;
  std::vector<std::size_t> cluster_of;  // trace index -> index into cs.clusters
  if (clustered) {
    cs = mapping::cluster_schedule(trace, rec.config);
    draw_cluster_summary(cs, rec, simulated);
    std::vector<std::size_t> by_block(trace.size(), cs.clusters.size());
    for (std::size_t c = 0; c < cs.clusters.size(); ++c)
      for (unsigned long long b : cs.clusters[c].blocks)
        if (b < by_block.size()) by_block[b] = c;
    cluster_of.resize(trace.size(), cs.clusters.size());
    for (std::size_t i = 0; i < trace.size(); ++i) {
      const unsigned long long id = mapping::linear_block_id(trace[i].block, rec.config.grid);
      if (id < by_block.size()) cluster_of[i] = by_block[id];
    }
  }

  // The timeline: one row per unit, one rectangle per block, in two phases (records, then paint).
  // With clusters, a cluster's blocks share a hue and a line joins them at the cluster's start.
  const float em = ImGui::GetFontSize();
  const float width = ImGui::GetContentRegionAvail().x;
  const float legend_h = clustered ? em * 7.5f : 0.0f;
  const float avail_h = std::max(em * 8, ImGui::GetContentRegionAvail().y - em * 2.5f - legend_h);
  const float row_h = std::clamp(avail_h / std::max(1u, s.units), 1.0f, em);
  const float height = row_h * s.units;
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton("timeline", ImVec2(width, height));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->AddRectFilled(p0, ImVec2(p0.x + width, p0.y + height), IM_COL32(22, 24, 30, 255));
  const double span = std::max<double>(1.0, static_cast<double>(s.end_ns - s.start_ns));
  struct Rect {
    ImVec2 a, b;
    ImU32 c;
  };
  std::vector<Rect> rects;
  rects.reserve(trace.size());
  const BlockTrace* hovered = nullptr;
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  for (const BlockTrace& t : trace) {
    const float x0 = p0.x + static_cast<float>((t.start_ns - s.start_ns) / span * width);
    const float x1 = std::max(x0 + 1.0f, p0.x + static_cast<float>((t.end_ns - s.start_ns) / span * width));
    const float y0 = p0.y + row_h * t.unit;
    const std::size_t i = static_cast<std::size_t>(&t - trace.data());
    const unsigned long long id = clustered && cluster_of[i] < cs.clusters.size()
                                      ? cs.clusters[cluster_of[i]].linear
                                      : t.block.x + 1000003ull * t.block.y + 7919ull * t.block.z;
    rects.push_back({ImVec2(x0, y0), ImVec2(x1, y0 + std::max(1.0f, row_h - 1)), block_colour(id)});
    if (ImGui::IsItemHovered() && mouse.x >= x0 && mouse.x < x1 && mouse.y >= y0 && mouse.y < y0 + row_h) hovered = &t;
  }
  for (const Rect& r : rects) dl->AddRectFilled(r.a, r.b, r.c);
  const ClusterRunPtr hovered_cluster =
      clustered && hovered && cluster_of[static_cast<std::size_t>(hovered - trace.data())] < cs.clusters.size()
          ? &cs.clusters[cluster_of[static_cast<std::size_t>(hovered - trace.data())]]
          : nullptr;
  if (clustered) {
    // A cluster's blocks joined by a line at the moment the last of them started (they all ran
    // then, if it was co-scheduled); the hovered block's cluster outlined in white.
    for (const mapping::ClusterRun& c : cs.clusters) {
      if (c.units.size() < 2) continue;
      const auto [lo, hi] = std::minmax_element(c.units.begin(), c.units.end());
      const float x = p0.x + static_cast<float>((c.last_start_ns - s.start_ns) / span * width);
      const bool hot = &c == hovered_cluster;
      dl->AddLine(ImVec2(x, p0.y + row_h * (*lo + 0.5f)), ImVec2(x, p0.y + row_h * (*hi + 0.5f)),
                  hot ? IM_COL32(255, 255, 255, 255) : (block_colour(c.linear) & 0x00FFFFFFu) | 0xC0000000u,
                  hot ? 2.0f : 1.0f);
    }
    if (hovered_cluster)
      for (std::size_t k = 0; k < trace.size(); ++k)
        if (cluster_of[k] < cs.clusters.size() && &cs.clusters[cluster_of[k]] == hovered_cluster)
          dl->AddRect(rects[k].a, rects[k].b, IM_COL32(255, 255, 255, 255), 0, 0, 1.5f);
  }
  if (hovered) block_tooltip(*hovered, s, unit_name, hovered_cluster, simulated);
  ImGui::TextColored(kDimColour, "rows: %s 0..%u   time: 0 .. %.1f us", unit_name, s.units - 1, span / 1000.0);
  if (clustered) draw_cluster_legend(cs, hovered_cluster, simulated, legend_h - em * 1.2f);
  copy_schedule_button(rec, simulated, in.limits->name);
}

}  // namespace bs::ui
