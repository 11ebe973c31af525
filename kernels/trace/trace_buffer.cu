#include <utility>

#include "device/cuda_status.hpp"
#include "trace/trace_buffer.hpp"

namespace bs::trace {

Result<TraceBuffer> TraceBuffer::allocate(Dim3 grid, cudaStream_t stream) {
  if (grid.volume() == 0)
    return Status::failure("cannot trace an empty grid " + to_string(grid), "", "TraceBuffer::allocate");
  auto buffer = cuda::DeviceBuffer<DeviceBlockRecord>::allocate(grid.volume());
  if (!buffer) return buffer.status();
  TraceBuffer t;
  t.buffer_ = std::move(buffer.value());
  t.grid_ = grid;
  if (Status s = t.clear(stream); !s) return s;
  return Result<TraceBuffer>(std::move(t));
}

Status TraceBuffer::clear(cudaStream_t stream) {
  BS_CUDA_TRY(cudaMemsetAsync(buffer_.get(), 0, buffer_.bytes(), stream));
  return Status::success();
}

Result<std::vector<BlockTrace>> TraceBuffer::collect(unsigned sm_count, cudaStream_t stream) const {
  return collect_trace(buffer_.get(), grid_, sm_count, stream);
}

Result<std::vector<BlockTrace>> collect_trace(const DeviceBlockRecord* device_records, Dim3 grid, unsigned sm_count,
                                              cudaStream_t stream) {
  std::vector<DeviceBlockRecord> host(grid.volume());
  BS_CUDA_TRY(cudaStreamSynchronize(stream));  // the traced kernel's faults surface here
  BS_CUDA_TRY(cudaMemcpy(host.data(), device_records, host.size() * sizeof(DeviceBlockRecord), cudaMemcpyDeviceToHost));
  return records_to_trace(host, grid, sm_count);
}

}  // namespace bs::trace
