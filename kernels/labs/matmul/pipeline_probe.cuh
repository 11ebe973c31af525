// Device side of the pipeline trace (pipeline_trace.hpp says what is recorded and why): the
// probe the warp-specialized bodies (tc4_ws_block, tc_persistent_block) take as a template
// parameter. NoPipelineProbe is what the plain rungs pass: its calls are empty inline functions,
// so the plain kernels compile to the same machine code as before the probe existed (checked
// by comparing their SASS; kernels/labs/matmul/NOTES.md). PipelineProbe is the traced variant's:
// one thread per warpgroup (lane 0 of its first warp) reads the SM clock (and, now and then,
// %globaltimer) and writes an event into its warpgroup's capped slice of the buffer; the count of attempted events is
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
  // Reading %globaltimer costs far more than the SM clock (the first version read it at every
  // event: T4..T6 ran 42-74% slower on an H200). So every event reads the clock (clock64's low
  // word, a fixed-latency read), and only one event in kTimerEvery, and each epilogue's end, also
  // reads %globaltimer: those anchor the clock to the timer; place_by_clock (pipeline_trace.hpp)
  // places the others on the host. t_ns = 0 marks an event without its own timer reading.
  static constexpr std::uint32_t kTimerEvery = 8;
  __device__ __forceinline__ void record(PipelineEventKind kind, int stage, int slice, int tile) {
    if (count < out.capacity) {
      PipelineEvent e;
      e.clock = static_cast<std::uint32_t>(clock64());
      e.t_ns = count % kTimerEvery == 0 || kind == PipelineEventKind::EpilogueEnd ? trace::global_timer_ns() : 0;
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
