// On the GPU machine: the instrumented-wrapper pattern of kernels/trace/block_trace.cuh on a
// sample kernel. Exactly one record per block, SM ids below the SM count, start <= end, and the
// kernel's output unchanged by tracing. Label `gpu`; skips visibly without a device.
//
// The sample is written the way every blockscope kernel is: one body against the per-thread
// context, a plain __global__ wrapper, and a traced wrapper that calls the same body between the
// recorder's start and end.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <set>
#include <vector>

#include "core/exec.hpp"
#include "device/device_buffer.hpp"
#include "device/device_limits.hpp"
#include "gpu_skip.hpp"  // tests/support
#include "mapping/schedule.hpp"
#include "mapping/thread_map.hpp"
#include "trace/block_trace.cuh"
#include "trace/trace_buffer.hpp"

namespace bs::mapping {
namespace {

// ---- the sample kernel: reverse each block's run of the input through shared memory --------
// It uses a barrier, so it also shows that the recorder's own barrier does not disturb kernels
// that synchronise.
struct ReverseShared {
  int v[1024];
};

template <class Ctx>
BS_HD void reverse_in_block_thread(const Ctx& t, ReverseShared& shared, const int* in, int* out, int n) {
  const unsigned T = t.blockDim.x;
  const long long i = static_cast<long long>(t.blockIdx.x) * T + t.threadIdx.x;
  shared.v[t.threadIdx.x] = i < n ? in[i] : 0;
  t.sync();
  if (i < n) out[i] = 3 * shared.v[T - 1 - t.threadIdx.x] + 1;
}

__global__ void reverse_in_block_kernel(const int* in, int* out, int n) {
  __shared__ ReverseShared shared;
  reverse_in_block_thread(DeviceCtx::from_builtins(), shared, in, out, n);
}

__global__ void reverse_in_block_traced(const int* in, int* out, int n, trace::DeviceBlockRecord* records) {
  trace::BlockRecorder recorder(records);
  __shared__ ReverseShared shared;
  reverse_in_block_thread(DeviceCtx::from_builtins(), shared, in, out, n);
}

// A 3D grid: each block writes its own blockIdx, so the trace's block ids can be checked.
__global__ void block_ids_traced(unsigned* out, trace::DeviceBlockRecord* records) {
  trace::BlockRecorder recorder(records);
  const unsigned long long id = blockIdx.x + 1ull * gridDim.x * (blockIdx.y + 1ull * gridDim.y * blockIdx.z);
  if (threadIdx.x == 0) {
    out[3 * id] = blockIdx.x;
    out[3 * id + 1] = blockIdx.y;
    out[3 * id + 2] = blockIdx.z;
  }
}

// The reference, computed on the host block by block.
std::vector<int> reverse_reference(const std::vector<int>& in, unsigned T) {
  const long long n = static_cast<long long>(in.size());
  std::vector<int> out(in.size());
  for (long long base = 0; base < n; base += T)
    for (unsigned t = 0; t < T && base + t < n; ++t) {
      const long long src = base + (T - 1 - t);
      out[base + t] = 3 * (src < n ? in[src] : 0) + 1;
    }
  return out;
}

TEST(GpuTrace, OneRecordPerBlockAndOutputUnchanged) {
  BS_SKIP_WITHOUT_GPU();
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  auto limits = cuda::query_device_limits(0);
  ASSERT_TRUE(limits.ok()) << limits.status().describe();
  const unsigned sms = limits->sm_count;

  const int n = 1'000'003;
  std::mt19937 rng(std::random_device{}());
  std::vector<int> host_in(n);
  for (int& v : host_in) v = static_cast<int>(rng() % 2000001) - 1000000;
  auto in = cuda::DeviceBuffer<int>::allocate(n);
  auto plain_out = cuda::DeviceBuffer<int>::allocate(n);
  auto traced_out = cuda::DeviceBuffer<int>::allocate(n);
  ASSERT_TRUE(in.ok() && plain_out.ok() && traced_out.ok());
  ASSERT_EQ(cudaMemcpy(in->get(), host_in.data(), n * sizeof(int), cudaMemcpyHostToDevice), cudaSuccess);

  for (unsigned T : {32u, 96u, 256u, 1000u, 1024u}) {
    const Dim3 grid{static_cast<unsigned>(ceil_div(n, T)), 1, 1};
    ASSERT_EQ(cudaMemset(plain_out->get(), 0, n * sizeof(int)), cudaSuccess);
    ASSERT_EQ(cudaMemset(traced_out->get(), 0, n * sizeof(int)), cudaSuccess);
    reverse_in_block_kernel<<<grid.x, T>>>(in->get(), plain_out->get(), n);
    ASSERT_EQ(cudaGetLastError(), cudaSuccess);

    auto buffer = trace::TraceBuffer::allocate(grid);
    ASSERT_TRUE(buffer.ok()) << buffer.status().describe();
    reverse_in_block_traced<<<grid.x, T>>>(in->get(), traced_out->get(), n, buffer->records());
    ASSERT_EQ(cudaGetLastError(), cudaSuccess);
    // collect() checks exactly one write per block, start <= end and SM id < sm_count.
    auto trace = buffer->collect(sms);
    ASSERT_TRUE(trace.ok()) << "T=" << T << ": " << trace.status().describe();

    std::vector<int> plain(n), traced(n);
    ASSERT_EQ(cudaMemcpy(plain.data(), plain_out->get(), n * sizeof(int), cudaMemcpyDeviceToHost), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(traced.data(), traced_out->get(), n * sizeof(int), cudaMemcpyDeviceToHost), cudaSuccess);
    const std::vector<int> expected = reverse_reference(host_in, T);
    EXPECT_EQ(plain, expected) << "plain kernel, T=" << T;
    EXPECT_EQ(traced, expected) << "traced kernel, T=" << T;

    const std::vector<BlockTrace>& t = trace.value();
    ASSERT_EQ(t.size(), grid.volume());
    std::set<unsigned> sm_used;
    std::uint64_t earliest = ~0ull;
    for (std::size_t i = 0; i < t.size(); ++i) {
      EXPECT_EQ(t[i].block, block_from_linear(i, grid));
      EXPECT_LT(t[i].unit, sms);
      EXPECT_LE(t[i].start_ns, t[i].end_ns);
      sm_used.insert(t[i].unit);
      earliest = std::min(earliest, t[i].start_ns);
    }
    EXPECT_EQ(earliest, 0u);  // normalised to the first block's start
    EXPECT_GT(sm_used.size(), 1u) << grid.x << " blocks all ran on one SM";
    const ScheduleSummary s = summarize(t, sms);
    EXPECT_EQ(s.blocks, grid.volume());
    EXPECT_FALSE(s.unit_out_of_range);
    EXPECT_GT(s.makespan_ns, 0u);
    std::printf(
        "T=%4u: %6u blocks on %zu of %u SMs, makespan %.1f us, %.1f observed waves, peak %u "
        "blocks/SM, imbalance %.2f\n",
        T, grid.x, sm_used.size(), sms, s.makespan_ns / 1e3, s.waves_observed,
        [&] {
          unsigned p = 0;
          for (auto& u : s.per_unit) p = std::max(p, u.peak_concurrent);
          return p;
        }(),
        s.imbalance);
    EXPECT_FALSE(
        schedule_to_json(t, false, LaunchConfig{grid, Dim3{T, 1, 1}}, "reverse_in_block", limits->name).empty());
  }
}

TEST(GpuTrace, MultiDimensionalGridsKeepTheirBlockIds) {
  BS_SKIP_WITHOUT_GPU();
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  auto limits = cuda::query_device_limits(0);
  ASSERT_TRUE(limits.ok());
  const Dim3 grid{13, 7, 3};
  auto out = cuda::DeviceBuffer<unsigned>::allocate(3 * grid.volume());
  ASSERT_TRUE(out.ok());
  auto buffer = trace::TraceBuffer::allocate(grid);
  ASSERT_TRUE(buffer.ok());
  block_ids_traced<<<dim3(grid.x, grid.y, grid.z), dim3(64, 2, 1)>>>(out->get(), buffer->records());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  auto trace = buffer->collect(limits->sm_count);
  ASSERT_TRUE(trace.ok()) << trace.status().describe();
  std::vector<unsigned> ids(3 * grid.volume());
  ASSERT_EQ(cudaMemcpy(ids.data(), out->get(), ids.size() * sizeof(unsigned), cudaMemcpyDeviceToHost), cudaSuccess);
  for (std::size_t i = 0; i < trace->size(); ++i) {
    const Dim3 b = trace.value()[i].block;
    EXPECT_EQ(b, (Dim3{ids[3 * i], ids[3 * i + 1], ids[3 * i + 2]}));
    EXPECT_EQ(linear_block_id(b, grid), i);
  }
  // Reusing the buffer: cleared, a second launch records again exactly once per block.
  ASSERT_TRUE(buffer->clear().ok());
  block_ids_traced<<<dim3(grid.x, grid.y, grid.z), dim3(64, 2, 1)>>>(out->get(), buffer->records());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_TRUE(buffer->collect(limits->sm_count).ok());
}

TEST(GpuTrace, AMissingLaunchIsReportedNotInvented) {
  BS_SKIP_WITHOUT_GPU();
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  auto buffer = trace::TraceBuffer::allocate(Dim3{4, 1, 1});
  ASSERT_TRUE(buffer.ok());
  auto trace = buffer->collect(1000);  // nothing ran: every record unwritten
  ASSERT_FALSE(trace.ok());
  EXPECT_NE(trace.status().message.find("0 times"), std::string::npos) << trace.status().message;
}

}  // namespace
}  // namespace bs::mapping
