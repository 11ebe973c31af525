// A read-only sweep over a scratch buffer, then a discard of its L2 lines; see l2_evict.hpp for
// why reads and not writes, and why the discard.
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

// discard.global.L2 invalidates one 128-byte line without writing it back (PTX ISA 7.4, sm_80+).
// The scratch lines are clean, so nothing is lost; the L2 is left with invalid lines, as after
// Nsight Compute's flush. On older GPUs the kernel does nothing (the read alone evicts).
__global__ void discard_sweep(const unsigned char* p, std::size_t lines) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < lines;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    asm volatile("discard.global.L2 [%0], 128;" ::"l"(p + i * 128) : "memory");
#else
  (void)p, (void)lines;
#endif
}

}  // namespace

Status evict_l2(const void* scratch, std::size_t bytes, L2Eviction how) {
  int device = 0, sms = 0;
  BS_CUDA_TRY(cudaGetDevice(&device));
  BS_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const auto* words = static_cast<const uint4*>(scratch);
  read_sweep<<<sms * 4, 512>>>(words, bytes / sizeof(uint4), nullptr);
  BS_CUDA_TRY(cudaGetLastError());
  if (how == L2Eviction::ReadAndDiscard) {
    discard_sweep<<<sms * 4, 512>>>(static_cast<const unsigned char*>(scratch), bytes / 128);
    BS_CUDA_TRY(cudaGetLastError());
  }
  BS_CUDA_TRY(cudaDeviceSynchronize());
  return Status::success();
}

}  // namespace bs::counters
