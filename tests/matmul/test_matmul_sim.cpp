// Every rung of the ladder on the CPU grid simulator, against the CPU reference, with fresh
// random data; plus barrier tests that fail if the simulator ever let a thread past a barrier
// early.
//
// Which sizes run here. CI has 2 cores and the matmul suite must stay under ~3 minutes; the
// simulator runs this whole selection in about 10 s (ctest -j2), so it can be broad:
//   - EVERY compiled configuration of every rung at 1, 7, 31, 32, 33, 127, 128 and 129 cubed and
//     at 37x53x41, 129x67x131 and 65x130x127 (M, N, K all different): partial tiles along every
//     edge, K shorter and longer than BK, tile-multiple and one-off sizes, one block and many.
//   - The first configuration of every rung and every rung-7 configuration also at 257x255x258
//     (several 128-wide tiles in each direction with ragged edges, 33 k-tiles of 8).
//   - Not here: 1000, 1023, 1025 (a 1000^3 product is 7x the simulator's 2^27 multiply-add cap,
//     and would take minutes per configuration). The GPU test (test_matmul_gpu.cpp, label gpu)
//     runs every configuration at all of those sizes.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <memory>
#include <ostream>
#include <tuple>
#include <vector>

#include "labs/matmul/k3_smem_tiled.hpp"
#include "labs/matmul/matmul.hpp"
#include "matmul_test_support.hpp"

namespace bs::matmul {
namespace {

using testing::Problem;
using testing::Shape;

// One test per (rung, configuration): ctest runs each test in its own process, so grouping the
// shapes keeps the per-process cost (fiber stacks, thread start-up) out of the CI budget.
struct SimCase {
  MatmulKernel kernel;
  MatmulConfig config;
  std::vector<Shape> shapes;
};

void PrintTo(const SimCase& c, std::ostream* os) { *os << testing::config_name(c.kernel, c.config); }

std::vector<SimCase> sim_cases() {
  const std::vector<Shape> every_config = {{1, 1, 1},    {7, 7, 7},       {31, 31, 31},    {32, 32, 32},
                                           {33, 33, 33}, {127, 127, 127}, {128, 128, 128}, {129, 129, 129},
                                           {37, 53, 41}, {129, 67, 131},  {65, 130, 127}};
  const Shape larger = {257, 255, 258};
  std::vector<SimCase> cases;
  for (const auto& k : matmul_kernels(Precision::Fp32))  // BF16: test_matmul_tc.cpp
    for (std::size_t i = 0; i < k.configs.size(); ++i) {
      SimCase c{k.kernel, k.configs[i], every_config};
      if (i == 0 || k.kernel == MatmulKernel::Warptile) c.shapes.push_back(larger);
      cases.push_back(c);
    }
  return cases;
}

// Inputs and reference per shape, computed once per process.
const Problem& problem_for(const Shape& s) {
  static std::map<std::tuple<int, int, int>, std::unique_ptr<Problem>> cache;
  auto& slot = cache[{s.M, s.N, s.K}];
  if (!slot) slot = std::make_unique<Problem>(s);
  return *slot;
}

class SimLadder : public ::testing::TestWithParam<SimCase> {};

TEST_P(SimLadder, MatchesCpuReferenceAtEverySize) {
  const SimCase& c = GetParam();
  sim::GridSimulator simulator(2);
  for (const Shape& shape : c.shapes) {
    SCOPED_TRACE(shape.name());
    const Problem& p = problem_for(shape);
    std::vector<float> C(p.ref.size(), std::nanf(""));  // NaN: an output nobody writes fails
    const LaunchRecord r =
        simulate_matmul(simulator, c.kernel, c.config, p.A.data(), p.B.data(), C.data(), shape.M, shape.N, shape.K);
    ASSERT_TRUE(r.ok()) << r.status.describe();
    EXPECT_EQ(r.config, matmul_launch_config(c.kernel, c.config, shape.M, shape.N, shape.K));
    EXPECT_EQ(r.backend, BackendKind::CpuSimulation);
    EXPECT_DOUBLE_EQ(r.flops, 2.0 * shape.M * shape.N * shape.K);
    const Verification v = verify(C.data(), p.ref.data(), shape.M, shape.N, p.scale);
    EXPECT_TRUE(v.passed) << testing::config_name(c.kernel, c.config) << " at " << shape.name() << " (seed " << p.seed
                          << "): " << v.summary();
  }
}

std::string case_name(const ::testing::TestParamInfo<SimCase>& info) {
  std::string s = matmul_kernel_info(info.param.kernel).id + "_";
  const MatmulConfig& c = info.param.config;
  if (info.param.kernel <= MatmulKernel::SmemTiled)
    return s + "b" + std::to_string(c.block.x) + "x" + std::to_string(c.block.y);
  return s + std::to_string(c.tile.BM) + "x" + std::to_string(c.tile.BN) + "x" + std::to_string(c.tile.BK) + "_t" +
         std::to_string(c.tile.TM) + "x" + std::to_string(c.tile.TN) +
         (c.tile.WM ? "_w" + std::to_string(c.tile.WM) + "x" + std::to_string(c.tile.WN) : "") +
         (c.tile.MB ? "_mb" + std::to_string(c.tile.MB) : "");
}

INSTANTIATE_TEST_SUITE_P(Ladder, SimLadder, ::testing::ValuesIn(sim_cases()), case_name);

// Structured and integer data: exact products, so every rung must match the reference exactly
// (a wrong index shows as a wrong value, not as rounding).
TEST(SimLadderExact, EveryRungExactOnSmallIntegers) {
  const Shape s{45, 70, 39};
  const Problem p(s, Pattern::SmallIntegers);
  sim::GridSimulator simulator(2);
  for (const auto& k : matmul_kernels(Precision::Fp32)) {
    std::vector<float> C(p.ref.size(), std::nanf(""));
    const LaunchRecord r =
        simulate_matmul(simulator, k.kernel, k.configs[0], p.A.data(), p.B.data(), C.data(), s.M, s.N, s.K);
    ASSERT_TRUE(r.ok()) << k.id << ": " << r.status.describe();
    EXPECT_EQ(C, p.ref) << k.id;
  }
}

// ---- barriers ----------------------------------------------------------------------------------

// Reverses an array through shared memory: thread i writes slot i, the block waits, thread i
// reads slot n-1-i. Run thread by thread without the barrier, thread 0 would read slot n-1
// before thread n-1 wrote it (and get the zero-initialised value), so a simulator that skipped
// barriers fails this test.
struct ReverseSmem {
  float v[256];
};

template <class Ctx>
void reverse_through_shared(const Ctx& t, ReverseSmem& s, const float* in, float* out, int n) {
  const int i = static_cast<int>(t.threadIdx.x);
  const int base = static_cast<int>(t.blockIdx.x) * n;
  s.v[i] = in[base + i];
  t.sync();
  out[base + i] = s.v[n - 1 - i];
}

TEST(SimBarrier, ReverseThroughSharedMemoryNeedsTheBarrier) {
  const int n = 256, blocks = 5;
  const auto in = generate_matrix(blocks, n, Pattern::Uniform, testing::test_seed());
  std::vector<float> out(in.size(), std::nanf(""));
  sim::GridSimulator simulator(2);
  const LaunchConfig lc{Dim3{blocks, 1, 1}, Dim3{n, 1, 1}, 0};
  auto body = [&](const sim::HostCtx& t, ReverseSmem& s) { reverse_through_shared(t, s, in.data(), out.data(), n); };
  sim::SimOptions with_barriers;
  with_barriers.uses_barriers = true;
  const sim::SimResult r = simulator.run_with_shared<ReverseSmem>(lc, body, with_barriers);
  ASSERT_TRUE(r.status.ok()) << r.status.describe();
  for (int b = 0; b < blocks; ++b)
    for (int i = 0; i < n; ++i) ASSERT_EQ(out[b * n + i], in[b * n + n - 1 - i]) << b << "," << i;

  // Without barrier support the simulator must refuse, not run the threads in a row.
  std::fill(out.begin(), out.end(), std::nanf(""));
  const sim::SimResult no = simulator.run_with_shared<ReverseSmem>(lc, body, sim::SimOptions{});
  EXPECT_FALSE(no.status.ok());
}

// Rung 3's two barriers both matter: with the k-loop over several phases, a thread that ran
// ahead would overwrite a tile its neighbours still read. The tiled kernel at a size with many
// phases equals the reference only if both barriers held.
TEST(SimBarrier, TiledKernelWithManyPhasesMatchesReference) {
  const Shape s{16, 16, 16 * 9};  // one 16x16 block, nine k-phases
  const Problem p(s, Pattern::SmallIntegers);
  sim::GridSimulator simulator(1);
  std::vector<float> C(p.ref.size(), std::nanf(""));
  const LaunchRecord r =
      simulate_matmul(simulator, MatmulKernel::SmemTiled, make_block_config(MatmulKernel::SmemTiled, {16, 16, 1}),
                      p.A.data(), p.B.data(), C.data(), s.M, s.N, s.K);
  ASSERT_TRUE(r.ok()) << r.status.describe();
  EXPECT_EQ(C, p.ref);
}

// A kernel body that returns early before a barrier is undefined behaviour on the GPU; the
// simulator reports it instead of hanging or guessing. (Our kernels guard loads and stores
// instead of returning early; this pins the behaviour they rely on.)
TEST(SimBarrier, EarlyReturnBeforeBarrierIsReported) {
  sim::GridSimulator simulator(1);
  const LaunchConfig lc{Dim3{1, 1, 1}, Dim3{64, 1, 1}, 0};
  sim::SimOptions o;
  o.uses_barriers = true;
  const sim::SimResult r = simulator.run_with_shared<ReverseSmem>(
      lc,
      [](const sim::HostCtx& t, ReverseSmem& s) {
        if (t.threadIdx.x >= 60) return;  // like an unguarded "if (row >= M) return;"
        s.v[t.threadIdx.x] = 1.0f;
        t.sync();
      },
      o);
  EXPECT_FALSE(r.status.ok());
}

}  // namespace
}  // namespace bs::matmul
