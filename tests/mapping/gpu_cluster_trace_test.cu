// On the GPU machine (label gpu): the block recorder's cluster fields (kernels/trace) against
// the model of mapping/cluster.hpp, on a sample kernel launched with thread block clusters of
// several shapes (1D, 2D, 3D, up to 8 blocks) and without clusters. Every block's recorded
// %clusterid, %cluster_ctarank, %nclusterid and %cluster_nctarank must be the model's from its
// blockIdx and the cluster dims; every cluster's blocks must have run at one moment (the kernel
// also waits at a cluster barrier, so they must); the SMs of each cluster are printed. Skips
// visibly without a device, and (BS_SKIP) on GPUs older than sm_90, which have no clusters.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <set>
#include <vector>

#include "device/device_buffer.hpp"
#include "device/device_limits.hpp"
#include "gpu_skip.hpp"  // tests/support
#include "mapping/cluster.hpp"
#include "trace/block_trace.cuh"
#include "trace/trace_buffer.hpp"

namespace bs::mapping {
namespace {

// Each block spins for about `spin_ns`, waits at the cluster barrier, and writes its blockIdx.
__global__ void cluster_sample_traced(unsigned* out, std::uint64_t spin_ns, trace::DeviceBlockRecord* records) {
  trace::BlockRecorder recorder(records);
  const std::uint64_t t0 = trace::global_timer_ns();
  while (trace::global_timer_ns() - t0 < spin_ns) {}
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("barrier.cluster.arrive.aligned;\nbarrier.cluster.wait.aligned;" ::: "memory");
#endif
  if (threadIdx.x == 0) {
    const unsigned long long id = blockIdx.x + 1ull * gridDim.x * (blockIdx.y + 1ull * gridDim.y * blockIdx.z);
    out[id] = 1;
  }
}

struct Shape {
  Dim3 grid, cluster;
};

TEST(GpuClusterTrace, RecordedClustersAreTheModelsAndCoScheduled) {
  BS_SKIP_WITHOUT_GPU();
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  auto limits = cuda::query_device_limits(0);
  ASSERT_TRUE(limits.ok()) << limits.status().describe();
  if (limits->compute_major < 9) BS_SKIP() << limits->name << " has no thread block clusters (sm_90 and later)";
  const std::vector<Shape> shapes = {
      {{14, 1, 1}, {2, 1, 1}}, {{12, 6, 1}, {2, 2, 1}}, {{3, 4, 6}, {1, 2, 2}}, {{20, 3, 1}, {4, 1, 1}},
      {{16, 2, 1}, {8, 1, 1}}, {{9, 5, 3}, {3, 1, 1}},  {{7, 3, 2}, {1, 1, 1}},  // the last: no clusters
  };
  for (const Shape& sh : shapes) {
    SCOPED_TRACE(to_string(sh.grid) + " in clusters of " + to_string(sh.cluster));
    auto out = cuda::DeviceBuffer<unsigned>::allocate(sh.grid.volume());
    ASSERT_TRUE(out.ok());
    ASSERT_EQ(cudaMemset(out->get(), 0, out->bytes()), cudaSuccess);
    auto buffer = trace::TraceBuffer::allocate(sh.grid);
    ASSERT_TRUE(buffer.ok()) << buffer.status().describe();
    cudaLaunchConfig_t cfg{};
    cfg.gridDim = dim3(sh.grid.x, sh.grid.y, sh.grid.z);
    cfg.blockDim = dim3(96, 1, 1);
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = sh.cluster.x;
    attr[0].val.clusterDim.y = sh.cluster.y;
    attr[0].val.clusterDim.z = sh.cluster.z;
    cfg.attrs = attr;
    cfg.numAttrs = sh.cluster.volume() > 1 ? 1 : 0;
    ASSERT_EQ(cudaLaunchKernelEx(&cfg, cluster_sample_traced, out->get(), std::uint64_t{20000}, buffer->records()),
              cudaSuccess);
    auto trace = buffer->collect(limits->sm_count);
    ASSERT_TRUE(trace.ok()) << trace.status().describe();
    std::vector<unsigned> ran(sh.grid.volume());
    ASSERT_EQ(cudaMemcpy(ran.data(), out->get(), out->bytes(), cudaMemcpyDeviceToHost), cudaSuccess);
    for (unsigned r : ran) ASSERT_EQ(r, 1u) << "a block did not run";

    for (const BlockTrace& b : *trace) {
      ASSERT_TRUE(b.cluster.has_value()) << "block " << to_string(b.block) << " recorded no cluster on sm_90";
      const ClusterPlace want = cluster_place(b.block, sh.grid, sh.cluster);
      EXPECT_EQ(b.cluster->id, want.id) << to_string(b.block);
      EXPECT_EQ(b.cluster->rank, want.rank) << to_string(b.block);
      EXPECT_EQ(b.cluster->count, want.count) << to_string(b.block);
      EXPECT_EQ(b.cluster->blocks, want.blocks) << to_string(b.block);
      EXPECT_EQ(b.cluster->explicit_cluster, sh.cluster.volume() > 1) << to_string(b.block);
    }
    LaunchConfig lc;
    lc.grid = sh.grid;
    lc.block = {96, 1, 1};
    lc.cluster = sh.cluster;
    const ClusterSchedule s = cluster_schedule(*trace, lc);
    EXPECT_TRUE(s.recorded);
    EXPECT_EQ(s.mismatches, 0u) << s.first_mismatch;
    EXPECT_EQ(s.clusters.size(), sh.grid.volume() / sh.cluster.volume());
    EXPECT_EQ(s.co_scheduled, s.clusters.size()) << "a cluster's blocks did not all run at one moment";
    std::printf("%s in clusters of %s: %zu clusters, %llu co-scheduled, %zu SM groups; %s\n",
                to_string(sh.grid).c_str(), to_string(sh.cluster).c_str(), s.clusters.size(), s.co_scheduled,
                s.sm_groups.size(), s.clusters.empty() ? "" : cluster_line(s.clusters.front()).c_str());
  }
}

}  // namespace
}  // namespace bs::mapping
