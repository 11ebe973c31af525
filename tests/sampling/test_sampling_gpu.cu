// PC sampling on a real launch (label gpu; skips visibly without a device). The reference is the
// kernel itself: one line of `hot_and_cold` spins on clock64() for many times longer than the
// rest of the kernel takes, so nearly every sample a warp gives must land on that line, whatever
// the sampler's period; and a user without profiling permission reads the cause and the fix.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <cstdlib>
#include <string>

#include "sampling/pc_sampler.hpp"
#include "skips.hpp"

#ifndef FAKE_CUPTI_PATH
#define FAKE_CUPTI_PATH ""
#endif

namespace bs::sampling {
namespace {

// The test names the loop's line by its offset from a __LINE__: the formatter must not move it.
// clang-format off
constexpr int kSpinLine = __LINE__ + 6;  // the line of the clock64 loop below
__global__ void hot_and_cold(float* out, long long spin, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = out[i] * 0.5f + 1.0f;
  const long long start = clock64();
  while (clock64() - start < spin) v = v * 0.999f + 0.001f;
  out[i] = v;
}
// clang-format on

bool have_gpu() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

TEST(PcSampling, TheSpinningLineGetsTheSamples) {
  if (!have_gpu()) BS_SKIP_NO_GPU() << "no CUDA device";
  auto sampler = PcSampler::create({});  // before the first launch: it keeps this file's cubin
  ASSERT_TRUE(sampler.ok()) << sampler.status().describe();
  const int n = 132 * 4 * 256 + 77;  // odd: a partial last block
  float* out = nullptr;
  ASSERT_EQ(cudaMalloc(&out, n * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaMemset(out, 0, n * sizeof(float)), cudaSuccess);
  auto launch = [&]() -> Status {
    hot_and_cold<<<(n + 255) / 256, 256>>>(out, 200000, n);
    if (cudaDeviceSynchronize() != cudaSuccess) return Status::failure("launch failed");
    return Status::success();
  };
  auto got = (*sampler)->sample(launch, {{.min_samples = 20000, .max_launches = 8, .max_seconds = 5}});
  // The same function sampled again in the same process (two block shapes of one kernel): CUPTI
  // hands over the same function-name string again, which must still be valid.
  auto again = (*sampler)->sample(launch, {{.min_samples = 1000, .max_launches = 2, .max_seconds = 5}});
  cudaFree(out);
  ASSERT_TRUE(again.ok()) << again.status().describe();
  EXPECT_EQ(again->function, got.ok() ? got->function : std::string());
  ASSERT_TRUE(got.ok()) << got.status().describe();
  const LineProfile& p = got.value();
  EXPECT_GE((*sampler)->cubins_kept(), 1u);
  EXPECT_NE(p.function.find("hot_and_cold"), std::string::npos) << p.function;
  ASSERT_TRUE(p.lines_status.ok()) << p.lines_status.describe();
  ASSERT_GT(p.total_samples, 1000);
  EXPECT_LT(static_cast<double>(p.dropped_samples), 0.01 * static_cast<double>(p.total_samples));
  ASSERT_FALSE(p.lines.empty());
  const LineSamples& top = p.lines.front();
  EXPECT_NE(top.file.find("test_sampling_gpu.cu"), std::string::npos) << top.file;
  EXPECT_EQ(top.line, kSpinLine);
  EXPECT_GT(top.share_pct, 90.0);
  long long sum = 0;
  for (const auto& l : p.lines) sum += l.samples;
  EXPECT_EQ(sum, p.total_samples);
  std::printf("%lld samples in %lld launches (%lld dropped), %.0f ms; top line %s:%d %.1f%% (%s)\n", p.total_samples,
              p.launches, p.dropped_samples, p.profile_ms, top.file.c_str(), top.line, top.share_pct,
              top.stalls.empty() ? "-" : top.stalls.front().reason.c_str());
}

TEST(PcSampling, WithoutPermissionTheUserReadsTheCauseAndTheDriverOption) {
  if (!have_gpu()) BS_SKIP_NO_GPU() << "no CUDA device";
  std::string fake = FAKE_CUPTI_PATH;
  if (const char* env = std::getenv("BS_FAKE_CUPTI")) fake = env;  // the GPU bundle's copy
  if (fake.empty()) BS_SKIP_NO_GPU() << "no fake libcupti built";
  ASSERT_EQ(cudaFree(nullptr), cudaSuccess);  // a context to sample
  auto sampler = PcSampler::create({.cupti_library = fake});
  ASSERT_TRUE(sampler.ok()) << sampler.status().describe();
  auto got = (*sampler)->sample([] { return Status::success(); }, {});
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code, "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES") << got.status().describe();
  EXPECT_NE(got.status().hint.find("NVreg_RestrictProfilingToAdminUsers=0"), std::string::npos) << got.status().hint;
  std::printf("what a user without permission sees:\n  %s\n", got.status().describe().c_str());
}

}  // namespace
}  // namespace bs::sampling
