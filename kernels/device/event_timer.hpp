// The one GPU timing helper: a pair of CUDA events around a region on a stream, RAII.
//
// The start event is recorded behind a short wait of the stream (the lead). Without it, on a GPU
// with nothing queued, the start event is stamped as soon as it is submitted, and the region's
// work begins only once the host has finished submitting it: the region would also time the
// host's launch (a few microseconds for a kernel, more for a cuBLAS call, which picks its kernel
// first). Behind the lead the host has long submitted the region when the GPU reaches the start
// event, so the region holds the GPU's work alone. An L2 flush before a launch (the bench) does
// the same by keeping the GPU busy, so a stream still busy gets no lead; the app's live runs,
// sweeps without a flush and the cuBLAS reference had no such cover. The lead is a host function
// (the stream waits while the driver's thread spins 50 us), not a kernel: a kernel would be
// profiled with the launch it precedes (the Measured tab's counters range over every kernel
// between their start and stop).
#pragma once
#include <cuda_runtime.h>

#include <chrono>

#include "device/cuda_status.hpp"

namespace bs::cuda {

inline constexpr std::chrono::microseconds kTimerLead{50};  // well past a cuBLAS call's own host time

inline void CUDART_CB timer_lead(void*) {
  const auto until = std::chrono::steady_clock::now() + kTimerLead;
  while (std::chrono::steady_clock::now() < until) {}
}

class EventTimer {
 public:
  EventTimer() {
    cudaEventCreate(&start_);
    cudaEventCreate(&stop_);
  }
  ~EventTimer() {
    if (start_) cudaEventDestroy(start_);
    if (stop_) cudaEventDestroy(stop_);
  }
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;

  void start(cudaStream_t s = nullptr) {
    // Only an idle stream needs the lead: one still busy (an L2 flush just queued before the
    // launch, as the bench does) keeps the GPU away from the start event by itself, and the
    // bench's figures stay what they were. "Not ready" is an answer, not an error: not kept.
    const cudaError_t idle = cudaStreamQuery(s);
    if (idle == cudaSuccess) cudaLaunchHostFunc(s, timer_lead, nullptr);
    if (cudaPeekAtLastError() == cudaErrorNotReady) (void)cudaGetLastError();
    cudaEventRecord(start_, s);
  }
  void stop(cudaStream_t s = nullptr) { cudaEventRecord(stop_, s); }
  // Waits for the stop event; milliseconds between the two events.
  Result<float> elapsed_ms() {
    BS_CUDA_TRY(cudaEventSynchronize(stop_));
    float ms = 0;
    BS_CUDA_TRY(cudaEventElapsedTime(&ms, start_, stop_));
    return ms;
  }

 private:
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

}  // namespace bs::cuda
