// The Launch tab: the launch the views show, in numbers: grid and block as launched, threads
// launched and working, idle threads, partial blocks, warps (short, edge, idle), the kernel's
// registers and shared memory, occupancy and what limits it, waves. Everything comes from the
// record (its config, scheme and attributes) and the device's limits.
#include <imgui.h>

#include <cstdio>

#include "mapping/cluster.hpp"
#include "mapping/explain.hpp"
#include "mapping/launch_stats.hpp"
#include "ui/panels.hpp"
#include "ui/widgets.hpp"

namespace bs::ui {
namespace {

// Thread block clusters: the dims as launched and the GPU's own count of whole clusters that fit
// at once, beside what the blocks-per-SM model above would allow; a plain line without clusters.
void draw_cluster_rows(const LaunchRecord& rec, const mapping::Occupancy& o, unsigned sms) {
  using mapping::Concept;
  using mapping::explain;
  const Dim3 c = rec.config.cluster;
  if (c.volume() <= 1) {
    stat_row("clusters", "none (each block is its own cluster of one)", explain(Concept::Cluster));
    return;
  }
  stat_row("cluster", mapping::cluster_dims_text(rec.config), explain(Concept::Cluster));
  const ClusterOccupancy& co = rec.clusters;
  if (co.max_active_clusters <= 0) {
    stat_row("max active clusters", co.note.empty() ? "not asked" : "n/a", explain(Concept::MaxActiveClusters));
    if (!co.note.empty()) { wrapped_text(kDimColour, "%s", co.note.c_str()); }
    return;
  }
  const unsigned long long per_cluster = c.volume();
  const unsigned long long gpu_blocks = per_cluster * static_cast<unsigned long long>(co.max_active_clusters);
  const unsigned long long model_blocks = static_cast<unsigned long long>(o.active_blocks_per_sm) * sms;
  char buf[200];
  std::snprintf(buf, sizeof buf, "%d  (%llu blocks at once)", co.max_active_clusters, gpu_blocks);
  stat_row("max active clusters", buf, explain(Concept::MaxActiveClusters));
  ImGui::PushTextWrapPos(0);
  if (model_blocks == 0) {
    ImGui::TextColored(kDimColour, "the GPU's answer (%s)", co.note.c_str());
  } else if (gpu_blocks < model_blocks) {
    ImGui::TextColored(kWarnColour,
                       "the GPU's answer (%s); the blocks-per-SM model allows %u x %u SMs = %llu blocks, "
                       "%llu whole clusters: %llu blocks' room stays empty, because each cluster's blocks "
                       "must fit on SMs of one GPC at once",
                       co.note.c_str(), o.active_blocks_per_sm, sms, model_blocks, model_blocks / per_cluster,
                       model_blocks - gpu_blocks);
  } else {
    ImGui::TextColored(kDimColour,
                       "the GPU's answer (%s), as the blocks-per-SM model allows (%u x %u SMs = %llu blocks)",
                       co.note.c_str(), o.active_blocks_per_sm, sms, model_blocks);
  }
  ImGui::PopTextWrapPos();
}

}  // namespace

void draw_launch_stats_panel(const SideInput& in) {
  using mapping::Concept;
  using mapping::explain;
  const LaunchRecord& rec = *in.shown;
  if (rec.config.grid.x == 0) {
    wrapped_text(kDimColour,
                 "%s chooses its own grid and blocks: there is no launch "
                 "configuration of ours to show.",
                 rec.kernel.c_str());
    return;
  }
  const mapping::LaunchStats s = mapping::compute_stats(rec.scheme, rec.config, rec.data_width, rec.data_height,
                                                        rec.attributes, *in.limits, rec.owners.get());
  auto n = [](unsigned long long v) { return std::to_string(v); };
  char buf[200];
  auto d3 = [](const Dim3& d) {
    return std::to_string(d.x) + " x " + std::to_string(d.y) + " x " + std::to_string(d.z);
  };
  wrapped_text(kDimColour, "%s, %s, on %s", rec.kernel.c_str(), rec.config_label.c_str(), in.limits->name.c_str());
  stat_row("gridDim", d3(s.grid), explain(Concept::GridDim));
  stat_row("blockDim", d3(s.block), explain(Concept::BlockDim));
  stat_row("mapping", describe(rec.scheme),
           "How a thread turns (blockIdx, threadIdx) into the elements it stores: one per "
           "thread, several in a row (vector accesses), several a block apart, or a loop over the "
           "whole grid (grid-stride).");
  stat_row("threads launched", n(s.threads_launched), explain(Concept::ThreadsLaunched));
  if (s.thread_counts_exact) {
    stat_row("threads working", n(s.threads_working), explain(Concept::ThreadsWorking));
    std::snprintf(buf, sizeof buf, "%llu (%.2f%%)", s.idle_threads, s.idle_percent);
    stat_row("idle threads", buf, explain(Concept::IdleThreads));
  } else {
    stat_row("threads working", "per block only",
             "This kernel spreads each thread's outputs over its warp's tile, so only the inspector "
             "can say which thread stores an element; blocks whose tile meets the data count as "
             "working.");
  }
  std::snprintf(buf, sizeof buf, "%llu full, %llu partial, %llu empty", s.full_blocks, s.partial_blocks,
                s.empty_blocks);
  stat_row("blocks", buf, explain(Concept::PartialBlock));
  stat_row("warps / block", n(s.warps_per_block), explain(Concept::WarpsPerBlock));
  std::snprintf(buf, sizeof buf, "%llu (%u threads each)", s.short_warps, s.threads_in_short_warp);
  stat_row("short warps", buf, explain(Concept::ShortWarps));
  std::snprintf(buf, sizeof buf, "%llu with idle lanes, %llu all idle", s.edge_warps, s.idle_warps);
  stat_row("edge warps", buf, explain(Concept::EdgeWarps));
  ImGui::Separator();
  stat_row("registers / thread", rec.attributes_measured ? n(s.registers_per_thread) : "n/a (simulated)",
           explain(Concept::RegistersPerThread));
  std::snprintf(buf, sizeof buf, "%zu B", s.shared_per_block);
  stat_row("shared / block", buf, explain(Concept::SharedMemoryPerBlock));
  if (rec.attributes_measured && s.local_bytes_per_thread > 0) {
    std::snprintf(buf, sizeof buf, "%zu B (spills or local arrays)", s.local_bytes_per_thread);
    stat_row("local / thread", buf,
             "Per-thread local memory: registers that did not fit (spills) or "
             "arrays indexed at run time. It lives in device memory.");
  }
  const auto& o = s.occupancy;
  std::snprintf(buf, sizeof buf, "%.0f%%  (%u of %u warps)", 100 * o.occupancy, o.active_warps_per_sm,
                o.max_warps_per_sm);
  stat_row("occupancy", buf, explain(Concept::Occupancy));
  stat_row("active blocks / SM", n(o.active_blocks_per_sm), explain(Concept::ActiveBlocksPerSm));
  const Concept lim[] = {Concept::LimiterThreads, Concept::LimiterRegisters, Concept::LimiterSharedMemory,
                         Concept::LimiterBlocksPerSm};
  stat_row("limited by", mapping::to_string(o.limiter), explain(lim[o.limiter]));
  auto lim_value = [&](unsigned v) { return v == mapping::kNoLimit ? std::string("no limit") : std::to_string(v); };
  wrapped_text(kDimColour, "blocks/SM by threads %s, registers %s, shared memory %s, block limit %s",
               lim_value(o.blocks_by_threads).c_str(), lim_value(o.blocks_by_registers).c_str(),
               lim_value(o.blocks_by_shared_memory).c_str(), lim_value(o.blocks_by_block_limit).c_str());
  if (!o.reason.empty()) ImGui::TextColored(kErrorColour, "%s", o.reason.c_str());
  draw_cluster_rows(rec, o, in.limits->sm_count);
  const bool sim = in.backend == BackendKind::CpuSimulation;
  std::snprintf(buf, sizeof buf, "%.2f  (%llu rounds of %llu slots)", s.waves.waves, s.waves.wave_count, s.waves.slots);
  stat_row(sim ? "device waves (model)" : "device waves", buf, explain(Concept::Waves));
  std::snprintf(buf, sizeof buf, "%.0f%% of the slots", 100 * s.waves.last_wave_fill);
  stat_row("last wave", buf, explain(Concept::LastWaveFill));
  if (sim) {
    wrapped_text(kWarnColour,
                 "CPU simulation: occupancy and device waves use CUDA's rules for a GPU "
                 "with %u SMs (one per worker); the Schedule tab shows how the workers "
                 "really took the blocks.",
                 in.limits->sm_count);
  }
  if (!s.scheme_check.ok()) status_text(s.scheme_check);
}

}  // namespace bs::ui
