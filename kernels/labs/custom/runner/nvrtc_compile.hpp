// NVRTC as the runner uses it, without the CUDA runtime or a device: open libnvrtc (dlopen, so a
// machine without it still runs the rest), find CUDA's headers for it (cuda_headers.hpp), and
// compile a generated unit for one target (nvrtc_target.hpp) with the options every user kernel
// gets. The GPU runner calls this and loads the image; tests call it to compile real kernels on
// a machine with no GPU (NVRTC needs none).
#pragma once
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "labs/custom/runner/cuda_headers.hpp"
#include "labs/custom/runner/nvrtc_target.hpp"

namespace bs::custom {

// libnvrtc's entry points, opened at run time. Closes nothing: the library stays for the
// process's life, as NVRTC's own state expects.
class NvrtcLibrary {
 public:
  // $BLOCKSCOPE_NVRTC when set, else libnvrtc.so.13, .12, .so, then `build_dir`/libnvrtc.so and
  // /usr/local/cuda/lib64/libnvrtc.so.
  static NvrtcLibrary open(const std::string& build_dir);

  bool ok() const { return ok_; }
  const std::string& error() const { return error_; }       // why not ok, with what to install
  const std::string& loaded_from() const { return loaded_from_; }  // as dlopen was given it
  const std::string& path() const { return path_; }  // the file the loader took (dladdr)
  int major() const { return major_; }
  int minor() const { return minor_; }
  std::vector<int> supported_archs() const;

  struct Output {
    bool ok = false;
    bool ptx = false;          // image is PTX (for the driver to JIT), else a cubin
    std::string arch;          // what it was compiled for: "sm_90a"
    std::string log;           // NVRTC's log, explained (explain_nvrtc_log)
    std::string image;         // the cubin or PTX
    std::vector<std::string> options;  // as given to nvrtcCompileProgram
    double ms = 0;             // nvrtcCreateProgram to the image in hand
  };
  // Compiles `unit` ("blockscope-kernel.cu") for `target` with the headers of `headers`.
  Output compile(const std::string& unit, const NvrtcTarget& target,
                 const CudaHeaderSearch& headers) const;

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

}  // namespace bs::custom
