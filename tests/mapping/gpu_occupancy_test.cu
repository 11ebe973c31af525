// On the GPU machine: the occupancy calculator against
// cudaOccupancyMaxActiveBlocksPerMultiprocessor for kernels with different register and
// shared-memory use, every block size each kernel allows, and several dynamic shared-memory sizes;
// and query_device_limits against the runtime's own attributes. Label `gpu`; skips visibly without
// a device.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "device/device_limits.hpp"
#include "gpu_skip.hpp"  // tests/support
#include "mapping/architecture.hpp"
#include "mapping/occupancy.hpp"

namespace bs::mapping {
namespace {

// ---- test kernels: never launched, only measured ------------------------------------------

__global__ void trivial_kernel(const float* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] + 1.0f;
}

// Keeps N values live through rounds of FMAs that read neighbours' old values, so ptxas needs
// roughly N registers per thread.
template <int N>
__device__ __forceinline__ void register_hungry_body(const float* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float acc[N];
#pragma unroll
  for (int j = 0; j < N; ++j) acc[j] = in[(i + j * 97) % n];
#pragma unroll
  for (int r = 0; r < 4; ++r) {
#pragma unroll
    for (int j = 0; j < N; ++j) acc[j] = fmaf(acc[j], acc[(j + 1) % N], acc[(j + 7) % N]);
  }
  float s = 0;
#pragma unroll
  for (int j = 0; j < N; ++j) s += acc[j] * static_cast<float>(j + 1);
  out[i] = s;
}

template <int N>
__global__ void registers_kernel(const float* in, float* out, int n) {
  register_hungry_body<N>(in, out, n);
}

// __launch_bounds__ caps registers so 1024 threads fit (64 per thread), spilling if needed.
template <int N>
__global__ void __launch_bounds__(1024, 1) registers_bounded_1024(const float* in, float* out, int n) {
  register_hungry_body<N>(in, out, n);
}

// At most 384 threads per block: the kernel's max_threads_per_block drops below the device's.
template <int N>
__global__ void __launch_bounds__(384) registers_bounded_384(const float* in, float* out, int n) {
  register_hungry_body<N>(in, out, n);
}

template <int Bytes>
__global__ void static_shared_kernel(float* out) {
  constexpr int kFloats = Bytes / 4;
  __shared__ float buffer[kFloats];
  for (int j = threadIdx.x; j < kFloats; j += blockDim.x) buffer[j] = j * 0.5f;
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = buffer[(threadIdx.x * 7) % kFloats];
}

__global__ void dynamic_shared_kernel(float* out) {
  extern __shared__ float dynamic_buffer[];
  dynamic_buffer[threadIdx.x] = static_cast<float>(threadIdx.x);
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = dynamic_buffer[(threadIdx.x + 1) % blockDim.x];
}

// Same body; this one opts in to the device's full per-block shared memory.
__global__ void dynamic_shared_optin_kernel(float* out) {
  extern __shared__ float dynamic_buffer[];
  dynamic_buffer[threadIdx.x] = static_cast<float>(threadIdx.x);
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = dynamic_buffer[(threadIdx.x + 1) % blockDim.x];
}

__global__ void static_and_dynamic_kernel(float* out) {
  __shared__ float fixed[2000];  // 8000 bytes: not a multiple of the 128-byte allocation unit
  extern __shared__ float dynamic_buffer[];
  fixed[threadIdx.x % 2000] = 1.0f;
  dynamic_buffer[threadIdx.x] = 2.0f;
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = fixed[(threadIdx.x + 3) % 2000] + dynamic_buffer[0];
}

struct TestKernel {
  std::string name;
  const void* fn;
  std::vector<std::size_t> dynamic_sizes;  // each must be valid for the kernel
};

const void* fn(auto* f) { return reinterpret_cast<const void*>(f); }

TEST(GpuOccupancy, CalculatorMatchesCudaOccupancyApi) {
  BS_SKIP_WITHOUT_GPU();
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  auto limits = cuda::query_device_limits(0);
  ASSERT_TRUE(limits.ok()) << limits.status().describe();
  const DeviceLimits& d = limits.value();

  // The opt-in kernel may use everything a block can have.
  const int optin_dynamic = static_cast<int>(d.shared_per_block_optin);
  ASSERT_EQ(cudaFuncSetAttribute(fn(&dynamic_shared_optin_kernel), cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 optin_dynamic),
            cudaSuccess);

  const std::size_t KiB = 1024;
  const std::vector<TestKernel> kernels = {
      {"trivial", fn(&trivial_kernel), {0, 1000, 20 * KiB}},
      {"registers<16>", fn(&registers_kernel<16>), {0}},
      {"registers<40>", fn(&registers_kernel<40>), {0, 4 * KiB}},
      {"registers<72>", fn(&registers_kernel<72>), {0}},
      {"registers<120>", fn(&registers_kernel<120>), {0, 12345}},
      {"registers<200>", fn(&registers_kernel<200>), {0}},
      {"bounded_1024<120>", fn(&registers_bounded_1024<120>), {0}},
      {"bounded_384<72>", fn(&registers_bounded_384<72>), {0, 30 * KiB}},
      {"static_shared<1024>", fn(&static_shared_kernel<1024>), {0, 8 * KiB}},
      {"static_shared<10000>", fn(&static_shared_kernel<10000>), {0}},
      {"static_shared<24576>", fn(&static_shared_kernel<24576>), {0, 100}},
      {"static_shared<40000>", fn(&static_shared_kernel<40000>), {0}},
      {"static_shared<49152>", fn(&static_shared_kernel<49152>), {0}},
      {"dynamic_shared", fn(&dynamic_shared_kernel), {0, 1, 4096, 12345, 32 * KiB, 48 * KiB}},
      {"dynamic_shared_optin",
       fn(&dynamic_shared_optin_kernel),
       {0, 48 * KiB, 64 * KiB, 100 * KiB, static_cast<std::size_t>(optin_dynamic) / 2,
        static_cast<std::size_t>(optin_dynamic)}},
      {"static_and_dynamic", fn(&static_and_dynamic_kernel), {0, 3000, 40 * KiB - 8000 + 8 * KiB}},
  };

  unsigned long long compared = 0;
  std::vector<std::string> mismatches;
  for (const TestKernel& k : kernels) {
    auto attrs = cuda::query_kernel_attributes(k.fn);
    ASSERT_TRUE(attrs.ok()) << k.name << ": " << attrs.status().describe();
    const KernelAttributes& a = attrs.value();
    std::printf("%-22s regs %3u  static smem %6zu  max threads %4u  max dynamic %6zu  local %zu\n", k.name.c_str(),
                a.registers_per_thread, a.static_shared_bytes, a.max_threads_per_block, a.max_dynamic_shared_bytes,
                a.local_bytes_per_thread);
    for (std::size_t dyn : k.dynamic_sizes) {
      if (a.static_shared_bytes + dyn >
          (k.name == "dynamic_shared_optin" ? d.shared_per_block_optin : d.shared_per_block))
        continue;  // not a launchable configuration
      for (unsigned T = 1; T <= a.max_threads_per_block; ++T) {
        int cuda_blocks = -1;
        const cudaError_t e =
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(&cuda_blocks, k.fn, static_cast<int>(T), dyn);
        ASSERT_EQ(e, cudaSuccess) << k.name << " T=" << T << " dyn=" << dyn << ": " << cudaGetErrorString(e);
        const Occupancy o = compute_occupancy(T, dyn, a, d);
        ++compared;
        if (static_cast<int>(o.active_blocks_per_sm) != cuda_blocks && mismatches.size() < 25)
          mismatches.push_back(k.name + " T=" + std::to_string(T) + " dyn=" + std::to_string(dyn) + ": CUDA " +
                               std::to_string(cuda_blocks) + ", blockscope " + std::to_string(o.active_blocks_per_sm) +
                               " (limited by " + to_string(o.limiter) + ")");
        if (T == 256 && dyn == k.dynamic_sizes.front())
          std::printf("    T=256 dyn=%zu: CUDA %d blocks/SM, blockscope %u (%.0f%%, limited by %s)\n", dyn, cuda_blocks,
                      o.active_blocks_per_sm, 100 * o.occupancy, to_string(o.limiter));
      }
    }
  }
  std::printf("compared %llu (kernel, block size, dynamic smem) configurations on %s (sm_%d%d)\n", compared,
              d.name.c_str(), d.compute_major, d.compute_minor);
  for (const auto& m : mismatches) ADD_FAILURE() << m;
  EXPECT_GT(compared, 10000u);
}

TEST(GpuDeviceLimits, FillsEveryFieldAndAgreesWithTheRuntime) {
  BS_SKIP_WITHOUT_GPU();
  auto count = cuda::device_count();
  ASSERT_TRUE(count.ok());
  for (int dev = 0; dev < count.value(); ++dev) {
    auto r = cuda::query_device_limits(dev);
    ASSERT_TRUE(r.ok()) << r.status().describe();
    const DeviceLimits& d = r.value();
    auto attr = [dev](cudaDeviceAttr a) {
      int v = -1;
      EXPECT_EQ(cudaDeviceGetAttribute(&v, a, dev), cudaSuccess);
      return v;
    };
    EXPECT_FALSE(d.name.empty());
    EXPECT_NE(d.name, "CPU simulation");
    EXPECT_EQ(d.compute_major, attr(cudaDevAttrComputeCapabilityMajor));
    EXPECT_EQ(d.compute_minor, attr(cudaDevAttrComputeCapabilityMinor));
    EXPECT_EQ(d.max_threads_per_block, unsigned(attr(cudaDevAttrMaxThreadsPerBlock)));
    EXPECT_EQ(d.max_block.z, unsigned(attr(cudaDevAttrMaxBlockDimZ)));
    EXPECT_EQ(d.max_grid.y, unsigned(attr(cudaDevAttrMaxGridDimY)));
    EXPECT_EQ(d.warp_size, unsigned(attr(cudaDevAttrWarpSize)));
    EXPECT_EQ(d.shared_per_block, std::size_t(attr(cudaDevAttrMaxSharedMemoryPerBlock)));
    EXPECT_EQ(d.shared_per_block_optin, std::size_t(attr(cudaDevAttrMaxSharedMemoryPerBlockOptin)));
    EXPECT_EQ(d.shared_per_sm, std::size_t(attr(cudaDevAttrMaxSharedMemoryPerMultiprocessor)));
    EXPECT_EQ(d.reserved_shared_per_block, std::size_t(attr(cudaDevAttrReservedSharedMemoryPerBlock)));
    EXPECT_EQ(d.regs_per_block, unsigned(attr(cudaDevAttrMaxRegistersPerBlock)));
    EXPECT_EQ(d.regs_per_sm, unsigned(attr(cudaDevAttrMaxRegistersPerMultiprocessor)));
    EXPECT_EQ(d.max_threads_per_sm, unsigned(attr(cudaDevAttrMaxThreadsPerMultiProcessor)));
    EXPECT_EQ(d.max_blocks_per_sm, unsigned(attr(cudaDevAttrMaxBlocksPerMultiprocessor)));
    EXPECT_EQ(d.sm_count, unsigned(attr(cudaDevAttrMultiProcessorCount)));
    EXPECT_EQ(d.clock_khz, attr(cudaDevAttrClockRate));
    EXPECT_EQ(d.memory_clock_khz, attr(cudaDevAttrMemoryClockRate));
    EXPECT_EQ(d.memory_bus_bits, attr(cudaDevAttrGlobalMemoryBusWidth));
    EXPECT_GT(d.clock_khz, 0);
    EXPECT_GT(d.memory_clock_khz, 0);
    EXPECT_GT(d.total_global_bytes, 0u);
    EXPECT_EQ(d.register_allocation_unit, 256u);
    EXPECT_GE(d.warp_allocation_granularity, 2u);
    EXPECT_TRUE(d.shared_allocation_unit == 128 || d.shared_allocation_unit == 256);
    // The table's resident-block limit agrees with what the device reports.
    EXPECT_EQ(architecture_rules(d.compute_major, d.compute_minor)->max_blocks_per_sm, d.max_blocks_per_sm);
    // Where blockscope has a preset for this architecture, its per-SM figures are this device's.
    if (auto p = device_preset(d.compute_major, d.compute_minor)) {
      EXPECT_EQ(p->max_threads_per_sm, d.max_threads_per_sm);
      EXPECT_EQ(p->shared_per_sm, d.shared_per_sm);
      EXPECT_EQ(p->shared_per_block_optin, d.shared_per_block_optin);
      EXPECT_EQ(p->reserved_shared_per_block, d.reserved_shared_per_block);
      EXPECT_EQ(p->regs_per_sm, d.regs_per_sm);
    }
    std::printf(
        "device %d: %s, sm_%d%d, %u SMs, %u threads/SM, %u blocks/SM, %zu B shared/SM, "
        "%zu B opt-in/block, %zu B reserved/block, clock %.0f kHz, memory %.0f kHz x %d bit\n",
        dev, d.name.c_str(), d.compute_major, d.compute_minor, d.sm_count, d.max_threads_per_sm, d.max_blocks_per_sm,
        d.shared_per_sm, d.shared_per_block_optin, d.reserved_shared_per_block, d.clock_khz, d.memory_clock_khz,
        d.memory_bus_bits);
  }
}

TEST(GpuDeviceLimits, BadDeviceIsAStatus) {
  BS_SKIP_WITHOUT_GPU();
  auto r = cuda::query_device_limits(9999);
  EXPECT_FALSE(r.ok());
  EXPECT_FALSE(r.status().code.empty());
}

}  // namespace
}  // namespace bs::mapping
