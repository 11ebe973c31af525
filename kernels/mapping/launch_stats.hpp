// Launch statistics: the numbers the statistics panel shows for one launch, computed from the
// LaunchConfig the launcher reports, the data shape, the kernel's attributes and the device.
//
// Counts are exact for every thread of the grid (the tests enumerate every thread of small
// grids and compare), but computed per class of block (interior, right edge, bottom edge,
// corner, off the data), so a 100-megapixel image costs a few thousand operations, not 10^8.
// A thread "works" when it stores at least one element (several, for flat schemes with vector
// accesses, several chunks per thread or a grid-stride loop, and for register-blocked tiles).
// Warp tiling (IndexScheme::Tiled without a patch) spreads a thread's outputs so that only the
// lab can name them: there every thread of a block whose tile meets the data counts as working
// and thread_counts_exact is false. Recorded schemes count the owners the kernel really had.
#pragma once
#include <cstddef>

#include "core/launch.hpp"
#include "core/launch_record.hpp"
#include "core/status.hpp"
#include "mapping/occupancy.hpp"
#include "mapping/thread_map.hpp"

namespace bs::mapping {

struct LaunchStats {
  IndexScheme scheme;
  Dim3 grid, block;
  long long width = 0, height = 0;
  bool thread_counts_exact = true;
  unsigned long long data_elements = 0;  // width * height

  unsigned long long blocks = 0;             // gridDim.x*y*z
  unsigned long long threads_per_block = 0;  // blockDim.x*y*z
  unsigned long long threads_launched = 0;   // blocks * threads_per_block
  unsigned long long threads_working = 0;    // threads whose index falls inside the data
  unsigned long long idle_threads = 0;       // launched - working; all sit in edge (or empty) blocks
  double idle_percent = 0;                   // idle / launched * 100

  unsigned long long full_blocks = 0;     // every thread works
  unsigned long long partial_blocks = 0;  // some threads work, some idle (edge blocks)
  unsigned long long empty_blocks = 0;    // no thread works (a grid larger than the data)

  unsigned warps_per_block = 0;        // ceil(threads_per_block / 32)
  unsigned long long total_warps = 0;  // blocks * warps_per_block
  // Short warps: the last warp of every block when the block size is not a multiple of 32. The
  // hardware still schedules all 32 lanes; the missing ones do nothing.
  unsigned long long short_warps = 0;
  unsigned threads_in_short_warp = 0;    // threads_per_block % 32 (0 when there are none)
  unsigned long long missing_lanes = 0;  // short_warps * (32 - threads_in_short_warp)
  // Edge warps: warps with at least one working and at least one idle lane, because some lanes'
  // indices fall off the data (the guard `if (i < n)` diverges inside the warp).
  unsigned long long edge_warps = 0;
  // Idle warps: warps in which no lane works.
  unsigned long long idle_warps = 0;
  // Full warps: 32 lanes, all working.
  unsigned long long full_warps = 0;

  unsigned registers_per_thread = 0;  // from KernelAttributes
  std::size_t static_shared_per_block = 0;
  std::size_t dynamic_shared_per_block = 0;
  std::size_t shared_per_block = 0;        // static + dynamic, as the kernel uses it
  std::size_t local_bytes_per_thread = 0;  // spills and local arrays

  Occupancy occupancy;
  Waves waves;

  // Non-ok when the config makes threads compute the same element twice (see check_scheme); the
  // counts above still describe exactly what such a launch does.
  Status scheme_check;
};

// `owners`: the recorded owners, for IndexScheme::Recorded (nullptr otherwise).
LaunchStats compute_stats(const IndexScheme& scheme, const LaunchConfig& config, long long width, long long height,
                          const KernelAttributes& kernel, const DeviceLimits& device, const OwnerMap* owners = nullptr);

}  // namespace bs::mapping
