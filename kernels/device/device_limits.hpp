// What the CUDA device and a compiled kernel allow, read from the runtime into the plain
// structs the rest of blockscope uses (DeviceLimits, KernelAttributes), so the occupancy
// calculator, launch validation and the UI never touch cudaDeviceProp themselves.
//
// Link bs_cuda_device (defined in kernels/mapping/CMakeLists.txt when CUDA is on).
#pragma once
#include "core/launch.hpp"
#include "core/status.hpp"

namespace bs::cuda {

// Number of CUDA devices; a Status (cudaErrorNoDevice, or the driver's error) when there are none.
Result<int> device_count();

// Success when CUDA device `device` exists; else why not (device_count's reasons, or a number
// past the devices found).
Status device_exists(int device);

// Fills every DeviceLimits field for `device`: name and compute capability, block/grid limits,
// shared memory (per block, opt-in, per SM, the runtime's reserved share per block), registers,
// threads and blocks per SM, SM count, global memory, clocks (cudaDevAttrClockRate and
// cudaDevAttrMemoryClockRate: CUDA 13 removed cudaDeviceProp::clockRate/memoryClockRate), bus
// width, and the allocation units the occupancy rules need (register unit 256, sub-partitions,
// shared memory unit 128 or 256) from the compute capability (mapping/architecture.hpp).
Result<DeviceLimits> query_device_limits(int device);

// cudaFuncGetAttributes of a __global__ function (pass the function itself, e.g.
// query_kernel_attributes(reinterpret_cast<const void*>(&my_kernel))).
Result<KernelAttributes> query_kernel_attributes(const void* kernel);

}  // namespace bs::cuda
