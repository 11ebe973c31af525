#include <cuda_runtime.h>

#include "device/cuda_status.hpp"
#include "device/device_limits.hpp"
#include "mapping/architecture.hpp"

namespace bs::cuda {

Result<int> device_count() {
  int count = 0;
  if (cudaError_t e = cudaGetDeviceCount(&count); e != cudaSuccess) {
    cudaGetLastError();  // not sticky; keep later calls clean
    return to_status(e, "cudaGetDeviceCount");
  }
  if (count == 0)
    return Status::failure("no CUDA device found", hint_for(cudaErrorNoDevice), "cudaGetDeviceCount",
                           "cudaErrorNoDevice");
  return count;
}

Status device_exists(int device) {
  auto count = device_count();
  if (!count) return count.status();
  if (device < 0 || device >= *count)
    return Status::failure(
        "CUDA device " + std::to_string(device) + " does not exist (" + std::to_string(*count) + " found)",
        "pick a device from 0 to " + std::to_string(*count - 1), "cudaSetDevice", "cudaErrorInvalidDevice");
  return Status::success();
}

Result<DeviceLimits> query_device_limits(int device) {
  cudaDeviceProp p{};
  BS_CUDA_TRY(cudaGetDeviceProperties(&p, device));
  int clock_khz = 0, memory_clock_khz = 0;
  BS_CUDA_TRY(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, device));
  BS_CUDA_TRY(cudaDeviceGetAttribute(&memory_clock_khz, cudaDevAttrMemoryClockRate, device));

  const auto rules = mapping::architecture_rules(p.major, p.minor);
  if (!rules)
    return Status::failure("compute capability " + std::to_string(p.major) + "." + std::to_string(p.minor) + " of " +
                               p.name + " is not one blockscope knows the occupancy rules for",
                           "blockscope supports compute capability 3.0 to 12.x", "query_device_limits");

  DeviceLimits d;
  d.name = p.name;
  d.compute_major = p.major;
  d.compute_minor = p.minor;
  d.max_threads_per_block = static_cast<unsigned>(p.maxThreadsPerBlock);
  d.max_block = Dim3{static_cast<unsigned>(p.maxThreadsDim[0]), static_cast<unsigned>(p.maxThreadsDim[1]),
                     static_cast<unsigned>(p.maxThreadsDim[2])};
  d.max_grid = Dim3{static_cast<unsigned>(p.maxGridSize[0]), static_cast<unsigned>(p.maxGridSize[1]),
                    static_cast<unsigned>(p.maxGridSize[2])};
  d.warp_size = static_cast<unsigned>(p.warpSize);
  d.shared_per_block = p.sharedMemPerBlock;
  d.shared_per_block_optin = p.sharedMemPerBlockOptin;
  d.shared_per_sm = p.sharedMemPerMultiprocessor;
  d.reserved_shared_per_block = p.reservedSharedMemPerBlock;
  d.regs_per_block = static_cast<unsigned>(p.regsPerBlock);
  d.regs_per_sm = static_cast<unsigned>(p.regsPerMultiprocessor);
  d.max_threads_per_sm = static_cast<unsigned>(p.maxThreadsPerMultiProcessor);
  // The device reports its resident-block limit itself; the table is the fallback.
  d.max_blocks_per_sm =
      p.maxBlocksPerMultiProcessor > 0 ? static_cast<unsigned>(p.maxBlocksPerMultiProcessor) : rules->max_blocks_per_sm;
  d.sm_count = static_cast<unsigned>(p.multiProcessorCount);
  d.register_allocation_unit = rules->register_allocation_unit;
  d.warp_allocation_granularity = rules->register_sub_partitions;
  d.shared_allocation_unit = rules->shared_allocation_unit;
  d.total_global_bytes = p.totalGlobalMem;
  d.clock_khz = clock_khz;
  d.memory_clock_khz = memory_clock_khz;
  d.memory_bus_bits = p.memoryBusWidth;
  return d;
}

Result<KernelAttributes> query_kernel_attributes(const void* kernel) {
  cudaFuncAttributes a{};
  BS_CUDA_TRY(cudaFuncGetAttributes(&a, kernel));
  KernelAttributes k;
  k.max_threads_per_block = static_cast<unsigned>(a.maxThreadsPerBlock);
  k.registers_per_thread = static_cast<unsigned>(a.numRegs);
  k.static_shared_bytes = a.sharedSizeBytes;
  k.local_bytes_per_thread = a.localSizeBytes;
  k.max_dynamic_shared_bytes = static_cast<std::size_t>(a.maxDynamicSharedSizeBytes);
  k.ptx_version = a.ptxVersion;
  k.binary_version = a.binaryVersion;
  // The name the Source tab finds the function's SASS by (a rung has one __global__ template
  // instantiated per configuration: its line table alone cannot tell them apart).
  if (const char* name = nullptr; cudaFuncGetName(&name, kernel) == cudaSuccess && name) k.function = name;
  return k;
}

}  // namespace bs::cuda
