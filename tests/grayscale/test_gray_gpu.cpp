// The CUDA backend: both kernels against the reference and bit-exact against the simulator (the
// same body runs in both), on odd sizes and many block shapes. Skips visibly without a GPU.
#include <gtest/gtest.h>

#include "device/cuda_device.hpp"
#include "gray_test_support.hpp"
#include "labs/grayscale/gray_lab.hpp"
#include "simulator/grid_simulator.hpp"

namespace {

using namespace bs::gray;
using namespace bs::gray::test;
using bs::Dim3;

std::unique_ptr<GrayLab> cuda_lab_or_null(std::string* why) {
  auto limits = bs::cuda_device_limits(0);
  if (!limits) {
    *why = limits.status().describe();
    return nullptr;
  }
  auto lab = make_cuda_gray_lab(0, limits.value());
  if (!lab) {
    *why = lab.status().describe();
    return nullptr;
  }
  return std::move(lab.value());
}

TEST(GrayOnGpu, BothKernelsMatchReferenceAndSimulatorBitExact) {
  std::string why;
  auto gpu = cuda_lab_or_null(&why);
  if (!gpu) GTEST_SKIP() << "no CUDA device: " << why;
  bs::sim::GridSimulator sim;
  auto cpu = make_cpu_gray_lab(sim);

  const std::vector<ImageSize> sizes{{1, 1}, {1, 5000}, {1023, 767}, {4000, 3}, {8191, 1}};
  const std::vector<Dim3> flat_blocks{{1, 1, 1}, {32, 1, 1}, {100, 1, 1}, {256, 1, 1},
                                      {1024, 1, 1}, {16, 4, 2}, {7, 3, 5}};
  const std::vector<Dim3> grid_blocks{{1, 1, 1}, {16, 16, 1}, {32, 8, 1}, {32, 32, 1},
                                      {7, 13, 1}, {256, 1, 1}, {1, 256, 1}};
  for (auto s : sizes) {
    const std::uint32_t seed = fresh_seed();
    const auto rgba = random_rgba(s.w, s.h, seed);
    ASSERT_TRUE(gpu->set_image(rgba.data(), s.w, s.h).ok());
    ASSERT_TRUE(cpu->set_image(rgba.data(), s.w, s.h).ok());
    const std::size_t n = static_cast<std::size_t>(s.w) * s.h;
    for (GrayKernel k : {GrayKernel::Flat1D, GrayKernel::Grid2D}) {
      for (Dim3 b : k == GrayKernel::Flat1D ? flat_blocks : grid_blocks) {
        SCOPED_TRACE(std::string(info(k).name) + " " + std::to_string(s.w) + "x" +
                     std::to_string(s.h) + " block " + bs::to_string(b));
        std::vector<std::uint8_t> from_gpu(n), from_cpu(n);
        auto rec = gpu->run(k, b, nullptr);
        ASSERT_TRUE(rec.ok()) << rec.status.describe();
        EXPECT_EQ(rec.backend, bs::BackendKind::Cuda);
        EXPECT_EQ(rec.config, gray_launch_config(k, b, s.w, s.h));
        EXPECT_GT(rec.kernel_ms(), 0.0);
        ASSERT_TRUE(gpu->download_result(from_gpu.data()).ok());
        ASSERT_TRUE(cpu->run(k, b, from_cpu.data()).ok());
        expect_matches_reference(rgba, s.w, s.h, from_gpu, "GPU kernel", seed);
        ASSERT_EQ(from_gpu, from_cpu) << "GPU and simulator disagree (seed " << seed << ")";
      }
    }
  }
}

TEST(GrayOnGpu, RefusedLaunchesNeverReachTheDevice) {
  std::string why;
  auto gpu = cuda_lab_or_null(&why);
  if (!gpu) GTEST_SKIP() << "no CUDA device: " << why;
  std::vector<std::uint8_t> rgba(64 * 64 * 4, 9);
  ASSERT_TRUE(gpu->set_image(rgba.data(), 64, 64).ok());
  auto rec = gpu->run(GrayKernel::Flat1D, {2048, 1, 1}, nullptr);
  EXPECT_FALSE(rec.ok());
  EXPECT_EQ(rec.status.code, "cudaErrorInvalidConfiguration");
  // The device is still healthy afterwards.
  EXPECT_TRUE(gpu->run(GrayKernel::Flat1D, {256, 1, 1}, nullptr).ok());
}

TEST(GrayOnGpu, TracedLaunchRecordsOneBlockPerRecordAndKeepsTheOutputCorrect) {
  std::string why;
  auto gpu = cuda_lab_or_null(&why);
  if (!gpu) GTEST_SKIP() << "no CUDA device: " << why;
  const std::uint32_t seed = fresh_seed();
  const int w = 1023, h = 767;
  const auto rgba = random_rgba(w, h, seed);
  ASSERT_TRUE(gpu->set_image(rgba.data(), w, h).ok());
  for (GrayKernel k : {GrayKernel::Flat1D, GrayKernel::Grid2D}) {
    GrayRunOptions opt;
    opt.trace_schedule = true;
    const Dim3 block = k == GrayKernel::Flat1D ? Dim3{256, 1, 1} : Dim3{16, 16, 1};
    auto rec = gpu->run(k, block, nullptr, opt);
    ASSERT_TRUE(rec.ok()) << rec.status.describe();
    EXPECT_FALSE(rec.schedule_simulated);
    ASSERT_EQ(rec.schedule.size(), rec.config.total_blocks());
    std::vector<int> seen(rec.config.total_blocks(), 0);
    for (const auto& b : rec.schedule) {
      EXPECT_LT(b.unit, gpu->limits().sm_count);
      EXPECT_LE(b.start_ns, b.end_ns);
      seen[b.block.x + rec.config.grid.x * b.block.y]++;
    }
    for (int s : seen) ASSERT_EQ(s, 1);
    std::vector<std::uint8_t> out(static_cast<std::size_t>(w) * h);
    ASSERT_TRUE(gpu->download_result(out.data()).ok());
    expect_matches_reference(rgba, w, h, out, "traced GPU kernel", seed);
  }
}

}  // namespace
