// Launch configurations and the rules CUDA applies to them, checked before a launch so the user
// reads why a shape is refused instead of a cudaErrorInvalidConfiguration after the fact.
#pragma once
#include <algorithm>
#include <cstddef>
#include <string>

#include "core/dim.hpp"
#include "core/status.hpp"

namespace bs {

struct LaunchConfig {
  Dim3 grid;
  Dim3 block;
  std::size_t dynamic_shared_bytes = 0;
  Dim3 cluster{1, 1, 1};  // thread block clusters (sm_90): blocks per cluster along each axis

  unsigned long long threads_per_block() const { return block.volume(); }
  unsigned long long total_blocks() const { return grid.volume(); }
  unsigned long long total_threads() const { return grid.volume() * block.volume(); }
};

inline bool operator==(const LaunchConfig& a, const LaunchConfig& b) {
  return a.grid == b.grid && a.block == b.block && a.dynamic_shared_bytes == b.dynamic_shared_bytes &&
         a.cluster == b.cluster;
}

// What the hardware (or the simulator, which enforces the same rules so lessons carry over)
// allows. Filled from cudaGetDeviceProperties on the GPU; cuda_defaults() mirrors sm_75..sm_90.
struct DeviceLimits {
  std::string name = "CPU simulation";
  int compute_major = 0, compute_minor = 0;
  unsigned max_threads_per_block = 1024;
  Dim3 max_block{1024, 1024, 64};
  Dim3 max_grid{2147483647u, 65535u, 65535u};
  unsigned warp_size = 32;
  std::size_t shared_per_block = 48 * 1024;        // without opt-in
  std::size_t shared_per_block_optin = 48 * 1024;  // with cudaFuncAttributeMaxDynamicSharedMemorySize
  std::size_t shared_per_sm = 64 * 1024;
  std::size_t reserved_shared_per_block = 0;  // the runtime's own share per block (1 KiB on sm_80+)
  unsigned regs_per_block = 65536;
  unsigned regs_per_sm = 65536;
  unsigned max_threads_per_sm = 1024;
  unsigned max_blocks_per_sm = 16;
  unsigned sm_count = 1;
  unsigned register_allocation_unit = 256;  // registers are granted per warp in these units
  unsigned warp_allocation_granularity = 4;
  std::size_t shared_allocation_unit = 128;
  std::size_t total_global_bytes = 0;
  double clock_khz = 0;
  double memory_clock_khz = 0;
  int memory_bus_bits = 0;

  static DeviceLimits cuda_defaults() { return DeviceLimits{}; }
};

// A compiled kernel's own constraints (cudaFuncGetAttributes on the GPU; the simulator reports
// what the kernel declares).
struct KernelAttributes {
  unsigned max_threads_per_block = 1024;  // lower than the device's when registers run short
  unsigned registers_per_thread = 0;
  std::size_t static_shared_bytes = 0;
  std::size_t local_bytes_per_thread = 0;
  std::size_t max_dynamic_shared_bytes = 48 * 1024;
  int ptx_version = 0;
  int binary_version = 0;
  std::string function;  // the launched function's mangled name (cudaFuncGetName; "" unknown)
};

// Checks `config` against the device and (optionally) the kernel; the Status names the rule and
// the numbers. Order matters: the first rule a learner would trip over is the one reported.
inline Status validate_launch(const LaunchConfig& config, const DeviceLimits& limits,
                              const KernelAttributes* kernel = nullptr) {
  const Dim3 b = config.block, g = config.grid;
  auto dims = [](const Dim3& d) { return to_string(d); };
  if (b.x == 0 || b.y == 0 || b.z == 0)
    return Status::failure("blockDim " + dims(b) + " has a zero dimension", "every block dimension must be at least 1",
                           "validate_launch", "cudaErrorInvalidConfiguration");
  if (b.x > limits.max_block.x || b.y > limits.max_block.y || b.z > limits.max_block.z)
    return Status::failure("blockDim " + dims(b) + " exceeds the per-dimension limit " + dims(limits.max_block),
                           "blockDim.z is limited to " + std::to_string(limits.max_block.z) + ", x and y to " +
                               std::to_string(limits.max_block.x),
                           "validate_launch", "cudaErrorInvalidConfiguration");
  if (b.volume() > limits.max_threads_per_block)
    return Status::failure("blockDim " + dims(b) + " has " + std::to_string(b.volume()) +
                               " threads; a block may have at most " + std::to_string(limits.max_threads_per_block),
                           "shrink a dimension so x*y*z <= " + std::to_string(limits.max_threads_per_block),
                           "validate_launch", "cudaErrorInvalidConfiguration");
  if (kernel && b.volume() > kernel->max_threads_per_block)
    return Status::failure("this kernel can run at most " + std::to_string(kernel->max_threads_per_block) +
                               " threads per block (it uses " + std::to_string(kernel->registers_per_thread) +
                               " registers per thread), and blockDim " + dims(b) + " has " + std::to_string(b.volume()),
                           "use a smaller block", "validate_launch", "cudaErrorLaunchOutOfResources");
  // After the block's rules: a grid computed from an impossible block (one of 2^31 threads
  // rounds the grid down to 0) is refused for the block the user chose, not for its grid.
  if (g.x == 0 || g.y == 0 || g.z == 0)
    return Status::failure("gridDim " + dims(g) + " has a zero dimension (nothing to compute?)",
                           "every grid dimension must be at least 1", "validate_launch",
                           "cudaErrorInvalidConfiguration");
  if (g.x > limits.max_grid.x || g.y > limits.max_grid.y || g.z > limits.max_grid.z) {
    const char* axis = g.x > limits.max_grid.x ? "x" : g.y > limits.max_grid.y ? "y" : "z";
    return Status::failure(
        "gridDim " + dims(g) + " exceeds the grid limit " + dims(limits.max_grid) + " in " + axis,
        std::string("a taller or wider block needs fewer blocks in ") + axis + "; gridDim.y and z are limited to 65535",
        "validate_launch", "cudaErrorInvalidConfiguration");
  }
  const Dim3 c = config.cluster;
  if (c.volume() > 1) {
    if (c.x == 0 || c.y == 0 || c.z == 0 || g.x % c.x != 0 || g.y % c.y != 0 || g.z % c.z != 0)
      return Status::failure("gridDim " + dims(g) + " is not a whole number of clusters of " + dims(c),
                             "each grid dimension must be a multiple of the cluster's", "validate_launch",
                             "cudaErrorInvalidClusterSize");
    if (c.volume() > 8)
      return Status::failure("a cluster of " + std::to_string(c.volume()) + " blocks; at most 8 are portable",
                             "use clusters of 8 blocks or fewer", "validate_launch", "cudaErrorInvalidClusterSize");
  }
  const std::size_t static_smem = kernel ? kernel->static_shared_bytes : 0;
  const std::size_t smem = static_smem + config.dynamic_shared_bytes;
  // Dynamic shared memory may go up to the device's opt-in limit (the launcher raises the
  // kernel's cudaFuncAttributeMaxDynamicSharedMemorySize); a kernel's attributes, where known,
  // say how far it was raised.
  const std::size_t smem_limit =
      config.dynamic_shared_bytes == 0 ? limits.shared_per_block
      : kernel ? std::min(limits.shared_per_block_optin, static_smem + kernel->max_dynamic_shared_bytes)
               : limits.shared_per_block_optin;
  if (smem > smem_limit)
    return Status::failure("the block needs " + std::to_string(smem) + " bytes of shared memory; the limit is " +
                               std::to_string(smem_limit),
                           "use smaller tiles", "validate_launch", "cudaErrorInvalidValue");
  return Status::success();
}

}  // namespace bs
