// What the user chose about sweeps and their result view, as one plain struct, so saving and
// restoring it (the settings file) is one line and the command line can fill it too. Zeros in
// the timing fields mean "the backend's default" (lab::default_sweep_policy): 5 repeats at
// least, until +-1% or 100 ms per point on the GPU; 6 and 60 ms on the CPU simulation.
#pragma once
#include <string>

namespace bs::app {

// What the heatmap's colours show: the timing, the model (occupancy), or, when the sweep
// collected hardware counters per point, one of the measured counters.
enum class HeatmapMetric {
  Time,
  Throughput,
  Occupancy,            // theoretical (registers, shared memory, threads, block limit)
  MeasuredDram,         // DRAM GB/s, read + written, over the profiled kernel's duration
  MeasuredL2Hit,        // L2 hit rate, %
  AchievedOccupancy,    // measured warps active, % of the SM's maximum
  MeasuredLoadSectors,  // global load sectors per request (1 is perfect for 4-byte loads)
};
inline constexpr int kHeatmapMetrics = static_cast<int>(HeatmapMetric::MeasuredLoadSectors) + 1;

struct SweepSettings {
  bool all_blocks = true;                              // every power-of-two shape; false: `block_list`
  std::string block_list = "32x8,16x16,8x8,256,64x4";  // free-blockDim kernels, when not all
  bool ladder = false;                                 // every kernel of the lab, not just the selected one
  int warmup = -1;                                     // untimed launches per point; -1: default
  int min_repeats = 0;                                 // timed repeats at least; 0: default
  double target_ci = 0;                                // stop when the median's 95% CI is within this; 0: default
  double point_budget_ms = 0;                          // ... or when a point has used this much; 0: default
  bool flush_l2 = false;                               // overwrite the L2 before every timed repeat (GPU)
  bool counters = false;                               // profile each point's launch once timed (GPU, CUPTI)
  HeatmapMetric metric = HeatmapMetric::Time;          // what the heatmap's colours show
};

}  // namespace bs::app
