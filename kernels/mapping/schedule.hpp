// The schedule of one launch (which SM or simulator worker ran each block, and when), summarised
// for the timeline panel and exported as JSON.
//
// The trace comes from LaunchRecord::schedule: on the GPU from the instrumented kernels
// (kernels/trace/block_trace.cuh, %smid and %globaltimer), on the CPU from the simulator (worker
// and steady_clock). Both index it by linear block id (x fastest) and give times in ns relative
// to the earliest start.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/launch.hpp"
#include "core/launch_record.hpp"

namespace bs::mapping {

struct UnitSchedule {
  unsigned unit = 0;
  unsigned long long blocks = 0;
  std::uint64_t busy_ns = 0;         // time at least one block was running here (union of intervals)
  std::uint64_t block_ns = 0;        // sum of the blocks' durations (> busy_ns when blocks overlap)
  unsigned peak_concurrent = 0;      // most blocks running here at the same moment
  std::uint64_t first_start_ns = 0;  // 0 for a unit that ran nothing
  std::uint64_t last_end_ns = 0;
};

struct ScheduleSummary {
  unsigned units = 0;              // timeline rows: max(units asked for, highest unit seen + 1)
  bool unit_out_of_range = false;  // some block named a unit >= the units asked for
  unsigned units_used = 0;         // units that ran at least one block
  unsigned long long blocks = 0;
  std::uint64_t start_ns = 0, end_ns = 0;                               // earliest start, latest end
  std::uint64_t makespan_ns = 0;                                        // end_ns - start_ns
  std::vector<UnitSchedule> per_unit;                                   // index = unit
  unsigned long long min_blocks_per_unit = 0, max_blocks_per_unit = 0;  // over all units
  double mean_busy_ns = 0;                                              // over all units, idle ones included
  // max busy / mean busy over all units: 1 means every unit was busy equally long; 2 means the
  // busiest unit worked twice the average (others idled while it finished: a tail effect).
  double imbalance = 0;
  // Waves as they happened: on each unit, blocks / peak_concurrent (how many rounds of its
  // resident-block slots it went through); the maximum over units. Compare with Waves::waves.
  double waves_observed = 0;
};

// `units`: SMs on the GPU (DeviceLimits::sm_count) or workers in the simulator.
ScheduleSummary summarize(const std::vector<BlockTrace>& trace, unsigned units);

// {"kernel","device","simulated","unit":"SM"|"simulator worker","clock","time_unit":"ns",
//  "grid":[x,y,z],"block":[x,y,z],"cluster":[x,y,z],
//  "blocks":[{"id","block":[x,y,z],"sm","start","end"},...]}
// `sm` is the SM id on the GPU and the worker index when simulated (then "simulated": true).
// Blocks that read their cluster on the GPU (sm_90+) also carry "clusterid":[x,y,z],
// "cluster_ctarank", "nclusterid":[x,y,z], "cluster_nctarank" and "is_explicit_cluster".
std::string schedule_to_json(const std::vector<BlockTrace>& trace, bool simulated, const LaunchConfig& config,
                             std::string_view kernel = {}, std::string_view device = {});

// The unit that ran each block, indexed by linear block id (for the "by SM" colour mode);
// kNoUnit for blocks the trace does not mention.
inline constexpr unsigned kNoUnit = 0xffffffffu;
std::vector<unsigned> unit_per_block(const std::vector<BlockTrace>& trace, Dim3 grid);

}  // namespace bs::mapping
