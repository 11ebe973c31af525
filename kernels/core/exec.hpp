// The per-thread execution context. The lecture's point is that a kernel is a function of
// (blockIdx, threadIdx): every kernel body in blockscope takes this context instead of reading
// CUDA's built-in variables, so the same body runs in a __global__ wrapper on the GPU and in
// the CPU grid simulator.
//
//   template <class Ctx> BS_HD void body(const Ctx& t, ...)   // uses t.blockIdx, t.threadIdx,
//                                                              // t.blockDim, t.gridDim, t.sync()
//                                                              // (and t.shared_access through
//                                                              // core/shared_access.hpp)
//
// DeviceCtx fills the fields from the built-ins; the simulator's HostCtx fills them in loops
// and routes sync() to its barrier. Shared memory is a struct the body receives by reference:
// the __global__ wrapper declares it __shared__, the simulator allocates one per block.
#pragma once
#include "core/dim.hpp"
#include "core/shared_access.hpp"

namespace bs {

#if defined(__CUDACC__)
struct DeviceCtx {
  Dim3 blockIdx, threadIdx, blockDim, gridDim;

  __device__ __forceinline__ static DeviceCtx from_builtins() {
    return DeviceCtx{{::blockIdx.x, ::blockIdx.y, ::blockIdx.z},
                     {::threadIdx.x, ::threadIdx.y, ::threadIdx.z},
                     {::blockDim.x, ::blockDim.y, ::blockDim.z},
                     {::gridDim.x, ::gridDim.y, ::gridDim.z}};
  }
  __device__ __forceinline__ void sync() const { __syncthreads(); }
  // Shared-memory accesses are recorded by the simulator only (core/shared_access.hpp).
  __device__ __forceinline__ void shared_access(const void*, unsigned, SharedOp, const SharedSite&) const {}
};
#endif

// Linear thread index within its block, x fastest, as CUDA numbers threads into warps.
template <class Ctx>
BS_HD unsigned linear_thread_in_block(const Ctx& t) {
  return t.threadIdx.x + t.blockDim.x * (t.threadIdx.y + t.blockDim.y * t.threadIdx.z);
}

}  // namespace bs
