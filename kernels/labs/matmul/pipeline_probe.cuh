// Device side of the pipeline trace (pipeline_trace.hpp says what is recorded and why): the
// probe the warp-specialized bodies (tc4_ws_block, tc_persistent_block) take as a template
// parameter. NoPipelineProbe is what the plain rungs pass: its calls are empty inline functions,
// so the plain kernels compile to the same machine code as before the probe existed (checked
// by comparing their SASS; kernels/labs/matmul/NOTES.md). PipelineProbe is the traced variant's.
//
// Where the cost is. A consumer's critical path runs from wgmma.wait_group to its next stage's
// wgmmas: the arrive on "empty", the wait on "full". An event written there (a branch to the
// recording lane, address arithmetic, stores, reconvergence) holds up the whole warpgroup, since
// wgmma is .aligned over its four warps; five of them a k-slice were the bulk of what made T4..T6
// 40-80% slower in the first version. So the body only *stamps* there: every thread reads the SM clock into
// a register (stamp<K>, one fixed-latency read, no branch), and the events are *written* later,
// where the warp would wait anyway: a consumer writes its slice's events after committing its
// wgmmas (the tensor cores work meanwhile), the producer after issuing its TMA copies.
// now<K> stamps and writes at once, for events off the critical path; those also read
// %globaltimer now and then (every kTimerEvery-th k-slice, and each epilogue's end): the readings
// anchor the clock to the timer, and place_by_clock (pipeline_trace.hpp) places the others.
// An event is one 16-byte vector store (PipelineDeviceEvent): the 24-byte PipelineEvent took four
// stores and its address arithmetic. The steps and what each one bought, measured: NOTES.md.
#pragma once
#include <cstdint>

#include "labs/matmul/pipeline_trace.hpp"
#include "trace/block_trace.cuh"

namespace bs::matmul {

using PipelineEv = PipelineEventKind;

struct NoPipelineProbe {
  __device__ __forceinline__ void bind(int) {}
  template <PipelineEv... K>
  __device__ __forceinline__ void stamp() {}
  template <PipelineEv... K>
  __device__ __forceinline__ void write(int, int, int) {}
  template <PipelineEv K>
  __device__ __forceinline__ void now(int, int, int) {}
  __device__ __forceinline__ void finish() {}
};

struct PipelineProbe {
  PipelineDeviceArgs out;
  PipelineDeviceEvent* begin = nullptr;  // the warpgroup's slots
  PipelineDeviceEvent* next = nullptr;   // where the next event goes (counts on past the end)
  bool recorder = false;
  // The last stamp of each kind (indexed only by constants: registers, not local memory).
  std::uint32_t stamped[static_cast<int>(PipelineEv::Count)] = {};

  // The calling thread's warpgroup: its slots, and whether this thread records: in the producer
  // the thread that runs its loop (thread 0); in a consumer lane 0 of its *second* warp, because
  // thread 0 (and in clusters thread 1) arrive on the "empty" barriers, and an arrive has release
  // semantics: it waits until the arriving thread's earlier stores, the events among them, are
  // performed. Recording from an arriving thread cost T6 4% (H100, 4096^3); from lane 32, 1%.
  __device__ __forceinline__ void bind(int warpgroup) {
    const unsigned long long block =
        blockIdx.x + static_cast<unsigned long long>(gridDim.x) *
                         (blockIdx.y + static_cast<unsigned long long>(gridDim.y) * blockIdx.z);
    const unsigned long long lane = block * kPipelineWarpgroups + static_cast<unsigned>(warpgroup);
    begin = next = out.events + lane * out.capacity;
    recorder = threadIdx.x % 128 == (warpgroup == 0 ? 0u : 32u);
  }
  static constexpr std::uint32_t kTimerEvery = 8;
  __device__ __forceinline__ static std::uint32_t sm_clock() { return static_cast<std::uint32_t>(clock64()); }

  // One clock reading for the kinds K...: events that happen within a few instructions of each
  // other with nothing to wait for between them.
  template <PipelineEv... K>
  __device__ __forceinline__ void stamp() {
    const std::uint32_t c = sm_clock();
    ((stamped[static_cast<int>(K)] = c), ...);
  }
  // Writes the stamped events K..., in that order, for (stage, slice, tile). The warp's active
  // lanes meet again after the recording lane's stores (__syncwarp on the mask at entry: the
  // whole warp in a consumer, where wgmma's .aligned instructions follow; lane 0 alone in the
  // producer's single-thread loop).
  template <PipelineEv... K>
  __device__ __forceinline__ void write(int stage, int slice, int tile) {
    const unsigned active = __activemask();
    if (recorder) (record(stamped[static_cast<int>(K)], 0, pipeline_event_bits(K, stage, slice), tile), ...);
    __syncwarp(active);
  }
  template <PipelineEv K>
  __device__ __forceinline__ void now(int stage, int slice, int tile) {
    const unsigned active = __activemask();
    if (recorder) {
      const std::uint32_t clock = sm_clock();
      const std::uint32_t bits = pipeline_event_bits(K, stage, slice);
      if (slice % kTimerEvery == 0 || K == PipelineEv::EpilogueEnd)
        record(clock, static_cast<std::uint32_t>(trace::global_timer_ns()), bits | kPipelineTimerRead, tile);
      else record(clock, 0, bits, tile);
    }
    __syncwarp(active);
  }
  __device__ __forceinline__ void record(std::uint32_t clock, std::uint32_t timer_lo, std::uint32_t bits, int tile) {
    if (next < begin + out.capacity)
      *reinterpret_cast<uint4*>(next) = make_uint4(clock, timer_lo, static_cast<std::uint32_t>(tile), bits);
    ++next;
  }
  __device__ __forceinline__ void finish() {
    if (!recorder) return;
    const unsigned long long block =
        blockIdx.x + static_cast<unsigned long long>(gridDim.x) *
                         (blockIdx.y + static_cast<unsigned long long>(gridDim.y) * blockIdx.z);
    out.attempted[block * kPipelineWarpgroups + threadIdx.x / 128] = static_cast<std::uint32_t>(next - begin);
  }
};

}  // namespace bs::matmul
