// The lecture's 2D kernel: blocks tile the image, x across columns and y down rows.
//
//   c = blockIdx.x * blockDim.x + threadIdx.x;  r = blockIdx.y * blockDim.y + threadIdx.y;
//   if (c < w && r < h) { i = r * w + c; out[i] = gray(x[i], x[i+n], x[i+2n]); }
//
// What it shows: a 2D grid follows the image's shape, so blocks are rectangles and the partial
// blocks run along the right and bottom edges, where the guard on BOTH coordinates matters.
// blockDim.z must be 1 (checked before launch): extra z threads would all compute the same pixel.
//
// Layouts: as in gray_1d_flat.hpp, the lecture's planar body is unchanged and L = Rgba reads the
// pixel's first three bytes of its RGBA word instead; L defaults to Planar.
// Measured (H200, 8192 x 8192, 16x16 blocks): planar 1.20 TB/s = 29% of copy, RGBA 1.61 TB/s =
// 40%, below the 1D kernel, probably because a warp of a 16x16 block covers two 16-pixel pieces
// of two rows: each of its byte loads touches two half-used sectors instead of one full one.
#pragma once
#include "core/exec.hpp"
#include "labs/grayscale/gray_common.hpp"
#include "labs/grayscale/gray_rung.hpp"

namespace bs::gray {

template <GrayLayout L = GrayLayout::Planar, class Ctx>
BS_HD void gray_2d_thread(const Ctx& t, const GrayArgs& a) {
  const int c = static_cast<int>(t.blockIdx.x * t.blockDim.x + t.threadIdx.x);
  const int r = static_cast<int>(t.blockIdx.y * t.blockDim.y + t.threadIdx.y);
  if (c < a.width && r < a.height) {
    const int i = r * a.width + c;
    if constexpr (L == GrayLayout::Planar)
      a.out[i] = gray_value(a.planar_rgb[i], a.planar_rgb[i + a.n], a.planar_rgb[i + 2 * a.n]);
    else a.out[i] = gray_value(a.rgba[4ll * i], a.rgba[4ll * i + 1], a.rgba[4ll * i + 2]);
  }
}

// The rung: x over columns, y over rows (IndexScheme::grid2d), grid (ceil(w / bx), ceil(h / by)).
struct Gray2D : GrayRungBase<Gray2D> {
  static constexpr std::string_view kUserTemplate = "gray_2d";
  static lab::KernelInfo info() {
    lab::KernelInfo i;
    i.id = "gray_2d";
    i.label = "2. 2D blocks over (x, y) (lecture)";
    i.teaches = "Blocks are rectangles of the image; partial blocks line the right and bottom edges.";
    i.file = "kernels/labs/grayscale/gray_2d.hpp";
    i.group = KernelGroup::Lecture;
    i.block_rank = 2;
    i.default_block = Dim3{16, 16, 1};
    i.presets = gray_2d_presets();
    i.grid_rule = "(ceil(width / blockDim.x), ceil(height / blockDim.y))";
    return i;
  }
  template <GrayLayout L, class Ctx>
  static BS_HD void body(const Ctx& t, const GrayArgs& a) {
    gray_2d_thread<L>(t, a);
  }
  static LaunchConfig launch_config(GrayLayout, Dim3 block, int width, int height, const DeviceLimits&,
                                    const KernelAttributes&) {
    return gray_2d_launch_config(block, width, height, false);
  }
  static Status check(GrayLayout, const LaunchConfig& c, int width, int height, const DeviceLimits& limits,
                      const KernelAttributes* kernel) {
    return check_gray_2d_launch(info().id, c, width, height, limits, kernel, false);
  }
  static std::optional<IndexScheme> scheme(GrayLayout, const GrayArgs&) { return IndexScheme::grid2d(); }
};

}  // namespace bs::gray
