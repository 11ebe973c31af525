// From raw PC samples to the tables the Source tab draws: per instruction and per source line,
// with the stall reasons named as Nsight Compute's source page names them.
//
// Plain C++ (no CUPTI), so the CPU-only build and its tests carry the arithmetic: the sampler
// (pc_sampler.cpp) hands over what CUPTI returned as RawPc records and a function that maps a pc
// offset to its source line (CUPTI's SASS-to-source correlation of the kernel's cubin).
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/line_profile.hpp"

namespace bs::sampling {

// One pc of one function, as CUPTI's parsed format gives it, the reasons named by CUPTI
// ("smsp__pcsamp_warps_issue_stalled_long_scoreboard", ...).
struct RawPc {
  std::string function;
  std::uint64_t cubin_crc = 0;
  std::uint64_t pc_offset = 0;
  std::vector<StallSamples> stalls;
};

// "smsp__pcsamp_warps_issue_stalled_long_scoreboard" -> "long_scoreboard"; names without the
// prefix are returned as they are.
std::string stall_name(std::string_view cupti_name);

// Whether a reason's samples count towards a pc's total. CUPTI reports, beside every reason's
// samples, the subset taken while no instruction issued ("..._not_issued"): adding those too
// would count such samples twice. ncu's "Warp Stall Sampling (All Samples)" is the sum of the
// others.
bool counts_in_total(std::string_view reason);

// The function with the most samples among `pcs` ("" when there are none).
std::string busiest_function(const std::vector<RawPc>& pcs);

struct SourceLocation {
  std::string file;
  int line = 0;  // 0: unknown
};

// Fills profile.instructions, profile.lines and profile.total_samples from the pcs of
// `function` (other functions' pcs are ignored): samples of the same pc added (launches add up),
// reasons renamed with stall_name and sorted largest first, lines sorted by samples (ties by
// file, line), share_pct of the function's samples. `locate` is called once per distinct pc.
void fill_tables(LineProfile& profile, const std::vector<RawPc>& pcs, const std::string& function,
                 const std::function<SourceLocation(std::uint64_t pc_offset)>& locate);

// --- SASS metrics (sass_metrics.hpp) onto the same tables ------------------------------------

// One pc of one function as CUPTI's SASS metrics give it, the counts of every record and
// instance of that pc added (launches add up).
struct RawSassPc {
  std::string function;
  std::uint64_t cubin_crc = 0;
  std::uint64_t pc_offset = 0;
  SassCounts counts;
};

// The SASS metric names blockscope asks for, from the chip's list (cuptiSassMetricsGetMetrics);
// "" where the chip lists none. Shared-memory wavefronts: the aggregate name if listed
// ("smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared"), else the shortest name with "shared" and
// "wavefront" in it and not "ideal"; its ideal is that name + "_ideal", and both or neither.
struct SassMetricNames {
  std::string executed;         // smsp__sass_inst_executed
  std::string thread_executed;  // smsp__sass_thread_inst_executed
  std::string shared_wavefronts, shared_ideal;
};
SassMetricNames choose_sass_metrics(const std::vector<std::string>& chip_metrics);

// The function with the most executed warp instructions among `pcs` ("" when there are none).
std::string busiest_sass_function(const std::vector<RawSassPc>& pcs);

// Adds the counts of `function`'s pcs to profile.instructions and profile.lines, gathered onto
// lines as fill_tables gathers samples: an instruction already in the table keeps its line;
// one that ran but was never sampled is added (samples 0, its line from `locate`, called once per
// such pc), and so is a line none of whose instructions was sampled (samples 0, share 0; after
// the sampled lines, by file and line). Each line's `sass` is the sum of its instructions';
// profile.sass_total the sum of all. Instructions stay ordered by pc. Other functions' pcs are
// ignored. Sets nothing of sass_status (the caller's).
void add_sass_counts(LineProfile& profile, const std::vector<RawSassPc>& pcs, const std::string& function,
                     const std::function<SourceLocation(std::uint64_t pc_offset)>& locate);

// One source line in two profiles (the Compare view's per-line diff): its share of each
// kernel's samples and the difference B - A in percentage points; the top reason of each.
struct LineDiff {
  std::string file;
  int line = 0;
  double share_a = 0, share_b = 0;  // % of each profile's samples (0: no samples there)
  std::string top_a, top_b;         // the largest stall reason on the line, "" when none
  double diff() const { return share_b - share_a; }
};

// Every line with samples in `a` or `b` (lines only counted, with no samples, are not listed), largest |diff| first
// (ties: larger share first). Lines are matched by file name and line number.
std::vector<LineDiff> diff_lines(const LineProfile& a, const LineProfile& b);

}  // namespace bs::sampling
