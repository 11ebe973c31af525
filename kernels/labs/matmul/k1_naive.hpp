// Rung 1, the lecture's naive kernel: one thread per output, row from y, column from x.
//
//   row = blockIdx.y * blockDim.y + threadIdx.y;   col = blockIdx.x * blockDim.x + threadIdx.x;
//   if (row < M && col < N) C[row][col] = sum_k A[row][k] * B[k][col];
//
// What it teaches: the 2D grid follows C's shape, and the guard handles the ragged edge tiles.
// Neighbouring threads of a warp (consecutive threadIdx.x) share `row` and take consecutive
// columns, so each step of the k-loop reads one A element for the whole warp (a broadcast) and
// 32 consecutive B elements (one coalesced 128-byte line). Every operand still comes from global
// memory (or cache) once per multiply-add: 2 loads per 2 FLOPs, so the kernel is bound by
// memory traffic, not arithmetic. blockDim.z must be 1 (checked before launch).
#pragma once
#include "labs/matmul/matmul_common.hpp"
#include "labs/matmul/matmul_rung.hpp"

namespace bs::matmul {

template <class Ctx>
BS_HD void k1_naive_thread(const Ctx& t, NoSmem&, const MatmulArgs& a) {
  const int row = static_cast<int>(t.blockIdx.y * t.blockDim.y + t.threadIdx.y);
  const int col = static_cast<int>(t.blockIdx.x * t.blockDim.x + t.threadIdx.x);
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
struct K1Naive : RungBase {
  static MatmulKernelInfo info() {
    MatmulKernelInfo i;
    i.id = "k1_naive";
    i.label = "1. naive (the lecture's)";
    i.teaches =
        "one thread per output, row from y, column from x: coalesced B reads, but every "
        "operand comes from global memory";
    i.file = "kernels/labs/matmul/k1_naive.hpp";
    i.configs = free_block_configs(describe, {{32, 32, 1}, {16, 16, 1}, {32, 8, 1}, {8, 8, 1}});
    i.any_block = true;
    i.lecture = true;
    i.grid_rule = "grid = (ceil(N / blockDim.x), ceil(M / blockDim.y))";
    return i;
  }
  static std::string describe(const MatmulConfig& c) { return block_shape_text(c.block); }
  static LaunchConfig launch_config(const MatmulConfig& c, int M, int N, int) {
    return {Dim3{ceil_div_u(N, static_cast<int>(c.block.x)), ceil_div_u(M, static_cast<int>(c.block.y)), 1}, c.block};
  }
  static MatmulGeometry geometry(const MatmulConfig& c) {
    MatmulGeometry g;
    g.block_rows = static_cast<int>(c.block.y), g.block_cols = static_cast<int>(c.block.x);
    return g;
  }
  static std::size_t shared_bytes(const MatmulConfig&) { return 0; }
  static Status check(const MatmulConfig& c, const DeviceLimits&) { return check_xy_block("k1_naive", c); }
  static IndexScheme scheme(const MatmulConfig&) { return IndexScheme::grid2d(); }
  // row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x
  static Result<ElementOwner> owner(const MatmulConfig& c, int row, int col) {
    return one_output_owner(c, row, col, false);
  }
  template <std::size_t>
  struct At {
    using Smem = NoSmem;
    static constexpr unsigned threads = 0;  // any block: no __launch_bounds__
    static constexpr int min_blocks = 0;
    template <class Ctx>
    static BS_HD void body(const Ctx& t, Smem& s, const MatmulArgs& a) {
      k1_naive_thread(t, s, a);
    }
  };
};

}  // namespace bs::matmul
