// Rung 2, the naive kernel with the axes swapped: row from x, column from y.
//
//   row = blockIdx.x * blockDim.x + threadIdx.x;   col = blockIdx.y * blockDim.y + threadIdx.y;
//
// The arithmetic is identical to rung 1 and so is the result; only the mapping of threads to
// outputs changed. What it teaches: a warp is 32 threads with consecutive threadIdx.x, and now
// those 32 threads own 32 different ROWS of C. At each k they read A[row][k] from 32 rows
// (K floats apart: 32 separate memory transactions instead of one broadcast) and write C
// 32 rows apart, while B[k][col] became the broadcast. Same FLOPs, several times slower on a GPU:
// coalescing is about which addresses neighbouring threads touch, not about how many.
// The grid is (ceil(M / blockDim.x), ceil(N / blockDim.y)); blockDim.z must be 1.
#pragma once
#include "labs/matmul/matmul_common.hpp"
#include "labs/matmul/matmul_rung.hpp"

namespace bs::matmul {

template <class Ctx>
BS_HD void k2_uncoalesced_thread(const Ctx& t, NoSmem&, const MatmulArgs& a) {
  const int row = static_cast<int>(t.blockIdx.x * t.blockDim.x + t.threadIdx.x);
  const int col = static_cast<int>(t.blockIdx.y * t.blockDim.y + t.threadIdx.y);
  if (row < a.M && col < a.N) {
    const float* a_row = a.A + offset2d(row, 0, a.K);
    float sum = 0.0f;
    for (int k = 0; k < a.K; ++k) sum += a_row[k] * a.B[offset2d(k, col, a.N)];
    a.C[offset2d(row, col, a.N)] = sum;
  }
}

// ---------------------------------------------------------------------------------------------
// The rung, to the lab (matmul_rung.hpp)
// ---------------------------------------------------------------------------------------------
struct K2Uncoalesced : RungBase {
  static MatmulKernelInfo info() {
    MatmulKernelInfo i;
    i.id = "k2_uncoalesced";
    i.label = "2. naive, x mapped to rows";
    i.teaches =
        "the same arithmetic with threadIdx.x along rows: a warp reads 32 different rows, "
        "so its loads are no longer coalesced";
    i.file = "kernels/labs/matmul/k2_uncoalesced.hpp";
    i.configs = free_block_configs(describe, {{32, 32, 1}, {16, 16, 1}, {32, 8, 1}, {8, 8, 1}});
    i.any_block = true;
    i.grid_rule = "grid = (ceil(M / blockDim.x), ceil(N / blockDim.y))";
    return i;
  }
  static std::string describe(const MatmulConfig& c) { return block_shape_text(c.block); }
  static LaunchConfig launch_config(const MatmulConfig& c, int M, int N, int) {
    return {Dim3{ceil_div_u(M, static_cast<int>(c.block.x)), ceil_div_u(N, static_cast<int>(c.block.y)), 1}, c.block};
  }
  static MatmulGeometry geometry(const MatmulConfig& c) {
    MatmulGeometry g;
    g.block_rows = static_cast<int>(c.block.x), g.block_cols = static_cast<int>(c.block.y);
    g.x_walks_rows = true;
    return g;
  }
  static std::size_t shared_bytes(const MatmulConfig&) { return 0; }
  static Status check(const MatmulConfig& c, const DeviceLimits&) { return check_xy_block("k2_uncoalesced", c); }
  static IndexScheme scheme(const MatmulConfig&) { return IndexScheme::grid2d_transposed(); }
  // row = blockIdx.x * blockDim.x + threadIdx.x, col = blockIdx.y * blockDim.y + threadIdx.y
  static Result<ElementOwner> owner(const MatmulConfig& c, int row, int col) {
    return one_output_owner(c, row, col, true);
  }
  template <std::size_t>
  struct At {
    using Smem = NoSmem;
    static constexpr unsigned threads = 0;
    static constexpr int min_blocks = 0;
    template <class Ctx>
    static BS_HD void body(const Ctx& t, Smem& s, const MatmulArgs& a) {
      k2_uncoalesced_thread(t, s, a);
    }
  };
};

}  // namespace bs::matmul
