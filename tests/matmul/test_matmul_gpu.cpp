// The ladder on the GPU (label gpu): every rung and every compiled configuration at every test
// size, against the double-accumulating CPU reference; cuBLAS against the same reference;
// refusals before launch; out-of-memory sizes as messages. Skips visibly without a device.
//
// Suites: GpuLadder (all sizes), GpuLadderSmall (1, 7, 33 and one non-square: the subset
// gpu_check.sh runs under compute-sanitizer), GpuLab (API behaviour).
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <ostream>

#include "labs/matmul/matmul.hpp"
#include "labs/matmul/matmul_cuda.hpp"
#include "matmul_test_support.hpp"

namespace bs::matmul {
namespace {

using testing::Problem;
using testing::Shape;

// One lab for the whole process: creating a CUDA context and a cuBLAS handle per test would
// dominate the run time. Null (with the reason) when there is no usable device.
struct SharedLab {
  std::unique_ptr<CudaMatmulLab> lab;
  Status why_not;
};
SharedLab& shared_lab() {
  static SharedLab shared = [] {
    SharedLab s;
    auto created = CudaMatmulLab::create(0);
    if (created) s.lab = std::move(created.value());
    else s.why_not = created.status();
    return s;
  }();
  return shared;
}

// Releases the lab (buffers, cuBLAS handle, context use) after the last test, before the CUDA
// runtime tears down at exit, so compute-sanitizer's leak check sees everything freed.
class ReleaseLabAtEnd : public ::testing::Environment {
 public:
  void TearDown() override { shared_lab().lab.reset(); }
};
[[maybe_unused]] ::testing::Environment* const release_lab_at_end =
    ::testing::AddGlobalTestEnvironment(new ReleaseLabAtEnd);

#define REQUIRE_GPU()                                                                       \
  CudaMatmulLab* lab = shared_lab().lab.get();                                              \
  if (!lab) GTEST_SKIP() << "no usable CUDA device: " << shared_lab().why_not.describe()

void run_every_configuration(CudaMatmulLab& lab, const Shape& s) {
  const Problem p(s);
  ASSERT_TRUE(lab.set_matrices(p.A.data(), p.B.data(), s.M, s.N, s.K).ok());
  for (const auto& k : matmul_kernels())
    for (const auto& c : k.configs) {
      const LaunchRecord r = lab.run(k.kernel, c, 1, 0);
      ASSERT_TRUE(r.ok()) << testing::config_name(k.kernel, c) << " at " << s.name() << ": "
                          << r.status.describe();
      EXPECT_EQ(r.config, matmul_launch_config(k.kernel, c, s.M, s.N, s.K));
      EXPECT_EQ(r.backend, BackendKind::Cuda);
      EXPECT_GT(r.kernel_ms(), 0.0);
      const Verification v = lab.verify_against(p.ref.data());
      EXPECT_TRUE(v.passed) << testing::config_name(k.kernel, c) << " at " << s.name() << " (seed "
                            << p.seed << "): " << v.summary();
    }
  const LaunchRecord cublas = lab.run_cublas(1, 0);
  ASSERT_TRUE(cublas.ok()) << cublas.status.describe();
  std::vector<float> ref(p.ref.size());
  ASSERT_TRUE(lab.download_reference(ref.data()).ok());
  const Verification v = verify(ref.data(), p.ref.data(), s.M, s.N, p.scale);
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

INSTANTIATE_TEST_SUITE_P(
    Sizes, GpuLadder,
    ::testing::Values(Shape{1, 1, 1}, Shape{7, 7, 7}, Shape{31, 31, 31}, Shape{32, 32, 32},
                      Shape{33, 33, 33}, Shape{127, 127, 127}, Shape{128, 128, 128},
                      Shape{129, 129, 129}, Shape{1000, 1000, 1000}, Shape{1023, 1023, 1023},
                      Shape{1025, 1025, 1025}, Shape{1000, 1025, 129}, Shape{129, 1023, 1001},
                      Shape{31, 1000, 1025}, Shape{1025, 7, 513}, Shape{513, 1031, 2}),
    shape_name);
INSTANTIATE_TEST_SUITE_P(Sizes, GpuLadderSmall,
                         ::testing::Values(Shape{1, 1, 1}, Shape{7, 7, 7}, Shape{33, 33, 33},
                                           Shape{37, 53, 41}, Shape{130, 67, 129}),
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
  const Problem p({64, 64, 64});
  ASSERT_TRUE(lab->set_matrices(p.A.data(), p.B.data(), 64, 64, 64).ok());
  LaunchRecord r = lab->run(MatmulKernel::SmemTiled, make_block_config(MatmulKernel::SmemTiled, {16, 8, 1}));
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.status.describe().find("not square"), std::string::npos) << r.status.describe();
  EXPECT_EQ(r.kernel_ms(), 0.0);
  r = lab->run(MatmulKernel::Naive, make_block_config(MatmulKernel::Naive, {64, 32, 1}));
  EXPECT_FALSE(r.ok());
  r = lab->run(MatmulKernel::Warptile, make_config(MatmulKernel::Warptile, {64, 64, 8, 4, 4, 32, 32}));
  EXPECT_FALSE(r.ok());
  // Still usable afterwards.
  r = lab->run(MatmulKernel::Naive, make_block_config(MatmulKernel::Naive, {16, 16, 1}));
  ASSERT_TRUE(r.ok()) << r.status.describe();
  EXPECT_TRUE(lab->verify_against(p.ref.data()).passed);
}

TEST(GpuLab, OutOfMemoryIsAMessage) {
  REQUIRE_GPU();
  const Status s = lab->reserve(200000, 200000, 200000);  // 3 x 149 GiB + 149 GiB
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message.find("MiB"), std::string::npos) << s.describe();
  EXPECT_NE(s.message.find("free"), std::string::npos) << s.describe();
  EXPECT_EQ(s.code, "cudaErrorMemoryAllocation");
  // Nothing to run on, and it says so.
  const LaunchRecord r = lab->run(MatmulKernel::Naive, make_block_config(MatmulKernel::Naive, {16, 16, 1}));
  EXPECT_FALSE(r.ok());
  // And the lab recovers.
  const Problem p({33, 17, 9});
  ASSERT_TRUE(lab->set_matrices(p.A.data(), p.B.data(), 33, 17, 9).ok());
  ASSERT_TRUE(lab->run(MatmulKernel::Warptile, matmul_kernel_info(MatmulKernel::Warptile).configs[0]).ok());
  EXPECT_TRUE(lab->verify_against(p.ref.data()).passed);
}

TEST(GpuLab, VerifyAgainstCublasAndTimingMedian) {
  REQUIRE_GPU();
  const Problem p({512, 384, 256});
  ASSERT_TRUE(lab->set_matrices(p.A.data(), p.B.data(), 512, 384, 256).ok());
  const auto& k7 = matmul_kernel_info(MatmulKernel::Warptile).configs[0];
  const LaunchRecord r = lab->run(MatmulKernel::Warptile, k7, 5, 1);
  ASSERT_TRUE(r.ok()) << r.status.describe();
  EXPECT_GT(r.gflops(), 0.0);
  EXPECT_NE(r.timing.clock.find("median of 5"), std::string::npos) << r.timing.clock;
  const Verification v = lab->verify_against_cublas();
  EXPECT_TRUE(v.passed) << v.summary();
  std::vector<float> c(512 * 384);
  ASSERT_TRUE(lab->download_c(c.data()).ok());
  EXPECT_TRUE(verify(c.data(), p.ref.data(), 512, 384, p.scale).passed);
  EXPECT_NE(lab->device_c(), nullptr);
  const CudaDeviceReport& d = lab->device_report();
  EXPECT_GT(d.fp32_peak_gflops, 0.0);
  EXPECT_GT(d.clock_khz, 0.0);
  std::cout << "[ device  ] " << d.name << ": " << d.peak_formula << "\n";
}

}  // namespace
}  // namespace bs::matmul
