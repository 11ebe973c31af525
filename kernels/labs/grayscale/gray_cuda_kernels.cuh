// Declarations of the grayscale __global__ functions (defined in gray_kernels.cu).
#pragma once
#include "labs/grayscale/gray_common.hpp"
#include "trace/trace_record.hpp"

namespace bs::gray {
__global__ void gray_1d_flat_kernel(GrayArgs a);
__global__ void gray_2d_kernel(GrayArgs a);
__global__ void gray_1d_flat_traced(GrayArgs a, trace::DeviceBlockRecord* records);
__global__ void gray_2d_traced(GrayArgs a, trace::DeviceBlockRecord* records);
}  // namespace bs::gray
