// What a user asks a kernel to run with. Kernels like the lecture's take a free blockDim;
// templated kernels take one of the configurations they were compiled with (their launch shape
// follows from it). Either may run on a fixed grid where the kernel's grid rule allows one (a
// grid-stride loop, a user-written kernel).
#pragma once
#include <string>

#include "core/dim.hpp"

namespace bs {

struct KernelConfig {
  Dim3 block{256, 1, 1};  // free-blockDim kernels: the blockDim to launch
  int compiled = -1;      // compiled kernels: index into KernelInfo::configs; -1 otherwise
  Dim3 grid{0, 0, 0};     // all zero: the kernel's own grid rule; else this grid

  bool fixed_grid() const { return grid.x != 0 || grid.y != 0 || grid.z != 0; }
  friend bool operator==(const KernelConfig&, const KernelConfig&) = default;
};

// "16x16", "256", "8x8x4": the command line's and the exports' spelling of a blockDim.
inline std::string block_text(const Dim3& b) {
  std::string s = std::to_string(b.x);
  if (b.y != 1 || b.z != 1) s += "x" + std::to_string(b.y);
  if (b.z != 1) s += "x" + std::to_string(b.z);
  return s;
}

}  // namespace bs
