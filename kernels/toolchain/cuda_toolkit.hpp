// The CUDA toolkit, found at run time: its headers for NVRTC (find_cuda_headers) and its binary
// tools, cuobjdump and nvdisasm (find_toolkit). One finder of each, for the runner, the Source
// tab and the tests.
//
// Where NVRTC finds CUDA's own headers (cuda_fp16.h, mma.h, cooperative_groups.h, CCCL's cub/,
// cuda/std/, cuda/pipeline) when it compiles a user's kernel. NVRTC has no search path of its
// own: without -I options `#include <mma.h>` fails with "no directories in search list".
//
// The toolkit is chosen at run time, first that has headers (a folder with cuda_runtime.h):
//   1. $BLOCKSCOPE_CUDA_HOME            explicit choice for blockscope (a toolkit root, or its
//                                       include folder itself)
//   2. $CUDA_PATH, then $CUDA_HOME      the usual variables of CUDA installations
//   3. the toolkit of the NVRTC loaded  the folder of the libnvrtc this process opened (dladdr),
//                                       then ../include and ../../include, of the path as loaded
//                                       and of its real path: the headers that match the compiler
//   4. the toolkit blockscope was built with (CMake's CUDAToolkit_INCLUDE_DIRS, baked in)
//   5. /usr/local/cuda
// From the chosen include folder: -I<include>, then -I<include>/cccl where it exists (CUDA 13
// keeps CCCL, i.e. cub/, thrust/ and libcu++'s cuda/std/, there; CUDA 12 keeps them in include/
// itself), the order nvcc's own nvcc.profile uses.
//
// Plain C++ on the file system (no CUDA headers, no device), so it is tested on any machine.
#pragma once
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.hpp"

namespace bs::toolchain {

// The toolkit's binary tools, run as child processes (process.hpp) with a time limit, so a hung
// tool costs a listing, never the app: cuobjdump pulls the cubins and PTX out of a host binary,
// nvdisasm disassembles a cubin with the source line of each instruction.
struct Toolkit {
  std::filesystem::path cuobjdump, nvdisasm;  // empty: not found
  std::string searched;                       // where we looked, for the message
};

// Looks in $CUDA_HOME/bin, $CUDA_PATH/bin, the toolkit blockscope was built with,
// /usr/local/cuda/bin, then $PATH.
Toolkit find_toolkit();

// "the CUDA toolkit's nvdisasm was not found (looked in ...)" with the fix as the hint.
Status missing_tool(std::string_view tool, const Toolkit& toolkit);

// What the search looks at; from the process (cuda_header_inputs_from_environment) or a test.
struct CudaHeaderInputs {
  std::string blockscope_cuda_home;     // $BLOCKSCOPE_CUDA_HOME ("" when unset)
  std::string cuda_path;                // $CUDA_PATH
  std::string cuda_home;                // $CUDA_HOME
  std::string nvrtc_library;            // path of the loaded libnvrtc ("" when unknown)
  std::vector<std::string> built_with;  // the build's CUDAToolkit_INCLUDE_DIRS
};

struct CudaHeaderSearch {
  std::string include_dir;                // the chosen toolkit's include folder; "" when none found
  std::string chosen_by;                  // "BLOCKSCOPE_CUDA_HOME", "the loaded NVRTC (...)", ...
  std::vector<std::string> include_dirs;  // what NVRTC gets as -I, in order
  // Every folder looked at, in order, each with where it came from and why it was not taken:
  // "/opt/cuda-12/include (CUDA_HOME): no cuda_runtime.h". The chosen one ends the list.
  std::vector<std::string> searched;

  bool found() const { return !include_dir.empty(); }
  std::vector<std::string> options() const;  // {"-I/usr/local/cuda/include", "-I.../cccl"}
  // One line for messages: "/usr/local/cuda/include, /usr/local/cuda/include/cccl".
  std::string folders_text() const;
};

CudaHeaderSearch find_cuda_headers(const CudaHeaderInputs& in);

// The inputs of this process: the environment and the libnvrtc it loaded (BS_CUDA_INCLUDE_DIRS,
// the build's CUDAToolkit_INCLUDE_DIRS separated by ':', when the build defined it).
CudaHeaderInputs cuda_header_inputs_from_environment(std::string nvrtc_library);

// NVRTC's log with the messages a learner cannot act on made into ones they can:
// - a header NVRTC could not open: its name, the folders searched and how to choose another
//   toolkit (BLOCKSCOPE_CUDA_HOME);
// - torch's host API (torch/extension.h, torch::, at::) in the kernel: it is not available in
//   device code, blockscope launches the kernel itself.
// Each message stays on its own "file(line): error: ..." line, so the user's line is kept.
std::string explain_nvrtc_log(std::string_view log, const CudaHeaderSearch& headers);

}  // namespace bs::toolchain
