// The lecture's 2D kernel: blocks tile the image, x across columns and y down rows.
//
//   c = blockIdx.x * blockDim.x + threadIdx.x;  r = blockIdx.y * blockDim.y + threadIdx.y;
//   if (c < w && r < h) { i = r * w + c; out[i] = gray(x[i], x[i+n], x[i+2n]); }
//
// What it shows: a 2D grid follows the image's shape, so blocks are rectangles and the partial
// blocks run along the right and bottom edges, where the guard on BOTH coordinates matters.
// blockDim.z must be 1 (checked before launch): extra z threads would all compute the same pixel.
#pragma once
#include "core/exec.hpp"
#include "labs/grayscale/gray_common.hpp"

namespace bs::gray {

template <class Ctx>
BS_HD void gray_2d_thread(const Ctx& t, const GrayArgs& a) {
  const int c = static_cast<int>(t.blockIdx.x * t.blockDim.x + t.threadIdx.x);
  const int r = static_cast<int>(t.blockIdx.y * t.blockDim.y + t.threadIdx.y);
  if (c < a.width && r < a.height) {
    const int i = r * a.width + c;
    a.out[i] = gray_value(a.planar_rgb[i], a.planar_rgb[i + a.n], a.planar_rgb[i + 2 * a.n]);
  }
}

}  // namespace bs::gray
