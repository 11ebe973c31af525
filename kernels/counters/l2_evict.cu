// A read-only sweep over a scratch buffer; see l2_evict.hpp for why reads and not writes.
#include <cuda_runtime.h>

#include "counters/l2_evict.hpp"
#include "device/cuda_status.hpp"

namespace bs::counters {
namespace {

// Each thread folds the 16-byte words it reads into one value; the store that never happens (the
// value cannot equal the buffer's own address) keeps the compiler from dropping the loads.
__global__ void read_sweep(const uint4* __restrict__ p, std::size_t n, unsigned* sink) {
  unsigned acc = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const uint4 v = p[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x9e3779b9u && sink == reinterpret_cast<const unsigned*>(p)) *sink = acc;
}

}  // namespace

Status evict_l2(const void* scratch, std::size_t bytes) {
  int device = 0, sms = 0;
  BS_CUDA_TRY(cudaGetDevice(&device));
  BS_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const auto* words = static_cast<const uint4*>(scratch);
  read_sweep<<<sms * 4, 512>>>(words, bytes / sizeof(uint4), nullptr);
  BS_CUDA_TRY(cudaGetLastError());
  BS_CUDA_TRY(cudaDeviceSynchronize());
  return Status::success();
}

}  // namespace bs::counters
