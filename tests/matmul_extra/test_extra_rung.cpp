// A rung added in tests with one file (k1u_unroll2.hpp) and one line (CMakeLists.txt) joins the
// lab's kernel list, runs on the simulator and matches a reference computed here (double sums,
// not the lab's reference), comes out of the bench as a record, and answers the views' queries
// (who owns an element, the warp's global requests, the overlay's keys) - with nothing in the
// product naming it. The expectations come from the rung's index map written out here:
// row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "../matmul/matmul_test_support.hpp"
#include "lab/bench.hpp"
#include "lab/report.hpp"
#include "labs/matmul/matmul_fragments.hpp"
#include "labs/matmul/matmul_lab.hpp"

namespace {

using namespace bs;
using namespace bs::matmul;

constexpr const char* kId = "k1u_unroll2";

std::unique_ptr<MatmulLab> simulator_lab(const MatrixSpec& spec) {
  lab::Backend cpu;
  cpu.kind = BackendKind::CpuSimulation;
  auto l = MatmulLab::create(cpu);
  EXPECT_TRUE(l.ok()) << l.status().describe();
  if (!l.ok()) return nullptr;
  EXPECT_TRUE(l.value()->set_matrices(spec).ok());
  return std::move(l.value());
}

// Odd sizes (K odd: the unrolled loop's tail runs) and fresh data each run.
MatrixSpec odd_problem() {
  std::mt19937_64 rng(bs::matmul::testing::test_seed());
  std::uniform_int_distribution<int> size(17, 71);
  MatrixSpec s;
  s.M = size(rng), s.N = size(rng), s.K = size(rng) | 1;
  s.seed = rng();
  return s;
}

TEST(ExtraRung, JoinsTheLadderWithTheDefaultsOfWhatItLacks) {
  const MatmulKernelInfo* info = find_matmul_kernel(kId);
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(&matmul_kernels().back(), info);  // after the ladder's last rung
  EXPECT_EQ(info->kernel, static_cast<MatmulKernel>(kMatmulKernelCount - 1));
  EXPECT_EQ(matmul_kernels(Precision::Fp32).back().id, kId);
  EXPECT_FALSE(info->shared_model);
  EXPECT_FALSE(info->fragments);
  EXPECT_FALSE(info->pipeline);
  EXPECT_EQ(info->swizzle.plain, nullptr);
  auto lab = simulator_lab(odd_problem());
  ASSERT_TRUE(lab);
  const lab::KernelInfo* k = lab->find_kernel(kId);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->file, "tests/matmul_extra/k1u_unroll2.hpp");
}

TEST(ExtraRung, RunsOnTheSimulatorAndMatchesAnIndependentReference) {
  const MatrixSpec spec = odd_problem();
  auto lab = simulator_lab(spec);
  ASSERT_TRUE(lab);
  for (Dim3 block : {Dim3{16, 16, 1}, Dim3{32, 8, 1}, Dim3{7, 5, 1}}) {
    KernelConfig cfg;
    cfg.block = block;
    lab::RunOptions o;
    o.timing = TimingPolicy::once();
    const LaunchRecord r = lab->run(kId, cfg, o);
    ASSERT_TRUE(r.ok()) << r.status.describe();
    EXPECT_EQ(r.kernel, kId);
    EXPECT_EQ(r.check.state, Check::State::Passed);
    EXPECT_EQ(r.config.grid, (Dim3{(static_cast<unsigned>(spec.N) + block.x - 1) / block.x,
                                   (static_cast<unsigned>(spec.M) + block.y - 1) / block.y, 1}));
    std::vector<float> c(static_cast<std::size_t>(spec.M) * spec.N);
    ASSERT_EQ(lab->output_bytes(), c.size() * sizeof(float));
    ASSERT_TRUE(lab->download_output(c.data()).ok());
    const std::span<const float> A = lab->a(), B = lab->b();
    int bad = 0;
    for (int i = 0; i < spec.M; ++i)
      for (int j = 0; j < spec.N; ++j) {
        double ref = 0, mag = 0;
        for (int q = 0; q < spec.K; ++q) {
          const double p = static_cast<double>(A[static_cast<std::size_t>(i) * spec.K + q]) *
                           B[static_cast<std::size_t>(q) * spec.N + j];
          ref += p, mag += std::fabs(p);
        }
        const double got = c[static_cast<std::size_t>(i) * spec.N + j];
        if (std::fabs(got - ref) > 1e-6 + 2.0 * spec.K * FLT_EPSILON * mag && bad++ < 5)
          ADD_FAILURE() << "C[" << i << "][" << j << "] = " << got << ", reference " << ref << " (block "
                        << to_string(block) << ")";
      }
    EXPECT_EQ(bad, 0);
  }
}

TEST(ExtraRung, TheBenchRunsItAndWritesItsRecord) {
  auto lab = simulator_lab(odd_problem());
  ASSERT_TRUE(lab);
  lab::BenchSpec spec;
  spec.kernels = {kId};
  spec.blocks = {Dim3{16, 16, 1}, Dim3{32, 8, 1}};
  spec.timing = TimingPolicy::once();
  const std::vector<LaunchRecord> records = lab::run_bench(*lab, spec);
  ASSERT_EQ(records.size(), 2u);
  for (const LaunchRecord& r : records) {
    EXPECT_EQ(r.kernel, kId);
    EXPECT_STREQ(lab::outcome(r), "ok");
  }
  lab::ResultsHeader h;
  h.kind = "bench", h.lab = "matmul";
  const std::string json = lab::results_json(h, records, ThroughputUnit::GflopPerS, lab->kernels());
  EXPECT_NE(json.find("\"k1u_unroll2\""), std::string::npos);
}

TEST(ExtraRung, AnswersTheViewsQueries) {
  const MatrixSpec spec = odd_problem();
  auto lab = simulator_lab(spec);
  ASSERT_TRUE(lab);
  const Dim3 block{8, 4, 1};
  KernelConfig cfg;
  cfg.block = block;
  const LaunchRecord plan = lab->plan(kId, cfg);
  ASSERT_TRUE(plan.ok()) << plan.status.describe();
  std::mt19937_64 rng(bs::matmul::testing::test_seed() + 7);
  for (int n = 0; n < 20; ++n) {
    const long long x = static_cast<long long>(rng() % static_cast<unsigned>(spec.N));  // column
    const long long y = static_cast<long long>(rng() % static_cast<unsigned>(spec.M));  // row
    auto o = lab->owner(plan, x, y);
    ASSERT_TRUE(o.has_value());
    EXPECT_EQ(o->thread.block, (Dim3{static_cast<unsigned>(x / block.x), static_cast<unsigned>(y / block.y), 0}));
    EXPECT_EQ(o->thread.thread, (Dim3{static_cast<unsigned>(x % block.x), static_cast<unsigned>(y % block.y), 0}));
    // The Memory tab: this warp's loads at step k, lane by lane from the index map.
    const int k = static_cast<int>(rng() % static_cast<unsigned>(spec.K));
    const auto accesses = lab->warp_accesses(plan, o->thread.block, o->thread.warp_in_block, k);
    ASSERT_EQ(accesses.size(), 3u);  // A, B, C
    const unsigned lane = o->thread.lane;
    EXPECT_EQ(accesses[0].lane_address[lane], (y * spec.K + k) * 4);
    EXPECT_EQ(accesses[1].lane_address[lane], (static_cast<long long>(k) * spec.N + x) * 4);
    EXPECT_EQ(accesses[2].lane_address[lane], (y * spec.N + x) * 4);
  }
  // The overlay's keys: lane of each element of a block's tile.
  auto keys = fragment_keys(find_matmul_kernel(kId)->kernel, make_block_config(find_matmul_kernel(kId)->kernel, block),
                            FragmentColour::Lane);
  ASSERT_TRUE(keys.ok()) << keys.status().describe();
  ASSERT_EQ(keys->rows, static_cast<int>(block.y));
  ASSERT_EQ(keys->cols, static_cast<int>(block.x));
  for (int r = 0; r < keys->rows; ++r)
    for (int c = 0; c < keys->cols; ++c)
      EXPECT_EQ(keys->keys[static_cast<std::size_t>(r) * keys->cols + c], static_cast<unsigned>(r * block.x + c) % 32);
}

}  // namespace
