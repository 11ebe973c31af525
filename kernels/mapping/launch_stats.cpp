#include "mapping/launch_stats.hpp"

#include <algorithm>
#include <vector>

namespace bs::mapping {
namespace {

using ull = unsigned long long;

// Blocks along one axis fall into three classes: all their threads inside the data, straddling
// its end, or past it. Every block of a class behaves the same, so one representative per class
// (times how many there are) gives exact totals.
struct AxisClass {
  unsigned representative = 0;
  ull count = 0;
};

std::vector<AxisClass> axis_classes(ull grid_extent, ull block_extent, ull data_extent) {
  std::vector<AxisClass> out;
  const ull full = std::min(grid_extent, data_extent / block_extent);
  const ull partial =
      (data_extent % block_extent != 0 && data_extent / block_extent < grid_extent) ? 1 : 0;
  const ull empty = grid_extent - full - partial;
  if (full) out.push_back({0, full});
  if (partial) out.push_back({static_cast<unsigned>(data_extent / block_extent), 1});
  if (empty) out.push_back({static_cast<unsigned>(grid_extent - 1), empty});
  return out;
}

// Per-block counts, from every thread of the block.
struct BlockCounts {
  ull working = 0;
  ull full_warps = 0, short_warps = 0, edge_warps = 0, idle_warps = 0;
};

BlockCounts count_block(IndexScheme scheme, const LaunchConfig& c, int width, int height, Dim3 b) {
  BlockCounts k;
  const ull T = c.block.volume();
  for (ull first = 0; first < T; first += kWarpSize) {
    const ull lanes = std::min<ull>(kWarpSize, T - first);
    ull working = 0;
    for (ull l = first; l < first + lanes; ++l) {
      auto t = describe_thread(scheme, c, width, height, b, thread_from_linear(l, c.block));
      if (t && t->in_range) ++working;
    }
    k.working += working;
    if (lanes < kWarpSize) ++k.short_warps;
    if (working == 0)
      ++k.idle_warps;
    else if (working < lanes)
      ++k.edge_warps;
    else if (lanes == kWarpSize)
      ++k.full_warps;
  }
  return k;
}

}  // namespace

LaunchStats compute_stats(IndexScheme scheme, const LaunchConfig& c, int width, int height,
                          const KernelAttributes& kernel, const DeviceLimits& device) {
  LaunchStats s;
  s.scheme = scheme;
  s.grid = c.grid;
  s.block = c.block;
  s.width = width;
  s.height = height;
  s.scheme_check = check_scheme(scheme, c, width, height);
  s.data_elements =
      width > 0 && height > 0 ? static_cast<ull>(width) * static_cast<ull>(height) : 0;
  s.blocks = c.grid.volume();
  s.threads_per_block = c.block.volume();
  s.threads_launched = s.blocks * s.threads_per_block;
  s.warps_per_block = warps_per_block(c);
  s.total_warps = s.blocks * s.warps_per_block;
  s.threads_in_short_warp = static_cast<unsigned>(s.threads_per_block % kWarpSize);

  s.registers_per_thread = kernel.registers_per_thread;
  s.static_shared_per_block = kernel.static_shared_bytes;
  s.dynamic_shared_per_block = c.dynamic_shared_bytes;
  s.shared_per_block = kernel.static_shared_bytes + c.dynamic_shared_bytes;
  s.local_bytes_per_thread = kernel.local_bytes_per_thread;
  s.occupancy = compute_occupancy(s.threads_per_block, c.dynamic_shared_bytes, kernel, device);
  s.waves = compute_waves(s.blocks, device.sm_count, s.occupancy.active_blocks_per_sm);

  if (s.threads_launched == 0) return s;

  // Classes of blocks: (class along x) x (class along y), times the repeats along the axes the
  // scheme ignores.
  const ull w = width > 0 ? width : 0, h = height > 0 ? height : 0;
  std::vector<AxisClass> xs, ys;
  ull repeats = 1;
  switch (scheme) {
    case IndexScheme::Flat1D:
      xs = axis_classes(c.grid.x, s.threads_per_block, w * h);
      ys = {{0, 1}};
      repeats = static_cast<ull>(c.grid.y) * c.grid.z;
      break;
    case IndexScheme::Grid2D:
      xs = axis_classes(c.grid.x, c.block.x, w);
      ys = axis_classes(c.grid.y, c.block.y, h);
      repeats = c.grid.z;
      break;
    case IndexScheme::Grid2DTransposed:
      xs = axis_classes(c.grid.x, c.block.x, h);
      ys = axis_classes(c.grid.y, c.block.y, w);
      repeats = c.grid.z;
      break;
  }
  for (const AxisClass& cx : xs)
    for (const AxisClass& cy : ys) {
      const ull n = cx.count * cy.count * repeats;
      const BlockCounts k =
          count_block(scheme, c, width, height, Dim3{cx.representative, cy.representative, 0});
      s.threads_working += n * k.working;
      s.full_warps += n * k.full_warps;
      s.short_warps += n * k.short_warps;
      s.edge_warps += n * k.edge_warps;
      s.idle_warps += n * k.idle_warps;
      if (k.working == s.threads_per_block)
        s.full_blocks += n;
      else if (k.working == 0)
        s.empty_blocks += n;
      else
        s.partial_blocks += n;
    }
  s.idle_threads = s.threads_launched - s.threads_working;
  s.idle_percent =
      100.0 * static_cast<double>(s.idle_threads) / static_cast<double>(s.threads_launched);
  s.missing_lanes =
      s.threads_in_short_warp ? s.short_warps * (kWarpSize - s.threads_in_short_warp) : 0;
  return s;
}

}  // namespace bs::mapping
