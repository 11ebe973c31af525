// Where a user kernel's result goes: its runner returns host bytes; the view's buffer is device
// memory on the CUDA backend (a CUDA-mapped GL pixel buffer, or a lab's device buffer) and host
// memory on the CPU.
#include <cstring>

#include "labs/custom/user_kernel_lab.hpp"

#if defined(BLOCKSCOPE_HAS_CUDA)
#include "device/cuda_status.hpp"
#endif

namespace bs::custom {

Status copy_to_output(void* dst, const void* src, std::size_t bytes, BackendKind backend) {
  if (!dst || bytes == 0) return Status::success();
  if (backend == BackendKind::CpuSimulation) {
    std::memcpy(dst, src, bytes);
    return Status::success();
  }
#if defined(BLOCKSCOPE_HAS_CUDA)
  if (cudaError_t e = cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice); e != cudaSuccess)
    return cuda::to_status(e, "cudaMemcpy (user kernel result to the view)");
  return Status::success();
#else
  return Status::failure("this blockscope was built without CUDA", "", "copy_to_output");
#endif
}

}  // namespace bs::custom
