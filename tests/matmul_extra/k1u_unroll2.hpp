// A rung that exists only in tests: rung 1's thread map with the k-loop unrolled by two into two
// independent sums (even and odd k), the classic first step to more instruction-level
// parallelism. Its whole presence in the lab is this file and one line in CMakeLists.txt
// (bs_matmul_lab_with_rung); test_extra_rung.cpp checks that the lab, the bench and the views'
// queries take it like any rung of the ladder.
#pragma once
#include "labs/matmul/matmul_common.hpp"
#include "labs/matmul/matmul_rung.hpp"

namespace bs::matmul {

template <class Ctx>
BS_HD void k1u_unroll2_thread(const Ctx& t, NoSmem&, const MatmulArgs& a) {
  const int row = static_cast<int>(t.blockIdx.y * t.blockDim.y + t.threadIdx.y);
  const int col = static_cast<int>(t.blockIdx.x * t.blockDim.x + t.threadIdx.x);
  if (row >= a.M || col >= a.N) return;
  const float* a_row = a.A + offset2d(row, 0, a.K);
  float even = 0.0f, odd = 0.0f;
  int k = 0;
  for (; k + 1 < a.K; k += 2) {
    even += a_row[k] * a.B[offset2d(k, col, a.N)];
    odd += a_row[k + 1] * a.B[offset2d(k + 1, col, a.N)];
  }
  if (k < a.K) even += a_row[k] * a.B[offset2d(k, col, a.N)];  // odd K: the last column alone
  a.C[offset2d(row, col, a.N)] = even + odd;
}

struct K1uUnroll2 : RungBase {
  static MatmulKernelInfo info() {
    MatmulKernelInfo i;
    i.id = "k1u_unroll2";
    i.label = "1u. naive, k-loop unrolled by 2 (test rung)";
    i.teaches = "two independent sums per thread: the same loads as rung 1, half the dependent adds";
    i.file = "tests/matmul_extra/k1u_unroll2.hpp";
    i.configs = free_block_configs(describe, {{16, 16, 1}, {32, 8, 1}});
    i.any_block = true;
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
  static Status check(const MatmulConfig& c, const DeviceLimits&) { return check_xy_block("k1u_unroll2", c); }
  static IndexScheme scheme(const MatmulConfig&) { return IndexScheme::grid2d(); }
  static Result<ElementOwner> owner(const MatmulConfig& c, int row, int col) {
    return one_output_owner(c, row, col, false);
  }
  template <std::size_t>
  struct At {
    using Smem = NoSmem;
    static constexpr unsigned threads = 0;
    static constexpr int min_blocks = 0;
    template <class Ctx>
    static BS_HD void body(const Ctx& t, Smem& s, const MatmulArgs& a) {
      k1u_unroll2_thread(t, s, a);
    }
  };
};

}  // namespace bs::matmul
