// CUPTI's SASS metrics on real launches (label gpu; skips visibly without a device). The
// references are the kernels' own shapes, counted by hand, never by the code under test:
//   - `counted` runs a loop of n iterations (not unrolled) in every thread of a grid of blocks of
//     48 threads: 2 warps per block, the second half empty. Every instruction of the loop's body
//     line runs n times per warp: executed = warps x n, thread instructions = threads x n (so
//     24 threads per warp instruction on average, not 32: partial warps show).
//   - `bank_conflicts` reads shared memory in a loop from full warps: s[lane] (every lane its own
//     bank: as many wavefronts as ideal) and s[2 * lane] (lanes l and l + 16 share a bank at
//     different addresses: a 2-way conflict, twice the ideal wavefronts).
// Run on the GPU:  build/tests/sampling/test_sass_metrics_gpu   (see each failure message).
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <cstdio>
#include <random>
#include <string>

#include "sampling/pc_sampler.hpp"
#include "sampling/sass_metrics.hpp"
#include "skips.hpp"

namespace bs::sampling {
namespace {

// The tests name lines of the kernels below by offset from a __LINE__: the formatter must not move
// them (it once joined the loop's two lines, and the body's offset pointed at the store).
// clang-format off
constexpr int kBodyLine = __LINE__ + 6;  // the fmaf line of the loop below
__global__ void counted(float* out, const float* in, int n) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;  // blockDim 48: every thread in range
  const float a = in[t], b = in[t + 1];
  float acc = 0.0f;
#pragma unroll 1
  for (int k = 0; k < n; ++k) acc = fmaf(acc, a, b);
  out[t] = acc;
}

constexpr int kStride1Line = __LINE__ + 11;  // vs[lane]
constexpr int kStride2Line = __LINE__ + 11;  // vs[2 * lane]
__global__ void bank_conflicts(float* out, int n) {
  __shared__ float s[64];
  const int lane = static_cast<int>(threadIdx.x) & 31;  // blockDim 64: two full warps
  s[threadIdx.x] = static_cast<float>(threadIdx.x) * 0.5f;
  __syncthreads();
  volatile float* vs = s;  // a load per iteration, none hoisted or merged
  float acc = 0.0f;
#pragma unroll 1
  for (int k = 0; k < n; ++k) {
    acc += vs[lane];
    acc += vs[2 * lane];
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
// clang-format on

bool have_gpu() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

bool is_this_file(const std::string& file) { return file.find("test_sass_metrics_gpu.cu") != std::string::npos; }

const LineSamples* line_of(const LineProfile& p, int line) {
  for (const LineSamples& l : p.lines)
    if (l.line == line && is_this_file(l.file)) return &l;
  return nullptr;
}

class SassMetrics : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!have_gpu()) BS_SKIP_NO_GPU() << "no CUDA device";
    // The process's sampler before the first launch: it keeps this file's cubin, whose line table
    // places each counted pc on a line.
    static std::shared_ptr<PcSampler> kept;
    if (!kept) {
      auto made = PcSampler::create({});
      ASSERT_TRUE(made.ok()) << made.status().describe();
      kept = std::move(made).value();
    }
    sampler = kept.get();
  }
  PcSampler* sampler = nullptr;
};

TEST_F(SassMetrics, ExecutedCountsAreWarpsTimesIterations) {
  std::random_device rd;
  const unsigned seed = rd();
  std::mt19937 rng(seed);
  const int blocks = std::uniform_int_distribution<int>(37, 301)(rng);
  const int n = std::uniform_int_distribution<int>(17, 97)(rng);
  const long long threads = blocks * 48LL, warps = blocks * 2LL;
  float *out = nullptr, *in = nullptr;
  ASSERT_EQ(cudaMalloc(&out, threads * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&in, (threads + 1) * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaMemset(in, 0, (threads + 1) * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  auto launch = [&]() -> Status {
    counted<<<blocks, 48>>>(out, in, n);
    const cudaError_t e = cudaDeviceSynchronize();
    return e == cudaSuccess ? Status::success() : Status::failure(cudaGetErrorString(e));
  };
  LineProfile p;  // no stall samples: the counts alone, lines from the sampler's cubins
  add_sass_metrics(p, *sampler, launch, {});
  cudaFree(out);
  cudaFree(in);
  SCOPED_TRACE("seed " + std::to_string(seed) + ": " + std::to_string(blocks) + " blocks of 48 threads (" +
               std::to_string(warps) + " warps, " + std::to_string(threads) + " threads), " + std::to_string(n) +
               " iterations");
  ASSERT_TRUE(p.sass_status.ok()) << "the SASS metrics API did not count: " << p.sass_status.describe();
  EXPECT_NE(p.function.find("counted"), std::string::npos)
      << "the busiest counted function should be the kernel launched; it is " << p.function;
  const LineSamples* body = line_of(p, kBodyLine);
  ASSERT_NE(body, nullptr) << "no counted instruction on the loop body's line " << kBodyLine
                           << " of this file: the records' pcs did not reach the line table (cubin not kept, "
                              "or its CRC not matched)";
  // The line's instructions inside the loop run n times per warp; one the compiler placed before
  // it (none, usually) once. All run in all 48 threads of both warps of each block alike.
  int on_line = 0, in_loop = 0;
  for (const InstructionSamples& ins : p.instructions) {
    if (ins.line != kBodyLine || !is_this_file(ins.file) || ins.sass.executed == 0) continue;
    ++on_line;
    if (ins.sass.executed == warps * n) ++in_loop;
    EXPECT_EQ(ins.sass.executed % warps, 0)
        << "pc " << std::hex << ins.pc_offset << std::dec << " on the loop body's line ran " << ins.sass.executed
        << " times: every warp runs it alike, so a multiple of " << warps << " warps (" << warps * n
        << " inside the loop)";
    if (p.sass_has_threads)
      EXPECT_EQ(ins.sass.thread_executed, ins.sass.executed * 24)
          << "thread instructions at pc " << std::hex << ins.pc_offset << std::dec
          << " should be 24 per warp instruction: 48 threads in each block's two warps, the second half empty";
  }
  EXPECT_GT(in_loop, 0) << "no instruction of the loop body ran exactly warps x n = " << warps * n
                        << " times (the fmaf runs once per iteration per warp)";
  ASSERT_GT(on_line, 0);
  EXPECT_GE(body->sass.executed, in_loop * warps * n) << "the line is the sum of its instructions";
  long long sum = 0;
  for (const LineSamples& l : p.lines) sum += l.sass.executed;
  EXPECT_EQ(sum, p.sass_total.executed) << "every counted instruction lands on exactly one line";
  std::printf(
      "counted %lld warp instructions in %.0f ms; loop body line %d: %d instruction(s), %d of them "
      "in the loop at warps x n = %lld each, %lld executed in all; %.1f threads per warp instruction "
      "(expected 24)\n",
      p.sass_total.executed, p.sass_ms, kBodyLine, on_line, in_loop, warps * n, body->sass.executed,
      body->sass.threads_per_warp());
}

TEST_F(SassMetrics, StrideTwoSharedReadsTakeTwiceTheIdealWavefronts) {
  std::mt19937 rng(std::random_device{}());
  const int blocks = std::uniform_int_distribution<int>(19, 157)(rng);
  const int n = std::uniform_int_distribution<int>(11, 61)(rng);
  const long long warps = blocks * 2LL;
  float* out = nullptr;
  ASSERT_EQ(cudaMalloc(&out, blocks * 64 * sizeof(float)), cudaSuccess);
  auto launch = [&]() -> Status {
    bank_conflicts<<<blocks, 64>>>(out, n);
    const cudaError_t e = cudaDeviceSynchronize();
    return e == cudaSuccess ? Status::success() : Status::failure(cudaGetErrorString(e));
  };
  LineProfile p;
  add_sass_metrics(p, *sampler, launch, {});
  cudaFree(out);
  SCOPED_TRACE(std::to_string(blocks) + " blocks of 64 threads (" + std::to_string(warps) + " warps), " +
               std::to_string(n) + " iterations");
  ASSERT_TRUE(p.sass_status.ok()) << "the SASS metrics API did not count: " << p.sass_status.describe();
  if (!p.sass_has_shared) BS_SKIP() << "this chip's CUPTI lists no shared-memory wavefront metric with an ideal";
  const LineSamples* one = line_of(p, kStride1Line);
  const LineSamples* two = line_of(p, kStride2Line);
  ASSERT_NE(one, nullptr) << "no counted instruction on line " << kStride1Line;
  ASSERT_NE(two, nullptr) << "no counted instruction on line " << kStride2Line;
  ASSERT_GE(one->sass.shared_ideal, warps * n)
      << "s[lane] is read n times by every warp: at least one ideal wavefront each";
  ASSERT_GE(two->sass.shared_ideal, warps * n)
      << "s[2 * lane] is read n times by every warp: at least one ideal wavefront each";
  EXPECT_EQ(one->sass.shared_wavefronts, one->sass.shared_ideal)
      << "s[lane]: 32 lanes, 32 banks, no conflict: wavefronts should equal the ideal";
  EXPECT_EQ(two->sass.shared_wavefronts, 2 * two->sass.shared_ideal)
      << "s[2 * lane]: lanes l and l + 16 read different words of one bank, a 2-way conflict: twice the ideal";
  EXPECT_EQ(one->sass.shared_ideal, warps * n) << "one wavefront per warp-wide 4-byte read (128 bytes)";
  std::printf("s[lane]: %lld wavefronts / %lld ideal (%.2fx); s[2*lane]: %lld / %lld (%.2fx); expected 1x and 2x\n",
              one->sass.shared_wavefronts, one->sass.shared_ideal, one->sass.conflict_ratio(),
              two->sass.shared_wavefronts, two->sass.shared_ideal, two->sass.conflict_ratio());
}

// sample() samples stalls, then counts one more launch; sampling again afterwards still works
// (the SASS metrics de-initialise the profiler they initialised).
TEST_F(SassMetrics, SampleCountsTooAndSamplingStillWorksAfter) {
  const int blocks = 132 * 16 + 5, n = 20011;
  const long long threads = blocks * 48LL, warps = blocks * 2LL;
  float *out = nullptr, *in = nullptr;
  ASSERT_EQ(cudaMalloc(&out, threads * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&in, (threads + 1) * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaMemset(in, 0, (threads + 1) * sizeof(float)), cudaSuccess);
  auto launch = [&]() -> Status {
    counted<<<blocks, 48>>>(out, in, n);
    const cudaError_t e = cudaDeviceSynchronize();
    return e == cudaSuccess ? Status::success() : Status::failure(cudaGetErrorString(e));
  };
  auto first = sampler->sample(launch, {{.min_samples = 2000, .max_launches = 4, .max_seconds = 5}});
  auto again = sampler->sample(
      launch, {{.min_samples = 2000, .max_launches = 4, .max_seconds = 5}, /*device*/ -1, /*sass_metrics*/ false});
  cudaFree(out);
  cudaFree(in);
  ASSERT_TRUE(first.ok()) << first.status().describe();
  ASSERT_TRUE(first->sass_status.ok()) << "sample() should count too: " << first->sass_status.describe();
  const LineSamples* body = line_of(*first, kBodyLine);
  ASSERT_NE(body, nullptr);
  EXPECT_GT(body->samples, 0) << "the loop body holds nearly all the time: it must have stall samples";
  EXPECT_EQ(body->sass.executed % warps, 0) << "each of its instructions runs alike in every warp";
  EXPECT_GT(body->sass.executed, 0);
  ASSERT_TRUE(again.ok()) << "PC sampling after the SASS metrics failed: " << again.status().describe();
  EXPECT_GT(again->total_samples, 0) << "PC sampling after the SASS metrics gathered nothing";
  std::printf(
      "sample(): %lld stall samples, body line %.1f%%; %lld executed there; sampling again: %lld samples; "
      "counting took %.0f ms\n",
      first->total_samples, body->share_pct, body->sass.executed, again->total_samples, first->sass_ms);
}

}  // namespace
}  // namespace bs::sampling
