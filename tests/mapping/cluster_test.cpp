// Thread block clusters on the CPU: the model of mapping/cluster.hpp against clusters built the
// other way round (walk every cluster, then every block inside it, counting ranks as the loops
// go), the grouping of a synthetic traced schedule (co-scheduling, SM lists, SMs joined by shared
// clusters, a perturbed record caught), the device records' cluster fields, and the schedule
// JSON. The GPU's own registers are compared with the same model in gpu_cluster_trace_test.cu
// and tests/matmul/test_matmul_tc_gpu.cpp (label gpu).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <vector>

#include "app/json_reader.hpp"
#include "mapping/cluster.hpp"
#include "mapping/schedule.hpp"
#include "mapping/thread_map.hpp"
#include "trace/trace_record.hpp"

namespace bs::mapping {
namespace {

struct Expected {
  Dim3 id;
  unsigned rank = 0;
};

// Block -> (cluster, rank) by walking clusters and the blocks inside each, x fastest.
std::map<std::tuple<unsigned, unsigned, unsigned>, Expected> walk_clusters(Dim3 grid, Dim3 c) {
  std::map<std::tuple<unsigned, unsigned, unsigned>, Expected> out;
  for (unsigned cz = 0; cz < grid.z / c.z; ++cz)
    for (unsigned cy = 0; cy < grid.y / c.y; ++cy)
      for (unsigned cx = 0; cx < grid.x / c.x; ++cx) {
        unsigned rank = 0;
        for (unsigned z = 0; z < c.z; ++z)
          for (unsigned y = 0; y < c.y; ++y)
            for (unsigned x = 0; x < c.x; ++x)
              out[{cx * c.x + x, cy * c.y + y, cz * c.z + z}] = {Dim3{cx, cy, cz}, rank++};
      }
  return out;
}

TEST(ClusterModel, EveryBlockSitsInTheClusterAndRankTheWalkGives) {
  std::mt19937 rng(std::random_device{}());
  std::vector<std::pair<Dim3, Dim3>> shapes = {{{12, 1, 1}, {2, 1, 1}}, {{6, 4, 2}, {2, 2, 1}}, {{9, 2, 4}, {3, 1, 2}},
                                               {{5, 3, 1}, {1, 1, 1}},  {{8, 8, 1}, {4, 2, 1}}, {{2, 2, 8}, {1, 2, 4}}};
  // And a random one: cluster dims of at most 8 blocks, a grid of whole clusters.
  const Dim3 rc{1 + static_cast<unsigned>(rng() % 4), 1 + static_cast<unsigned>(rng() % 2), 1};
  shapes.push_back({Dim3{rc.x * (1 + static_cast<unsigned>(rng() % 7)), rc.y * (1 + static_cast<unsigned>(rng() % 5)),
                         1 + static_cast<unsigned>(rng() % 3)},
                    rc});
  for (const auto& [grid, c] : shapes) {
    SCOPED_TRACE(to_string(grid) + " in clusters of " + to_string(c));
    const auto want = walk_clusters(grid, c);
    ASSERT_EQ(want.size(), grid.volume());
    const Dim3 count{grid.x / c.x, grid.y / c.y, grid.z / c.z};
    std::map<unsigned long long, std::vector<std::pair<unsigned, unsigned long long>>> members;
    for (const auto& [b, e] : want) {
      const Dim3 block{std::get<0>(b), std::get<1>(b), std::get<2>(b)};
      const ClusterPlace p = cluster_place(block, grid, c);
      ASSERT_EQ(p.id, e.id) << to_string(block);
      ASSERT_EQ(p.rank, e.rank) << to_string(block);
      ASSERT_EQ(p.count, count);
      ASSERT_EQ(p.blocks, c.volume());
      EXPECT_EQ(p.explicit_cluster, c.volume() > 1);
      members[linear_cluster_id(p.id, p.count)].push_back({p.rank, linear_block_id(block, grid)});
    }
    ASSERT_EQ(members.size(), count.volume());
    for (auto& [linear, m] : members) {
      std::sort(m.begin(), m.end());
      std::vector<unsigned long long> blocks;
      for (std::size_t r = 0; r < m.size(); ++r) {
        EXPECT_EQ(m[r].first, r) << "ranks 0..n-1, once each";
        blocks.push_back(m[r].second);
      }
      EXPECT_EQ(cluster_blocks(linear, grid, c), blocks) << "cluster " << linear;
    }
    EXPECT_TRUE(cluster_blocks(count.volume(), grid, c).empty());
  }
}

// A traced launch of 12 blocks in clusters of (2,1,1) on a GPU of 8 SMs: blocks 2k and 2k+1
// form cluster k. Clusters 0..3 ran as the hardware runs them (both blocks at once); cluster 4's
// second block started after its first had ended, which the grouping must call out.
std::vector<BlockTrace> synthetic_trace(bool recorded) {
  const Dim3 grid{12, 1, 1}, c{2, 1, 1};
  const unsigned sm[12] = {4, 5, 0, 1, 1, 2, 6, 7, 3, 3, 0, 2};
  std::vector<BlockTrace> t(12);
  for (unsigned b = 0; b < 12; ++b) {
    t[b].block = Dim3{b, 0, 0};
    t[b].unit = sm[b];
    t[b].start_ns = 1000 * (b / 2) + 10 * (b % 2);
    t[b].end_ns = t[b].start_ns + 5000;
    if (recorded) t[b].cluster = cluster_place(t[b].block, grid, c);
  }
  t[9].start_ns = t[8].end_ns + 300;  // cluster 4: not at one moment
  t[9].end_ns = t[9].start_ns + 5000;
  return t;
}

TEST(ClusterSchedule, GroupsBlocksBySharedClusterAndListsTheirSms) {
  LaunchConfig lc;
  lc.grid = {12, 1, 1};
  lc.block = {384, 1, 1};
  lc.cluster = {2, 1, 1};
  const ClusterSchedule s = cluster_schedule(synthetic_trace(true), lc);
  EXPECT_TRUE(s.recorded);
  EXPECT_EQ(s.recorded_blocks, 12u);
  EXPECT_EQ(s.mismatches, 0u) << s.first_mismatch;
  ASSERT_EQ(s.clusters.size(), 6u);
  EXPECT_EQ(s.count, (Dim3{6, 1, 1}));
  for (unsigned k = 0; k < 6; ++k) {
    EXPECT_EQ(s.clusters[k].id, (Dim3{k, 0, 0}));
    EXPECT_EQ(s.clusters[k].blocks, (std::vector<unsigned long long>{2 * k, 2 * k + 1}));
    EXPECT_EQ(s.clusters[k].co_scheduled, k != 4) << k;
  }
  EXPECT_EQ(s.co_scheduled, 5u);
  EXPECT_EQ(s.clusters[0].units, (std::vector<unsigned>{4, 5}));
  EXPECT_EQ(s.clusters[3].first_start_ns, 3000u);
  EXPECT_EQ(s.clusters[3].last_start_ns, 3010u);
  // SMs joined through shared clusters: {0,1} and {1,2} and {0,2} chain into one group; {3} alone
  // (both of cluster 4's blocks on SM 3); {4,5}; {6,7}.
  EXPECT_EQ(s.sm_groups, (std::vector<std::vector<unsigned>>{{0, 1, 2}, {3}, {4, 5}, {6, 7}}));
  EXPECT_EQ(s.clusters[1].sm_group, 0u);
  EXPECT_EQ(s.clusters[2].sm_group, 0u);
  EXPECT_EQ(s.clusters[0].sm_group, 2u);
  EXPECT_EQ(cluster_line(s.clusters[0]), "cluster (0,0,0): blocks 0-1 ran on SM 4 and 5, together for 5 us");
  EXPECT_NE(cluster_line(s.clusters[4]).find("NOT at one moment"), std::string::npos) << cluster_line(s.clusters[4]);
  EXPECT_NE(cluster_line(s.clusters[1], true).find("worker 0 and 1"), std::string::npos);
}

TEST(ClusterSchedule, ARecordThatDisagreesWithTheModelIsCaught) {
  LaunchConfig lc;
  lc.grid = {12, 1, 1};
  lc.cluster = {2, 1, 1};
  std::vector<BlockTrace> t = synthetic_trace(true);
  std::swap(t[6].cluster->rank, t[7].cluster->rank);  // two blocks swap ranks
  const ClusterSchedule s = cluster_schedule(t, lc);
  EXPECT_EQ(s.mismatches, 2u);
  EXPECT_NE(s.first_mismatch.find("block (6,0,0)"), std::string::npos) << s.first_mismatch;
  // A block that recorded another cluster is grouped by what it recorded.
  t = synthetic_trace(true);
  t[5].cluster->id = Dim3{0, 0, 0};
  const ClusterSchedule moved = cluster_schedule(t, lc);
  EXPECT_EQ(moved.mismatches, 1u);
  EXPECT_EQ(moved.clusters[0].blocks.size(), 3u);
}

TEST(ClusterSchedule, WithoutARecordTheModelGroupsAndSaysSo) {
  LaunchConfig lc;
  lc.grid = {12, 1, 1};
  lc.cluster = {2, 1, 1};
  const ClusterSchedule s = cluster_schedule(synthetic_trace(false), lc);
  EXPECT_FALSE(s.recorded);
  EXPECT_EQ(s.recorded_blocks, 0u);
  EXPECT_EQ(s.mismatches, 0u);
  ASSERT_EQ(s.clusters.size(), 6u);
  EXPECT_EQ(s.clusters[5].blocks, (std::vector<unsigned long long>{10, 11}));
  // No clusters launched: every block its own.
  lc.cluster = {1, 1, 1};
  const ClusterSchedule single = cluster_schedule(synthetic_trace(false), lc);
  EXPECT_EQ(single.clusters.size(), 12u);
  EXPECT_EQ(single.co_scheduled, 12u);
  EXPECT_EQ(cluster_dims_text(lc), "no clusters: every block is its own cluster of one");
  lc.cluster = {2, 1, 1};
  EXPECT_EQ(cluster_dims_text(lc), "clusters of 2 x 1 x 1 (2 blocks each), 6 clusters");
}

TEST(TraceRecords, ClusterFieldsComeBackOnlyWhereTheGpuReadThem) {
  const Dim3 grid{4, 2, 1};
  std::vector<trace::DeviceBlockRecord> r(grid.volume(), trace::DeviceBlockRecord{});
  for (std::size_t i = 0; i < r.size(); ++i) {
    r[i].start_ns = 100 + i;
    r[i].end_ns = 200 + i;
    r[i].smid = static_cast<std::uint32_t>(i);
    r[i].writes = 1;
  }
  // Block 5 = (1, 1): cluster (0, 1, 0) rank 1 of clusters (2, 1, 1) in a (2, 2, 1) grid of them.
  r[5].cluster_flags = trace::kClusterRead | trace::kClusterExplicit;
  r[5].cluster_id[1] = 1;
  r[5].cluster_rank = 1;
  r[5].cluster_count[0] = 2, r[5].cluster_count[1] = 2, r[5].cluster_count[2] = 1;
  r[5].cluster_blocks = 2;
  auto t = trace::records_to_trace(r, grid, 8);
  ASSERT_TRUE(t.ok()) << t.status().describe();
  for (std::size_t i = 0; i < t->size(); ++i) EXPECT_EQ((*t)[i].cluster.has_value(), i == 5) << i;
  const ClusterPlace want = cluster_place(Dim3{1, 1, 0}, grid, Dim3{2, 1, 1});
  EXPECT_EQ(*(*t)[5].cluster, want);
  // The schedule JSON carries the cluster dims and what block 5 read.
  LaunchConfig lc;
  lc.grid = grid;
  lc.block = {64, 1, 1};
  lc.cluster = {2, 1, 1};
  auto doc = bs::test::parse_json(schedule_to_json(*t, false, lc, "k", "GPU"));
  ASSERT_TRUE(doc);
  EXPECT_EQ(doc->at("cluster").at(0).number, 2);
  const auto& b5 = doc->at("blocks").at(5);
  EXPECT_EQ(b5.at("clusterid").at(1).number, 1);
  EXPECT_EQ(b5.at("cluster_ctarank").number, 1);
  EXPECT_EQ(b5.at("nclusterid").at(0).number, 2);
  EXPECT_EQ(b5.at("cluster_nctarank").number, 2);
  EXPECT_TRUE(b5.at("is_explicit_cluster").boolean);
  EXPECT_FALSE(doc->at("blocks").at(4).has("clusterid"));
}

}  // namespace
}  // namespace bs::mapping
