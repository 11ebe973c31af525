// Theoretical occupancy and waves: how many blocks of a kernel fit on one SM at once, what stops
// more from fitting, and how many rounds ("waves") of blocks a grid takes.
//
// The rules are CUDA's (cudaOccupancyMaxActiveBlocksPerMultiprocessor with the default shared
// memory carveout; NVIDIA's cuda_occupancy.h spells them out). A block fits on an SM when all of
// these still have room:
//   threads    ceil(T / 32) warps per block against max_threads_per_sm / 32 warp slots
//   registers  regs/thread * 32 rounded up to the allocation unit (256) per warp; the register
//              file is split over the SM's sub-partitions and a warp takes all its registers
//              from one, so the SM holds sub_partitions * floor(regs_per_sm / sub_partitions /
//              regs_per_warp) warps
//   shared     static + dynamic + the runtime's reserved share (1 KiB per block on sm_80+),
//              rounded up to the allocation unit (128 B on sm_80+), against shared_per_sm
//   blocks     max_blocks_per_sm (32 on sm_80/sm_90, 16 on sm_75)
// The smallest of the four is the number of resident blocks; the one that set it is the limiter.
//
// The GPU test (tests/mapping/gpu_occupancy_test.cu) compares this with the CUDA API on real
// kernels; the CPU test compares it with a block-by-block filling of a model SM.
#pragma once
#include <cstddef>
#include <limits>
#include <string>

#include "core/launch.hpp"

namespace bs::mapping {

// A resource the kernel does not use at all (no registers reported, no shared memory) places no
// limit; its block count reads as this.
inline constexpr unsigned kNoLimit = std::numeric_limits<unsigned>::max();

struct Occupancy {
  enum Limiter { Threads, Registers, SharedMemory, BlocksPerSm };

  unsigned active_blocks_per_sm = 0;
  unsigned active_warps_per_sm = 0;  // active_blocks_per_sm * warps_per_block
  unsigned max_warps_per_sm = 0;     // max_threads_per_sm / 32
  double occupancy = 0;              // active_warps_per_sm / max_warps_per_sm, 0..1
  Limiter limiter = Threads;         // the first (in enum order) limit equal to the result
  unsigned limiter_mask = 0;         // bit (1 << Limiter) for every limit equal to the result

  // Blocks per SM each resource alone would allow (kNoLimit when the resource is unused).
  unsigned blocks_by_threads = 0;
  unsigned blocks_by_registers = 0;
  unsigned blocks_by_shared_memory = 0;
  unsigned blocks_by_block_limit = 0;

  // The allocations behind those numbers, for tooltips.
  unsigned warps_per_block = 0;
  unsigned registers_per_warp = 0;             // regs/thread * 32 rounded up to the allocation unit
  unsigned long long registers_per_block = 0;  // registers_per_warp * warps_per_block
  std::size_t shared_per_block = 0;            // static + dynamic + reserved, rounded up
  std::size_t shared_per_sm = 0;               // what the blocks share

  // Why no block fits at all (active_blocks_per_sm == 0); empty otherwise.
  std::string reason;

  bool limited_by(Limiter l) const { return (limiter_mask >> l) & 1u; }
};

const char* to_string(Occupancy::Limiter l);

// Occupancy of a kernel with these attributes, launched with `threads_per_block` threads and
// `dynamic_shared_bytes` of dynamic shared memory, on a device with these limits.
Occupancy compute_occupancy(unsigned long long threads_per_block, std::size_t dynamic_shared_bytes,
                            const KernelAttributes& kernel, const DeviceLimits& device);

// Waves: the grid's blocks over the slots the whole GPU offers at once.
struct Waves {
  unsigned long long blocks = 0;
  unsigned long long slots = 0;       // sm_count * active blocks per SM
  double waves = 0;                   // blocks / slots (0 when slots == 0)
  unsigned long long full_waves = 0;  // floor(blocks / slots)
  unsigned long long wave_count = 0;  // ceil(blocks / slots): rounds the GPU actually runs
  double last_wave_fill = 0;          // share of slots busy in the last round, (0, 1]; 0 with no blocks
};

Waves compute_waves(unsigned long long blocks, unsigned sm_count, unsigned active_blocks_per_sm);

}  // namespace bs::mapping
