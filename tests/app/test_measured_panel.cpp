// The Measured tab says what each of its states promises, read from the text a frame drew (the
// tests' one ImGui harness, imgui_frames.hpp: no window, so it runs on any machine): a profile
// beside the model (the launch it measured, the hardware's and blockscope's values of the counters
// and their ratio, recomputed here from the synthetic counters, the main stall reasons); a profile
// of an earlier launch folded away under the model of the launch shown; counters that could not
// be read, with the driver's cause and its fix; a profile in progress (which pass, the app's
// launches held); and the CPU backend's answer: the model alone, counters a GPU feature.
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <string>

#include "counters/counter_errors.hpp"
#include "counters/counters.hpp"
#include "imgui_frames.hpp"
#include "ui/measured_panel.hpp"

namespace {

using namespace bs;

// A figure as the tab prints it, computed here with the C library's "%.3g".
std::string g3(double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

// A row of the counter table as ImGui's log writes a table row: "| counter | hardware | blockscope | ratio |".
std::string row(const std::string& counter, const std::string& hardware, const std::string& model,
                const std::string& ratio) {
  return "| " + counter + " | " + hardware + " | " + model + " | " + ratio + " |";
}

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
    c.stalls = {
        {"lg_throttle", 11.6, 41.5}, {"long_scoreboard", 8.2, 29.3}, {"not_selected", 5.2, 18.8}, {"wait", 1.1, 3.9}};
  else c.stalls = {{"lg_throttle", 332.6, 93.4}, {"long_scoreboard", 15.2, 4.3}, {"not_selected", 5.1, 1.4}};
  c.passes = 15;
  c.profile_wall_ms = coalesced ? 406.7 : 465.6;
  c.model_bytes = 12582912;
  c.model_bytes_note = "A and B read once, C written once (the least any kernel must move)";
  c.model_bandwidth_gbs = coalesced ? 36.4 : 2.85;
  c.model_ld_sectors_per_request = coalesced ? 2.5 : 16.5;
  c.model_st_sectors_per_request = coalesced ? 4 : 32;
  c.sectors_sample =
      "64 of 1024 blocks (spread evenly, first and last included), all 32 warps of each, the first 32 steps of each "
      "warp's loop";
  c.theoretical_occupancy_pct = 100;
  c.occupancy_note = "2 blocks of 32 warps per SM, limited by threads";
  c.model_waves = 3.88;
  c.model_last_wave_fill_pct = 87.9;
  return c;
}

// The tab as the side panel draws it, 420 px wide; the text of the frame, and whether the button
// was pressed.
struct Drawn {
  std::string text;
  bool clicked = false;
};
Drawn draw(const ui::MeasuredInput& in) {
  test::ImGuiFrames frames(ImVec2(420, 900));
  Drawn d;
  d.text = frames.frame([&] { d.clicked |= ui::draw_measured_panel(in); });
  return d;
}

TEST(MeasuredPanel, AProfileBesideTheModel) {
  for (bool coalesced : {true, false}) {
    SCOPED_TRACE(coalesced ? "coalesced" : "uncoalesced");
    LaunchRecord shown = launch(coalesced ? "k1_naive" : "k2_uncoalesced", "block 32x32 | 1024 threads");
    LaunchRecord result = shown;
    const LaunchCounters c = measured(coalesced);
    result.counters = std::make_shared<const LaunchCounters>(c);
    ui::MeasuredInput in;
    in.shown = &shown;
    in.result = &result;
    const Drawn d = draw(in);
    const std::string& t = d.text;
    EXPECT_FALSE(d.clicked) << "nothing was clicked";
    // Which launch, on what, how it was measured.
    EXPECT_TRUE(bs::test::has(t, shown.kernel + ", block 32x32 | 1024 threads, on 1024x1024x1024")) << t;
    EXPECT_TRUE(bs::test::has(t, "NVIDIA H200 (GH100): 15 passes")) << t;
    // The table: DRAM bytes measured (read + written) against the bytes counted, and their ratio.
    const double dram = c.dram_read_bytes + c.dram_write_bytes;
    EXPECT_TRUE(bs::test::has(
        t, row("DRAM bytes", g3(dram / 1e6) + " MB", g3(c.model_bytes / 1e6) + " MB", g3(dram / c.model_bytes) + "x")))
        << t;
    // Sectors per load: the hardware's sectors over its requests, beside the memory view's model.
    const double ld = c.ld_sectors / c.ld_requests;
    EXPECT_TRUE(bs::test::has(t, row("sectors / load", g3(ld), g3(c.model_ld_sectors_per_request),
                                     g3(ld / c.model_ld_sectors_per_request) + "x")))
        << t;
    // Occupancy: achieved against theoretical, compared in percentage points.
    char points[32];
    std::snprintf(points, sizeof points, "%+.1f pt", c.achieved_occupancy_pct - c.theoretical_occupancy_pct);
    EXPECT_TRUE(bs::test::has(
        t, row("occupancy", g3(c.achieved_occupancy_pct) + "%", g3(c.theoretical_occupancy_pct) + "%", points)))
        << t;
    // The main stall reason with its share, and the sentence on the largest disagreement.
    EXPECT_TRUE(bs::test::has(t, c.stalls.front().reason + "  " + g3(c.stalls.front().share_pct) + "%")) << t;
    EXPECT_TRUE(bs::test::has(t, "Where they disagree most")) << t;
    EXPECT_TRUE(bs::test::has(t, "Model sectors per request: " + c.sectors_sample)) << t;
    EXPECT_FALSE(bs::test::has(t, "Counters could not be read")) << t;
  }
}

TEST(MeasuredPanel, AnEarlierProfileAndTheModelOfTheLaunchShown) {
  LaunchRecord shown = launch("k2_uncoalesced", "block 16x16 | 256 threads");
  LaunchRecord result = launch("k1_naive", "block 32x32 | 1024 threads");
  result.counters = std::make_shared<const LaunchCounters>(measured(true));
  const LaunchCounters model = measured(false);
  ui::MeasuredInput in;
  in.shown = &shown;
  in.result = &result;
  in.model = &model;
  const std::string t = draw(in).text;
  // The launch shown and blockscope's model of it, figure by figure.
  EXPECT_TRUE(bs::test::has(t, "k2_uncoalesced, block 16x16 | 256 threads, on 1024x1024x1024")) << t;
  EXPECT_TRUE(bs::test::has(t, "blockscope's model of this launch:")) << t;
  EXPECT_TRUE(bs::test::has(t, "bytes counted " + g3(model.model_bytes / 1e6) + " MB")) << t;
  EXPECT_TRUE(bs::test::has(t, "sectors / request load " + g3(model.model_ld_sectors_per_request) + ", store " +
                                   g3(model.model_st_sectors_per_request)))
      << t;
  EXPECT_TRUE(bs::test::has(t, "occupancy (theory) " + g3(model.theoretical_occupancy_pct) + "%")) << t;
  EXPECT_TRUE(bs::test::has(t, "Press the button to measure it beside the hardware.")) << t;
  // The earlier profile is named as not the launch shown, and folded: none of its figures.
  EXPECT_TRUE(bs::test::has(t, "Last profile: k1_naive, block 32x32 | 1024 threads (not the launch shown)")) << t;
  EXPECT_FALSE(bs::test::has(t, "DRAM bytes")) << t;
  EXPECT_FALSE(bs::test::has(t, "NVIDIA H200")) << t;
}

TEST(MeasuredPanel, NoPermissionSaysTheCauseAndTheFix) {
  LaunchRecord shown = launch("k1_naive", "block 32x32 | 1024 threads");
  LaunchRecord result = shown;
  LaunchCounters c;
  c.status = counters::explain(counters::CounterProblem::InsufficientPrivileges, "cuptiProfilerGetCounterAvailability",
                               "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES");
  result.counters = std::make_shared<const LaunchCounters>(c);
  ui::MeasuredInput in;
  in.shown = &shown;
  in.result = &result;
  const std::string t = draw(in).text;
  EXPECT_TRUE(bs::test::has(t, "Counters could not be read.")) << t;
  EXPECT_TRUE(bs::test::has(t, "restricts profiling to administrators")) << "the cause: " << t;
  EXPECT_TRUE(bs::test::has(t, counters::kProfilingDriverOption)) << "the fix: " << t;
  EXPECT_TRUE(bs::test::has(t, "cuptiProfilerGetCounterAvailability: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES")) << t;
  EXPECT_FALSE(bs::test::has(t, "DRAM bytes")) << "no table without counters: " << t;
}

TEST(MeasuredPanel, ProgressWhileProfiling) {
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
  const std::string t = draw(in).text;
  // Six passes done: the seventh of fifteen runs.
  EXPECT_TRUE(bs::test::has(t, "profiling k1_naive: pass 7 of 15, 0.2 s")) << t;
  EXPECT_TRUE(bs::test::has(t, "The app's own launches wait until the profile is done.")) << t;
  EXPECT_FALSE(bs::test::has(t, "Press the button")) << "a profile runs: nothing to press" << t;
  EXPECT_TRUE(bs::test::has(t, "blockscope's model of this launch:")) << "the model stays while it runs: " << t;
}

TEST(MeasuredPanel, TheCpuBackendShowsTheModelAndSaysCountersAreAGpuFeature) {
  LaunchRecord shown = launch("k1_naive", "block 32x32 | 1024 threads");
  shown.backend = BackendKind::CpuSimulation;
  LaunchCounters model = measured(true);
  ui::MeasuredInput in;
  in.shown = &shown;
  in.model = &model;
  in.refusal = counters::gpu_feature_status();
  const std::string t = draw(in).text;
  EXPECT_TRUE(bs::test::has(t, in.refusal.message)) << t;
  EXPECT_TRUE(bs::test::has(t, "GPU feature")) << t;
  EXPECT_TRUE(bs::test::has(t, "blockscope's model of this launch:")) << t;
  EXPECT_TRUE(bs::test::has(t, "bytes counted " + g3(model.model_bytes / 1e6) + " MB")) << t;
  EXPECT_TRUE(bs::test::has(
      t, "waves " + g3(model.model_waves) + " (the last " + g3(model.model_last_wave_fill_pct) + "% full)"))
      << t;
  EXPECT_FALSE(bs::test::has(t, "Press the button")) << "the CPU cannot be profiled: " << t;
  EXPECT_FALSE(bs::test::has(t, "DRAM bytes")) << t;
}

}  // namespace
