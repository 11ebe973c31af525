// element_owner (kernels/labs/matmul/matmul_owner.hpp) against what the kernel bodies really do: every
// rung's own body runs on the CPU simulator with each thread of one tracked block writing C into
// a private buffer (NaN-filled), so afterwards each element written names its writer. For every
// compiled configuration (and odd blocks for rungs 1-2), a full interior block and a partial
// corner block are checked: each element of the tracked tile was written by exactly the thread
// element_owner names, and that thread's outputs are exactly the elements element_owner lists.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <vector>

#include "labs/matmul/matmul.hpp"
#include "labs/matmul/matmul_owner.hpp"
#include "matmul_test_support.hpp"

namespace {

using namespace bs::matmul;
using bs::Dim3;
using bs::LaunchConfig;

// Private C buffers for the threads of one block; everyone else writes into a junk buffer.
struct Tracker {
  Dim3 block;
  std::vector<std::vector<float>> per_thread;  // by linear thread id
  std::vector<float> junk;
};

// Every rung with a body, through the registry's one dispatch: its own body, its own arguments
// (FP32 or BF16), C redirected per thread.
void run_kernel(MatmulKernel k, const MatmulConfig& c, const LaunchConfig& lc, const MatmulBuffers& buffers,
                Tracker& tr) {
  const bool ran = with_config(k, c, [&]<class R, std::size_t I>() {
    using At = typename R::template At<I>;
    using Smem = typename At::Smem;
    bs::sim::GridSimulator sim(1);  // one worker: the junk buffer's writes do not race
    bs::sim::SimOptions options;
    options.uses_barriers = matmul_kernel_info(k).uses_barriers;
    auto r = sim.run_with_shared<Smem>(
        lc,
        [&](const bs::sim::HostCtx& t, Smem& s) {
          auto a = R::args(buffers);
          const unsigned linear = t.threadIdx.x + t.blockDim.x * t.threadIdx.y;
          a.C = t.blockIdx == tr.block ? tr.per_thread[linear].data() : tr.junk.data();
          At::body(t, s, a);
        },
        options);
    ASSERT_TRUE(r.status.ok()) << r.status.describe();
  });
  ASSERT_TRUE(ran) << "no compiled instantiation";
}

bool in(const CRect& r, long long row, long long col) {
  return row >= r.row && row < r.row + r.rows && col >= r.col && col < r.col + r.cols;
}

// Runs `kernel` on M x N x K, tracking the block element_owner names for C[M-1][N-1] (the last,
// possibly partial, tile), and checks every element that block writes, and every element of C
// its tile holds.
void check_owner(MatmulKernel kernel, const MatmulConfig& config, int M, int N, int K, std::uint64_t seed) {
  SCOPED_TRACE(matmul_kernel_info(kernel).id + " " + config.label + " on " + std::to_string(M) + "x" +
               std::to_string(N) + "x" + std::to_string(K));
  ASSERT_TRUE(check_matmul_config(kernel, config, M, N, K, bs::sim::simulator_limits(1)).ok());
  std::vector<float> A = generate_matrix(M, K, Pattern::Uniform, seed);
  std::vector<float> B = generate_matrix(K, N, Pattern::Uniform, seed + 1);
  const std::vector<Bf16> a16 = pack_bf16_rows(A.data(), M, K), bt16 = pack_bf16_transposed(B.data(), K, N);
  auto corner = element_owner(kernel, config, M, N, M - 1, N - 1);
  ASSERT_TRUE(corner.ok()) << corner.status().describe();
  const LaunchConfig lc = matmul_launch_config(kernel, config, M, N, K);
  const std::size_t elements = static_cast<std::size_t>(M) * N;
  Tracker tr;
  tr.block = corner->block;
  tr.per_thread.assign(lc.block.volume(), std::vector<float>(elements, std::numeric_limits<float>::quiet_NaN()));
  tr.junk.assign(elements, 0.0f);
  MatmulBuffers buffers;
  buffers.f32 = MatmulArgs{A.data(), B.data(), nullptr, M, N, K};
  buffers.bf16 = Bf16Args{a16.data(), bt16.data(), nullptr, M, N, K, bf16_row_pitch(K)};
  run_kernel(kernel, config, lc, buffers, tr);

  // writer[e]: the tracked thread that stored element e, -1 none, -2 more than one.
  std::vector<int> writer(elements, -1);
  for (std::size_t t = 0; t < tr.per_thread.size(); ++t)
    for (std::size_t e = 0; e < elements; ++e)
      if (!std::isnan(tr.per_thread[t][e])) writer[e] = writer[e] == -1 ? static_cast<int>(t) : -2;

  const MatmulGeometry g = matmul_geometry(kernel, config);
  std::size_t checked = 0;
  for (int row = 0; row < M; ++row)
    for (int col = 0; col < N; ++col) {
      auto o = element_owner(kernel, config, M, N, row, col);
      ASSERT_TRUE(o.ok());
      const int w = writer[static_cast<std::size_t>(row) * N + col];
      if (!(o->block == tr.block)) {
        ASSERT_EQ(w, -1) << "C[" << row << "][" << col << "] belongs to another block, yet thread " << w
                         << " of the tracked block wrote it";
        continue;
      }
      ++checked;
      ASSERT_EQ(w, static_cast<int>(o->linear_thread))
          << "C[" << row << "][" << col << "]: element_owner says thread " << o->linear_thread << " (warp " << o->warp
          << ", lane " << o->lane << ")";
      ASSERT_EQ(o->warp, o->linear_thread / 32);
      ASSERT_EQ(o->lane, o->linear_thread % 32);
      ASSERT_EQ(o->thread.x + lc.block.x * o->thread.y, o->linear_thread);
      // The thread's outputs, as element_owner lists them, are exactly what it wrote.
      const std::vector<float>& mine = tr.per_thread[o->linear_thread];
      std::size_t listed = 0;
      for (const CRect& r : o->outputs)
        for (long long rr = r.row; rr < r.row + r.rows; ++rr)
          for (long long cc = r.col; cc < r.col + r.cols; ++cc) {
            if (rr >= M || cc >= N) continue;
            ++listed;
            ASSERT_FALSE(std::isnan(mine[static_cast<std::size_t>(rr) * N + cc]))
                << "listed output C[" << rr << "][" << cc << "] was not written";
          }
      std::size_t written = 0;
      for (float v : mine) written += !std::isnan(v);
      ASSERT_EQ(written, listed);
      ASSERT_TRUE(std::any_of(o->outputs.begin(), o->outputs.end(), [&](const CRect& r) { return in(r, row, col); }));
      if (g.warp_rows > 0) {
        ASSERT_TRUE(in(o->warp_tile, row, col));
        ASSERT_EQ(o->warp_tile.rows, g.warp_rows);
        for (const CRect& r : o->outputs)
          ASSERT_TRUE(in(o->warp_tile, r.row, r.col) && in(o->warp_tile, r.row + r.rows - 1, r.col + r.cols - 1));
      }
    }
  // The tracked tile is the last one: the tile shape from the geometry, cut at the edges.
  const long long tile_rows = std::min<long long>(g.block_rows, M - (M - 1) / g.block_rows * g.block_rows);
  const long long tile_cols = std::min<long long>(g.block_cols, N - (N - 1) / g.block_cols * g.block_cols);
  EXPECT_EQ(checked, static_cast<std::size_t>(tile_rows * tile_cols));
}

std::vector<MatmulConfig> configs_to_check(const MatmulKernelInfo& info) {
  std::vector<MatmulConfig> v = info.configs;
  if (info.any_block)
    for (Dim3 b : {Dim3{7, 5, 1}, Dim3{1, 33, 1}, Dim3{64, 2, 1}}) v.push_back(make_block_config(info.kernel, b));
  return v;
}

TEST(MatmulOwner, EveryConfigurationOnAFullBlockAndAPartialCorner) {
  const std::uint64_t seed = bs::matmul::testing::test_seed();
  for (const MatmulKernelInfo& info : matmul_kernels()) {
    if (!info.simulated) continue;  // the Hopper rungs: test_matmul_tc.cpp, and on the GPU
    for (const MatmulConfig& c : configs_to_check(info)) {
      const MatmulGeometry g = matmul_geometry(info.kernel, c);
      const int K = std::max(5, 2 * g.k_step + 3);                       // several phases, a partial last one
      check_owner(info.kernel, c, g.block_rows, g.block_cols, K, seed);  // one full tile
      check_owner(info.kernel, c, g.block_rows + 5, g.block_cols + 3, K, seed + 7);  // 2 x 2, partial corner
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

TEST(MatmulOwner, ElementsOutsideCAreRefused) {
  const MatmulConfig c = matmul_kernel_info(MatmulKernel::Warptile).configs.front();
  EXPECT_FALSE(element_owner(MatmulKernel::Warptile, c, 100, 90, 100, 0).ok());
  EXPECT_FALSE(element_owner(MatmulKernel::Warptile, c, 100, 90, 0, 90).ok());
  EXPECT_FALSE(element_owner(MatmulKernel::Warptile, c, 100, 90, -1, 0).ok());
  EXPECT_TRUE(element_owner(MatmulKernel::Warptile, c, 100, 90, 99, 89).ok());
  EXPECT_FALSE(element_owner(MatmulKernel::Naive, make_block_config(MatmulKernel::Naive, {0, 4, 1}), 8, 8, 1, 1).ok());
}

}  // namespace
