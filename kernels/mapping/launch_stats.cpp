#include "mapping/launch_stats.hpp"

#include <algorithm>
#include <set>
#include <vector>

namespace bs::mapping {
namespace {

using ll = long long;
using ull = unsigned long long;
using Kind = IndexScheme::Kind;

// Blocks along one axis fall into three classes: all their threads inside the data, straddling
// its end, or past it. Every block of a class behaves the same, so one representative per class
// (times how many there are) gives exact totals.
struct AxisClass {
  unsigned representative = 0;
  ull count = 0;
};

std::vector<AxisClass> axis_classes(ull grid_extent, ull block_extent, ull data_extent) {
  std::vector<AxisClass> out;
  if (block_extent == 0) return out;
  const ull full = std::min(grid_extent, data_extent / block_extent);
  const ull partial = (data_extent % block_extent != 0 && data_extent / block_extent < grid_extent) ? 1 : 0;
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

template <class Works>
BlockCounts count_block(ull T, Works&& works) {
  BlockCounts k;
  for (ull first = 0; first < T; first += kWarpSize) {
    const ull lanes = std::min<ull>(kWarpSize, T - first);
    ull working = 0;
    for (ull l = first; l < first + lanes; ++l)
      if (works(l)) ++working;
    k.working += working;
    if (lanes < kWarpSize) ++k.short_warps;
    if (working == 0) ++k.idle_warps;
    else if (working < lanes) ++k.edge_warps;
    else if (lanes == kWarpSize) ++k.full_warps;
  }
  return k;
}

void add(LaunchStats& s, const BlockCounts& k, ull n) {
  s.threads_working += n * k.working;
  s.full_warps += n * k.full_warps;
  s.short_warps += n * k.short_warps;
  s.edge_warps += n * k.edge_warps;
  s.idle_warps += n * k.idle_warps;
  if (k.working == s.threads_per_block) s.full_blocks += n;
  else if (k.working == 0) s.empty_blocks += n;
  else s.partial_blocks += n;
}

BlockCounts uniform_block(ull T, bool working) {
  return count_block(T, [&](ull) { return working; });
}

// Flat schemes: in pass 0 thread t of block b takes chunk b*T*K + t first, so it works exactly
// when that chunk exists, or when it is one of the few scalar head/tail threads. Blocks are
// therefore full up to some b, then at most one is partial, then the rest are empty; the first
// blocks may also hold head/tail threads and are counted thread by thread.
void flat_stats(LaunchStats& s, const IndexScheme& sc, const LaunchConfig& c, ll w, ll h) {
  const ull T = s.threads_per_block, K = std::max(1u, sc.per_thread);
  const ll n = w * h;
  const ll head = std::clamp<ll>(sc.head, 0, n), tail = std::clamp<ll>(sc.tail, 0, n - head);
  const ll V = std::max(1u, sc.vector);
  const ull chunks = static_cast<ull>((n - head - tail + V - 1) / V);
  const ull blocks = c.grid.x;
  const ull repeats = static_cast<ull>(c.grid.y) * c.grid.z;
  const ull R = std::min<ull>(chunks, blocks * T * K);  // chunks of pass 0
  auto works = [&](ull b, ull t) {
    const ull g = b * T + t;
    return g < static_cast<ull>(std::max(head, tail)) || b * T * K + t < R;
  };
  const ull full = R >= T ? std::min<ull>(blocks, (R - T) / (T * K) + 1) : 0;
  // Blocks counted thread by thread: those holding head/tail threads, and the partial one.
  std::set<ull> special;
  const ull edge_threads = static_cast<ull>(std::max(head, tail));
  for (ull b = 0; b < blocks && b * T < edge_threads; ++b) special.insert(b);
  if (full < blocks) special.insert(full);
  ull special_full = 0, special_empty = 0;
  for (ull b : special) {
    if (b < full) ++special_full;
    else ++special_empty;  // from the class "not full": partial or empty by the body alone
    add(s, count_block(T, [&](ull t) { return works(b, t); }), repeats);
  }
  add(s, uniform_block(T, true), (full - special_full) * repeats);
  add(s, uniform_block(T, false), (blocks - full - special_empty) * repeats);
}

// Tiled schemes without a closed-form patch: a block works when its tile meets the data.
void tile_level_stats(LaunchStats& s, const IndexScheme& sc, const LaunchConfig& c, ull w, ull h) {
  s.thread_counts_exact = false;
  const ull T = s.threads_per_block;
  if (sc.tiles_loop) {  // persistent: the first min(blocks, tiles) blocks take tiles in turn
    const ull tiles = ((w + sc.tile_w - 1) / sc.tile_w) * ((h + sc.tile_h - 1) / sc.tile_h);
    const ull blocks = c.grid.volume(), working = std::min(blocks, tiles);
    add(s, uniform_block(T, true), working);
    add(s, uniform_block(T, false), blocks - working);
    return;
  }
  for (const AxisClass& cx : axis_classes(c.grid.x, sc.tile_w, w))
    for (const AxisClass& cy : axis_classes(c.grid.y, sc.tile_h, h)) {
      const bool meets =
          static_cast<ull>(cx.representative) * sc.tile_w < w && static_cast<ull>(cy.representative) * sc.tile_h < h;
      add(s, uniform_block(T, meets), cx.count * cy.count * c.grid.z);
    }
}

// Recorded owners: the distinct threads that stored something, per block.
void recorded_stats(LaunchStats& s, const LaunchConfig& c, const OwnerMap& owners) {
  const ull T = s.threads_per_block;
  std::vector<std::uint32_t> ids;
  ids.reserve(owners.thread.size());
  for (std::uint32_t g : owners.thread)
    if (g != OwnerMap::kNobody) ids.push_back(g);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  ull b = 0;
  std::size_t i = 0;
  const ull blocks = s.blocks;
  while (b < blocks) {
    // Blocks before the next owner's block are empty: count them in one go.
    const ull next = i < ids.size() ? ids[i] / T : blocks;
    if (next > b) {
      add(s, uniform_block(T, false), std::min(next, blocks) - b);
      b = std::min(next, blocks);
      continue;
    }
    std::vector<bool> works(T, false);
    for (; i < ids.size() && ids[i] / T == b; ++i) works[ids[i] % T] = true;
    add(s, count_block(T, [&](ull t) { return works[t]; }), 1);
    ++b;
  }
  (void)c;
}

}  // namespace

LaunchStats compute_stats(const IndexScheme& scheme, const LaunchConfig& c, ll width, ll height,
                          const KernelAttributes& kernel, const DeviceLimits& device, const OwnerMap* owners) {
  LaunchStats s;
  s.scheme = scheme;
  s.grid = c.grid;
  s.block = c.block;
  s.width = width;
  s.height = height;
  s.scheme_check = check_scheme(scheme, c, width, height);
  s.data_elements = width > 0 && height > 0 ? static_cast<ull>(width) * static_cast<ull>(height) : 0;
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

  if (s.threads_launched == 0 || width <= 0 || height <= 0) return s;

  const ull w = static_cast<ull>(width), h = static_cast<ull>(height);
  const ull T = s.threads_per_block;
  auto classes2d = [&](ull data_x, ull data_y, ull per_block_x, ull per_block_y) {
    for (const AxisClass& cx : axis_classes(c.grid.x, per_block_x, data_x))
      for (const AxisClass& cy : axis_classes(c.grid.y, per_block_y, data_y)) {
        const Dim3 b{cx.representative, cy.representative, 0};
        add(s,
            count_block(T,
                        [&](ull l) {
                          auto t = describe_thread(scheme, c, width, height, b, thread_from_linear(l, c.block));
                          return t && t->in_range;
                        }),
            cx.count * cy.count * c.grid.z);
      }
  };
  switch (scheme.kind) {
    case Kind::Flat: flat_stats(s, scheme, c, width, height); break;
    case Kind::Grid2D: classes2d(w, h, c.block.x, c.block.y); break;
    case Kind::Grid2DTransposed: classes2d(h, w, c.block.x, c.block.y); break;
    case Kind::Tiled:
      if (scheme.thread_w > 0 && scheme.thread_h > 0 && scheme.tile_w > 0 && scheme.tile_h > 0)
        classes2d(w, h, scheme.tile_w, scheme.tile_h);
      else if (scheme.tile_w > 0 && scheme.tile_h > 0) tile_level_stats(s, scheme, c, w, h);
      break;
    case Kind::Recorded:
      if (owners) recorded_stats(s, c, *owners);
      else s.thread_counts_exact = false;
      break;
  }
  s.idle_threads = s.threads_launched - std::min(s.threads_working, s.threads_launched);
  s.idle_percent = 100.0 * static_cast<double>(s.idle_threads) / static_cast<double>(s.threads_launched);
  s.missing_lanes = s.threads_in_short_warp ? s.short_warps * (kWarpSize - s.threads_in_short_warp) : 0;
  return s;
}

}  // namespace bs::mapping
