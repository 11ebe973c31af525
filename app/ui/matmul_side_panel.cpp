// The matmul lab's side panel: the live numbers on top (time, GFLOP/s, % of cuBLAS and of the
// FP32 peak, correctness, GFLOP/s history per kernel), then tabs: the ladder of configurations
// tried so far, the launch's shape and occupancy, the hovered warp's memory requests for the
// row-major and column-major thread mappings, and the (simulated) block schedule.
#include <imgui.h>

#include <algorithm>
#include <cstdio>

#include "mapping/explain.hpp"
#include "mapping/memory_access.hpp"
#include "mapping/occupancy.hpp"
#include "mapping/thread_map.hpp"
#include "shell/matmul_session.hpp"
#include "ui/matmul_panels.hpp"
#include "ui/panels.hpp"
#include "ui/widgets.hpp"

namespace bs::ui {
namespace {

using app::MatmulSession;

ImU32 rung_colour(const std::string& id) {
  static constexpr ImU32 colours[] = {IM_COL32(150, 150, 160, 255), IM_COL32(230, 110, 110, 255),
                                      IM_COL32(240, 170, 80, 255),  IM_COL32(220, 220, 90, 255),
                                      IM_COL32(120, 210, 110, 255), IM_COL32(90, 200, 220, 255),
                                      IM_COL32(120, 150, 255, 255)};
  const int rung = id.size() > 1 && id[0] == 'k' ? id[1] - '1' : 0;
  return colours[std::clamp(rung, 0, 6)];
}

void progress(double fraction, const char* text) {
  ImGui::ProgressBar(static_cast<float>(std::clamp(fraction, 0.0, 1.0)), ImVec2(-1, 0), text);
}

void draw_live_numbers(const MatmulSession& s) {
  const auto& m = s.matrices();
  const auto& c = s.choice();
  const LaunchRecord& rec = s.last_good_launch();
  const auto& h = s.history();
  char buf[160];
  ImGui::TextUnformatted("LIVE NUMBERS");
  ImGui::SameLine();
  ImGui::TextColored(kDimColour, "%s", s.device_label().c_str());
  if (!m.ready && m.status.ok()) {
    ImGui::TextColored(kDimColour, "Generating the matrices...");
    return;
  }
  if (!m.ready || !c.status.ok()) {
    ImGui::PushTextWrapPos(0);
    ImGui::TextColored(kErrorColour, "%s", !m.ready ? "No matrices: nothing runs." : "Refused before launch: nothing runs.");
    ImGui::TextColored(kDimColour, "%s", (!m.ready ? m.status : c.status).message.c_str());
    ImGui::PopTextWrapPos();
    return;
  }
  if (!rec.ok() || h.kernel().empty()) {
    ImGui::TextColored(kDimColour, "No run of this configuration yet.");
    return;
  }
  ImGui::TextColored(ImVec4(0.56f, 0.80f, 1.0f, 1.0f), "%s", rec.kernel.c_str());
  ImGui::SameLine();
  ImGui::TextColored(kDimColour, "%dx%dx%d", m.M, m.N, m.K);
  ImGui::PushTextWrapPos(0);
  ImGui::TextColored(kDimColour, "%s", c.config.label.c_str());
  ImGui::PopTextWrapPos();
  const app::TimingSummary k = h.kernel_summary();
  if (ImGui::BeginTable("mm_times", 4, ImGuiTableFlags_SizingStretchSame)) {
    for (const char* name : {"last", "median", "min", "max"}) {
      ImGui::TableNextColumn();
      ImGui::TextColored(kDimColour, "%s", name);
    }
    for (double v : {k.last, k.median, k.min, k.max}) {
      ImGui::TableNextColumn();
      ImGui::Text("%.4f ms", v);
    }
    ImGui::EndTable();
  }
  ImGui::PushTextWrapPos(0);
  ImGui::TextColored(kDimColour, "%s, %zu runs", rec.timing.clock.c_str(), k.count);
  ImGui::PopTextWrapPos();
  const bool passed = s.has_verification() && s.verification().passed;
  const double gflops = k.median > 0 ? rec.flops / (k.median * 1e6) : 0;
  if (passed) {
    ImGui::TextColored(kOkColour, gflops < 10 ? "%.3g GFLOP/s" : "%.1f GFLOP/s", gflops);
    ui::item_tooltip("2 * M * N * K floating-point operations over the median kernel time.");
  } else {
    ImGui::TextColored(kDimColour, "--- GFLOP/s");
    ImGui::SameLine();
    ImGui::TextColored(kErrorColour, "withheld: the result is wrong");
  }
  if (s.cublas_ms() > 0) {
    const double cublas_gflops = rec.flops / (s.cublas_ms() * 1e6);
    std::snprintf(buf, sizeof buf, passed ? "%.1f%% of cuBLAS (%.1f GFLOP/s)" : "-- of cuBLAS (%.1f GFLOP/s)",
                  passed ? 100.0 * s.cublas_ms() / k.median : cublas_gflops, cublas_gflops);
    progress(passed ? s.cublas_ms() / k.median : 0, buf);
    item_tooltip(s.cublas_note().c_str());
  } else {
    ImGui::PushTextWrapPos(0);
    ImGui::TextColored(kDimColour, "%s", s.cublas_note().c_str());
    ImGui::PopTextWrapPos();
  }
  if (s.peak_gflops() > 0) {
    std::snprintf(buf, sizeof buf, passed ? "%.1f%% of FP32 peak (%.0f GFLOP/s)" : "-- of FP32 peak (%.0f GFLOP/s)",
                  passed ? 100.0 * gflops / s.peak_gflops() : s.peak_gflops(), s.peak_gflops());
    progress(passed ? gflops / s.peak_gflops() : 0, buf);
    item_tooltip(s.peak_note().c_str());
  } else {
    ImGui::PushTextWrapPos(0);
    ImGui::TextColored(kDimColour, "%s", s.peak_note().c_str());
    ImGui::PopTextWrapPos();
  }
  const auto& v = s.verification();
  const char* against = s.backend() == BackendKind::Cuda ? "cuBLAS" : "the CPU reference";
  ImGui::PushTextWrapPos(0);
  if (!s.has_verification()) ImGui::TextColored(kWarnColour, "not verified yet");
  else if (v.passed)
    ImGui::TextColored(kOkColour, "correct vs %s: 0 of %zu outside tolerance, worst at %.2g of it (max abs err "
                       "%.2g, max rel %.2g)", against, v.checked, v.max_tolerance_ratio, v.max_abs, v.max_rel);
  else
    ImGui::TextColored(kErrorColour, "WRONG vs %s: %zu of %zu outside tolerance", against, v.mismatches, v.checked);
  ImGui::PopTextWrapPos();
  item_tooltip(("Compared with " + std::string(against) + ".\n" + v.summary() + "\n\ntolerance: " + v.tolerance).c_str());

  // GFLOP/s of verified runs, per kernel, across configuration edits; cuBLAS as a flat line.
  const auto& hist = s.gflops_history();
  std::vector<PlotSeries> series;
  std::size_t longest = 0;
  for (const auto& [id, values] : hist) {
    series.push_back({&values, rung_colour(id), id.c_str()});
    longest = std::max(longest, values.size());
  }
  std::deque<double> cublas;
  if (s.cublas_ms() > 0 && longest > 1) {
    cublas.assign(longest, rec.flops / (s.cublas_ms() * 1e6));
    series.push_back({&cublas, IM_COL32(235, 235, 240, 160), "cuBLAS"});
  }
  if (!series.empty()) {
    ImGui::TextColored(kDimColour, "GFLOP/s per run, per kernel (verified runs only)");
    line_plot("mm_history", series.data(), static_cast<int>(series.size()), ImVec2(0, ImGui::GetFontSize() * 7),
              "GFLOP/s");
  }
}

void draw_ladder_tab(const MatmulSession& s) {
  const auto& rows = s.results();
  if (rows.empty()) {
    ImGui::TextColored(kDimColour, "Configurations you run appear here.");
    return;
  }
  ImGui::TextColored(kDimColour, "every configuration run this session");
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingFixedFit |
                                ImGuiTableFlags_ScrollY;
  if (!ImGui::BeginTable("ladder", 5, flags, ImVec2(0, ImGui::GetContentRegionAvail().y))) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("kernel");
  ImGui::TableSetupColumn("size");
  ImGui::TableSetupColumn("ms");
  ImGui::TableSetupColumn("GFLOP/s");
  ImGui::TableSetupColumn("check", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableHeadersRow();
  for (const auto& r : rows) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(rung_colour(r.kernel)), "%s", r.kernel.c_str());
    item_tooltip(r.config.c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(r.size.c_str());
    ImGui::TableNextColumn();
    ImGui::Text("%.4f", r.median_ms);
    ImGui::TableNextColumn();
    if (r.passed) ImGui::Text("%.1f", r.gflops);
    else ImGui::TextColored(kDimColour, "---");
    ImGui::TableNextColumn();
    if (!r.verified) ImGui::TextColored(kWarnColour, "unchecked");
    else if (r.passed) ImGui::TextColored(kOkColour, "ok %.1g", r.max_rel);
    else ImGui::TextColored(kErrorColour, "WRONG (%zu)", r.mismatches);
  }
  ImGui::EndTable();
}

void draw_launch_tab(const MatmulSession& s) {
  using mapping::Concept;
  using mapping::explain;
  const auto& c = s.choice();
  const auto& m = s.matrices();
  const auto& g = c.geometry;
  const LaunchConfig& lc = s.last_good_launch().ok() ? s.last_good_launch().config : c.launch;
  char buf[160];
  auto d3 = [](const Dim3& d) {
    return std::to_string(d.x) + " x " + std::to_string(d.y) + " x " + std::to_string(d.z);
  };
  ImGui::TextColored(kDimColour, "%s on %s", matmul::matmul_kernel_info(c.kernel).id.c_str(), s.limits().name.c_str());
  stat_row("gridDim", d3(lc.grid), explain(Concept::GridDim));
  stat_row("blockDim", d3(lc.block), explain(Concept::BlockDim));
  stat_row("blocks", std::to_string(lc.total_blocks()));
  stat_row("threads", std::to_string(lc.total_threads()), explain(Concept::ThreadsLaunched));
  std::snprintf(buf, sizeof buf, "%d x %d of C", g.block_rows, g.block_cols);
  stat_row("block tile", buf, "The part of C one block computes: every thread of the block works inside it.");
  std::snprintf(buf, sizeof buf, "%d x %d", g.thread_rows, g.thread_cols);
  stat_row("outputs / thread", buf,
           "Register blocking: a thread keeps this many accumulators in registers and reuses every "
           "value it loads that many times.");
  if (g.warp_rows > 0) {
    std::snprintf(buf, sizeof buf, "%d x %d", g.warp_rows, g.warp_cols);
    stat_row("warp tile", buf, "The part of the block tile one warp owns (rung 7).");
  }
  const std::size_t smem = matmul::matmul_shared_bytes(c.kernel, c.config);
  std::snprintf(buf, sizeof buf, "%zu B%s", smem, g.stages == 2 ? " (2 stages)" : "");
  stat_row("shared / block", buf, explain(Concept::SharedMemoryPerBlock));
  if (m.ready) {
    const double slots = static_cast<double>(lc.grid.x) * lc.grid.y * g.block_rows * g.block_cols;
    const double idle = slots > 0 ? 1.0 - static_cast<double>(m.M) * m.N / slots : 0;
    std::snprintf(buf, sizeof buf, "%.1f%% of the grid's outputs", 100 * idle);
    stat_row("idle (edge tiles)", buf,
             "Where M or N is not a multiple of the block tile, the last row and column of blocks "
             "cover outputs outside C: those threads (or accumulators) do no useful work.");
  }
  // Reuse: how many FLOPs each byte fetched from global memory feeds, before caches.
  double intensity = 0.25;  // rungs 1-2: two 4-byte loads per multiply-add
  if (g.k_step > 0) intensity = static_cast<double>(g.block_rows) * g.block_cols / (2.0 * (g.block_rows + g.block_cols));
  std::snprintf(buf, sizeof buf, "%.2f FLOP / byte", intensity);
  stat_row("global reuse", buf,
           "FLOPs per byte each block fetches from global memory (ignoring caches): 2 FLOP per "
           "8 bytes for one thread per output; BM*BN / (2 (BM + BN)) once a block stages BM x BK "
           "and BK x BN tiles in shared memory. Higher is what lets a kernel leave the memory "
           "bound behind.");
  if (g.k_step > 0) {
    const double loads = static_cast<double>(g.thread_rows + g.thread_cols) / (g.thread_rows * g.thread_cols);
    std::snprintf(buf, sizeof buf, "%.2f per FMA", loads);
    stat_row("shared loads", buf, "Shared-memory reads per multiply-add: (TM + TN) / (TM * TN).");
  }
  ImGui::Separator();
  KernelAttributes attrs;
  attrs.static_shared_bytes = smem;
  const mapping::Occupancy o = mapping::compute_occupancy(lc.block.volume(), 0, attrs, s.limits());
  std::snprintf(buf, sizeof buf, "<= %.0f%%  (%u of %u warps)", 100 * o.occupancy, o.active_warps_per_sm,
                o.max_warps_per_sm);
  stat_row("occupancy", buf, explain(Concept::Occupancy));
  ImGui::PushTextWrapPos(0);
  ImGui::TextColored(kDimColour, "from threads and shared memory; registers are not counted");
  ImGui::PopTextWrapPos();
  stat_row("limited by", mapping::to_string(o.limiter));
  const mapping::Waves w = mapping::compute_waves(lc.total_blocks(), s.limits().sm_count, o.active_blocks_per_sm);
  std::snprintf(buf, sizeof buf, "%.2f  (%llu rounds of %llu slots)", w.waves, w.wave_count, w.slots);
  stat_row("waves", buf, explain(Concept::Waves));
  std::snprintf(buf, sizeof buf, "%.0f%% of the slots", 100 * w.last_wave_fill);
  stat_row("last wave", buf, explain(Concept::LastWaveFill));
  if (s.backend() == BackendKind::CpuSimulation)
    ImGui::TextColored(kWarnColour, "CPU simulation: a GPU with %u SMs (one per worker)", s.limits().sm_count);
}

void draw_memory_tab(const MatmulSession& s, const app::AppState& state) {
  const auto& m = s.matrices();
  const auto& c = s.choice();
  const auto inspected = s.inspected();
  if (!m.ready || !inspected) {
    ImGui::TextColored(kDimColour, "Hover an element of C (or pin one) to see its warp's requests.");
    return;
  }
  // Rungs 1 and 2 are exactly these mappings with the chosen block; for the tiled rungs the
  // comparison uses a 16 x 16 block, as the lecture's naive kernel would.
  const bool naive = c.kernel == matmul::MatmulKernel::Naive || c.kernel == matmul::MatmulKernel::Uncoalesced;
  const Dim3 block = naive && c.config.block.z == 1 ? c.config.block : Dim3{16, 16, 1};
  const int k = std::clamp(c.geometry.k_step > 0 ? state.matmul.phase * c.geometry.k_step : 0, 0, m.K - 1);
  ImGui::Text("C[%d][%d], step k = %d, block %ux%u", inspected->y, inspected->x, k, block.x, block.y);
  help_marker(mapping::explain(mapping::Concept::Coalescing));
  if (!naive) {
    ImGui::PushTextWrapPos(0);
    ImGui::TextColored(kDimColour, "the naive mappings (rungs 1 and 2) for this element; the tiled rungs load "
                                   "through shared memory instead");
    ImGui::PopTextWrapPos();
  }
  ImGui::PushTextWrapPos(0);
  ImGui::TextColored(kDimColour, "each cell is a lane; colour = the 32-byte sector it touches");
  ImGui::PopTextWrapPos();
  for (auto mapping_kind : {mapping::MatmulMapping::RowFromY, mapping::MatmulMapping::RowFromX}) {
    const bool row_from_y = mapping_kind == mapping::MatmulMapping::RowFromY;
    LaunchConfig lc;
    lc.block = block;
    const unsigned gx = static_cast<unsigned>(ceil_div(static_cast<unsigned long long>(row_from_y ? m.N : m.M), block.x));
    const unsigned gy = static_cast<unsigned>(ceil_div(static_cast<unsigned long long>(row_from_y ? m.M : m.N), block.y));
    lc.grid = Dim3{gx, gy, 1};
    ImGui::Separator();
    ImGui::TextColored(ImVec4(0.56f, 0.80f, 1.0f, 1.0f), "%s  (%s)", mapping::to_string(mapping_kind),
                       row_from_y ? "rung 1, the lecture's" : "rung 2");
    auto coord = mapping::thread_for_pixel(mapping::scheme_for(mapping_kind), lc, m.N, m.M, inspected->x, inspected->y);
    if (!coord) continue;
    ImGui::TextColored(kDimColour, "warp %u of block (%u, %u), lane %u", coord->warp_in_block, coord->block.x,
                       coord->block.y, coord->lane);
    unsigned total = 0, ideal = 0;
    for (const auto& a : mapping::matmul_warp_accesses(mapping_kind, lc, m.M, m.N, m.K, coord->block,
                                                       coord->warp_in_block, k)) {
      draw_warp_request(a);
      total += a.sectors;
      ideal += a.ideal_sectors;
    }
    ImGui::TextColored(total > ideal ? kWarnColour : kOkColour, "%u sectors for this step (ideal %u)", total, ideal);
  }
}

void draw_schedule_tab(const MatmulSession& s) {
  if (s.schedule().empty()) {
    ImGui::PushTextWrapPos(0);
    ImGui::TextColored(kDimColour, s.backend() == BackendKind::Cuda
                                       ? "The GPU matmul kernels run without the tracing instrumentation "
                                         "(it would cost registers on exactly the kernels being timed). The "
                                         "CPU backend shows the simulated block schedule."
                                       : "The schedule is recorded on the first run of each configuration.");
    ImGui::PopTextWrapPos();
    return;
  }
  SidePanelInput in;
  in.last_good_launch = &s.last_good_launch();
  in.backend = s.backend();
  in.limits = &s.limits();
  in.schedule = &s.schedule();
  in.schedule_simulated = s.schedule_simulated();
  draw_schedule_panel(in);
}

}  // namespace

void draw_matmul_side_panel(const MatmulSession& s, app::AppState* state) {
  draw_live_numbers(s);
  ImGui::Spacing();
  if (!ImGui::BeginTabBar("matmul_side_tabs")) return;
  struct Tab {
    const char* name;
    app::Panel panel;
  };
  for (const Tab t : {Tab{"Ladder", app::Panel::Timings}, Tab{"Launch", app::Panel::Stats},
                      Tab{"Memory", app::Panel::Memory}, Tab{"Schedule", app::Panel::Schedule}}) {
    // The command line picks the first tab; after that, the user's clicks decide.
    const bool select = ImGui::GetFrameCount() <= 2 && state->panel == t.panel;
    if (!ImGui::BeginTabItem(t.name, nullptr, select ? ImGuiTabItemFlags_SetSelected : 0)) continue;
    if (ImGui::GetFrameCount() > 2) state->panel = t.panel;
    switch (t.panel) {
      case app::Panel::Timings: draw_ladder_tab(s); break;
      case app::Panel::Stats: draw_launch_tab(s); break;
      case app::Panel::Memory: draw_memory_tab(s, *state); break;
      case app::Panel::Schedule: draw_schedule_tab(s); break;
    }
    ImGui::EndTabItem();
  }
  ImGui::EndTabBar();
}

}  // namespace bs::ui
