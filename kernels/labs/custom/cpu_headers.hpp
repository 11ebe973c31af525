// What the CPU simulator does with a kernel's CUDA headers and the constructs it cannot run,
// decided before the host compiler sees the source (codegen.cpp's CPU unit asks this).
//
// - CUDA headers it provides (<cuda_fp16.h>, <cuda_bf16.h>, <mma.h>, <cooperative_groups.h>,
//   <cooperative_groups/reduce.h>) become blank lines (line numbers kept) and switch on the
//   matching prelude file, appended after cpu_prelude.h: a kernel pays for WMMA or
//   cooperative_groups only when it includes them.
// - The warp-synchronous operations (cpu_warp.h) are appended when the kernel names one
//   (__shfl_*, __ballot_sync, __syncwarp, __syncthreads_count, ...) or includes <mma.h> or
//   <cooperative_groups.h>.
// - Headers whose content the core prelude already is (<cuda_runtime.h>, <cuda.h>,
//   <device_launch_parameters.h>, ...) become blank lines.
// - Headers and constructs it cannot honestly run thread by thread (CUB, CUTLASS/CuTe, libcu++'s
//   cuda/ headers, inline PTX `asm`, clusters, grid groups, async copies, coalesced_threads) are
//   refused with one sentence naming them and their line.
// - Any other header (the C and C++ standard ones, or a name that exists nowhere) is left to the
//   host compiler, whose own message then says what is missing.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "labs/custom/diagnostics.hpp"

namespace bs::custom {

struct CpuSourcePlan {
  std::string source;                 // the user's source, honoured #include lines blanked (same length)
  std::vector<std::string> sections;  // prelude files to append after cpu_prelude.h, in order
  std::vector<Diagnostic> refusals;   // one error per construct the simulator cannot run
};

CpuSourcePlan plan_cpu_source(std::string_view source);

}  // namespace bs::custom
