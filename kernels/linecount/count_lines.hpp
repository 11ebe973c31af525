// How often each source line of a built-in rung runs on the CPU simulator (issue 22), counted by
// blockscope-line-counter, a process of its own that links the labs' simulator units built with
// GCC's coverage counters (README.md says why). blockscope itself stays uninstrumented.
//
//   if (Status s = linecount::count_refusal(lab, "gray_2d"); !s) ...   // cheap, before anything runs
//   auto p = linecount::count_lines(lab, "gray_2d", {Dim3{32, 8, 1}});  // LineMeasure::Executions
//
// The counter runs the kernel once on random data of the lab's problem size with the lab's
// settings (the rungs' counts depend on neither the values nor the timing), writes the counters
// to a fresh temporary folder and turns them into gcov's annotated text, read here into
// executions per line of every file the rung's code lives in (its header, gray_common.hpp,
// shared_access.hpp, ...), named from the source tree's root ("kernels/labs/grayscale/gray_2d.hpp").
#pragma once
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "core/kernel_config.hpp"
#include "core/line_profile.hpp"
#include "core/status.hpp"
#include "lab/lab.hpp"

namespace bs::linecount {

inline constexpr const char* kCounterName = "blockscope-line-counter";

// The counter: `option` when given, else $BLOCKSCOPE_LINE_COUNTER, else beside this executable,
// else the build tree's; a Status naming the places looked at when there is none.
Result<std::filesystem::path> find_counter(const std::filesystem::path& option = {});

// Why `kernel` of `lab` cannot be counted on the CPU simulator (success when it can): no
// counter, a library anchor, a rung the simulator cannot run. Runs nothing.
Status count_refusal(const lab::Lab& lab, std::string_view kernel, const std::filesystem::path& counter = {});

struct CountOptions {
  std::filesystem::path counter;  // empty: find_counter()
  double time_limit_s = 600;      // the instrumented launch is slower than the lab's (-O0, atomics)
};

// Runs `kernel` with `config` once in the counter, with the lab's problem size and settings.
Result<LineProfile> count_lines(lab::Lab& lab, const std::string& kernel, const KernelConfig& config,
                                const CountOptions& options = {});

// A file whose text carries this marker (in a comment) holds the simulator's stand-ins for warp
// instructions (tc_warp_ops.hpp: mma.sync, ldmatrix, wmma done lane by lane): on the GPU each call
// is one instruction, so its executions are the calling line's, and counting them as lines of
// their own would rank the emulation above the learner's kernel (issue 36, item 11).
inline constexpr std::string_view kFoldMarker = "linecount: fold into the calling line";

// gcov's annotated text (gcov -t) of several sources: the executions of each line of every file
// that ran at all ("#####" is 0, lines gcov marks "-" have no code and are left out), most first,
// share_pct of the whole. Only the first listing of a line counts (gcov may list a template's
// lines again per instantiation). The functions of files marked with kFoldMarker (and helpers
// only they call) are folded into the lines that call them, in proportion to how often each
// calling line ran: those lines' `folded` says how much of their count is the stand-ins'.
Result<std::vector<LineSamples>> parse_gcov_sources(std::string_view text);

}  // namespace bs::linecount
