// Host side of the real schedule on the GPU: the device buffer a traced kernel writes its
// per-block records into, and collecting them as the BlockTrace list of a LaunchRecord.
// Include from .cu/.cpp files built with the CUDA toolkit; link bs_trace_cuda.
#pragma once
#include <cuda_runtime.h>

#include <vector>

#include "core/dim.hpp"
#include "core/launch_record.hpp"
#include "device/device_buffer.hpp"
#include "trace/trace_record.hpp"

namespace bs::trace {

class TraceBuffer {
 public:
  // One zeroed record per block of `grid` (zeroing is queued on `stream`, before the kernel).
  static Result<TraceBuffer> allocate(Dim3 grid, cudaStream_t stream = nullptr);

  DeviceBlockRecord* records() const { return buffer_.get(); }
  Dim3 grid() const { return grid_; }

  // Zeroes the records again so the buffer can trace another launch of the same grid.
  Status clear(cudaStream_t stream = nullptr);

  // Waits for `stream`, copies the records back and checks them (one write per block,
  // start <= end, SM id < sm_count); times come back relative to the earliest block start.
  Result<std::vector<BlockTrace>> collect(unsigned sm_count, cudaStream_t stream = nullptr) const;

 private:
  cuda::DeviceBuffer<DeviceBlockRecord> buffer_;
  Dim3 grid_;
};

// The same for records in a buffer the caller owns (one per block of `grid`).
Result<std::vector<BlockTrace>> collect_trace(const DeviceBlockRecord* device_records, Dim3 grid, unsigned sm_count,
                                              cudaStream_t stream = nullptr);

}  // namespace bs::trace
