// The tensor-core ladder on the CPU: BF16 rounding against an independent nearest-value search,
// the PTX ISA's fragment layouts (entries read off the ISA's figures, and that each layout covers
// its tile exactly once), the WMMA and mma.sync rungs on the simulator against the double CPU
// product of the same BF16 numbers at odd sizes, the precision setting of the lab, and the
// owners of the Hopper rungs' elements.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <tuple>

#include "labs/matmul/matmul.hpp"
#include "labs/matmul/matmul_lab.hpp"
#include "labs/matmul/matmul_owner.hpp"
#include "matmul_test_support.hpp"

namespace {

using namespace bs::matmul;
using bs::LaunchRecord;
using bs::matmul::testing::test_seed;
namespace sim = bs::sim;

// ---- BF16 ----------------------------------------------------------------------------------

std::uint32_t bits_of(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

// The value of BF16 bits as if the exponent had no top (0x7f80 is 2^128, not infinity): the
// upper candidate of rounding near the largest finite number.
double value_of(std::uint16_t b) {
  const int sign = b >> 15, e = (b >> 7) & 0xff, m = b & 0x7f;
  const double v = e == 0 ? std::ldexp(m / 128.0, -126) : std::ldexp(1.0 + m / 128.0, e - 127);
  return sign ? -v : v;
}

// Nearest of the two BF16 numbers around f (truncation, and one step away from zero), ties to
// the even one: the rule, by search instead of by the bit trick float_to_bf16 uses.
std::uint16_t nearest_bf16(float f) {
  const std::uint16_t lo = static_cast<std::uint16_t>(bits_of(f) >> 16), hi = static_cast<std::uint16_t>(lo + 1);
  const double dl = std::fabs(value_of(lo) - f), dh = std::fabs(value_of(hi) - f);
  if (dl != dh) return dl < dh ? lo : hi;
  return (lo & 1) ? hi : lo;
}

TEST(Bf16, RoundsToNearestEvenLikeAnExhaustiveSearch) {
  std::mt19937_64 rng(test_seed());
  std::uniform_int_distribution<std::uint32_t> any;
  std::vector<float> values = {0.0f,
                               -0.0f,
                               1.0f,
                               -1.5f,
                               1e-40f,
                               -1e-42f,
                               std::numeric_limits<float>::max(),
                               std::numeric_limits<float>::min(),
                               3.0e38f,
                               1.00390625f /* a tie */,
                               1.01171875f /* a tie, odd below */};
  for (int i = 0; i < 200000; ++i) {
    float f;
    const std::uint32_t u = any(rng);
    std::memcpy(&f, &u, sizeof f);
    if (std::isfinite(f)) values.push_back(f);
  }
  for (float f : values) {
    ASSERT_EQ(float_to_bf16(f).bits, nearest_bf16(f)) << "f = " << f << " (bits " << std::hex << bits_of(f) << ")";
    ASSERT_EQ(bits_of(bf16_to_float(float_to_bf16(f))) & 0xffffu, 0u);  // exactly a BF16 number
  }
  EXPECT_TRUE(std::isinf(bf16_to_float(float_to_bf16(std::numeric_limits<float>::infinity()))));
  EXPECT_TRUE(std::isnan(bf16_to_float(float_to_bf16(std::nanf("")))));
}

TEST(Bf16, PackedLayoutsPadRowsToSixteenBytes) {
  const int M = 5, K = 13, N = 3;  // pitch 16
  std::vector<float> A(M * K), B(K * N);
  for (std::size_t i = 0; i < A.size(); ++i) A[i] = static_cast<float>(i) - 30.0f;
  for (std::size_t i = 0; i < B.size(); ++i) B[i] = 0.5f * static_cast<float>(i);
  ASSERT_EQ(bf16_row_pitch(K), 16);
  const auto a = pack_bf16_rows(A.data(), M, K);
  const auto bt = pack_bf16_transposed(B.data(), K, N);
  ASSERT_EQ(a.size(), static_cast<std::size_t>(M * 16));
  ASSERT_EQ(bt.size(), static_cast<std::size_t>(N * 16));
  for (int r = 0; r < M; ++r)
    for (int c = 0; c < 16; ++c) EXPECT_EQ(bf16_to_float(a[r * 16 + c]), c < K ? A[r * K + c] : 0.0f) << r << "," << c;
  for (int n = 0; n < N; ++n)
    for (int k = 0; k < 16; ++k) EXPECT_EQ(bf16_to_float(bt[n * 16 + k]), k < K ? B[k * N + n] : 0.0f) << n << "," << k;
}

// ---- Fragment layouts ----------------------------------------------------------------------

void expect_at(FragCoord f, int row, int col) {
  EXPECT_EQ(f.row, row);
  EXPECT_EQ(f.col, col);
}

// Entries read off the PTX ISA's figures ("mma.m16n8k16 fragment layouts", "wgmma .m64nNk16
// register fragment layout for D"), for lanes whose groupID and threadID_in_group are both
// neither 0 nor each other's value.
TEST(FragmentLayouts, EntriesOfThePtxIsaFigures) {
  // lane 7: groupID 1, threadID_in_group 3
  expect_at(mma_a_coord(7, 0), 1, 6);   // a0, first half
  expect_at(mma_a_coord(7, 3), 9, 7);   // a1, second half
  expect_at(mma_a_coord(7, 5), 1, 15);  // a2
  expect_at(mma_a_coord(7, 6), 9, 14);  // a3
  expect_at(mma_b_coord(7, 1), 7, 1);   // b0: k = 2t + 1
  expect_at(mma_b_coord(7, 2), 14, 1);  // b1: k = 2t + 8
  expect_at(mma_c_coord(7, 1), 1, 7);   // c1
  expect_at(mma_c_coord(7, 2), 9, 6);   // c2
  // thread 37 of a warpgroup: warp 1, lane 5 (groupID 1, threadID_in_group 1); register 6 is
  // the third of 8-column chunk 1
  expect_at(wgmma_d_coord(37, 6), 16 + 1 + 8, 8 + 2);
  expect_at(wgmma_d_coord(127, 127), 63, 255);
  // ldmatrix .x4: lane 13's register 2 comes from the row that lane 8 * 2 + 13 / 4 = 19 named
  EXPECT_EQ(ldmatrix_source_lane(13, 2), 19);
  EXPECT_EQ(ldmatrix_first_element(13), 2);
}

template <class Coord>
void expect_covers_once(int rows, int cols, int threads, int regs, Coord coord, const char* what) {
  std::set<std::pair<int, int>> seen;
  for (int t = 0; t < threads; ++t)
    for (int r = 0; r < regs; ++r) {
      const FragCoord f = coord(t, r);
      ASSERT_TRUE(f.row >= 0 && f.row < rows && f.col >= 0 && f.col < cols) << what << " " << t << "," << r;
      ASSERT_TRUE(seen.insert({f.row, f.col}).second) << what << ": (" << f.row << "," << f.col << ") twice";
    }
  EXPECT_EQ(seen.size(), static_cast<std::size_t>(rows * cols)) << what;
}

TEST(FragmentLayouts, EachCoversItsTileExactlyOnce) {
  expect_covers_once(16, 16, 32, 8, mma_a_coord, "A 16x16");
  expect_covers_once(16, 8, 32, 4, mma_b_coord, "B 16x8");
  expect_covers_once(16, 8, 32, 4, mma_c_coord, "C 16x8");
  expect_covers_once(64, 256, 128, 128, wgmma_d_coord, "wgmma D 64x256");
  expect_covers_once(64, 128, 128, 64, wgmma_d_coord, "wgmma D 64x128");
}

// ---- The simulated rungs -------------------------------------------------------------------

struct Bf16Problem {
  int M, N, K;
  std::vector<float> A, B, ref;  // A and B rounded to BF16
  std::vector<Bf16> a16, bt16;
  ErrorScale scale;
  Bf16Problem(int m, int n, int k, Pattern pattern, std::uint64_t seed) : M(m), N(n), K(k) {
    A = generate_matrix(M, K, pattern, seed);
    B = generate_matrix(K, N, pattern, seed + 1);
    round_to_bf16(A), round_to_bf16(B);
    a16 = pack_bf16_rows(A.data(), M, K);
    bt16 = pack_bf16_transposed(B.data(), K, N);
    ref.resize(static_cast<std::size_t>(M) * N);
    EXPECT_TRUE(cpu_reference(A.data(), B.data(), ref.data(), M, N, K).ok());
    scale = error_scale(A.data(), B.data(), M, N, K);
  }
  Bf16Args args(float* C) const { return Bf16Args{a16.data(), bt16.data(), C, M, N, K, bf16_row_pitch(K)}; }
};

std::vector<MatmulKernel> simulated_bf16_rungs() {
  std::vector<MatmulKernel> v;
  for (const MatmulKernelInfo& k : matmul_kernels(Precision::Bf16))
    if (k.simulated) v.push_back(k.kernel);
  return v;
}

TEST(TcSim, WmmaAndMmaSyncRungsAreSimulated) {
  const auto v = simulated_bf16_rungs();
  EXPECT_EQ(v.size(), 2u);
  for (const MatmulKernelInfo& k : matmul_kernels(Precision::Bf16))
    EXPECT_EQ(k.simulated, k.needs != RungNeeds::Sm90a) << k.id;
}

TEST(TcSim, MatchTheDoubleProductOfTheSameBf16NumbersAtOddSizes) {
  sim::GridSimulator simulator(2);
  const std::uint64_t seed = test_seed();
  for (auto [M, N, K] : {std::tuple{1, 1, 1}, {37, 53, 41}, {129, 67, 131}, {65, 130, 127}, {128, 128, 64}}) {
    const Bf16Problem p(M, N, K, Pattern::Uniform, seed + static_cast<std::uint64_t>(M * 7 + N * 13 + K));
    for (MatmulKernel k : simulated_bf16_rungs()) {
      const MatmulKernelInfo& info = matmul_kernel_info(k);
      SCOPED_TRACE(info.id + " at " + std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K));
      std::vector<float> C(p.ref.size(), std::nanf(""));  // NaN: an output nobody writes fails
      const LaunchRecord r = simulate_matmul_bf16(simulator, k, info.configs[0], p.args(C.data()));
      ASSERT_TRUE(r.ok()) << r.status.describe();
      EXPECT_EQ(r.config, matmul_launch_config(k, info.configs[0], M, N, K));
      const Verification v = verify(C.data(), p.ref.data(), M, N, p.scale);
      EXPECT_TRUE(v.passed) << v.summary();
    }
  }
}

// Integers in [-4, 4] are exact in BF16 and their sums of products exact in FP32: every element
// must equal the reference exactly, so a wrong lane or register shows as a wrong value.
TEST(TcSim, ExactOnSmallIntegers) {
  sim::GridSimulator simulator(2);
  const Bf16Problem p(70, 45, 39, Pattern::SmallIntegers, test_seed());
  for (MatmulKernel k : simulated_bf16_rungs()) {
    std::vector<float> C(p.ref.size(), std::nanf(""));
    const LaunchRecord r = simulate_matmul_bf16(simulator, k, matmul_kernel_info(k).configs[0], p.args(C.data()));
    ASSERT_TRUE(r.ok()) << r.status.describe();
    EXPECT_EQ(C, p.ref) << matmul_kernel_info(k).id;
  }
}

// One missing term of K out of the sum fails the check (the tolerance is FP32 accumulation's,
// not BF16 rounding's: both sides multiply the same BF16 numbers).
TEST(TcSim, ADroppedTermFailsTheCheck) {
  const Bf16Problem p(64, 64, 200, Pattern::Uniform, test_seed() + 5);
  std::vector<float> C(p.ref.size());
  for (int i = 0; i < p.M; ++i)
    for (int j = 0; j < p.N; ++j) {
      double s = 0;
      for (int k = 1; k < p.K; ++k) s += static_cast<double>(p.A[i * p.K + k]) * p.B[k * p.N + j];  // k = 0 dropped
      C[i * p.N + j] = static_cast<float>(s);
    }
  EXPECT_FALSE(verify(C.data(), p.ref.data(), p.M, p.N, p.scale).passed);
}

TEST(TcSim, FloatEntryPointsRefuseTheOtherPrecision) {
  sim::GridSimulator simulator(1);
  std::vector<float> A(16), B(16), C(16);
  const LaunchRecord r =
      simulate_matmul(simulator, MatmulKernel::Tc2MmaSync, matmul_kernel_info(MatmulKernel::Tc2MmaSync).configs[0],
                      A.data(), B.data(), C.data(), 4, 4, 4);
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.status.message.find("BF16"), std::string::npos) << r.status.describe();
}

// ---- The lab's precision setting -----------------------------------------------------------

bs::lab::Backend cpu_backend() {
  bs::lab::Backend b;
  b.kind = bs::BackendKind::CpuSimulation;
  b.sim_workers = 2;
  b.limits = sim::simulator_limits(2);
  b.label = "CPU simulation";
  return b;
}

std::set<std::string> ids(const bs::lab::Lab& lab) {
  std::set<std::string> s;
  for (const auto& k : lab.kernels()) s.insert(k.id);
  return s;
}

// Issue 34: the lab makes A and B in place (fill_matrix, no zero-filled copies); they are the
// counter-based matrices of their seeds, the reference is the CPU product of them, and how they
// were made is itemised step by step (the sweep's process phases print it).
TEST(TcLab, RandomMatricesAreTheSeedsAndTheirMakingIsItemised) {
  auto lab = MatmulLab::create(cpu_backend());
  ASSERT_TRUE(lab.ok());
  MatmulLab& m = **lab;
  ASSERT_TRUE(m.set_random_problem("37x29x53").ok());
  const MatrixSpec s = m.spec();
  const auto A = generate_matrix(37, 53, s.a, s.seed), B = generate_matrix(53, 29, s.b, s.seed + 1);
  EXPECT_TRUE(std::ranges::equal(m.a(), A));
  EXPECT_TRUE(std::ranges::equal(m.b(), B));
  std::vector<float> ref(37 * 29);
  ASSERT_TRUE(cpu_reference(A.data(), B.data(), ref.data(), 37, 29, 53).ok());
  EXPECT_TRUE(std::ranges::equal(m.reference(), ref));
  std::vector<std::string> steps;
  for (const auto& [name, seconds] : m.problem().made.steps) {
    steps.push_back(name);
    EXPECT_GE(seconds, 0.0) << name;
  }
  EXPECT_EQ(steps,
            (std::vector<std::string>{"generate on the host", "upload", "CPU reference", "error scale on the host"}));
}

TEST(TcLab, PrecisionSwapsTheLadderAndTheNumbers) {
  auto lab = MatmulLab::create(cpu_backend());
  ASSERT_TRUE(lab.ok());
  MatmulLab& m = **lab;
  const std::uint64_t seed = test_seed() & 0xffffffu;
  ASSERT_TRUE(m.set_matrices({45, 77, 51, Pattern::Uniform, Pattern::Normal, seed}).ok());
  const std::set<std::string> fp32 = ids(m);
  EXPECT_TRUE(fp32.count("k7_warptile"));
  EXPECT_FALSE(fp32.count("tc1_wmma"));
  const std::vector<float> a32(m.a().begin(), m.a().end());
  const auto version = m.kernels_version();

  EXPECT_FALSE(m.set_setting("precision", "fp16").ok());  // refused, nothing changed
  EXPECT_EQ(ids(m), fp32);
  EXPECT_EQ(m.kernels_version(), version);

  ASSERT_TRUE(m.set_setting("precision", "bf16").ok());
  EXPECT_NE(m.kernels_version(), version);
  const std::set<std::string> bf16 = ids(m);
  for (const MatmulKernelInfo& k : matmul_kernels(Precision::Bf16)) EXPECT_TRUE(bf16.count(k.id)) << k.id;
  EXPECT_FALSE(bf16.count("k7_warptile"));
  ASSERT_TRUE(m.ready());
  EXPECT_EQ(m.spec().seed, seed);  // the same matrices, rounded
  for (std::size_t i = 0; i < a32.size(); ++i) { ASSERT_EQ(m.a()[i], bf16_to_float(float_to_bf16(a32[i]))) << i; }
  EXPECT_EQ(m.setting_values().front().second, "bf16");

  for (const char* id : {"tc1_wmma", "tc2_mma_sync"}) {
    const LaunchRecord r = m.run(id, m.default_config(*m.find_kernel(id)), {});
    ASSERT_TRUE(r.ok()) << id << ": " << r.status.describe();
    EXPECT_EQ(r.check.state, bs::Check::State::Passed) << id << ": " << r.check.note;
    EXPECT_NE(r.check.note.find("BF16"), std::string::npos);
    EXPECT_NE(r.problem.find("bf16"), std::string::npos);
    EXPECT_DOUBLE_EQ(r.bytes_moved, matmul_compulsory_bytes(45, 77, 51, Precision::Bf16));
  }
  for (const char* id :
       {"tc3_wgmma", "tc4_warp_specialized", "tc5_persistent", "tc6_cluster_multicast", "tc7_tma_store"}) {
    const LaunchRecord r = m.run(id, m.default_config(*m.find_kernel(id)), {});
    EXPECT_TRUE(r.refused) << id;
    EXPECT_NE(r.status.message.find("Hopper"), std::string::npos) << r.status.describe();
    EXPECT_FALSE(r.status.hint.empty());
  }
  // An FP32 rung asked for by name while the problem is BF16: refused with the setting to use.
  const LaunchRecord wrong = m.plan("k1_naive", {});
  EXPECT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status.hint.find("precision=fp32"), std::string::npos) << wrong.status.describe();

  ASSERT_TRUE(m.set_setting("precision", "fp32").ok());
  EXPECT_EQ(ids(m), fp32);
  EXPECT_TRUE(std::ranges::equal(m.a(), a32));
}

// ---- Owners of the Hopper rungs (no simulator body: checked for consistency here, recorded on
//      the GPU by tests/matmul/test_matmul_gpu.cpp) ----------------------------------------------

TEST(TcOwner, HopperRungsOwnEveryElementOnceAndListIt) {
  const int M = 300, N = 530;
  for (const MatmulKernelInfo& info : matmul_kernels(Precision::Bf16)) {
    if (info.simulated) continue;
    SCOPED_TRACE(info.id);
    bs::LaunchConfig lc = matmul_launch_config(info.kernel, info.configs[0], M, N, 64);
    if (info.persistent) lc.grid.x = lc.cluster.x * 2;                     // fewer clusters than tiles: blocks loop
    std::map<std::tuple<unsigned, unsigned, unsigned, int>, int> holders;  // (block, thread, reg)
    for (int row = 0; row < M; row += 3)
      for (int col = 0; col < N; col += 5) {
        auto o = element_owner(info.kernel, info.configs[0], M, N, row, col, &lc);
        ASSERT_TRUE(o.ok()) << o.status().describe();
        ASSERT_GE(o->reg, 0);
        ASSERT_LT(o->linear_thread, info.configs[0].block.x);
        ASSERT_GE(o->linear_thread, info.id == "tc3_wgmma" ? 0u : 128u);  // not the producer
        ASSERT_LT(o->block.x, lc.grid.x);
        bool listed = false;
        for (const CRect& r : o->outputs)
          listed |= row >= r.row && row < r.row + r.rows && col >= r.col && col < r.col + r.cols;
        ASSERT_TRUE(listed) << row << "," << col;
        const auto key = std::tuple{o->block.x, o->block.y, o->linear_thread, o->reg};
        if (!info.persistent) {
          ASSERT_TRUE(holders.emplace(key, row * N + col).second) << "two elements in one register";
        }
      }
  }
}

}  // namespace
