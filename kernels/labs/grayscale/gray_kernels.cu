// The __global__ wrappers: each fills the per-thread context from CUDA's built-ins and calls the
// same body the CPU simulator runs. The traced variants wrap the very same body in a
// BlockRecorder (kernels/trace/block_trace.cuh), which records the SM and start/end time of
// every block; they are launched only when the schedule is asked for, never timed.
#include "labs/grayscale/gray_1d_flat.hpp"
#include "labs/grayscale/gray_2d.hpp"
#include "labs/grayscale/gray_cuda_kernels.cuh"
#include "trace/block_trace.cuh"

namespace bs::gray {

__global__ void gray_1d_flat_kernel(GrayArgs a) {
  gray_1d_flat_thread(DeviceCtx::from_builtins(), a);
}

__global__ void gray_2d_kernel(GrayArgs a) { gray_2d_thread(DeviceCtx::from_builtins(), a); }

__global__ void gray_1d_flat_traced(GrayArgs a, trace::DeviceBlockRecord* records) {
  trace::BlockRecorder recorder(records);
  gray_1d_flat_thread(DeviceCtx::from_builtins(), a);
}

__global__ void gray_2d_traced(GrayArgs a, trace::DeviceBlockRecord* records) {
  trace::BlockRecorder recorder(records);
  gray_2d_thread(DeviceCtx::from_builtins(), a);
}

}  // namespace bs::gray
