#include <imgui.h>

#include <cstdio>

#include "mapping/explain.hpp"
#include "mapping/launch_stats.hpp"
#include "ui/panels.hpp"
#include "ui/widgets.hpp"

namespace bs::ui {

void draw_launch_stats_panel(const SidePanelInput& in) {
  using mapping::Concept;
  using mapping::explain;
  const LaunchRecord& rec = *in.last_good_launch;
  const mapping::LaunchStats s = mapping::compute_stats(in.scheme, rec.config, in.image_w, in.image_h,
                                                        in.attributes, *in.limits);
  auto n = [](unsigned long long v) { return std::to_string(v); };
  char buf[160];
  auto d3 = [](const Dim3& d) {
    return std::to_string(d.x) + " x " + std::to_string(d.y) + " x " + std::to_string(d.z);
  };
  ImGui::TextColored(kDimColour, "%s on %s", rec.kernel.c_str(), in.limits->name.c_str());
  stat_row("gridDim", d3(s.grid), explain(Concept::GridDim));
  stat_row("blockDim", d3(s.block), explain(Concept::BlockDim));
  stat_row("threads launched", n(s.threads_launched), explain(Concept::ThreadsLaunched));
  stat_row("threads working", n(s.threads_working), explain(Concept::ThreadsWorking));
  std::snprintf(buf, sizeof buf, "%llu (%.2f%%)", s.idle_threads, s.idle_percent);
  stat_row("idle threads", buf, explain(Concept::IdleThreads));
  std::snprintf(buf, sizeof buf, "%llu full, %llu partial, %llu empty", s.full_blocks, s.partial_blocks, s.empty_blocks);
  stat_row("blocks", buf, explain(Concept::PartialBlock));
  stat_row("warps / block", n(s.warps_per_block), explain(Concept::WarpsPerBlock));
  std::snprintf(buf, sizeof buf, "%llu (%u threads each)", s.short_warps, s.threads_in_short_warp);
  stat_row("short warps", buf, explain(Concept::ShortWarps));
  std::snprintf(buf, sizeof buf, "%llu with idle lanes, %llu all idle", s.edge_warps, s.idle_warps);
  stat_row("edge warps", buf, explain(Concept::EdgeWarps));
  ImGui::Separator();
  stat_row("registers / thread", in.backend == BackendKind::Cuda ? n(s.registers_per_thread) : "n/a (simulated)",
           explain(Concept::RegistersPerThread));
  stat_row("shared / block", n(s.shared_per_block) + " B", explain(Concept::SharedMemoryPerBlock));
  const auto& o = s.occupancy;
  std::snprintf(buf, sizeof buf, "%.0f%%  (%u of %u warps)", 100 * o.occupancy, o.active_warps_per_sm, o.max_warps_per_sm);
  stat_row("occupancy", buf, explain(Concept::Occupancy));
  stat_row("active blocks / SM", n(o.active_blocks_per_sm), explain(Concept::ActiveBlocksPerSm));
  const Concept lim[] = {Concept::LimiterThreads, Concept::LimiterRegisters, Concept::LimiterSharedMemory,
                         Concept::LimiterBlocksPerSm};
  stat_row("limited by", mapping::to_string(o.limiter), explain(lim[o.limiter]));
  auto lim_value = [&](unsigned v) { return v == mapping::kNoLimit ? std::string("no limit") : std::to_string(v); };
  ImGui::TextColored(kDimColour, "  blocks/SM by threads %s, registers %s,", lim_value(o.blocks_by_threads).c_str(),
                     lim_value(o.blocks_by_registers).c_str());
  ImGui::TextColored(kDimColour, "  shared memory %s, block limit %s", lim_value(o.blocks_by_shared_memory).c_str(),
                     lim_value(o.blocks_by_block_limit).c_str());
  if (!o.reason.empty()) ImGui::TextColored(kErrorColour, "%s", o.reason.c_str());
  std::snprintf(buf, sizeof buf, "%.2f  (%llu rounds of %llu slots)", s.waves.waves, s.waves.wave_count, s.waves.slots);
  stat_row("waves", buf, explain(Concept::Waves));
  std::snprintf(buf, sizeof buf, "%.0f%% of the slots", 100 * s.waves.last_wave_fill);
  stat_row("last wave", buf, explain(Concept::LastWaveFill));
  if (in.backend == BackendKind::CpuSimulation)
    ImGui::TextColored(kWarnColour, "CPU simulation: occupancy and waves use CUDA's rules for a "
                                    "GPU with %u SMs (one per worker).", in.limits->sm_count);
  if (!s.scheme_check.ok()) status_text(s.scheme_check);
}

}  // namespace bs::ui
