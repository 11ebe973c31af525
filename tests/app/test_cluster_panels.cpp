// The Schedule and Launch tabs of a launch with thread block clusters say what a learner needs,
// read from the text a frame drew (the tests' one ImGui harness, imgui_frames.hpp: no window, so
// it runs on any machine), for a synthetic record shaped like T6 on an H100 (132 SMs, 66 clusters
// of 2 blocks, each block's recorded %clusterid and %smid): recorded and in agreement, every
// cluster co-scheduled, the SMs that shared one; a hovered block's recorded cluster and rank; a
// record with a perturbed rank and a cluster whose blocks did not overlap (the tab says how many
// and lists that cluster first); no record of the clusters (the model, said so); and the Launch
// tab's count of active clusters beside what the blocks-per-SM model allows. The expected
// figures are worked out here from how the record was made, not by the mapping code.
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cstdio>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "imgui_frames.hpp"
#include "mapping/cluster.hpp"
#include "mapping/launch_stats.hpp"
#include "ui/panels.hpp"

namespace {

using namespace bs;

DeviceLimits h100() {
  DeviceLimits l;
  l.name = "NVIDIA H100 80GB HBM3";
  l.compute_major = 9;
  l.sm_count = 132;
  l.max_threads_per_sm = 2048;
  l.max_blocks_per_sm = 32;
  l.regs_per_sm = 65536;
  l.shared_per_sm = 228 * 1024;
  l.shared_per_block_optin = 227 * 1024;
  l.reserved_shared_per_block = 1024;
  return l;
}

// T6 at 4096^3 as an H100 would run it: 66 clusters of 2, one block per SM, the two blocks of a
// cluster on neighbouring SMs, starting within a microsecond of each other.
LaunchRecord t6_record(bool recorded) {
  LaunchRecord r;
  r.lab = "matmul";
  r.kernel = "tc6_cluster_multicast";
  r.config_label = "clusters of 2: 256 x 256 cluster tiles, Bt multicast to both, 4 stages | 384 threads";
  r.backend = BackendKind::Cuda;
  r.config.grid = {132, 1, 1};
  r.config.block = {384, 1, 1};
  r.config.cluster = {2, 1, 1};
  r.config.dynamic_shared_bytes = 197696;
  r.attributes.registers_per_thread = 168;
  r.attributes.max_dynamic_shared_bytes = r.config.dynamic_shared_bytes;  // opted in, as the launcher does
  r.attributes_measured = true;
  r.scheme = IndexScheme::tiled(256, 128);
  r.scheme.tiles_loop = true;  // persistent: each block loops over tiles
  r.data_width = r.data_height = 4096;
  r.clusters.max_active_clusters = 66;
  r.clusters.note = "cudaOccupancyMaxActiveClusters";
  std::mt19937 rng(7);
  for (unsigned b = 0; b < 132; ++b) {
    BlockTrace t;
    t.block = {b, 0, 0};
    t.unit = (b * 2 + (b / 66)) % 132;  // blocks 2k, 2k+1 on SMs 4k mod 132 ..., as GPCs hand them out
    t.start_ns = 1000 * (b / 2) % 7000 + rng() % 300;
    t.end_ns = 1'250'000 + rng() % 40'000;
    t.threads = 384;
    if (recorded) t.cluster = mapping::cluster_place(t.block, r.config.grid, r.config.cluster);
    r.schedule.push_back(t);
  }
  r.schedule_simulated = false;
  return r;
}

// The SM the record puts block b on (t6_record's rule, restated).
unsigned sm_of(unsigned b) { return (b * 2 + (b / 66)) % 132; }

// The tab as the side panel draws it (560 x 1000), the mouse at `mouse` (nowhere by default).
std::string draw(const LaunchRecord& rec, bool schedule, ImVec2 mouse = ImVec2(-FLT_MAX, -FLT_MAX)) {
  const DeviceLimits limits = h100();
  ui::SideInput in;
  in.shown = &rec;
  in.limits = &limits;
  in.backend = rec.backend;
  test::ImGuiFrames frames(ImVec2(560, 1000));
  ImGui::GetIO().MousePos = mouse;
  return frames.frame([&] {
    if (schedule) ui::draw_schedule_panel(in);
    else ui::draw_launch_stats_panel(in);
  });
}

// Clusters of 2 consecutive blocks whose runs overlapped (the later start before the earlier
// end), counted from the record's times.
unsigned co_scheduled_pairs(const LaunchRecord& r) {
  unsigned n = 0;
  for (std::size_t b = 0; b + 1 < r.schedule.size(); b += 2) {
    const BlockTrace& x = r.schedule[b];
    const BlockTrace& y = r.schedule[b + 1];
    if (std::max(x.start_ns, y.start_ns) < std::min(x.end_ns, y.end_ns)) ++n;
  }
  return n;
}

// The SMs that shared a cluster, "{a,b}", for every cluster of 2, the groups in order of their
// first SM, as the tab lists them.
std::vector<std::string> sm_pairs() {
  std::vector<std::pair<unsigned, unsigned>> pairs;
  for (unsigned b = 0; b < 132; b += 2)
    pairs.emplace_back(std::min(sm_of(b), sm_of(b + 1)), std::max(sm_of(b), sm_of(b + 1)));
  std::sort(pairs.begin(), pairs.end());
  std::vector<std::string> out;
  for (const auto& [x, y] : pairs) out.push_back("{" + std::to_string(x) + "," + std::to_string(y) + "}");
  return out;
}

TEST(ClusterPanels, ScheduleGroupsRecordedClusters) {
  const LaunchRecord r = t6_record(true);
  const std::string t = draw(r, true);
  EXPECT_TRUE(bs::test::has(t, "Clusters, recorded on the GPU (%clusterid, %cluster_ctarank)")) << t;
  EXPECT_TRUE(bs::test::has(t, "clusters of 2 x 1 x 1 (2 blocks each), " + std::to_string(132 / 2) + " clusters")) << t;
  EXPECT_TRUE(bs::test::has(t, "all 132 recorded blocks agree")) << t;
  ASSERT_EQ(co_scheduled_pairs(r), 66u) << "the record's blocks all overlap their cluster's other";
  EXPECT_TRUE(bs::test::has(t, "co-scheduled 66 of 66 clusters")) << t;
  // The SMs that shared a cluster, which must be in one GPC: the first three groups.
  const std::vector<std::string> pairs = sm_pairs();
  EXPECT_TRUE(
      bs::test::has(t, "SMs that shared a cluster are in one GPC: " + pairs[0] + " " + pairs[1] + " " + pairs[2]))
      << t;
  // The legend: cluster 0's blocks and where they ran.
  EXPECT_TRUE(bs::test::has(t, "blocks 0-1 ran on SM " + std::to_string(sm_of(0)) + " and " + std::to_string(sm_of(1))))
      << t;

  // Hovering the timeline names the block under the mouse, its SM and its recorded cluster and
  // rank: checked against the record's own rule for whichever block is hovered.
  int hovered = 0;
  for (float y = 200; y < 1000 && hovered < 3; y += 8) {
    const std::string tip = draw(r, true, ImVec2(280, y));
    unsigned b = 0, bz = 0, by = 0, sm = 0, cx = 0, cy = 0, cz = 0, rank = 0, of = 0;
    const std::size_t at = tip.find("block (");
    const std::size_t rec = tip.find("recorded: cluster (");
    if (at == std::string::npos || rec == std::string::npos) continue;
    ASSERT_EQ(std::sscanf(tip.c_str() + at, "block (%u, %u, %u) on SM %u", &b, &by, &bz, &sm), 4) << tip;
    ASSERT_EQ(
        std::sscanf(tip.c_str() + rec, "recorded: cluster (%u, %u, %u), rank %u of %u", &cx, &cy, &cz, &rank, &of), 5)
        << tip;
    SCOPED_TRACE("block " + std::to_string(b));
    EXPECT_EQ(sm, sm_of(b));
    EXPECT_EQ(cx, b / 2);
    EXPECT_EQ(rank, b % 2);
    EXPECT_EQ(of, 2u);
    ++hovered;
  }
  EXPECT_GT(hovered, 0) << "no block of the timeline was hovered from y = 200 to 1000 at x = 280";
}

TEST(ClusterPanels, ScheduleSaysWhereTheRecordDisagreesOrDidNotOverlap) {
  LaunchRecord r = t6_record(true);
  std::swap(r.schedule[10].cluster->rank, r.schedule[11].cluster->rank);  // two blocks disagree
  r.schedule[21].start_ns = r.schedule[20].end_ns + 5000;                 // cluster 10's second block: after the first
  r.schedule[21].end_ns = r.schedule[21].start_ns + 1'000'000;
  const std::string t = draw(r, true);
  EXPECT_TRUE(bs::test::has(t, "2 of 132 blocks differ")) << t;
  ASSERT_EQ(co_scheduled_pairs(r), 65u);
  EXPECT_TRUE(bs::test::has(t, "co-scheduled 65 of 66 clusters")) << t;
  // The cluster that did not run at one moment is listed first, and says so.
  const std::size_t late = t.find("blocks 20-21 ran on SM");
  ASSERT_NE(late, std::string::npos) << t;
  EXPECT_NE(t.find("NOT at one moment", late), std::string::npos) << t;
  const std::size_t first = t.find("blocks 0-1 ran on SM");
  EXPECT_TRUE(first == std::string::npos || late < first) << "the late cluster is not listed first:\n" << t;
}

TEST(ClusterPanels, ScheduleWithoutRecordedClustersUsesTheModel) {
  const std::string t = draw(t6_record(false), true);
  EXPECT_TRUE(bs::test::has(t, "Clusters: the model (blockIdx / cluster dims); this GPU or build recorded none")) << t;
  EXPECT_FALSE(bs::test::has(t, "record vs model")) << "nothing recorded to compare: " << t;
  EXPECT_TRUE(bs::test::has(t, "co-scheduled 66 of 66 clusters")) << t;
  EXPECT_TRUE(bs::test::has(t, "blocks 0-1 ran on SM " + std::to_string(sm_of(0)) + " and " + std::to_string(sm_of(1))))
      << t;
}

TEST(ClusterPanels, LaunchTabShowsMaxActiveClustersBesideTheModel) {
  LaunchRecord r = t6_record(true);
  {
    const mapping::Occupancy o =
        mapping::compute_stats(r.scheme, r.config, r.data_width, r.data_height, r.attributes, h100(), nullptr)
            .occupancy;
    EXPECT_EQ(o.active_blocks_per_sm, 1u) << o.reason;  // 193 KB of shared memory: one block per SM
  }
  // 66 clusters of 2 at once: 132 blocks, all that one block on each of 132 SMs allows.
  const std::string all = draw(r, false);
  EXPECT_TRUE(bs::test::has(all, "cluster clusters of 2 x 1 x 1 (2 blocks each), 66 clusters")) << all;
  EXPECT_TRUE(bs::test::has(all, "max active clusters 66  (132 blocks at once)")) << all;
  EXPECT_TRUE(bs::test::has(all, "as the blocks-per-SM model allows (1 x 132 SMs = 132 blocks)")) << all;
  // 60: fewer than 132 SMs / 2 (the GPCs' leftovers): 120 blocks, 12 blocks' room empty.
  r.clusters.max_active_clusters = 60;
  const std::string fewer = draw(r, false);
  EXPECT_TRUE(bs::test::has(fewer, "max active clusters 60  (" + std::to_string(60 * 2) + " blocks at once)")) << fewer;
  EXPECT_TRUE(bs::test::has(fewer, "1 x 132 SMs = 132 blocks, 66 whole clusters: " + std::to_string(132 - 60 * 2) +
                                       " blocks' room stays empty"))
      << fewer;
  r.config.cluster = {1, 1, 1};
  r.clusters = {};
  r.kernel = "tc5_persistent";
  const std::string none = draw(r, false);
  EXPECT_TRUE(bs::test::has(none, "clusters none (each block is its own cluster of one)")) << none;
  EXPECT_FALSE(bs::test::has(none, "max active clusters")) << none;
}

}  // namespace
