// The parts of the matmul lab that run no kernel: generation, the CPU reference, the tolerance,
// the registry, launch shapes and refusals.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "labs/matmul/matmul.hpp"
#include "matmul_test_support.hpp"

namespace bs::matmul {
namespace {

using testing::test_seed;

// ---- generation -------------------------------------------------------------------------------

TEST(MatmulGenerate, SameSeedSameMatrixOtherSeedOtherMatrix) {
  const std::uint64_t seed = test_seed();
  for (Pattern p : {Pattern::Uniform, Pattern::Normal, Pattern::SmallIntegers}) {
    const auto a = generate_matrix(37, 53, p, seed), b = generate_matrix(37, 53, p, seed),
               c = generate_matrix(37, 53, p, seed + 1);
    EXPECT_EQ(a, b) << to_string(p);
    std::size_t differ = 0;
    for (std::size_t i = 0; i < a.size(); ++i) differ += a[i] != c[i];
    EXPECT_GT(differ, a.size() / 2) << to_string(p);
  }
}

TEST(MatmulGenerate, ParallelGenerationEqualsElementwiseDefinition) {
  // Large enough to take the multi-threaded path; a few rows are compared with a small matrix
  // generated row by row: element values depend only on (seed, index).
  const std::uint64_t seed = test_seed();
  const auto big = generate_matrix(2048, 600, Pattern::Uniform, seed);
  const auto small = generate_matrix(3, 600, Pattern::Uniform, seed);  // rows 0..2, same cols
  for (std::size_t i = 0; i < small.size(); ++i) ASSERT_EQ(big[i], small[i]);
}

TEST(MatmulGenerate, DistributionsLookRight) {
  const std::uint64_t seed = test_seed();
  const auto u = generate_matrix(300, 300, Pattern::Uniform, seed);
  double sum = 0, lo = 1, hi = -1;
  for (float v : u) sum += v, lo = std::min<double>(lo, v), hi = std::max<double>(hi, v);
  EXPECT_NEAR(sum / u.size(), 0.0, 0.02);
  EXPECT_GE(lo, -1.0);
  EXPECT_LT(hi, 1.0);
  EXPECT_LT(lo, -0.99);
  EXPECT_GT(hi, 0.99);

  const auto n = generate_matrix(300, 300, Pattern::Normal, seed);
  double m = 0, m2 = 0;
  for (float v : n) m += v, m2 += static_cast<double>(v) * v;
  m /= n.size();
  EXPECT_NEAR(m, 0.0, 0.02);
  EXPECT_NEAR(m2 / n.size() - m * m, 1.0, 0.03);

  const auto s = generate_matrix(100, 100, Pattern::SmallIntegers, seed);
  std::set<float> values(s.begin(), s.end());
  EXPECT_EQ(values, (std::set<float>{-4, -3, -2, -1, 0, 1, 2, 3, 4}));
}

TEST(MatmulGenerate, IdentityAndStructured) {
  const auto id = generate_matrix(5, 7, Pattern::Identity, 1);
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 7; ++j) EXPECT_EQ(id[i * 7 + j], i == j ? 1.0f : 0.0f);
  const auto st = generate_matrix(40, 30, Pattern::Structured, 1);
  for (int i = 0; i < 40; ++i)
    for (int j = 0; j < 30; ++j) {
      const float v = st[i * 30 + j];
      EXPECT_EQ(v * 8.0f + 8.0f, static_cast<float>((3 * i + 5 * j) % 17));  // exact in binary
    }
  // Asymmetric: a transposed read would be visible.
  EXPECT_NE(st[1 * 30 + 2], st[2 * 30 + 1]);
}

TEST(MatmulGenerate, PresetsIncludeTheLecturesShape) {
  bool mnist = false;
  for (const MatmulPreset& p : matmul_presets()) {
    EXPECT_TRUE(check_matmul_sizes(p.M, p.N, p.K).ok()) << p.name;
    mnist = mnist || (p.M == 10000 && p.K == 784 && p.N == 10);
  }
  EXPECT_TRUE(mnist);
}

TEST(MatmulGenerate, EmptyForNonPositiveSizes) {
  EXPECT_TRUE(generate_matrix(0, 5, Pattern::Uniform, 1).empty());
  EXPECT_TRUE(generate_matrix(5, -1, Pattern::Uniform, 1).empty());
}

// ---- CPU reference ----------------------------------------------------------------------------

// The textbook triple loop in long double: a second way to compute the same product.
std::vector<double> triple_loop(const std::vector<float>& A, const std::vector<float>& B, int M, int N, int K) {
  std::vector<double> C(static_cast<std::size_t>(M) * N);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      long double s = 0;
      for (int k = 0; k < K; ++k) s += static_cast<long double>(A[i * K + k]) * B[k * N + j];
      C[static_cast<std::size_t>(i) * N + j] = static_cast<double>(s);
    }
  return C;
}

TEST(MatmulCpuReference, MatchesTripleLoopOnOddShapes) {
  const testing::Shape shapes[] = {{1, 1, 1}, {7, 5, 3}, {33, 17, 65}, {5, 300, 2}, {130, 1, 9}, {9, 513, 31}};
  for (const auto& s : shapes) {
    const auto A = generate_matrix(s.M, s.K, Pattern::Normal, test_seed() + 7);
    const auto B = generate_matrix(s.K, s.N, Pattern::Normal, test_seed() + 8);
    std::vector<float> C(static_cast<std::size_t>(s.M) * s.N, NAN);
    ASSERT_TRUE(cpu_reference(A.data(), B.data(), C.data(), s.M, s.N, s.K, 3).ok());
    const auto want = triple_loop(A, B, s.M, s.N, s.K);
    for (std::size_t e = 0; e < C.size(); ++e)
      ASSERT_NEAR(C[e], want[e], 1e-6 * std::max(1.0, std::fabs(want[e]))) << s.name() << " at " << e;
  }
}

TEST(MatmulCpuReference, ExactOnSmallIntegersAndThreadCountDoesNotMatter) {
  const int M = 45, N = 70, K = 301;
  const auto A = generate_matrix(M, K, Pattern::SmallIntegers, test_seed());
  const auto B = generate_matrix(K, N, Pattern::SmallIntegers, test_seed() + 1);
  std::vector<float> one(static_cast<std::size_t>(M) * N), many(one.size());
  ASSERT_TRUE(cpu_reference(A.data(), B.data(), one.data(), M, N, K, 1).ok());
  ASSERT_TRUE(cpu_reference(A.data(), B.data(), many.data(), M, N, K, 5).ok());
  EXPECT_EQ(one, many);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      long long s = 0;
      for (int k = 0; k < K; ++k) s += static_cast<long long>(A[i * K + k]) * static_cast<long long>(B[k * N + j]);
      ASSERT_EQ(one[static_cast<std::size_t>(i) * N + j], static_cast<float>(s));
    }
}

TEST(MatmulCpuReference, RefusesBadSizes) {
  float x = 1;
  EXPECT_FALSE(cpu_reference(&x, &x, &x, 0, 1, 1).ok());
  EXPECT_FALSE(cpu_reference(&x, &x, &x, 1, 1, -3).ok());
  EXPECT_FALSE(cpu_reference(nullptr, &x, &x, 1, 1, 1).ok());
}

// ---- verification -----------------------------------------------------------------------------

TEST(MatmulVerify, ExactPassesAndOnePerturbedElementIsFound) {
  const testing::Problem p({23, 41, 57});
  Verification v = verify(p.ref.data(), p.ref.data(), 23, 41, p.scale);
  EXPECT_TRUE(v.passed) << v.summary();
  EXPECT_EQ(v.max_abs, 0.0);
  EXPECT_EQ(v.checked, 23u * 41u);

  std::vector<float> got = p.ref;
  const int i = 11, j = 29;
  const double tol =
      kToleranceFactor * std::sqrt(57.0) * std::ldexp(1.0, -24) * p.scale.a_row_norms[i] * p.scale.b_col_norms[j];
  got[i * 41 + j] += static_cast<float>(3 * tol);
  v = verify(got.data(), p.ref.data(), 23, 41, p.scale);
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.mismatches, 1u);
  EXPECT_EQ(v.first_bad_row, i);
  EXPECT_EQ(v.first_bad_col, j);
  EXPECT_GT(v.max_tolerance_ratio, 2.0);

  got = p.ref;
  got[5] = NAN;
  v = verify(got.data(), p.ref.data(), 23, 41, p.scale);
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.mismatches, 1u);
}

// The tolerance is loose enough for real FP32 accumulation at K = 4096 and tight enough to catch
// a single dropped term of average size.
TEST(MatmulVerify, AcceptsFp32RoundingRejectsADroppedTerm) {
  const int M = 8, N = 64, K = 4096;
  const auto A = generate_matrix(M, K, Pattern::Uniform, test_seed() + 3);
  const auto B = generate_matrix(K, N, Pattern::Uniform, test_seed() + 4);
  std::vector<float> ref(M * N), fp32(M * N);
  ASSERT_TRUE(cpu_reference(A.data(), B.data(), ref.data(), M, N, K).ok());
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      float s = 0;  // the naive kernel's order: one FP32 sum over k
      for (int k = 0; k < K; ++k) s += A[i * K + k] * B[k * N + j];
      fp32[i * N + j] = s;
    }
  const ErrorScale scale = error_scale(A.data(), B.data(), M, N, K);
  const Verification ok = verify(fp32.data(), ref.data(), M, N, scale);
  EXPECT_TRUE(ok.passed) << ok.summary();
  EXPECT_GT(ok.max_abs, 0.0);  // FP32 really did round

  double mean_abs_term = 0;
  for (int k = 0; k < K; ++k) mean_abs_term += std::fabs(A[3 * K + k] * B[k * N + 17]);
  mean_abs_term /= K;
  std::vector<float> dropped = fp32;
  dropped[3 * N + 17] -= static_cast<float>(mean_abs_term);
  const Verification bad = verify(dropped.data(), ref.data(), M, N, scale);
  EXPECT_FALSE(bad.passed) << bad.summary();
  EXPECT_EQ(bad.first_bad_row, 3);
  EXPECT_EQ(bad.first_bad_col, 17);
}

// Issue 34: the error scale's rows of A and the BF16 rounding run on the host's cores, in chunks
// (64 rows, 2^20 elements) that these shapes split unevenly; each value as computed here one at a
// time.
TEST(MatmulVerify, ErrorScaleAndBf16RoundingSplitOverCoresAsComputedOneByOne) {
  const int M = 131, N = 517, K = 2100;
  const auto A = generate_matrix(M, K, Pattern::Normal, test_seed() + 5);
  const auto B = generate_matrix(K, N, Pattern::Normal, test_seed() + 6);
  const ErrorScale scale = error_scale(A.data(), B.data(), M, N, K);
  ASSERT_EQ(scale.a_row_norms.size(), static_cast<std::size_t>(M));
  ASSERT_EQ(scale.b_col_norms.size(), static_cast<std::size_t>(N));
  for (int i = 0; i < M; ++i) {
    double sum = 0;
    for (int k = 0; k < K; ++k) sum += static_cast<double>(A[i * K + k]) * A[i * K + k];
    ASSERT_DOUBLE_EQ(scale.a_row_norms[i], std::sqrt(sum)) << "row " << i;
  }
  for (int j = 0; j < N; ++j) {
    double sum = 0;
    for (int k = 0; k < K; ++k) sum += static_cast<double>(B[k * N + j]) * B[k * N + j];
    ASSERT_DOUBLE_EQ(scale.b_col_norms[j], std::sqrt(sum)) << "column " << j;
  }
  std::vector<float> rounded = B;  // 1.09 M elements: two chunks, the second short
  round_to_bf16(rounded);
  for (std::size_t e = 0; e < B.size(); ++e) ASSERT_EQ(rounded[e], bf16_to_float(float_to_bf16(B[e]))) << e;
}

TEST(MatmulVerify, WrongShapeIsNotAPass) {
  const testing::Problem p({4, 5, 6});
  const Verification v = verify(p.ref.data(), p.ref.data(), 5, 4, p.scale);
  EXPECT_FALSE(v.passed);
}

// ---- registry, launch shapes ------------------------------------------------------------------

TEST(MatmulRegistry, TwoLaddersWithCompiledConfigurations) {
  const auto& ks = matmul_kernels();
  ASSERT_EQ(ks.size(), static_cast<std::size_t>(kMatmulKernelCount));
  EXPECT_EQ(matmul_kernels(Precision::Fp32).size(), 7u);
  EXPECT_EQ(matmul_kernels(Precision::Bf16).size(), 7u);
  std::set<std::string> ids;
  for (std::size_t i = 0; i < ks.size(); ++i) {
    EXPECT_EQ(static_cast<std::size_t>(ks[i].kernel), i);
    EXPECT_TRUE(ids.insert(ks[i].id).second) << ks[i].id;
    EXPECT_FALSE(ks[i].configs.empty()) << ks[i].id;
    EXPECT_FALSE(ks[i].teaches.empty());
    EXPECT_FALSE(ks[i].grid_rule.empty()) << ks[i].id;
    EXPECT_EQ(find_matmul_kernel(ks[i].id), &ks[i]);
    EXPECT_LT(static_cast<std::size_t>(ks[i].gpu_default_config), ks[i].configs.size());
    if (ks[i].precision == Precision::Fp32) { EXPECT_EQ(ks[i].uses_barriers, i >= 2); }
    // Every configuration listed is compiled, for the simulator and the generic GPU wrappers
    // alike (the Hopper rungs: matmul_hopper.cu).
    if (ks[i].simulated) {
      for (const MatmulConfig& c : ks[i].configs)
        EXPECT_TRUE(with_config(ks[i].kernel, c, []<class, std::size_t>() {})) << ks[i].id << " " << c.label;
    }
  }
  EXPECT_EQ(find_matmul_kernel("k8_magic"), nullptr);
}

TEST(MatmulRegistry, EveryListedConfigurationIsAccepted) {
  DeviceLimits limits = sim::simulator_limits(4);
  limits.shared_per_block_optin = 227 * 1024;  // an H100's, for the Hopper rungs' dynamic shared memory
  for (const auto& k : matmul_kernels())
    for (const auto& c : k.configs)
      for (const testing::Shape s : {testing::Shape{1, 1, 1}, {129, 67, 33}, {4096, 4096, 4096}}) {
        const Status st = check_matmul_config(k.kernel, c, s.M, s.N, s.K, limits);
        EXPECT_TRUE(st.ok()) << k.id << " " << c.label << " " << s.name() << ": " << st.describe();
      }
}

TEST(MatmulRegistry, LaunchShapesCoverC) {
  const int M = 130, N = 67, K = 9;
  for (const auto& k : matmul_kernels())
    for (const auto& c : k.configs) {
      const LaunchConfig lc = matmul_launch_config(k.kernel, c, M, N, K);
      unsigned long long rows = 0, cols = 0;  // what the grid covers of C
      switch (k.kernel) {
        case MatmulKernel::Naive:
          cols = 1ull * lc.grid.x * lc.block.x, rows = 1ull * lc.grid.y * lc.block.y;
          EXPECT_EQ(lc.block, c.block);
          break;
        case MatmulKernel::Uncoalesced:
          rows = 1ull * lc.grid.x * lc.block.x, cols = 1ull * lc.grid.y * lc.block.y;
          break;
        case MatmulKernel::SmemTiled: cols = 1ull * lc.grid.x * lc.block.x, rows = 1ull * lc.grid.y * lc.block.y; break;
        default: {
          const MatmulGeometry g = matmul_geometry(k.kernel, c);
          EXPECT_EQ(lc.block, c.block);
          if (!k.persistent) {
            cols = 1ull * lc.grid.x * g.block_cols, rows = 1ull * lc.grid.y * g.block_rows;
            break;
          }
          // A persistent rung's grid before the device clips it: one cluster per tile of
          // (rows of its blocks) x block_cols; its blocks loop over all of them.
          const unsigned long long tile_rows = 1ull * g.block_rows * lc.cluster.x;
          const unsigned long long tiles = ((M + tile_rows - 1) / tile_rows) * ((N + g.block_cols - 1) / g.block_cols);
          EXPECT_EQ(lc.grid.x, lc.cluster.x * tiles) << k.id;
          rows = M, cols = N;
          break;
        }
      }
      // Covers C, and one block fewer in either direction would not.
      EXPECT_GE(rows, static_cast<unsigned long long>(M)) << k.id << " " << c.label;
      EXPECT_GE(cols, static_cast<unsigned long long>(N)) << k.id << " " << c.label;
      EXPECT_EQ(lc.grid.z, 1u);
    }
  const auto k7 = matmul_kernel_info(MatmulKernel::Warptile).configs.front();
  EXPECT_EQ(matmul_launch_config(MatmulKernel::Warptile, k7, 4096, 4096, 4096).grid, (Dim3{32, 32, 1}));
  EXPECT_EQ(k7.block, (Dim3{256, 1, 1}));
}

TEST(MatmulRegistry, GeometryAgreesWithLaunchShape) {
  const int M = 300, N = 200, K = 50;
  for (const auto& k : matmul_kernels(Precision::Fp32))  // tensor-core rungs: test_matmul_tc.cpp
    for (const auto& c : k.configs) {
      const MatmulGeometry g = matmul_geometry(k.kernel, c);
      const LaunchConfig lc = matmul_launch_config(k.kernel, c, M, N, K);
      // Threads x outputs per thread = the block's C tile.
      EXPECT_EQ(lc.block.volume() * g.thread_rows * g.thread_cols,
                static_cast<unsigned long long>(g.block_rows) * g.block_cols)
          << k.id << " " << c.label;
      const unsigned row_blocks = g.x_walks_rows ? lc.grid.x : lc.grid.y;
      const unsigned col_blocks = g.x_walks_rows ? lc.grid.y : lc.grid.x;
      EXPECT_EQ(row_blocks, (M + g.block_rows - 1) / g.block_rows) << k.id;
      EXPECT_EQ(col_blocks, (N + g.block_cols - 1) / g.block_cols) << k.id;
      EXPECT_EQ(g.k_step > 0, k.uses_shared) << k.id;
      if (k.kernel == MatmulKernel::Warptile) {
        EXPECT_EQ((g.block_rows / g.warp_rows) * (g.block_cols / g.warp_cols) * 32ull, lc.block.volume());
        EXPECT_EQ(g.stages, 2);
      }
    }
}

TEST(MatmulRegistry, SharedMemoryPerConfiguration) {
  EXPECT_EQ(matmul_shared_bytes(MatmulKernel::Naive, make_block_config(MatmulKernel::Naive, {32, 32, 1})), 0u);
  EXPECT_EQ(matmul_shared_bytes(MatmulKernel::SmemTiled, make_block_config(MatmulKernel::SmemTiled, {32, 32, 1})),
            2u * 32 * 32 * 4);
  EXPECT_EQ(
      matmul_shared_bytes(MatmulKernel::Warptile, make_config(MatmulKernel::Warptile, {128, 128, 8, 8, 8, 64, 32})),
      2u * (8 * 132 + 8 * 128) * 4);
}

// ---- refusals ----------------------------------------------------------------------------------

Status check(MatmulKernel k, const MatmulConfig& c, int M = 100, int N = 100, int K = 100,
             DeviceLimits limits = sim::simulator_limits(2)) {
  return check_matmul_config(k, c, M, N, K, limits);
}

bool mentions(const Status& s, const std::string& word) { return s.describe().find(word) != std::string::npos; }

TEST(MatmulRefusals, RungThreeNeedsASquareCompiledTile) {
  Status s = check(MatmulKernel::SmemTiled, make_block_config(MatmulKernel::SmemTiled, {16, 8, 1}));
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(mentions(s, "not square")) << s.describe();
  s = check(MatmulKernel::SmemTiled, make_block_config(MatmulKernel::SmemTiled, {12, 12, 1}));
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(mentions(s, "not compiled")) << s.describe();
  s = check(MatmulKernel::SmemTiled, make_block_config(MatmulKernel::SmemTiled, {16, 16, 2}));
  EXPECT_FALSE(s.ok());
}

TEST(MatmulRefusals, NaiveBlocksFollowCudaRules) {
  Status s = check(MatmulKernel::Naive, make_block_config(MatmulKernel::Naive, {64, 32, 1}));
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(mentions(s, "2048")) << s.describe();
  s = check(MatmulKernel::Naive, make_block_config(MatmulKernel::Naive, {16, 16, 2}));
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(mentions(s, "blockDim.z")) << s.describe();
  // Rung 2 puts N along gridDim.y, which is limited to 65535 blocks.
  s = check(MatmulKernel::Uncoalesced, make_block_config(MatmulKernel::Uncoalesced, {256, 1, 1}), 100, 70000, 10);
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(mentions(s, "gridDim")) << s.describe();
  EXPECT_TRUE(check(MatmulKernel::Naive, make_block_config(MatmulKernel::Naive, {256, 1, 1}), 100, 70000, 10).ok());
  // Any valid block works for rungs 1-2, not only the listed ones.
  EXPECT_TRUE(check(MatmulKernel::Naive, make_block_config(MatmulKernel::Naive, {7, 3, 1})).ok());
}

TEST(MatmulRefusals, TiledRungsNeedTheirThreadCountAndACompiledTile) {
  MatmulConfig c = make_config(MatmulKernel::Blocktile1D, kK4Params[0]);
  c.block = Dim3{256, 1, 1};
  Status s = check(MatmulKernel::Blocktile1D, c);
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(mentions(s, "needs exactly 512 threads")) << s.describe();

  s = check(MatmulKernel::Blocktile2D, make_config(MatmulKernel::Blocktile2D, {96, 96, 8, 8, 8, 0, 0}));
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(mentions(s, "compiled set")) << s.describe();

  s = check(MatmulKernel::Blocktile2D, make_config(MatmulKernel::Blocktile2D, {128, 128, 8, 6, 8, 0, 0}));
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(mentions(s, "does not divide")) << s.describe();

  s = check(MatmulKernel::Vectorized, make_config(MatmulKernel::Vectorized, {96, 96, 8, 6, 6, 0, 0}));
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(mentions(s, "multiples of 4")) << s.describe();

  s = check(MatmulKernel::Warptile, make_config(MatmulKernel::Warptile, {128, 128, 8, 8, 8, 64, 64, 2}));
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(mentions(s, "32 thread tiles")) << s.describe();

  s = check(MatmulKernel::Warptile, make_config(MatmulKernel::Warptile, {128, 128, 8, 8, 8, 48, 32, 2}));
  EXPECT_FALSE(s.ok());

  // The occupancy knob exists only for rung 7, and only in the compiled combinations.
  s = check(MatmulKernel::Warptile, make_config(MatmulKernel::Warptile, {128, 128, 8, 8, 8, 64, 32, 3}));
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(mentions(s, "compiled set")) << s.describe();
  s = check(MatmulKernel::Blocktile2D, make_config(MatmulKernel::Blocktile2D, {128, 128, 8, 8, 8, 0, 0, 2}));
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(mentions(s, "rung-7 knob")) << s.describe();
}

TEST(MatmulRefusals, SharedMemoryOverTheLimit) {
  DeviceLimits small = sim::simulator_limits(2);
  small.name = "a device with 4 KiB of shared memory";
  small.shared_per_block = 4096;
  const Status s =
      check(MatmulKernel::SmemTiled, make_block_config(MatmulKernel::SmemTiled, {32, 32, 1}), 100, 100, 100, small);
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(mentions(s, "8192 bytes")) << s.describe();
  EXPECT_TRUE(
      check(MatmulKernel::SmemTiled, make_block_config(MatmulKernel::SmemTiled, {16, 16, 1}), 100, 100, 100, small)
          .ok());
}

TEST(MatmulRefusals, SizesBelowOne) {
  const MatmulConfig c = matmul_kernel_info(MatmulKernel::Naive).configs[0];
  EXPECT_FALSE(check(MatmulKernel::Naive, c, 0, 5, 5).ok());
  EXPECT_FALSE(check(MatmulKernel::Naive, c, 5, 5, 0).ok());
  EXPECT_FALSE(check_matmul_sizes(5, -2, 5).ok());
  EXPECT_FALSE(check_matmul_sizes(5, 5, 3000000000LL).ok());
}

TEST(MatmulRefusals, SimulatorWorkCap) {
  sim::GridSimulator simulator(2);
  const MatmulConfig c = matmul_kernel_info(MatmulKernel::Naive).configs[0];
  float sentinel[1] = {42.0f};
  // 1024^3 multiply-adds is above the cap: refused before touching any buffer.
  const LaunchRecord r =
      simulate_matmul(simulator, MatmulKernel::Naive, c, sentinel, sentinel, sentinel, 1024, 1024, 1024);
  EXPECT_FALSE(r.ok());
  EXPECT_TRUE(mentions(r.status, "2^27")) << r.status.describe();
  EXPECT_EQ(sentinel[0], 42.0f);
  EXPECT_EQ(r.config.grid, (Dim3{32, 32, 1}));  // the record still says what would have run
}

}  // namespace
}  // namespace bs::matmul
