// A kernel at three levels, for the Source tab: its CUDA source, its PTX and its SASS, each
// instruction with its source line (core/line_profile.hpp's KernelListing).
//
//   built-in rung   source: the rung's file (lab::KernelInfo::file), embedded in the binary at
//                   build time, so an installed blockscope lists it too;
//                   SASS: the launched function (by its mangled name when given; else the first
//                   function whose line table names the rung's file) out of this executable's
//                   cubins, by cuobjdump + nvdisasm (`-lineinfo` is on for every
//                   CUDA target); PTX: the same from the PTX the fatbin embeds, which a build for
//                   real architectures only (90-real) has none of: ptx_status says so.
//   user kernel     source: what the editor compiled; PTX and cubin: NVRTC in this process with
//                   `--generate-line-info`, on the unit and options the runner compiles (so even
//                   the CPU backend shows the PTX); SASS: nvdisasm of that cubin.
//   library kernel  (CUB, cuBLAS, the copy): not blockscope's source; the listing says so.
//
// Each level fails alone, with the reason and the fix in its status; the others still show.
// Slow (a second or more for the executable's cubins the first time): run it off the UI thread
// (listing_worker.hpp).
#pragma once
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "core/line_profile.hpp"
#include "lab/user_kernel_spec.hpp"

namespace bs::source {

struct ListingRequest {
  enum class Kind { BuiltIn, User, Library };
  Kind kind = Kind::BuiltIn;
  std::string kernel;  // blockscope's kernel id
  // BuiltIn
  std::string source_file;       // lab::KernelInfo::file, e.g. "kernels/labs/matmul/k3_smem_tiled.hpp"
  std::string function;          // the launched function's mangled name ("" unknown)
  std::filesystem::path binary;  // the host binary holding its cubins (empty: this executable)
  // User
  std::string user_source;           // what the editor compiled
  std::string user_name;             // the __global__ function's name ("" : the first the forms accept)
  std::vector<lab::UserForm> forms;  // the lab's forms the kernel was compiled against
  // Both
  int cc = 0;               // the GPU's 10 * major + minor, 0: none (NVRTC compiles for sm_90)
  bool ran_on_gpu = false;  // the launch shown ran on the GPU (else the CPU simulator)

  // Identifies the listing: kernel, function, source text, architecture.
  std::string key() const;
};

KernelListing make_listing(const ListingRequest& request);

// The text of a file of kernels/labs embedded at build time, by its path from the repository's
// root ("kernels/labs/matmul/k3_smem_tiled.hpp"); empty when not embedded.
std::string_view embedded_source(std::string_view path);

}  // namespace bs::source
