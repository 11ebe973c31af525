// Device side of the pipeline trace (pipeline_trace.hpp says what is recorded and why): the
// probe the warp-specialized bodies (tc4_ws_block, tc_persistent_block) take as a template
// parameter. NoPipelineProbe is what the plain rungs pass: its calls are empty inline functions,
// so the plain kernels compile to the same machine code as before the probe existed (checked
// by comparing their SASS; kernels/labs/matmul/NOTES.md). PipelineProbe is the traced variant's:
// one thread per warpgroup (lane 0 of its first warp) reads %globaltimer and clock64 and writes
// an event into its warpgroup's capped slice of the buffer; the count of attempted events is
// kept in a register and written once, at finish().
#pragma once
#include <cstdint>

#include "labs/matmul/pipeline_trace.hpp"
#include "trace/block_trace.cuh"

namespace bs::matmul {

struct NoPipelineProbe {
  __device__ __forceinline__ void bind(int) {}
  __device__ __forceinline__ void at(PipelineEventKind, int, int, int) {}
  __device__ __forceinline__ void finish() {}
};

struct PipelineProbe {
  PipelineDeviceArgs out;
  PipelineEvent* slots = nullptr;
  std::uint32_t count = 0;
  bool recorder = false;

  // The calling thread's warpgroup: its slice of the buffer; lane 0 of the warpgroup records.
  __device__ __forceinline__ void bind(int warpgroup) {
    const unsigned long long block =
        blockIdx.x + static_cast<unsigned long long>(gridDim.x) *
                         (blockIdx.y + static_cast<unsigned long long>(gridDim.y) * blockIdx.z);
    const unsigned long long lane = block * kPipelineWarpgroups + static_cast<unsigned>(warpgroup);
    slots = out.events + lane * out.capacity;
    recorder = threadIdx.x % 128 == 0;
  }
  // The warp's active lanes meet again after the recording lane's stores (__syncwarp on the
  // mask at entry: the whole warp in a consumer, where wgmma's .aligned instructions follow;
  // lane 0 alone in the producer's single-thread loop).
  __device__ __forceinline__ void at(PipelineEventKind kind, int stage, int slice, int tile) {
    const unsigned active = __activemask();
    if (recorder) record(kind, stage, slice, tile);
    __syncwarp(active);
  }
  __device__ __forceinline__ void record(PipelineEventKind kind, int stage, int slice, int tile) {
    if (count < out.capacity) {
      std::uint32_t clk;
      asm volatile("mov.u32 %0, %%clock;" : "=r"(clk));
      PipelineEvent e;
      e.t_ns = trace::global_timer_ns();
      e.clock = clk;
      e.slice = static_cast<std::uint32_t>(slice);
      e.tile = static_cast<std::uint32_t>(tile);
      e.kind = static_cast<std::uint8_t>(kind);
      e.stage = static_cast<std::uint8_t>(stage);
      e.pad = 0;
      slots[count] = e;
    }
    ++count;
  }
  __device__ __forceinline__ void finish() {
    if (!recorder) return;
    const unsigned long long block =
        blockIdx.x + static_cast<unsigned long long>(gridDim.x) *
                         (blockIdx.y + static_cast<unsigned long long>(gridDim.y) * blockIdx.z);
    out.attempted[block * kPipelineWarpgroups + threadIdx.x / 128] = count;
  }
};

}  // namespace bs::matmul
