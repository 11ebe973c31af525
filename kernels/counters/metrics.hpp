// Which metrics a session asks for, and how their values become a Measurement. Plain C++ (no
// CUPTI), so the arithmetic is tested on any machine.
#pragma once
#include <string>
#include <vector>

#include "counters/counters.hpp"

namespace bs::counters {

// The metric names, as Nsight Compute spells them (so `ncu --metrics` takes the same list).
inline constexpr const char* kDramRead = "dram__bytes_read.sum";
inline constexpr const char* kDramWrite = "dram__bytes_write.sum";
inline constexpr const char* kDuration = "gpu__time_duration.sum";
inline constexpr const char* kDramThroughput = "dram__throughput.avg.pct_of_peak_sustained_elapsed";
inline constexpr const char* kL2HitRate = "lts__t_sector_hit_rate.pct";
inline constexpr const char* kLdSectors = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum";
inline constexpr const char* kLdRequests = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum";
inline constexpr const char* kStSectors = "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum";
inline constexpr const char* kStRequests = "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum";
// Shared memory through the load/store pipe (ld.shared, ldmatrix / st.shared): wavefronts, and
// bank conflicts = wavefronts beyond the ideal. cp.async (op_ldgsts), TMA and wgmma operand reads
// (op_gmma) are counted elsewhere or not at all.
inline constexpr const char* kSharedLdConflicts = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum";
inline constexpr const char* kSharedStConflicts = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum";
inline constexpr const char* kSharedLdWavefronts = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum";
inline constexpr const char* kSharedStWavefronts = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum";
inline constexpr const char* kOccupancy = "sm__warps_active.avg.pct_of_peak_sustained_active";
inline constexpr const char* kSmThroughput = "sm__throughput.avg.pct_of_peak_sustained_elapsed";
inline constexpr const char* kMemThroughput = "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed";
inline constexpr const char* kWarpLatency = "smsp__average_warp_latency_per_inst_issued.ratio";

// Stall ratios are smsp__average_warps_issue_stalled_<reason>_per_issue_active.ratio; the
// reasons differ between chips (gmma exists from Hopper on), so the session finds them by
// enumerating the chip's base metrics rather than from a fixed list.
inline constexpr const char* kStallPrefix = "smsp__average_warps_issue_stalled_";
inline constexpr const char* kStallSuffix = "_per_issue_active";

// The base metric (before the first '.') of a metric name: "dram__bytes_read.sum" ->
// "dram__bytes_read".
std::string base_metric(const std::string& name);

// The reason of a stall base metric, or "" if `base` is not one:
// "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active" -> "long_scoreboard".
std::string stall_reason_of(const std::string& base);

// The metrics to collect. `available_bases` is the chip's base metric list (every type); names
// whose base metric the chip lacks are left out (their values stay NaN), and the stall ratios
// are every stall base metric the chip has.
std::vector<std::string> choose_metrics(const std::vector<std::string>& available_bases, bool stall_reasons,
                                        bool throughput);

// The unit of a metric's value, for display.
std::string unit_of(const std::string& name);

// Builds the Measurement from the collected values (values[i] belongs to names[i]). Metrics not
// in `names` are NaN in the result; stalls are sorted largest first, shares summing to 100.
Measurement assemble(const std::vector<std::string>& names, const std::vector<double>& values);

}  // namespace bs::counters
