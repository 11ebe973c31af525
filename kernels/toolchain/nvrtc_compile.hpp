// NVRTC, the one way blockscope calls it, without the CUDA runtime or a device: open libnvrtc
// (dlopen, never linked, so a machine without it still runs the rest and the build needs no CUDA
// headers), find CUDA's headers for it (cuda_toolkit.hpp), and compile a generated unit for one
// target (nvrtc_target.hpp) with the options every user kernel gets. The GPU runner calls it and
// loads the image; the Source tab's listing of a user kernel calls it in blockscope's own process
// (compile_for_listing: the same unit, headers and options, so the listing is the code that
// runs); tests call it to compile real kernels on a machine with no GPU (NVRTC needs none).
#pragma once
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/status.hpp"

#include "toolchain/cuda_toolkit.hpp"
#include "toolchain/nvrtc_target.hpp"

namespace bs::toolchain {

// libnvrtc's entry points, opened at run time. Closes nothing: the library stays for the
// process's life, as NVRTC's own state expects.
class NvrtcLibrary {
 public:
  // $BLOCKSCOPE_NVRTC when set, else libnvrtc.so.13, .12, .so, then `build_dir`/libnvrtc.so and
  // /usr/local/cuda/lib64/libnvrtc.so.
  static NvrtcLibrary open(const std::string& build_dir);
  static NvrtcLibrary open();  // `build_dir`: the library folder of the toolkit this build used

  bool ok() const { return ok_; }
  const std::string& error() const { return error_; }              // why not ok, with what to install
  const std::string& loaded_from() const { return loaded_from_; }  // as dlopen was given it
  const std::string& path() const { return path_; }                // the file the loader took (dladdr)
  int major() const { return major_; }
  int minor() const { return minor_; }
  std::vector<int> supported_archs() const;

  struct Output {
    bool ok = false;
    bool ptx = false;                  // image is PTX (for the driver to JIT), else a cubin
    std::string arch;                  // what it was compiled for: "sm_90a"
    std::string log;                   // NVRTC's log, explained (explain_nvrtc_log)
    std::string image;                 // the cubin or PTX
    std::string ptx_text;              // the PTX also, when compile() was asked for it (with_ptx)
    std::vector<std::string> options;  // as given to nvrtcCompileProgram
    double ms = 0;                     // nvrtcCreateProgram to the image in hand
  };
  // Compiles `unit` ("blockscope-kernel.cu") for `target` with the headers of `headers`.
  Output compile(const std::string& unit, const NvrtcTarget& target, const CudaHeaderSearch& headers,
                 bool with_ptx = false) const;

 private:
  struct Api;
  std::shared_ptr<const Api> api_;  // the function pointers (nvrtc.h stays out of this header)
  bool ok_ = false;
  std::string error_, loaded_from_, path_;
  int major_ = 0, minor_ = 0;
};

// NVRTC has no C or C++ standard library, yet kernels include <cstdio> for printf, <cstdint>,
// <cmath>, <climits>, <cfloat>, <cassert> as a matter of course. Each of these names (and its
// ".h" form) is given to NVRTC as an in-memory header: nothing where device code has the function
// built in (printf, assert, the math functions), libcu++'s own header under NVRTC (cuda/std/
// cstdint, cstddef, climits) where it has the types and macros, <float.h>'s macros written out
// (libcu++'s cfloat is empty under NVRTC), and std:: names for the common ones (std::uint32_t,
// std::sqrt, std::min ...). Not <cmath> from libcu++: that one costs seconds.
struct StandInHeader {
  const char* name;  // as included: "cstdint"
  const char* text;
};
std::span<const StandInHeader> standard_header_stand_ins();

// The options every user kernel is compiled with, after the architecture: see the README's
// "Compiling". `--device-as-default-execution-space` lets helpers pasted without __device__ be
// called from the kernel; CUDA's headers mark their own functions, so it changes nothing there.
std::vector<std::string> nvrtc_options(const std::string& arch_option, const CudaHeaderSearch& headers);

// A user kernel's unit compiled for a listing: its PTX, and its cubin beside it (the SASS to
// disassemble), with `--generate-line-info` as always. `cc`: 10 * major + minor of the device it
// runs on; 0: no device (sm_90, the architecture blockscope's tensor-core ladder is written for).
struct NvrtcListing {
  std::string ptx;
  std::string cubin;    // empty when the target is a virtual architecture (PTX only)
  std::string arch;     // "sm_90a"
  std::string version;  // "NVRTC 13.0"
  std::string log;      // warnings
};
Result<NvrtcListing> compile_for_listing(const std::string& unit, int cc);

}  // namespace bs::toolchain
