// The per-architecture numbers the occupancy rules need but cudaGetDeviceProperties does not
// report (allocation units and granularities), and presets of whole devices so the occupancy
// calculator can be explored and tested without the GPU in question.
//
// The numbers follow NVIDIA's CUDA Occupancy Calculator and the CUDA C++ Programming Guide's
// "Compute Capabilities" tables (cuda_occupancy.h encodes the same rules).
#pragma once
#include <optional>

#include "core/launch.hpp"

namespace bs::mapping {

struct ArchitectureRules {
  // Registers are granted to a warp in chunks of this many (regs/thread * 32 rounded up).
  unsigned register_allocation_unit = 256;
  // The register file is split into this many sub-partitions (one per warp scheduler); a warp's
  // registers all come from one, so warps per SM by registers is a multiple of this. It is stored
  // in DeviceLimits::warp_allocation_granularity.
  unsigned register_sub_partitions = 4;
  // Shared memory is granted to a block in chunks of this many bytes.
  unsigned shared_allocation_unit = 128;
  // Resident blocks per SM (cudaDeviceProp::maxBlocksPerMultiProcessor says the same).
  unsigned max_blocks_per_sm = 32;
  unsigned max_registers_per_thread = 255;
};

// nullopt for compute capabilities before 3.0 or unknown majors.
std::optional<ArchitectureRules> architecture_rules(int compute_major, int compute_minor);

// A complete DeviceLimits for a known GPU, as cudaGetDeviceProperties reports it: 7.5 (Tesla
// T4, 40 SMs), 8.0 (A100 SXM, 108 SMs), 8.6 (RTX 3090, 82 SMs), 8.9 (L4, 58 SMs), 9.0 (H100 SXM,
// 132 SMs). nullopt for others. Clock and memory fields are left 0.
std::optional<DeviceLimits> device_preset(int compute_major, int compute_minor);

}  // namespace bs::mapping
