// The Schedule and Launch tabs of a launch with thread block clusters, drawn on any machine from
// a synthetic record shaped like T6 on an H100 (132 SMs, 66 clusters of 2 blocks, each block's
// recorded %clusterid and %smid): recorded and in agreement; a record with a perturbed rank and
// a cluster whose blocks did not overlap (the tab must say so); no record of the clusters (a
// pre-Hopper trace: the model); and a launch without clusters. Rendered headless (EGL) through
// ImGui's real renderer, so an ImGui assertion or a crash fails the test. With
// BS_CLUSTER_PANEL_PNG=FOLDER the frames are written there as PNGs, to look at.
#include <gtest/gtest.h>

#include <epoxy/gl.h>
#include <imgui.h>
#include <imgui_impl_opengl3.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <random>
#include <set>
#include <string>

#include "mapping/cluster.hpp"
#include "mapping/launch_stats.hpp"
#include "platform/png.hpp"
#include "platform/window.hpp"
#include "ui/panels.hpp"
#include "ui/theme.hpp"
#include "skips.hpp"

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

class ClusterPanels : public ::testing::Test {
 protected:
  void SetUp() override {
    auto w = make_headless_window(560, 1000);
    if (!w) BS_SKIP_NO_GL() << "no headless GL: " << w.status().describe();
    window_ = std::move(w.value());
    ImGui::CreateContext();
    ImGui::GetIO().IniFilename = nullptr;
    ui::apply_theme(1.0f);
    ASSERT_TRUE(ImGui_ImplOpenGL3_Init("#version 330 core"));
    ready_ = true;
  }
  void TearDown() override {
    if (ready_) {
      ImGui_ImplOpenGL3_Shutdown();
      ImGui::DestroyContext();
    }
  }

  // Two frames (ImGui sizes things in the first), the mouse at `mouse`; the second frame kept as
  // `name`.png when asked.
  void draw(const LaunchRecord& rec, bool schedule, const std::string& name, ImVec2 mouse = {-1, -1}) {
    // The timeline paints many hues; the Launch tab is text in a few theme colours.
    const std::size_t min_colours = schedule ? 24 : 4;
    const DeviceLimits limits = h100();
    ui::SideInput in;
    in.shown = &rec;
    in.limits = &limits;
    in.backend = rec.backend;
    for (int f = 0; f < 2; ++f) {
      const auto [w, h] = window_->framebuffer_size();
      ImGui_ImplOpenGL3_NewFrame();
      ImGuiIO& io = ImGui::GetIO();
      io.DisplaySize = ImVec2(static_cast<float>(w), static_cast<float>(h));
      io.DeltaTime = 1.0f / 60.0f;
      io.MousePos = mouse;
      ImGui::NewFrame();
      ImGui::SetNextWindowPos(ImVec2(0, 0));
      ImGui::SetNextWindowSize(io.DisplaySize);
      ImGui::Begin("side", nullptr, ImGuiWindowFlags_NoDecoration);
      if (ImGui::BeginTabBar("tabs")) {
        if (ImGui::BeginTabItem(schedule ? "Schedule" : "Launch")) {
          if (schedule) ui::draw_schedule_panel(in);
          else ui::draw_launch_stats_panel(in);
          ImGui::EndTabItem();
        }
        ImGui::EndTabBar();
      }
      ImGui::End();
      ImGui::Render();
      window_->bind_default_framebuffer();
      glViewport(0, 0, w, h);
      glClearColor(0.08f, 0.09f, 0.11f, 1.0f);
      glClear(GL_COLOR_BUFFER_BIT);
      ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
      EXPECT_GT(ImGui::GetDrawData()->TotalVtxCount, 500) << name << ": the panel drew next to nothing";
    }
    const auto [w, h] = window_->framebuffer_size();
    const std::vector<std::uint8_t> px = window_->read_pixels_rgba();
    std::set<std::uint32_t> colours;
    for (std::size_t i = 0; i + 3 < px.size(); i += 4 * 97) colours.insert(px[i] | px[i + 1] << 8 | px[i + 2] << 16);
    EXPECT_GT(colours.size(), min_colours) << name << ": the frame is (nearly) one colour";
    if (const char* dir = std::getenv("BS_CLUSTER_PANEL_PNG"); dir && *dir) {
      std::filesystem::create_directories(dir);
      EXPECT_TRUE(write_png(std::filesystem::path(dir) / (name + ".png"), w, h, 4, px.data()).ok());
    }
    window_->swap_buffers();
  }

  std::unique_ptr<Window> window_;
  bool ready_ = false;
};

TEST_F(ClusterPanels, ScheduleGroupsRecordedClusters) {
  const LaunchRecord r = t6_record(true);
  const mapping::ClusterSchedule cs = mapping::cluster_schedule(r.schedule, r.config);
  ASSERT_EQ(cs.clusters.size(), 66u);
  EXPECT_EQ(cs.co_scheduled, 66u);
  EXPECT_EQ(cs.mismatches, 0u);
  draw(r, true, "schedule_recorded");
  draw(r, true, "schedule_hover", ImVec2(200, 520));  // somewhere over the timeline
}

TEST_F(ClusterPanels, ScheduleSaysWhereTheRecordDisagreesOrDidNotOverlap) {
  LaunchRecord r = t6_record(true);
  std::swap(r.schedule[10].cluster->rank, r.schedule[11].cluster->rank);
  r.schedule[21].start_ns = r.schedule[20].end_ns + 5000;  // cluster 10's second block: after the first
  r.schedule[21].end_ns = r.schedule[21].start_ns + 1'000'000;
  const mapping::ClusterSchedule cs = mapping::cluster_schedule(r.schedule, r.config);
  EXPECT_EQ(cs.mismatches, 2u);
  EXPECT_EQ(cs.co_scheduled, 65u);
  draw(r, true, "schedule_disagrees");
}

TEST_F(ClusterPanels, ScheduleWithoutRecordedClustersUsesTheModel) {
  draw(t6_record(false), true, "schedule_model");
}

TEST_F(ClusterPanels, LaunchTabShowsMaxActiveClustersBesideTheModel) {
  LaunchRecord r = t6_record(true);
  {
    const mapping::Occupancy o = mapping::compute_stats(r.scheme, r.config, r.data_width, r.data_height, r.attributes,
                                                        h100(), nullptr)
                                     .occupancy;
    EXPECT_EQ(o.active_blocks_per_sm, 1u) << o.reason;  // 193 KB of shared memory: one block per SM
  }
  draw(r, false, "launch_clusters");
  r.clusters.max_active_clusters = 60;  // fewer than 132 SMs / 2: the GPCs' leftovers
  draw(r, false, "launch_fewer_clusters");
  r.config.cluster = {1, 1, 1};
  r.clusters = {};
  r.kernel = "tc5_persistent";
  draw(r, false, "launch_no_clusters");
}

}  // namespace
