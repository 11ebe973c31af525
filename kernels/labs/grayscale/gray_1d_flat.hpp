// The lecture's first kernel: one thread per pixel over the flattened image.
//
//   i = blockIdx.x * blockDim.x + threadIdx.x;   if (i < n) out[i] = gray(x[i], x[i+n], x[i+2n])
//
// What it shows: a 1D grid ignores the image's shape. A block is a run of consecutive flattened
// indices, so it wraps across rows, and only the last block can be partial (n is rarely a
// multiple of the block size). A block given y or z extent is treated as one run of
// blockDim.x*y*z threads numbered x fastest, exactly how CUDA numbers them into warps.
//
// Layouts: the lecture's body (planar, the `if constexpr` branch) is unchanged; the template
// parameter L adds the same kernel over interleaved RGBA8, where pixel i's channels are the bytes
// 4i, 4i+1, 4i+2: the direct translation of the lecture's line, three byte loads per pixel. L
// defaults to Planar, so `gray_1d_flat_thread(t, a)` is still the lecture's kernel.
// Ladder: the first rung, the baseline every later rung is measured against (NOTES.md).
// Measured (H200, 8192 x 8192, share of a same-bytes device-to-device copy in the same run):
// planar 1.40 TB/s = 34%, RGBA 1.81 TB/s = 44% (its three byte loads share one L1 line).
#pragma once
#include "core/exec.hpp"
#include "labs/grayscale/gray_common.hpp"
#include "labs/grayscale/gray_rung.hpp"

namespace bs::gray {

template <GrayLayout L = GrayLayout::Planar, class Ctx>
BS_HD void gray_1d_flat_thread(const Ctx& t, const GrayArgs& a) {
  const int threads_per_block = static_cast<int>(t.blockDim.x * t.blockDim.y * t.blockDim.z);
  const int i = static_cast<int>(t.blockIdx.x) * threads_per_block + static_cast<int>(linear_thread_in_block(t));
  if constexpr (L == GrayLayout::Planar) {
    if (i < a.n) a.out[i] = gray_value(a.planar_rgb[i], a.planar_rgb[i + a.n], a.planar_rgb[i + 2 * a.n]);
  } else {
    if (i < a.n) a.out[i] = gray_value(a.rgba[4ll * i], a.rgba[4ll * i + 1], a.rgba[4ll * i + 2]);
  }
}

// The rung: the flat defaults (one pixel per thread, grid ceil(n / (blockDim.x*y*z))).
struct GrayFlat1D : GrayRungBase<GrayFlat1D> {
  static lab::KernelInfo info() {
    lab::KernelInfo i;
    i.id = "gray_1d_flat";
    i.label = "1. 1D over flattened pixels (lecture)";
    i.teaches =
        "One thread per flattened pixel, one byte per load: the baseline, far from the memory limit "
        "because each thread has only three bytes in flight.";
    i.file = "kernels/labs/grayscale/gray_1d_flat.hpp";
    i.group = KernelGroup::Lecture;
    i.block_rank = 1;
    i.presets = gray_flat_presets();
    i.grid_rule = "ceil(n / (blockDim.x*y*z))";
    return i;
  }
  template <GrayLayout L, class Ctx>
  static BS_HD void body(const Ctx& t, const GrayArgs& a) {
    gray_1d_flat_thread<L>(t, a);
  }
};

}  // namespace bs::gray
