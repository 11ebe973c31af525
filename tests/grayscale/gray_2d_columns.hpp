// A test-only rung, to prove that a rung is one file and one line: the lecture's 2D kernel with
// its axes swapped, so threadIdx.x walks DOWN a column (x picks the row, y the column).
//
//   r = blockIdx.x * blockDim.x + threadIdx.x;  c = blockIdx.y * blockDim.y + threadIdx.y;
//   if (r < h && c < w) { i = r * w + c; out[i] = gray(x[i], x[i+n], x[i+2n]); }
//
// What it would teach: consecutive lanes touch pixels a whole row apart, so a warp's byte loads
// land in 32 different sectors instead of one (matmul's rung 2 makes the same mistake). Its
// ownership is IndexScheme::Grid2DTransposed; its grid is (ceil(h / blockDim.x),
// ceil(w / blockDim.y)). Nothing in kernels/ or app/ names it: the test adds it to a ladder with
// gray_ladder_with<Gray2dColumns>() and the lab, bench and the views' queries take it from there.
#pragma once
#include "core/exec.hpp"
#include "labs/grayscale/gray_common.hpp"
#include "labs/grayscale/gray_rung.hpp"

namespace bs::gray::test {

template <GrayLayout L, class Ctx>
BS_HD void gray_2d_columns_thread(const Ctx& t, const GrayArgs& a) {
  const int r = static_cast<int>(t.blockIdx.x * t.blockDim.x + t.threadIdx.x);
  const int c = static_cast<int>(t.blockIdx.y * t.blockDim.y + t.threadIdx.y);
  if (r < a.height && c < a.width) {
    const int i = r * a.width + c;
    a.out[i] = gray_pixel<L>(a, i);
  }
}

struct Gray2dColumns : GrayRungBase<Gray2dColumns> {
  static lab::KernelInfo info() {
    lab::KernelInfo i;
    i.id = "test_gray_2d_columns";
    i.label = "T. 2D blocks, x down the columns (test rung)";
    i.teaches = "threadIdx.x walks down a column: a warp's loads land a row apart, 32 sectors for 32 bytes.";
    i.file = "tests/grayscale/gray_2d_columns.hpp";
    i.block_rank = 2;
    i.default_block = Dim3{16, 16, 1};
    i.presets = gray_2d_presets();
    i.grid_rule = "(ceil(height / blockDim.x), ceil(width / blockDim.y))";
    return i;
  }
  template <GrayLayout L, class Ctx>
  static BS_HD void body(const Ctx& t, const GrayArgs& a) {
    gray_2d_columns_thread<L>(t, a);
  }
  static LaunchConfig launch_config(GrayLayout, Dim3 block, int width, int height, const DeviceLimits&,
                                    const KernelAttributes&) {
    return gray_2d_launch_config(block, width, height, true);
  }
  static Status check(GrayLayout, const LaunchConfig& c, int width, int height, const DeviceLimits& limits,
                      const KernelAttributes* kernel) {
    return check_gray_2d_launch(info().id, c, width, height, limits, kernel, true);
  }
  static std::optional<IndexScheme> scheme(GrayLayout, const GrayArgs&) { return IndexScheme::grid2d_transposed(); }
};

}  // namespace bs::gray::test
