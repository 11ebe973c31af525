// The lecture's first kernel: one thread per pixel over the flattened image.
//
//   i = blockIdx.x * blockDim.x + threadIdx.x;   if (i < n) out[i] = gray(x[i], x[i+n], x[i+2n])
//
// What it shows: a 1D grid ignores the image's shape. A block is a run of consecutive flattened
// indices, so it wraps across rows, and only the last block can be partial (n is rarely a
// multiple of the block size). A block given y or z extent is treated as one run of
// blockDim.x*y*z threads numbered x fastest, exactly how CUDA numbers them into warps.
#pragma once
#include "core/exec.hpp"
#include "labs/grayscale/gray_common.hpp"

namespace bs::gray {

template <class Ctx>
BS_HD void gray_1d_flat_thread(const Ctx& t, const GrayArgs& a) {
  const int threads_per_block = static_cast<int>(t.blockDim.x * t.blockDim.y * t.blockDim.z);
  const int i = static_cast<int>(t.blockIdx.x) * threads_per_block +
                static_cast<int>(linear_thread_in_block(t));
  if (i < a.n) a.out[i] = gray_value(a.planar_rgb[i], a.planar_rgb[i + a.n], a.planar_rgb[i + 2 * a.n]);
}

}  // namespace bs::gray
