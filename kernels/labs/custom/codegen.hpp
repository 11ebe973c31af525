// The translation units blockscope compiles around the user's kernel: one for NVRTC, one for the
// host compiler. Both put a prelude first, then the user's source verbatim behind
// `#line 1 "kernel.cu"` (so compiler messages carry the user's line numbers), then generated
// entry points that call the user's kernel with the lab's buffers.
//
// GPU (NVRTC):
//   prelude          the block recorder (restated from kernels/trace/block_trace.cuh), cdiv,
//                    then the form's own gpu_prelude (what its element types need)
//   #define __global__ __device__      the user's kernel becomes a device function...
//   user source      each #include in it sees CUDA's own __global__ (with_includes_outside_global)
//   #define __global__ __location__(global)   ...restored for:
//   extern "C" __global__ void bs_entry(<form's parameters>)          calls it (timed)
//   extern "C" __global__ void bs_entry_traced(<...>, bs_block_record*)  same, inside a
//                                                    block recorder (the real per-SM schedule)
//   The user's body is the same code in both; tracing cannot change what it computes.
//
// CPU (g++/clang++ into a shared object the runner loads):
//   custom_abi.h + cpu_prelude.h    CUDA's built-ins over the simulator's per-thread context,
//   + cpu_half16.h                  (the body __half and __nv_bfloat16 share, as a macro),
//                                   then the CUDA headers' stand-ins the kernel includes
//                                   (cpu_headers.hpp: their #include lines become blank lines),
//                                   then the form's own cpu_prelude
//   user source, with only the kernel's pointer parameter TYPES rewritten to bounds-checked
//   views (`float* out` -> `bs_out<float> out`); the ColumnMap undoes the column shift
//   extern "C" void bs_cpu_thread(ctx, args)   one simulated thread: sets the built-ins, calls
//                                              the kernel with views of the lab's buffers
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "labs/custom/diagnostics.hpp"
#include "labs/custom/source_parse.hpp"

namespace bs::custom {

struct GeneratedUnit {
  std::string text;
  ColumnMap columns;  // user columns changed by the rewrite (CPU only)
  std::string entry = "bs_entry";
  std::string traced_entry = "bs_entry_traced";  // GPU only
  // CPU only: what the simulator cannot run (cpu_headers.hpp), found before compiling; when not
  // empty the unit must not be compiled.
  std::vector<Diagnostic> refusals;
};

// The user's source for the GPU unit: each #include line is wrapped in directives that give
// CUDA's headers their own __global__ for the time of the include (the user's kernel is compiled
// with __global__ defined as __device__), then `#line` directives give the lines after it their
// user's numbers again. Only directives are added, so an #include inside #if stays inside it.
std::string with_includes_outside_global(std::string_view user_source);

GeneratedUnit make_gpu_unit(std::string_view user_source, const ParsedKernel& kernel);
GeneratedUnit make_cpu_unit(std::string_view user_source, const ParsedKernel& kernel);

// The embedded preludes (embedded from prelude/ at build time).
std::string_view embedded_text(std::string_view name);  // "" when unknown

}  // namespace bs::custom
