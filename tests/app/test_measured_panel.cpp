// The Measured tab draws every state it can be in, on any machine: a profile beside the model, a
// profile of an earlier launch, counters that could not be read (no permission), a profile in
// progress, and the CPU backend's answer with the model alone. Rendered headless (EGL) through
// ImGui's real renderer, so an ImGui assertion or a crash in any state fails the test. With
// BS_MEASURED_PANEL_PNG=FOLDER the frames are written there as PNGs, to look at.
#include <gtest/gtest.h>

#include <epoxy/gl.h>
#include <imgui.h>
#include <imgui_impl_opengl3.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <set>
#include <string>

#include "counters/counter_errors.hpp"
#include "counters/counters.hpp"
#include "platform/png.hpp"
#include "platform/window.hpp"
#include "ui/measured_panel.hpp"
#include "ui/theme.hpp"
#include "skips.hpp"

namespace {

using namespace bs;

LaunchRecord launch(const std::string& kernel, const std::string& config) {
  LaunchRecord r;
  r.lab = "matmul";
  r.kernel = kernel;
  r.config_label = config;
  r.problem = "1024x1024x1024";
  r.backend = BackendKind::Cuda;
  return r;
}

LaunchCounters measured(bool coalesced) {
  LaunchCounters c;
  c.device = "NVIDIA H200";
  c.chip = "GH100";
  c.range = "kernel";
  c.dram_read_bytes = coalesced ? 8396288 : 8410880;
  c.dram_write_bytes = 0;
  c.duration_ns = coalesced ? 345408 : 4420448;
  c.dram_bandwidth_gbs = c.dram_bytes() / c.duration_ns;
  c.dram_throughput_pct = coalesced ? 0.5 : 0.04;
  c.l2_hit_pct = coalesced ? 94.3 : 96.5;
  c.ld_requests = 67108864;
  c.ld_sectors = c.ld_requests * (coalesced ? 2.5 : 16.5);
  c.st_requests = 32768;
  c.st_sectors = c.st_requests * (coalesced ? 4 : 32);
  c.achieved_occupancy_pct = coalesced ? 94.3 : 92.8;
  c.sm_throughput_pct = coalesced ? 74.6 : 5.8;
  c.memory_throughput_pct = coalesced ? 74.6 : 95.9;
  c.warp_cycles_per_issue = coalesced ? 27.9 : 356.0;
  if (coalesced)
    c.stalls = {{"lg_throttle", 11.6, 41.5}, {"long_scoreboard", 8.2, 29.3}, {"not_selected", 5.2, 18.8}, {"wait", 1.1, 3.9}};
  else
    c.stalls = {{"lg_throttle", 332.6, 93.4}, {"long_scoreboard", 15.2, 4.3}, {"not_selected", 5.1, 1.4}};
  c.passes = 15;
  c.profile_wall_ms = coalesced ? 406.7 : 465.6;
  c.model_bytes = 12582912;
  c.model_bytes_note = "A and B read once, C written once (the least any kernel must move)";
  c.model_bandwidth_gbs = coalesced ? 36.4 : 2.85;
  c.model_ld_sectors_per_request = coalesced ? 2.5 : 16.5;
  c.model_st_sectors_per_request = coalesced ? 4 : 32;
  c.sectors_sample = "64 of 1024 blocks (spread evenly, first and last included), all 32 warps of each, the first 32 steps of each warp's loop";
  c.theoretical_occupancy_pct = 100;
  c.occupancy_note = "2 blocks of 32 warps per SM, limited by threads";
  c.model_waves = 3.88;
  c.model_last_wave_fill_pct = 87.9;
  return c;
}

class MeasuredPanel : public ::testing::Test {
 protected:
  void SetUp() override {
    auto w = make_headless_window(420, 900);
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

  // Two frames (ImGui sizes tables in the first), the second kept as `name`.png when asked.
  bool draw(const ui::MeasuredInput& in, const std::string& name) {
    bool clicked = false;
    for (int f = 0; f < 2; ++f) {
      const auto [w, h] = window_->framebuffer_size();
      ImGui_ImplOpenGL3_NewFrame();
      ImGuiIO& io = ImGui::GetIO();
      io.DisplaySize = ImVec2(static_cast<float>(w), static_cast<float>(h));
      io.DeltaTime = 1.0f / 60.0f;
      ImGui::NewFrame();
      ImGui::SetNextWindowPos(ImVec2(0, 0));
      ImGui::SetNextWindowSize(io.DisplaySize);
      ImGui::Begin("side", nullptr, ImGuiWindowFlags_NoDecoration);
      if (ImGui::BeginTabBar("tabs")) {
        if (ImGui::BeginTabItem("Measured")) {
          clicked |= ui::draw_measured_panel(in);
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
    for (std::size_t i = 0; i + 3 < px.size(); i += 4 * 97)
      colours.insert(px[i] | px[i + 1] << 8 | px[i + 2] << 16);
    EXPECT_GT(colours.size(), 8u) << name << ": the frame is (nearly) one colour";
    if (const char* dir = std::getenv("BS_MEASURED_PANEL_PNG"); dir && *dir) {
      std::filesystem::create_directories(dir);
      EXPECT_TRUE(write_png(std::filesystem::path(dir) / (name + ".png"), w, h, 4, px.data()).ok());
    }
    window_->swap_buffers();
    return clicked;
  }

  std::unique_ptr<Window> window_;
  bool ready_ = false;
};

TEST_F(MeasuredPanel, AProfileBesideTheModel) {
  for (bool coalesced : {true, false}) {
    LaunchRecord shown = launch(coalesced ? "k1_naive" : "k2_uncoalesced", "block 32x32 | 1024 threads");
    LaunchRecord result = shown;
    result.counters = std::make_shared<const LaunchCounters>(measured(coalesced));
    ui::MeasuredInput in;
    in.shown = &shown;
    in.result = &result;
    EXPECT_FALSE(draw(in, coalesced ? "profile_k1" : "profile_k2")) << "nothing was clicked";
  }
}

TEST_F(MeasuredPanel, AnEarlierProfileAndTheModelOfTheLaunchShown) {
  LaunchRecord shown = launch("k2_uncoalesced", "block 16x16 | 256 threads");
  LaunchRecord result = launch("k1_naive", "block 32x32 | 1024 threads");
  result.counters = std::make_shared<const LaunchCounters>(measured(true));
  LaunchCounters model = measured(false);
  ui::MeasuredInput in;
  in.shown = &shown;
  in.result = &result;
  in.model = &model;
  draw(in, "earlier");
}

TEST_F(MeasuredPanel, NoPermissionSaysTheCauseAndTheFix) {
  LaunchRecord shown = launch("k1_naive", "block 32x32 | 1024 threads");
  LaunchRecord result = shown;
  LaunchCounters c;
  c.status = counters::explain(counters::CounterProblem::InsufficientPrivileges,
                               "cuptiProfilerGetCounterAvailability", "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES");
  result.counters = std::make_shared<const LaunchCounters>(c);
  ui::MeasuredInput in;
  in.shown = &shown;
  in.result = &result;
  draw(in, "no_permission");
}

TEST_F(MeasuredPanel, ProgressWhileProfiling) {
  LaunchRecord shown = launch("k1_naive", "block 32x32 | 1024 threads");
  LaunchCounters model = measured(true);
  ui::MeasuredInput in;
  in.shown = &shown;
  in.model = &model;
  in.progress.busy = true;
  in.progress.stage = "profiling";
  in.progress.kernel = "k1_naive";
  in.progress.passes_done = 6;
  in.progress.passes_total = 15;
  in.progress.elapsed_s = 0.2;
  in.launches_paused = true;
  draw(in, "progress");
}

TEST_F(MeasuredPanel, TheCpuBackendShowsTheModelAndSaysCountersAreAGpuFeature) {
  LaunchRecord shown = launch("k1_naive", "block 32x32 | 1024 threads");
  shown.backend = BackendKind::CpuSimulation;
  LaunchCounters model = measured(true);
  ui::MeasuredInput in;
  in.shown = &shown;
  in.model = &model;
  in.refusal = counters::gpu_feature_status();
  draw(in, "cpu");
}

}  // namespace
