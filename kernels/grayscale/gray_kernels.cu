// The __global__ wrappers: each fills the per-thread context from CUDA's built-ins and calls the
// same body the CPU simulator runs. Nothing else happens on the GPU side.
#include "grayscale/gray_1d_flat.hpp"
#include "grayscale/gray_2d.hpp"
#include "grayscale/gray_cuda_kernels.cuh"

namespace bs::gray {

__global__ void gray_1d_flat_kernel(GrayArgs a) {
  gray_1d_flat_thread(DeviceCtx::from_builtins(), a);
}

__global__ void gray_2d_kernel(GrayArgs a) { gray_2d_thread(DeviceCtx::from_builtins(), a); }

}  // namespace bs::gray
