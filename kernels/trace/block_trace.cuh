// Device side of the real schedule: which SM ran each block, and when.
//
// An instrumented ("traced") kernel is a second __global__ wrapper around the SAME body the plain
// wrapper and the CPU simulator run; only the wrapper differs, so tracing cannot change what the
// kernel computes. A BlockRecorder lives for the whole wrapper:
//
//   entry: thread (0,0,0) reads %globaltimer (no barrier first, so the start is when the block
//          began, not when its slowest warp arrived);
//   exit:  every thread passes a __syncthreads() (so the block's work is done), then thread
//          (0,0,0) reads %globaltimer again and %smid (and on sm_90 and later the block's
//          cluster: %clusterid, %cluster_ctarank, %nclusterid, %cluster_nctarank,
//          %is_explicit_cluster), and writes them into
//          records[linear block id], counting the write atomically (the host checks it is 1),
//          and the first live lane of every warp adds its warp's live lanes to the record's
//          thread count: a census of the threads that really ran, for the tests.
//
// How a kernel family adds a traced wrapper (e.g. in kernels/labs/grayscale/gray_kernels.cu):
//
//   #include "trace/block_trace.cuh"
//   __global__ void gray_1d_flat_kernel(GrayArgs a) {
//     gray_1d_flat_thread(DeviceCtx::from_builtins(), a);
//   }
//   __global__ void gray_1d_flat_traced(GrayArgs a, trace::DeviceBlockRecord* records) {
//     trace::BlockRecorder recorder(records);             // start time
//     gray_1d_flat_thread(DeviceCtx::from_builtins(), a);  // the same body
//   }                                                     // barrier, end time, record
//
// and its launcher, when tracing is asked for:
//
//   auto buffer = trace::TraceBuffer::allocate(config.grid);          // trace/trace_buffer.hpp
//   if (!buffer) { record.status = buffer.status(); return record; }
//   gray_1d_flat_traced<<<grid, block>>>(args, buffer->records());
//   auto schedule = buffer->collect(limits.sm_count);                 // waits, copies, checks
//   if (!schedule) { record.status = schedule.status(); return record; }
//   record.schedule = std::move(schedule.value());
//   record.schedule_simulated = false;
//
// Time the plain wrapper, not the traced one: the recorder adds a barrier and a global write per
// block. Bodies that return early are fine (they return to the wrapper, and the recorder's
// barrier runs in the wrapper), but a body must not call __trap()/exit, and every thread of
// the block must reach the end of the wrapper.
//
// %globaltimer counts nanoseconds but may tick coarsely (about 1 us on some GPUs), so short
// blocks can show start == end. %smid is the SM's id; it is below
// cudaDeviceProp::multiProcessorCount on current GPUs, which the host check enforces.
#pragma once
#include <cstdint>

#include "trace/trace_record.hpp"

namespace bs::trace {

__device__ __forceinline__ std::uint32_t sm_id() {
  std::uint32_t id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

__device__ __forceinline__ std::uint64_t global_timer_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// The block's thread block cluster, read from the special registers (PTX ISA: sm_90 and later).
// Code built for older architectures records nothing here (flags 0), never a guess.
__device__ __forceinline__ void read_cluster(DeviceBlockRecord& r) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  std::uint32_t id[3], count[3], rank, blocks, is_explicit;
  asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(id[0]));
  asm volatile("mov.u32 %0, %%clusterid.y;" : "=r"(id[1]));
  asm volatile("mov.u32 %0, %%clusterid.z;" : "=r"(id[2]));
  asm volatile("mov.u32 %0, %%nclusterid.x;" : "=r"(count[0]));
  asm volatile("mov.u32 %0, %%nclusterid.y;" : "=r"(count[1]));
  asm volatile("mov.u32 %0, %%nclusterid.z;" : "=r"(count[2]));
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(blocks));
  asm volatile("{\n .reg .pred p;\n mov.pred p, %%is_explicit_cluster;\n selp.u32 %0, 1, 0, p;\n}" : "=r"(is_explicit));
  for (int a = 0; a < 3; ++a) r.cluster_id[a] = id[a], r.cluster_count[a] = count[a];
  r.cluster_rank = rank;
  r.cluster_blocks = blocks;
  r.cluster_flags = kClusterRead | (is_explicit ? kClusterExplicit : 0u);
#else
  (void)r;
#endif
}

class BlockRecorder {
 public:
  // `records`: one DeviceBlockRecord per block of the grid, zeroed (TraceBuffer does both).
  // nullptr records nothing (the barrier still runs).
  __device__ explicit BlockRecorder(DeviceBlockRecord* records) : records_(records) {
    if (is_first_thread()) start_ = global_timer_ns();
  }

  __device__ ~BlockRecorder() {
    __syncthreads();  // every thread of the block has finished the body
    if (records_) {
      const unsigned live = __activemask();
      unsigned lane;
      asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
      if (lane == static_cast<unsigned>(__ffs(live) - 1))
        atomicAdd(&records_[linear_block()].threads, static_cast<unsigned>(__popc(live)));
    }
    if (records_ && is_first_thread()) {
      const std::uint64_t end = global_timer_ns();
      DeviceBlockRecord& r = records_[linear_block()];
      r.start_ns = start_;
      r.end_ns = end;
      r.smid = sm_id();
      read_cluster(r);
      atomicAdd(&r.writes, 1u);
    }
  }

  BlockRecorder(const BlockRecorder&) = delete;
  BlockRecorder& operator=(const BlockRecorder&) = delete;

 private:
  __device__ static bool is_first_thread() { return threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0; }
  __device__ static unsigned long long linear_block() {
    return blockIdx.x + static_cast<unsigned long long>(gridDim.x) *
                            (blockIdx.y + static_cast<unsigned long long>(gridDim.y) * blockIdx.z);
  }

  DeviceBlockRecord* records_;
  std::uint64_t start_ = 0;
};

}  // namespace bs::trace
