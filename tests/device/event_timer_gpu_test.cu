// EventTimer (kernels/device/event_timer.hpp) on a GPU with nothing queued: a region's time is the
// GPU's work, not the host's submission of it. The reference is a pair of bare CUDA events around
// the same region, which do count the host (the start event is stamped as soon as it is
// submitted), so the test shows it can fail: without the lead both would read the host's delay.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <vector>

#include "core/median.hpp"
#include "device/event_timer.hpp"
#include "gpu_skip.hpp"  // tests/support

namespace bs::cuda {
namespace {

__global__ void add_one(int* v) { v[threadIdx.x] += 1; }

// The host submitting slowly: a cuBLAS call picks its kernel first, a sweep point builds its
// launch. 20 us is more than a kernel's launch and less than the timer's lead.
constexpr std::chrono::microseconds kHostDelay{20};
static_assert(kHostDelay < kTimerLead);

void host_delay() {
  const auto until = std::chrono::steady_clock::now() + kHostDelay;
  while (std::chrono::steady_clock::now() < until) {}
}

class GpuEventTimer : public ::testing::TestWithParam<bool> {};  // param: a stream of our own, or the default

TEST_P(GpuEventTimer, AnIdleStreamsRegionHoldsTheGpusWorkNotTheHostsSubmission) {
  BS_SKIP_WITHOUT_GPU();
  cudaStream_t s = nullptr;
  if (GetParam()) ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
  int* v = nullptr;
  ASSERT_EQ(cudaMalloc(&v, 32 * sizeof(int)), cudaSuccess);
  ASSERT_EQ(cudaMemsetAsync(v, 0, 32 * sizeof(int), s), cudaSuccess);
  cudaEvent_t e0 = nullptr, e1 = nullptr;
  ASSERT_EQ(cudaEventCreate(&e0), cudaSuccess);
  ASSERT_EQ(cudaEventCreate(&e1), cudaSuccess);
  constexpr int kRounds = 9;
  std::vector<float> bare, timed;
  for (int r = 0; r < kRounds; ++r) {
    ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);  // idle, as the app's live runs find it
    cudaEventRecord(e0, s);
    host_delay();
    add_one<<<1, 32, 0, s>>>(v);
    cudaEventRecord(e1, s);
    ASSERT_EQ(cudaEventSynchronize(e1), cudaSuccess);
    float ms = 0;
    ASSERT_EQ(cudaEventElapsedTime(&ms, e0, e1), cudaSuccess);
    bare.push_back(ms);

    ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    EventTimer t;
    t.start(s);
    host_delay();
    add_one<<<1, 32, 0, s>>>(v);
    t.stop(s);
    Result<float> got = t.elapsed_ms();
    ASSERT_TRUE(got.ok()) << got.status().message;
    timed.push_back(*got);
  }
  // The lead did not disturb the work itself: every launch ran, in order.
  std::vector<int> host(32);
  ASSERT_EQ(cudaMemcpy(host.data(), v, host.size() * sizeof(int), cudaMemcpyDeviceToHost), cudaSuccess);
  for (int x : host) EXPECT_EQ(x, 2 * kRounds);
  const float delay_ms = std::chrono::duration<float, std::milli>(kHostDelay).count();
  std::printf("host delay %.4f ms: bare events median %.4f ms, EventTimer median %.4f ms (%d rounds)\n", delay_ms,
              median_of(bare), median_of(timed), kRounds);
  EXPECT_GE(median_of(bare), 0.9f * delay_ms) << "bare events around the region should count the host's delay";
  EXPECT_LT(median_of(timed), 0.5f * delay_ms) << "EventTimer counted the host's submission";
  EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "the idle check's \"not ready\" must not stay behind as an error";
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  cudaFree(v);
  if (s) cudaStreamDestroy(s);
}

INSTANTIATE_TEST_SUITE_P(Streams, GpuEventTimer, ::testing::Bool(),
                         [](const auto& p) { return p.param ? "OwnStream" : "DefaultStream"; });

}  // namespace
}  // namespace bs::cuda
