// RAII device memory. Allocation failure is a Status (checked against cudaMemGetInfo first so
// the message says how much was asked for and how much is free), never an abort.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <utility>

#include "device/cuda_status.hpp"

namespace bs::cuda {

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  ~DeviceBuffer() { reset(); }
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), count_(std::exchange(o.count_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      reset();
      ptr_ = std::exchange(o.ptr_, nullptr);
      count_ = std::exchange(o.count_, 0);
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  static Result<DeviceBuffer> allocate(std::size_t count) {
    DeviceBuffer b;
    if (count == 0) return Result<DeviceBuffer>(std::move(b));
    const std::size_t bytes = count * sizeof(T);
    std::size_t free_bytes = 0, total_bytes = 0;
    if (cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess && bytes > free_bytes)
      return Status::failure(
          "needs " + mib(bytes) + " of GPU memory but only " + mib(free_bytes) + " of " + mib(total_bytes) + " is free",
          "choose a smaller size", "cudaMemGetInfo", "cudaErrorMemoryAllocation");
    if (cudaError_t e = cudaMalloc(&b.ptr_, bytes); e != cudaSuccess) {
      cudaGetLastError();  // clear the (non-sticky) allocation error
      b.ptr_ = nullptr;
      Status s = to_status(e, "cudaMalloc");
      s.message = "could not allocate " + mib(bytes) + " on the GPU: " + s.message;
      return s;
    }
    b.count_ = count;
    return Result<DeviceBuffer>(std::move(b));
  }

  T* get() const { return ptr_; }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }
  void reset() {
    if (ptr_) cudaFree(ptr_);
    ptr_ = nullptr;
    count_ = 0;
  }

 private:
  static std::string mib(std::size_t bytes) { return std::to_string((bytes + (1u << 20) - 1) >> 20) + " MiB"; }
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace bs::cuda
