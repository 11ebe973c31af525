// The matmul lab on the CUDA backend (label gpu): every rung and every compiled configuration at
// every test size, against the double-accumulating CPU reference computed here; cuBLAS against
// the same reference; what ran counted on the device (the traced wrappers' census of blocks and
// threads) against grids computed here by hand; refusals before launch; out-of-memory sizes as
// messages. Skips visibly without a device.
//
// Suites: GpuLadder (all sizes), GpuLadderSmall (1, 7, 33 and non-square: the subset
// gpu_check.sh runs under compute-sanitizer), GpuLab (API behaviour).
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <ostream>

#include "device/cuda_device.hpp"
#include "labs/matmul/matmul.hpp"
#include "labs/matmul/matmul_lab.hpp"
#include "gpu_lab_support.hpp"
#include "matmul_test_support.hpp"
#include "skips.hpp"

namespace bs::matmul {
namespace {

using testing::Problem;
using testing::Shape;

using testing::SharedLab;
SharedLab& shared_lab() { return testing::shared_gpu_lab(Precision::Fp32); }
[[maybe_unused]] ::testing::Environment* const release_lab_at_end =
    ::testing::AddGlobalTestEnvironment(new testing::ReleaseGpuLabAtEnd(&shared_lab));

#define REQUIRE_GPU()                      \
  MatmulLab* lab = shared_lab().lab.get(); \
  if (!lab) BS_SKIP_NO_GPU() << "no usable CUDA device: " << shared_lab().why_not.describe()

// The grid each rung launches, computed here by hand from the configuration.
Dim3 hand_grid(MatmulKernel k, const MatmulConfig& c, const Shape& s) {
  auto cd = [](long long n, long long b) { return static_cast<unsigned>((n + b - 1) / b); };
  switch (k) {
    case MatmulKernel::Naive: return {cd(s.N, c.block.x), cd(s.M, c.block.y), 1};
    case MatmulKernel::Uncoalesced: return {cd(s.M, c.block.x), cd(s.N, c.block.y), 1};
    case MatmulKernel::SmemTiled: return {cd(s.N, c.block.x), cd(s.M, c.block.x), 1};
    default: return {cd(s.N, c.tile.BN), cd(s.M, c.tile.BM), 1};
  }
}

void run_every_configuration(MatmulLab& lab, const Shape& s) {
  MatrixSpec spec{s.M, s.N, s.K, Pattern::Uniform, Pattern::Uniform, (testing::test_seed() & 0xffffff) | 1};
  const Problem p(s, Pattern::Uniform, spec.seed);
  ASSERT_TRUE(lab.set_matrices(spec).ok()) << lab.status().describe();
  std::vector<float> got(static_cast<std::size_t>(s.M) * s.N);
  for (const auto& k : matmul_kernels(Precision::Fp32))  // BF16: test_matmul_tc_gpu.cpp
    for (std::size_t i = 0; i < k.configs.size(); ++i) {
      const MatmulConfig& c = k.configs[i];
      KernelConfig kc;
      kc.block = c.block;
      kc.compiled = k.kernel == MatmulKernel::Naive || k.kernel == MatmulKernel::Uncoalesced ? -1 : static_cast<int>(i);
      lab::RunOptions opt;
      opt.trace_schedule = true;
      const LaunchRecord r = lab.run(k.id, kc, opt);
      ASSERT_TRUE(r.ok()) << testing::config_name(k.kernel, c) << " at " << s.name() << ": " << r.status.describe();
      EXPECT_EQ(r.backend, BackendKind::Cuda);
      EXPECT_GT(r.kernel_ms(), 0.0);
      EXPECT_TRUE(r.attributes_measured);
      const Dim3 g = hand_grid(k.kernel, c, s);
      unsigned long long threads = 0;
      for (const auto& b : r.schedule) threads += b.threads;
      EXPECT_EQ(r.schedule.size(), g.volume()) << testing::config_name(k.kernel, c);
      EXPECT_EQ(threads, g.volume() * c.block.volume()) << testing::config_name(k.kernel, c);
      ASSERT_TRUE(lab.download_output(got.data()).ok());
      const Verification v = verify(got.data(), p.ref.data(), s.M, s.N, p.scale);
      EXPECT_TRUE(v.passed) << testing::config_name(k.kernel, c) << " at " << s.name() << " (seed " << p.seed
                            << "): " << v.summary();
      EXPECT_TRUE(r.check.passed()) << r.check.summary();
    }
  const LaunchRecord cublas = lab.run(kCublasId, KernelConfig{Dim3{0, 0, 0}, 0}, {});
  ASSERT_TRUE(cublas.ok()) << cublas.status.describe();
  ASSERT_TRUE(lab.download_output(got.data()).ok());
  const Verification v = verify(got.data(), p.ref.data(), s.M, s.N, p.scale);
  EXPECT_TRUE(v.passed) << "cuBLAS at " << s.name() << ": " << v.summary();
}

}  // namespace
}  // namespace bs::matmul

namespace bs::matmul::testing {
void PrintTo(const Shape& s, std::ostream* os) { *os << s.name(); }
}  // namespace bs::matmul::testing

namespace bs::matmul {
namespace {

class GpuLadder : public ::testing::TestWithParam<Shape> {};
class GpuLadderSmall : public ::testing::TestWithParam<Shape> {};

TEST_P(GpuLadder, EveryConfigurationMatchesCpuReference) {
  REQUIRE_GPU();
  run_every_configuration(*lab, GetParam());
}
TEST_P(GpuLadderSmall, EveryConfigurationMatchesCpuReference) {
  REQUIRE_GPU();
  run_every_configuration(*lab, GetParam());
}

std::string shape_name(const ::testing::TestParamInfo<Shape>& info) { return info.param.name(); }

INSTANTIATE_TEST_SUITE_P(Sizes, GpuLadder,
                         ::testing::Values(Shape{1, 1, 1}, Shape{7, 7, 7}, Shape{31, 31, 31}, Shape{32, 32, 32},
                                           Shape{33, 33, 33}, Shape{127, 127, 127}, Shape{128, 128, 128},
                                           Shape{129, 129, 129}, Shape{1000, 1000, 1000}, Shape{1023, 1023, 1023},
                                           Shape{1025, 1025, 1025}, Shape{1000, 1025, 129}, Shape{129, 1023, 1001},
                                           Shape{31, 1000, 1025}, Shape{1025, 7, 513}, Shape{513, 1031, 2}),
                         shape_name);
INSTANTIATE_TEST_SUITE_P(Sizes, GpuLadderSmall,
                         ::testing::Values(Shape{1, 1, 1}, Shape{7, 7, 7}, Shape{33, 33, 33}, Shape{37, 53, 41},
                                           Shape{130, 67, 129}),
                         shape_name);

// Misaligned views: a kernel that used float4 on a pointer that is not 16-byte aligned, or on
// rows whose length is not a multiple of 4, would fault or read wrong values. K and N of 4k+1,
// 4k+2, 4k+3 exercise the scalar paths at sizes with many full tiles.
TEST(GpuLab, OddRowLengthsTakeTheScalarPaths) {
  REQUIRE_GPU();
  for (const Shape s : {Shape{256, 257, 258}, Shape{300, 259, 129}, Shape{129, 130, 131}})
    run_every_configuration(*lab, s);
}

TEST(GpuLab, RefusedConfigurationsAreNotLaunched) {
  REQUIRE_GPU();
  ASSERT_TRUE(lab->set_matrices({64, 64, 64}).ok());
  LaunchRecord r = lab->run("k1_naive", KernelConfig{Dim3{64, 32, 1}}, {});
  EXPECT_FALSE(r.ok());
  EXPECT_TRUE(r.refused);
  EXPECT_EQ(r.timing.repeats(), 0);
  r = lab->run("k7_warptile", KernelConfig{Dim3{256, 1, 1}, 99}, {});
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.status.message.find("no configuration 99"), std::string::npos) << r.status.describe();
  // Still usable afterwards.
  r = lab->run("k1_naive", KernelConfig{Dim3{16, 16, 1}}, {});
  ASSERT_TRUE(r.ok()) << r.status.describe();
  EXPECT_TRUE(r.check.passed()) << r.check.summary();
}

TEST(GpuLab, OutOfMemoryIsAMessageAndTheLabRecovers) {
  REQUIRE_GPU();
  const Status s = lab->set_matrices({200000, 200000, 200000});  // 3 x 149 GiB + 149 GiB
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message.find("MiB"), std::string::npos) << s.describe();
  // Device memory (what is free on the GPU) or, on a machine whose host has less than twice the
  // GPU's memory (an H200 host with 128 GiB), the host check that comes first.
  EXPECT_TRUE(s.message.find("free") != std::string::npos || s.message.find("host memory") != std::string::npos)
      << s.describe();
  // Nothing to run on, and it says so.
  const LaunchRecord r = lab->run("k1_naive", KernelConfig{Dim3{16, 16, 1}}, {});
  EXPECT_FALSE(r.ok());
  ASSERT_TRUE(lab->set_matrices({33, 17, 9}).ok());
  const LaunchRecord k7 = lab->run("k7_warptile", KernelConfig{Dim3{256, 1, 1}, 0}, {});
  ASSERT_TRUE(k7.ok()) << k7.status.describe();
  EXPECT_TRUE(k7.check.passed()) << k7.check.summary();
}

TEST(GpuLab, TimingPolicyAndTheCublasCeiling) {
  REQUIRE_GPU();
  ASSERT_TRUE(lab->set_matrices({512, 384, 256}).ok());
  lab::RunOptions opt;
  opt.timing = TimingPolicy::fixed(5, 1);
  opt.timing.flush_l2 = true;
  const LaunchRecord r = lab->run("k7_warptile", KernelConfig{Dim3{256, 1, 1}, 0}, opt);
  ASSERT_TRUE(r.ok()) << r.status.describe();
  EXPECT_GT(r.gflops(), 0.0);
  EXPECT_EQ(r.timing.repeats(), 5);
  EXPECT_TRUE(r.timing.l2_flushed);
  EXPECT_TRUE(r.check.passed()) << r.check.summary();
  EXPECT_GT(lab->peak_gflops(), 0.0);
  EXPECT_GT(lab->reference_ms(), 0.0);
  std::cout << "[ device  ] " << lab->peak_note() << "\n";
}

}  // namespace
}  // namespace bs::matmul
