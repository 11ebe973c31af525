// Cold-cache timing: a buffer twice the size of the device's L2, overwritten before a timed
// repeat so the kernel under test starts with nothing of its data in the L2 (the optional flush
// of the one timing policy, lab/measure.hpp). Include from CUDA-built files only.
#pragma once
#include <cuda_runtime.h>

#include "device/cuda_status.hpp"
#include "device/device_buffer.hpp"

namespace bs::cuda {

class L2Flusher {
 public:
  // Allocates 2 x L2 of `device` (current device when < 0). An allocation failure leaves the
  // flusher empty: flush() then says so instead of timing warm runs as cold ones.
  static Result<L2Flusher> create(int device = -1) {
    int dev = device;
    if (dev < 0) BS_CUDA_TRY(cudaGetDevice(&dev));
    int l2 = 0;
    BS_CUDA_TRY(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
    L2Flusher f;
    auto buffer = DeviceBuffer<unsigned char>::allocate(2 * static_cast<std::size_t>(l2));
    if (!buffer) return buffer.status();
    f.buffer_ = std::move(buffer.value());
    return Result<L2Flusher>(std::move(f));
  }

  Status flush(cudaStream_t stream = nullptr) {
    if (!buffer_.get()) return Status::failure("no L2 flush buffer", "", "L2Flusher::flush");
    BS_CUDA_TRY(cudaMemsetAsync(buffer_.get(), flip_ ^= 1, buffer_.bytes(), stream));
    return Status::success();
  }

 private:
  DeviceBuffer<unsigned char> buffer_;
  int flip_ = 0;
};

}  // namespace bs::cuda
