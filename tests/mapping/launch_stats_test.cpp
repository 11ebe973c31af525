// Launch statistics against brute-force enumeration: every thread and every warp of small
// launches counted one by one.
#include "mapping/launch_stats.hpp"

#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "brute_force.hpp"
#include "mapping/architecture.hpp"

namespace bs::mapping {
namespace {

struct BruteStats {
  unsigned long long working = 0, launched = 0;
  unsigned long long full_blocks = 0, partial_blocks = 0, empty_blocks = 0;
  unsigned long long full_warps = 0, short_warps = 0, edge_warps = 0, idle_warps = 0, warps = 0;
  unsigned long long missing_lanes = 0;
};

BruteStats brute_stats(const test::Case& k) {
  BruteStats s;
  const LaunchConfig& c = k.config;
  struct Warp {
    unsigned lanes = 0, working = 0;
  };
  std::vector<unsigned long long> block_working(c.grid.volume(), 0);
  std::map<std::pair<unsigned long long, unsigned long long>, Warp> warps;
  test::for_each_thread(k.scheme, c, k.width, k.height, [&](const test::BruteThread& t) {
    ++s.launched;
    Warp& w = warps[{t.linear_block, t.linear_in_block / 32}];
    ++w.lanes;
    if (t.works()) {
      ++s.working;
      ++w.working;
      ++block_working[t.linear_block];
    }
  });
  for (unsigned long long n : block_working) {
    if (n == c.block.volume()) ++s.full_blocks;
    else if (n == 0) ++s.empty_blocks;
    else ++s.partial_blocks;
  }
  for (const auto& [key, w] : warps) {
    ++s.warps;
    if (w.lanes < 32) {
      ++s.short_warps;
      s.missing_lanes += 32 - w.lanes;
    }
    if (w.working == 0) ++s.idle_warps;
    else if (w.working < w.lanes) ++s.edge_warps;
    else if (w.lanes == 32) ++s.full_warps;
  }
  return s;
}

TEST(LaunchStats, CountsMatchBruteForce) {
  const DeviceLimits device = device_preset(9, 0).value();
  KernelAttributes kernel;
  kernel.registers_per_thread = 17;
  for (const test::Case& k : test::small_cases()) {
    const std::string where = test::describe(k);
    const LaunchStats s = compute_stats(k.scheme, k.config, k.width, k.height, kernel, device);
    const BruteStats b = brute_stats(k);
    EXPECT_EQ(s.threads_launched, b.launched) << where;
    EXPECT_EQ(s.threads_working, b.working) << where;
    EXPECT_EQ(s.idle_threads, b.launched - b.working) << where;
    EXPECT_DOUBLE_EQ(s.idle_percent, 100.0 * (b.launched - b.working) / b.launched) << where;
    EXPECT_EQ(s.full_blocks, b.full_blocks) << where;
    EXPECT_EQ(s.partial_blocks, b.partial_blocks) << where;
    EXPECT_EQ(s.empty_blocks, b.empty_blocks) << where;
    EXPECT_EQ(s.total_warps, b.warps) << where;
    EXPECT_EQ(s.warps_per_block * s.blocks, b.warps) << where;
    EXPECT_EQ(s.full_warps, b.full_warps) << where;
    EXPECT_EQ(s.short_warps, b.short_warps) << where;
    EXPECT_EQ(s.missing_lanes, b.missing_lanes) << where;
    EXPECT_EQ(s.edge_warps, b.edge_warps) << where;
    EXPECT_EQ(s.idle_warps, b.idle_warps) << where;
    EXPECT_EQ(s.data_elements, static_cast<unsigned long long>(k.width) * k.height) << where;
    if (::testing::Test::HasFailure()) return;
  }
}

TEST(LaunchStats, CoveringGridsDoAllTheWorkOnce) {
  // With the launchers' ceil-div grids, working threads equal the elements exactly.
  for (const test::Case& k : test::small_cases()) {
    if (!check_scheme(k.scheme, k.config, k.width, k.height).ok()) continue;
    if (!(k.config == test::covering_config(k.scheme, k.config.block, k.width, k.height))) continue;
    const IndexScheme& sc = k.scheme;
    const bool one_each = sc.elements_per_thread_pass() == 1 && !sc.grid_stride && sc.head == 0 && sc.tail == 0;
    if (!one_each || sc.kind == IndexScheme::Kind::Tiled) continue;
    const LaunchStats s = compute_stats(k.scheme, k.config, k.width, k.height, {}, DeviceLimits{});
    EXPECT_EQ(s.threads_working, s.data_elements) << test::describe(k);
    EXPECT_EQ(s.empty_blocks, 0u) << test::describe(k);
  }
}

TEST(LaunchStats, LargeImagesAreCheapAndExact) {
  // A 4K image with an odd block: counts from the per-class method must agree with the closed
  // forms of a 2D covering grid.
  const int w = 3841, h = 2161;
  const Dim3 block{24, 10, 1};
  const LaunchConfig c = test::covering_config(IndexScheme::grid2d(), block, w, h);
  const LaunchStats s = compute_stats(IndexScheme::grid2d(), c, w, h, {}, device_preset(8, 6).value());
  EXPECT_EQ(s.threads_working, 1ull * w * h);
  EXPECT_EQ(s.threads_launched, 1ull * c.grid.x * block.x * c.grid.y * block.y);
  const unsigned long long edge_cols = (w % block.x) ? 1 : 0, edge_rows = (h % block.y) ? 1 : 0;
  EXPECT_EQ(s.partial_blocks, edge_cols * c.grid.y + edge_rows * c.grid.x - edge_cols * edge_rows);
  EXPECT_EQ(s.short_warps, s.blocks);  // 240 threads: 8 warps, the last with 16
  EXPECT_EQ(s.threads_in_short_warp, 240u % 32);
}

TEST(LaunchStats, VectorAndGridStrideSchemesOnLargeImagesAreCheapAndExact) {
  // 8192 x 8192 with 16 pixels per access and a 7-pixel head: the working threads are the
  // chunk count (plus none extra: head threads also take a chunk), computed here by hand.
  const long long w = 8192, h = 8192, head = 7, tail = (w * h - 7) % 16;
  IndexScheme sc;
  sc.vector = 16;
  sc.head = head;
  sc.tail = tail;
  const unsigned long long chunks = (w * h - head - tail) / 16;
  const LaunchConfig c{Dim3{static_cast<unsigned>((chunks + 255) / 256), 1, 1}, Dim3{256, 1, 1}};
  const LaunchStats s = compute_stats(sc, c, w, h, {}, device_preset(9, 0).value());
  EXPECT_EQ(s.threads_working, chunks);
  EXPECT_EQ(s.idle_threads, c.grid.x * 256ull - chunks);
  // A grid-stride loop on a grid smaller than the data: every thread works.
  sc.grid_stride = true;
  const LaunchConfig g{Dim3{264, 1, 1}, Dim3{256, 1, 1}};
  const LaunchStats t = compute_stats(sc, g, w, h, {}, device_preset(9, 0).value());
  EXPECT_EQ(t.threads_working, 264ull * 256);
  EXPECT_EQ(t.partial_blocks + t.empty_blocks, 0u);
}

// Persistent tiles (the tensor-core rungs T5, T6): the blocks loop over the tiles, so every
// block works while there are tiles for it, however few columns its index would cover.
TEST(LaunchStats, PersistentTilesKeepEveryBlockBusyWhileTilesRemain) {
  IndexScheme sc = IndexScheme::tiled(256, 128);
  sc.tiles_loop = true;
  LaunchConfig c{Dim3{132, 1, 1}, Dim3{384, 1, 1}};
  const LaunchStats s = compute_stats(sc, c, 4096, 4096, {}, device_preset(9, 0).value());  // 16 x 32 tiles
  EXPECT_EQ(s.empty_blocks, 0u);
  EXPECT_EQ(s.idle_threads, 0u);
  c.grid = Dim3{600, 1, 1};
  const LaunchStats t = compute_stats(sc, c, 4096, 4096, {}, device_preset(9, 0).value());
  EXPECT_EQ(t.empty_blocks, 600u - 512u);
  EXPECT_EQ(t.idle_threads, (600ull - 512ull) * 384ull);
  // describe_thread agrees: the 512th block has a tile, the 513th none.
  EXPECT_TRUE(describe_thread(sc, c, 4096, 4096, Dim3{511, 0, 0}, Dim3{0, 0, 0})->in_range);
  EXPECT_FALSE(describe_thread(sc, c, 4096, 4096, Dim3{512, 0, 0}, Dim3{0, 0, 0})->in_range);
}

TEST(LaunchStats, CarriesKernelResourcesAndOccupancy) {
  const DeviceLimits device = device_preset(9, 0).value();
  KernelAttributes kernel;
  kernel.registers_per_thread = 40;
  kernel.static_shared_bytes = 3000;
  kernel.local_bytes_per_thread = 8;
  LaunchConfig c = test::covering_config(IndexScheme::grid2d(), Dim3{16, 16, 1}, 1000, 700);
  c.dynamic_shared_bytes = 512;
  const LaunchStats s = compute_stats(IndexScheme::grid2d(), c, 1000, 700, kernel, device);
  EXPECT_EQ(s.registers_per_thread, 40u);
  EXPECT_EQ(s.shared_per_block, 3512u);
  EXPECT_EQ(s.local_bytes_per_thread, 8u);
  const Occupancy o = compute_occupancy(256, 512, kernel, device);
  EXPECT_EQ(s.occupancy.active_blocks_per_sm, o.active_blocks_per_sm);
  EXPECT_EQ(s.waves.blocks, s.blocks);
  EXPECT_EQ(s.waves.slots, 1ull * device.sm_count * o.active_blocks_per_sm);
}

}  // namespace
}  // namespace bs::mapping
