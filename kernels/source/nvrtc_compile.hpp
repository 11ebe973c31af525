// NVRTC in blockscope's own process, for listings only: compiles a user kernel's translation unit
// (the one the runner compiles, labs/custom/codegen.hpp) with `--generate-line-info` and hands back
// its PTX and cubin. NVRTC is a compiler and needs no GPU, so the listing works on the CPU
// backend too. The runner keeps its own NVRTC for the kernels it runs (a crash there costs the
// runner); a compiler crash here would cost the app, which is why this runs only on a kernel the
// runner already compiled once.
//
// Opened with dlopen, never linked (as the runner does): without libnvrtc the listing says what
// to install and the source still shows.
#pragma once
#include <string>

#include "core/status.hpp"

namespace bs::source {

struct NvrtcOutput {
  std::string ptx;
  std::string cubin;    // empty when the target is a virtual architecture (PTX only)
  std::string arch;     // "sm_90a"
  std::string version;  // "NVRTC 13.0"
  std::string log;      // warnings
};

// `cc`: 10 * major + minor of the device the kernel runs on; 0: no device (compile for sm_90, the
// architecture blockscope's tensor-core ladder is written for).
Result<NvrtcOutput> nvrtc_compile(const std::string& unit, int cc);

}  // namespace bs::source
