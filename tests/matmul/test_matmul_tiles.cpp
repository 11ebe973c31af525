// Which block computes each tile of C (the overlay's colours, matmul_tiles.hpp), on the CPU:
//   - the persistent rungs (T5, T6 at every cluster size) against the kernel's own loop run
//     forward here (block b of cluster k takes tiles k, k + clusters, ... in the grouped order,
//     rows rank * 128 of each), which c_tiles inverts: every tile once, by the right block; T7's
//     against its schedule's pieces (the block that stores a split tile first), at a random K;
//   - the other rungs against element_owner, itself checked against the simulator's recorded
//     writes (test_matmul_owner.cpp);
//   - the colour keys: the model's cluster, what a traced launch recorded instead where it did,
//     and the SM only where a GPU trace says it.
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "labs/matmul/matmul.hpp"
#include "labs/matmul/matmul_owner.hpp"
#include "labs/matmul/matmul_tiles.hpp"
#include "mapping/cluster.hpp"
#include "mapping/thread_map.hpp"

namespace bs::matmul {
namespace {

// The persistent kernel's loop (tc5_persistent.hpp, tc_persistent_block): which tiles of 128 x 256
// each block stores, as (row0, col0) -> block.
std::map<std::pair<int, int>, unsigned> persistent_forward(int M, int N, unsigned cluster_size, unsigned clusters) {
  std::map<std::pair<int, int>, unsigned> out;
  const int tile_m = 128 * static_cast<int>(cluster_size);
  const int tiles_m = (M + tile_m - 1) / tile_m, tiles_n = (N + 255) / 256, tiles = tiles_m * tiles_n;
  for (unsigned cluster = 0; cluster < clusters; ++cluster)
    for (unsigned rank = 0; rank < cluster_size; ++rank)
      for (int t = static_cast<int>(cluster); t < tiles; t += static_cast<int>(clusters)) {
        int tm, tn;
        grouped_tile(t, tiles_m, tiles_n, &tm, &tn);
        const int row0 = tm * tile_m + static_cast<int>(rank) * 128, col0 = tn * 256;
        if (row0 >= M) continue;  // a rank below the matrix stores nothing
        EXPECT_TRUE(out.emplace(std::pair{row0, col0}, cluster * cluster_size + rank).second) << "a tile stored twice";
      }
  return out;
}

// T7's loop (tc7_tma_store.hpp): the pieces each cluster does, run forward; a tile's first piece
// (k from 0) is where it is stored first, which c_tiles names, whatever K the launch has.
std::map<std::pair<int, int>, unsigned> tc7_forward(int M, int N, int K, unsigned clusters) {
  std::map<std::pair<int, int>, unsigned> out;
  const Tc7Schedule plan = Tc7Schedule::make(M, N, K, static_cast<int>(clusters), N % 4 == 0);
  for (unsigned cluster = 0; cluster < clusters; ++cluster)
    plan.for_each(static_cast<int>(cluster), [&](const Tc7Piece& p) {
      if (p.k_begin != 0) return;
      int tm, tn;
      grouped_tile(p.tile, plan.tiles_m, plan.tiles_n, &tm, &tn);
      for (unsigned rank = 0; rank < 2; ++rank) {
        const int row0 = tm * 256 + static_cast<int>(rank) * 128, col0 = tn * 256;
        if (row0 >= M) continue;
        EXPECT_TRUE(out.emplace(std::pair{row0, col0}, cluster * 2 + rank).second) << "a tile begun twice";
      }
    });
  return out;
}

// Every k-slice of every tile is done by exactly one cluster, only a last wave at most 3/4 full is
// split, a cluster has at most two split pieces with the head (k from 0) first, the split pieces
// are balanced to one slice, and a tile stored plainly by one piece is added to by the others only.
TEST(MatmulTiles, Tc7ScheduleDoesEverySliceOnceAndBalancesTheSplit) {
  std::mt19937 rng(std::random_device{}());
  for (int trial = 0; trial < 300; ++trial) {
    const int M = 1 + static_cast<int>(rng() % 9000), N = 1 + static_cast<int>(rng() % 9000);
    const int K = 1 + static_cast<int>(rng() % 9000), clusters = 1 + static_cast<int>(rng() % 80);
    const Tc7Schedule plan = Tc7Schedule::make(M, N, K, clusters, true);
    SCOPED_TRACE(std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K) + " on " +
                 std::to_string(clusters) + " clusters");
    // Split exactly when the last wave is partial and at most 3/4 full.
    const int last = plan.tiles % clusters;
    ASSERT_EQ(plan.rest, last > 0 && 4 * last <= 3 * clusters ? last : 0);
    if (plan.rest > 0) {
      ASSERT_EQ(plan.whole % clusters, 0);
    } else {
      ASSERT_EQ(plan.whole, plan.tiles);
    }
    std::vector<int> done(static_cast<std::size_t>(plan.tiles) * plan.slices, 0), plain(plan.tiles, 0);
    int most = 0, least = plan.slices * plan.tiles;
    for (int cl = 0; cl < clusters; ++cl) {
      int split_units = 0, index = 0;
      bool seen_non_head = false;
      plan.for_each(cl, [&](const Tc7Piece& p) {
        ASSERT_GE(p.tile, 0);
        ASSERT_LT(p.tile, plan.tiles);
        ASSERT_LT(p.k_begin, p.k_end);
        for (int k = p.k_begin; k < p.k_end; ++k) ++done[static_cast<std::size_t>(p.tile) * plan.slices + k];
        if (!p.adds) ++plain[p.tile];
        EXPECT_EQ(p.adds, p.k_begin > 0);
        if (p.tile >= plan.whole) {
          split_units += p.k_end - p.k_begin;
          if (p.k_begin == 0) {
            EXPECT_FALSE(seen_non_head) << "a head piece after another piece";
          } else {
            seen_non_head = true;
          }
          ++index;
        } else {
          EXPECT_EQ(p.tile % clusters, cl);
          EXPECT_EQ(p.k_end, plan.slices);
        }
      });
      EXPECT_LE(index, 2);
      if (plan.rest > 0) {
        most = std::max(most, split_units);
        least = std::min(least, split_units);
      }
    }
    for (int v : done) ASSERT_EQ(v, 1) << "a k-slice done other than once";
    for (int v : plain) ASSERT_EQ(v, 1) << "a tile stored plainly other than once";
    if (plan.rest > 0) { EXPECT_LE(most - least, 1); }
  }
}

TEST(MatmulTiles, PersistentRungsTilesAreTheBlocksTheirLoopGivesThem) {
  std::mt19937 rng(std::random_device{}());
  int launches = 0;  // T5's one configuration, T6's three and T7's one, at three shapes each
  for (const auto& info : matmul_kernels(Precision::Bf16)) {
    if (!info.persistent) continue;
    for (const MatmulConfig& config : info.configs)
      for (int shape = 0; shape < 3; ++shape) {
        const int M = shape == 0 ? 300 : shape == 1 ? 1024 : 129 + static_cast<int>(rng() % 2000);
        const int N = shape == 0 ? 530 : shape == 1 ? 1024 : 1 + static_cast<int>(rng() % 3000);
        LaunchConfig lc = matmul_launch_config(info.kernel, config, M, N, 64);
        const unsigned cs = lc.cluster.x;
        SCOPED_TRACE(info.id + " " + config.label + " at " + std::to_string(M) + " x " + std::to_string(N));
        // Fewer clusters than cluster tiles (the device clips the grid): blocks loop.
        const unsigned clusters = 1 + static_cast<unsigned>(rng() % std::max(1u, lc.grid.x / cs));
        lc.grid.x = cs * clusters;
        auto tiles = c_tiles(info.kernel, config, lc, M, N);
        ASSERT_TRUE(tiles.ok()) << tiles.status().describe();
        ++launches;
        ASSERT_EQ(tiles->tile_rows, 128);
        ASSERT_EQ(tiles->tile_cols, 256);
        const int K = 1 + static_cast<int>(rng() % 5000);
        const auto want =
            info.id == "tc7_tma_store" ? tc7_forward(M, N, K, clusters) : persistent_forward(M, N, cs, clusters);
        ASSERT_EQ(want.size(), tiles->block.size()) << "every tile of C stored once";
        for (int r = 0; r < tiles->rows; ++r)
          for (int c = 0; c < tiles->cols; ++c) {
            const auto it = want.find({r * 128, c * 256});
            ASSERT_NE(it, want.end());
            ASSERT_EQ(tiles->block[static_cast<std::size_t>(r) * tiles->cols + c], (Dim3{it->second, 0, 0}))
                << "tile " << r << "," << c;
          }
      }
  }
  EXPECT_EQ(launches, 5 * 3);
}

TEST(MatmulTiles, OtherRungsTilesAreTheirOwnersBlocks) {
  const int M = 300, N = 530;
  for (Precision p : {Precision::Fp32, Precision::Bf16})
    for (const auto& info : matmul_kernels(p)) {
      if (info.persistent) continue;
      const MatmulConfig& config = info.configs.front();
      SCOPED_TRACE(info.id + " " + config.label);
      const LaunchConfig lc = matmul_launch_config(info.kernel, config, M, N, 64);
      auto tiles = c_tiles(info.kernel, config, lc, M, N);
      ASSERT_TRUE(tiles.ok()) << tiles.status().describe();
      for (int row = 0; row < M; row += 37)
        for (int col = 0; col < N; col += 41) {
          auto o = element_owner(info.kernel, config, M, N, row, col, &lc);
          ASSERT_TRUE(o.ok()) << o.status().describe();
          const std::size_t i = static_cast<std::size_t>(row / tiles->tile_rows) * tiles->cols + col / tiles->tile_cols;
          ASSERT_EQ(Dim3(tiles->block[i].x, tiles->block[i].y, 0), Dim3(o->block.x, o->block.y, 0))
              << row << "," << col;
        }
    }
}

TEST(MatmulTiles, ColourKeysFollowTheRecordWhereThereIsOne) {
  const MatmulKernelInfo* t6 = find_matmul_kernel("tc6_cluster_multicast");
  ASSERT_NE(t6, nullptr);
  const int M = 1000, N = 777;
  LaunchRecord rec;
  rec.kernel = t6->id;
  rec.config = matmul_launch_config(t6->kernel, t6->configs.front(), M, N, 64);
  ASSERT_EQ(rec.config.cluster, (Dim3{2, 1, 1}));
  rec.config.grid.x = 2 * 3;  // three clusters resident
  auto tiles = c_tiles(t6->kernel, t6->configs.front(), rec.config, M, N);
  ASSERT_TRUE(tiles.ok());
  bool recorded = true;
  // No trace: the cluster from the model (block / 2), no SM.
  const auto model = tile_keys(*tiles, rec, TileColour::Cluster, &recorded);
  EXPECT_FALSE(recorded);
  for (std::size_t i = 0; i < model.size(); ++i) EXPECT_EQ(model[i], tiles->block[i].x / 2) << i;
  for (std::uint64_t k : tile_keys(*tiles, rec, TileColour::Sm, &recorded)) EXPECT_EQ(k, kNoKey);
  EXPECT_FALSE(recorded);
  // A trace whose blocks read their cluster: the record wins, even where it is not the model's
  // (the views must show what ran; the Schedule tab flags the difference).
  for (unsigned b = 0; b < rec.config.grid.x; ++b) {
    BlockTrace t;
    t.block = Dim3{b, 0, 0};
    t.unit = 100 + b;
    t.cluster = mapping::cluster_place(t.block, rec.config.grid, rec.config.cluster);
    if (b == 5) t.cluster->id.x = 0;  // a block that says it ran in cluster 0
    rec.schedule.push_back(t);
  }
  rec.schedule_simulated = false;
  const auto keys = tile_keys(*tiles, rec, TileColour::Cluster, &recorded);
  EXPECT_TRUE(recorded);
  for (std::size_t i = 0; i < keys.size(); ++i)
    EXPECT_EQ(keys[i], tiles->block[i].x == 5 ? 0u : tiles->block[i].x / 2) << i;
  const auto sms = tile_keys(*tiles, rec, TileColour::Sm, &recorded);
  EXPECT_TRUE(recorded);
  for (std::size_t i = 0; i < sms.size(); ++i) EXPECT_EQ(sms[i], 100u + tiles->block[i].x);
  const auto blocks = tile_keys(*tiles, rec, TileColour::Block, &recorded);
  for (std::size_t i = 0; i < blocks.size(); ++i) EXPECT_EQ(blocks[i], tiles->block[i].x);
  // A simulated schedule's units are workers, not SMs.
  rec.schedule_simulated = true;
  for (std::uint64_t k : tile_keys(*tiles, rec, TileColour::Sm, &recorded)) EXPECT_EQ(k, kNoKey);
}

TEST(MatmulTiles, T6OffersClusterSizesTwoFourAndOne) {
  const MatmulKernelInfo* t6 = find_matmul_kernel("tc6_cluster_multicast");
  ASSERT_NE(t6, nullptr);
  ASSERT_EQ(t6->configs.size(), 3u);
  const unsigned sizes[] = {2, 4, 1};
  for (std::size_t i = 0; i < 3; ++i) {
    const LaunchConfig lc = matmul_launch_config(t6->kernel, t6->configs[i], 4096, 4096, 4096);
    EXPECT_EQ(lc.cluster, (Dim3{sizes[i], 1, 1})) << t6->configs[i].label;
    EXPECT_EQ(lc.grid.x, sizes[i] * (4096 / (128 * sizes[i])) * 16) << "one cluster per cluster tile before clipping";
    EXPECT_NE(t6->configs[i].label.find("clusters of " + std::to_string(sizes[i])), std::string::npos);
  }
  // A tile that names no compiled cluster size is refused with the list.
  MatmulConfig odd = t6->configs.front();
  odd.tile.BM = 384;
  DeviceLimits hopper;
  hopper.shared_per_block_optin = 227 * 1024;
  const Status s = check_matmul_config(t6->kernel, odd, 4096, 4096, 4096, hopper);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message.find("clusters of 4"), std::string::npos) << s.describe();
  EXPECT_NE(s.message.find("384 x 256 is not in the compiled set"), std::string::npos) << s.describe();
  for (const MatmulConfig& c : t6->configs)
    EXPECT_TRUE(check_matmul_config(t6->kernel, c, 4096, 4096, 4096, hopper).ok()) << c.label;
}

}  // namespace
}  // namespace bs::matmul
