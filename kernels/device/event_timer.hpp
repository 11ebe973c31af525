// The one GPU timing helper: a pair of CUDA events around a region on a stream, RAII.
#pragma once
#include <cuda_runtime.h>

#include "device/cuda_status.hpp"

namespace bs::cuda {

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

  void start(cudaStream_t s = nullptr) { cudaEventRecord(start_, s); }
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
