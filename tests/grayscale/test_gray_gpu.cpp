// The grayscale lab on the CUDA backend: both kernels against the test's own reference and
// bit-exact against the simulator (the same body runs in both), on odd sizes and many block
// shapes; what ran is counted on the device (the traced wrapper's census of blocks and threads)
// and compared with the grid computed here by hand. Skips visibly without a GPU.
#include <gtest/gtest.h>

#include "device/cuda_device.hpp"
#include "gray_test_support.hpp"
#include "skips.hpp"

namespace {

using namespace bs::gray;
using namespace bs::gray::test;
using bs::Dim3;
using bs::KernelConfig;

std::unique_ptr<GrayLab> cuda_lab_or_null(std::string* why) {
  auto limits = bs::cuda_device_limits(0);
  if (!limits) {
    *why = limits.status().describe();
    return nullptr;
  }
  bs::lab::Backend b;
  b.kind = bs::BackendKind::Cuda;
  b.cuda_device = 0;
  b.limits = limits.value();
  auto lab = GrayLab::create(b);
  if (!lab) {
    *why = lab.status().describe();
    return nullptr;
  }
  return std::move(lab.value());
}

unsigned long long hand_blocks(const std::string& k, int w, int h, Dim3 b) {
  const unsigned long long n = 1ull * w * h, T = b.volume();
  if (k == "gray_1d_flat") return (n + T - 1) / T;
  return ((w + b.x - 1ull) / b.x) * ((h + b.y - 1ull) / b.y);
}

TEST(GrayOnGpu, BothKernelsMatchReferenceAndSimulatorBitExactAndRunTheGridComputedByHand) {
  std::string why;
  auto gpu = cuda_lab_or_null(&why);
  if (!gpu) BS_SKIP_NO_GPU() << "no CUDA device: " << why;
  auto cpu = cpu_lab();

  const std::vector<ImageSize> sizes{{1, 1}, {1, 5000}, {1023, 767}, {4000, 3}, {8191, 1}};
  const std::vector<Dim3> flat_blocks{{1, 1, 1},    {32, 1, 1}, {100, 1, 1}, {256, 1, 1},
                                      {1024, 1, 1}, {16, 4, 2}, {7, 3, 5}};
  const std::vector<Dim3> grid_blocks{{1, 1, 1},  {16, 16, 1}, {32, 8, 1}, {32, 32, 1},
                                      {7, 13, 1}, {256, 1, 1}, {1, 256, 1}};
  for (auto s : sizes) {
    const std::uint32_t seed = fresh_seed();
    const auto rgba = random_rgba(s.w, s.h, seed);
    ASSERT_TRUE(gpu->set_image(rgba.data(), s.w, s.h, "t").ok());
    ASSERT_TRUE(cpu->set_image(rgba.data(), s.w, s.h, "t").ok());
    const std::size_t n = static_cast<std::size_t>(s.w) * s.h;
    for (const std::string k : {"gray_1d_flat", "gray_2d"}) {
      for (Dim3 b : k == "gray_1d_flat" ? flat_blocks : grid_blocks) {
        SCOPED_TRACE(k + " " + std::to_string(s.w) + "x" + std::to_string(s.h) + " block " + bs::to_string(b));
        std::vector<std::uint8_t> from_gpu(n), from_cpu(n);
        bs::lab::RunOptions opt;
        opt.trace_schedule = true;
        auto rec = gpu->run(k, KernelConfig{b}, opt);
        ASSERT_TRUE(rec.ok()) << rec.status.describe();
        EXPECT_EQ(rec.backend, bs::BackendKind::Cuda);
        EXPECT_TRUE(rec.attributes_measured);
        EXPECT_GT(rec.kernel_ms(), 0.0);
        EXPECT_TRUE(rec.check.passed()) << rec.check.summary();
        const Census c = census(rec);
        EXPECT_TRUE(c.each_block_once);
        EXPECT_EQ(c.blocks, hand_blocks(k, s.w, s.h, b));
        EXPECT_EQ(c.threads, hand_blocks(k, s.w, s.h, b) * b.volume());
        ASSERT_TRUE(gpu->download_output(from_gpu.data()).ok());
        bs::lab::RunOptions copt;
        copt.output = from_cpu.data();
        ASSERT_TRUE(cpu->run(k, KernelConfig{b}, copt).ok());
        expect_matches_reference(rgba, s.w, s.h, from_gpu, "GPU kernel", seed);
        ASSERT_EQ(from_gpu, from_cpu) << "GPU and simulator disagree (seed " << seed << ")";
      }
    }
  }
}

TEST(GrayOnGpu, RefusedLaunchesNeverReachTheDevice) {
  std::string why;
  auto gpu = cuda_lab_or_null(&why);
  if (!gpu) BS_SKIP_NO_GPU() << "no CUDA device: " << why;
  std::vector<std::uint8_t> rgba(64 * 64 * 4, 9);
  ASSERT_TRUE(gpu->set_image(rgba.data(), 64, 64, "t").ok());
  auto rec = gpu->run("gray_1d_flat", KernelConfig{Dim3{2048, 1, 1}}, {});
  EXPECT_FALSE(rec.ok());
  EXPECT_TRUE(rec.refused);
  EXPECT_EQ(rec.status.code, "cudaErrorInvalidConfiguration");
  // The device is still healthy afterwards.
  EXPECT_TRUE(gpu->run("gray_1d_flat", KernelConfig{Dim3{256, 1, 1}}, {}).ok());
}

TEST(GrayOnGpu, TracedLaunchRecordsOneBlockPerRecordOnRealSmsAndKeepsTheOutputCorrect) {
  std::string why;
  auto gpu = cuda_lab_or_null(&why);
  if (!gpu) BS_SKIP_NO_GPU() << "no CUDA device: " << why;
  const std::uint32_t seed = fresh_seed();
  const int w = 1023, h = 767;
  const auto rgba = random_rgba(w, h, seed);
  ASSERT_TRUE(gpu->set_image(rgba.data(), w, h, "t").ok());
  for (const std::string k : {"gray_1d_flat", "gray_2d"}) {
    bs::lab::RunOptions opt;
    opt.trace_schedule = true;
    const Dim3 block = k == "gray_1d_flat" ? Dim3{256, 1, 1} : Dim3{16, 16, 1};
    auto rec = gpu->run(k, KernelConfig{block}, opt);
    ASSERT_TRUE(rec.ok()) << rec.status.describe();
    EXPECT_FALSE(rec.schedule_simulated);
    for (const auto& b : rec.schedule) {
      EXPECT_LT(b.unit, gpu->backend().limits.sm_count);
      EXPECT_LE(b.start_ns, b.end_ns);
    }
    std::vector<std::uint8_t> out(static_cast<std::size_t>(w) * h);
    ASSERT_TRUE(gpu->download_output(out.data()).ok());
    expect_matches_reference(rgba, w, h, out, "traced GPU kernel", seed);
  }
}

TEST(GrayOnGpu, RepeatsFollowThePolicyAndFlushTheL2) {
  std::string why;
  auto gpu = cuda_lab_or_null(&why);
  if (!gpu) BS_SKIP_NO_GPU() << "no CUDA device: " << why;
  ASSERT_TRUE(gpu->set_random_problem("2048x1536").ok());
  bs::lab::RunOptions opt;
  opt.timing = bs::TimingPolicy::fixed(9, 2);
  opt.timing.flush_l2 = true;
  auto rec = gpu->run("gray_2d", KernelConfig{Dim3{32, 8, 1}}, opt);
  ASSERT_TRUE(rec.ok()) << rec.status.describe();
  EXPECT_EQ(rec.timing.repeats(), 9);
  EXPECT_EQ(rec.timing.warmup, 2);
  EXPECT_TRUE(rec.timing.l2_flushed);
  EXPECT_LE(rec.timing.min_ms, rec.timing.median_ms);
  EXPECT_LE(rec.timing.ci_low_ms, rec.timing.median_ms);
  EXPECT_GE(rec.timing.ci_high_ms, rec.timing.median_ms);
}

}  // namespace
