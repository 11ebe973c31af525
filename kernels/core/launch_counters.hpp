// Hardware counters of one launch, beside what blockscope's model predicts for the same launch.
//
// Plain data, no CUPTI: kernels/measured fills it (from counters::Measurement and the lab's own
// model), LaunchRecord::counters carries it, lab/report.* writes it into the results JSON, and
// the Measured tab draws it. Values that were not measured or have no model are NaN (JSON null).
// When counters could not be read at all, `status` says why and how to fix it, and every value
// is NaN: a bench result keeps its timing and gains the reason instead of the counters.
#pragma once
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/status.hpp"

namespace bs {

struct CounterStall {
  std::string reason;             // CUPTI's name, e.g. "long_scoreboard"
  double cycles_per_issue = 0.0;  // warp cycles stalled for it per issued instruction
  double share_pct = 0.0;         // of all stalled cycles
};

// What a profile made in another process asks for (a user kernel's runner, issue 32): the metric
// set and L2 handling of counters::CounterOptions and ProfileOptions, as plain data.
struct CounterRequest {
  bool stall_reasons = true, throughput = true;
  bool flush_l2 = true;
  bool evict_read_only = false;  // counters::L2Eviction::Read instead of ReadAndDiscard
  std::string cupti_library;     // "": the session's own search
};

struct LaunchCounters {
  static constexpr double kNone = std::numeric_limits<double>::quiet_NaN();

  Status status;  // success: measured; else why counters could not be read, with the fix
  bool measured() const { return status.ok(); }

  // --- measured by the GPU (one profiled launch, every pass starting from a cold L2) ---------
  std::string device, chip;  // "NVIDIA H200", "GH100"
  std::string range;         // "kernel" (the kernel itself) or "user" (launch latency included)
  double dram_read_bytes = kNone;
  double dram_write_bytes = kNone;     // write-backs before the kernel ended (dirty L2 lines after
                                       // it are not counted, by ncu neither)
  double duration_ns = kNone;          // the kernel as profiled
  double dram_bandwidth_gbs = kNone;   // (read + written) / duration
  double dram_throughput_pct = kNone;  // DRAM traffic as a share of its peak
  double l2_hit_pct = kNone;
  double ld_sectors = kNone, ld_requests = kNone;  // global loads (L1TEX)
  double st_sectors = kNone, st_requests = kNone;  // global stores
  // shared memory through the load/store pipe (ld.shared and ldmatrix / st.shared)
  double shared_ld_wavefronts = kNone, shared_st_wavefronts = kNone;
  double shared_ld_conflicts = kNone, shared_st_conflicts = kNone;  // wavefronts beyond the ideal
  double achieved_occupancy_pct = kNone;
  double sm_throughput_pct = kNone;      // of peak, over the kernel's elapsed time
  double memory_throughput_pct = kNone;  // of peak, over the kernel's elapsed time
  double warp_cycles_per_issue = kNone;  // every stall reason together
  std::vector<CounterStall> stalls;      // largest first
  int passes = 0;                        // launches the profile took
  double profile_wall_ms = kNone;        // wall time of the whole profile

  // --- blockscope's model of the same launch --------------------------------------------------
  double model_bytes = kNone;                   // LaunchRecord::bytes_moved (the napkin count)
  std::string model_bytes_note;                 // what it counts
  double model_bandwidth_gbs = kNone;           // bytes_moved / the launch's timed median (as reported)
  double model_ld_sectors_per_request = kNone;  // the memory view's warps, averaged
  double model_st_sectors_per_request = kNone;
  std::string sectors_sample;  // which warps and steps the average covers, or why there is none
  // The lab's shared-memory model of the whole launch (mapping/shared_banks.hpp: wavefronts of
  // every request of a sample of warps, scaled to the grid); cp.async writes kept apart.
  double model_shared_ld_wavefronts = kNone, model_shared_st_wavefronts = kNone;
  double model_shared_ld_conflicts = kNone, model_shared_st_conflicts = kNone;
  double model_shared_async_wavefronts = kNone;  // cp.async's shared writes (not in op_st)
  std::string shared_sample;                     // what the model counted, or why there is none
  double theoretical_occupancy_pct = kNone;      // mapping/occupancy with the record's attributes
  std::string occupancy_note;                    // e.g. the limiter, or why there is none
  double model_waves = kNone;                    // blocks over the GPU's slots at that occupancy
  double model_last_wave_fill_pct = kNone;       // share of the slots the last wave fills

  double ld_sectors_per_request() const { return ld_requests > 0 ? ld_sectors / ld_requests : kNone; }
  double st_sectors_per_request() const { return st_requests > 0 ? st_sectors / st_requests : kNone; }
  double dram_bytes() const { return dram_read_bytes + dram_write_bytes; }
};

}  // namespace bs
