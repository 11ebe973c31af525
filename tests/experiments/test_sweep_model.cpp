// What the sweep result view draws, from a sweep result built here by hand (so the expected
// marks are known independently of the engine): the heatmap's axes and cells, best and worst,
// the cells that cannot be ranked against the best, the occupancy API's thread count, wrong and
// refused points; the bars' order; the noise figures. And the command line's sweep flags.
#include <gtest/gtest.h>

#include <memory>
#include <random>

#include "cli/options.hpp"
#include "core/launch_counters.hpp"
#include "experiments/sweep_model.hpp"

namespace bs::app {
namespace {

LaunchRecord point(Dim3 block, double median_ms, double half_width_ms) {
  LaunchRecord r;
  r.lab = "gray";
  r.kernel = "gray_2d";
  r.problem = "100x60 planar";
  r.request.block = block;
  r.config.block = block;
  r.config.grid = {static_cast<unsigned>(ceil_div(100, block.x)), static_cast<unsigned>(ceil_div(60, block.y)), 1};
  r.config_label = "block " + block_text(block);
  r.scheme = IndexScheme::grid2d();
  r.data_width = 100;
  r.data_height = 60;
  r.bytes_moved = 24000;
  for (int i = 0; i < 10; ++i) r.timing.samples_ms.push_back(median_ms);
  r.timing.median_ms = median_ms;
  r.timing.ci_low_ms = median_ms - half_width_ms;
  r.timing.ci_high_ms = median_ms + half_width_ms;
  r.check.state = Check::State::Passed;
  return r;
}

lab::SweepResult sample() {
  lab::SweepResult r;
  r.lab = "gray";
  r.unit = ThroughputUnit::GBPerS;
  r.backend = "CUDA";
  lab::KernelInfo k;
  k.id = "gray_2d";
  k.block_rank = 2;
  r.kernels = {k};
  r.limits.sm_count = 4;
  r.limits.max_threads_per_sm = 2048;
  r.limits.max_blocks_per_sm = 32;
  // 0: 1x1 slow (worst)      1: 32x1      2: 16x16 best     3: 32x8 ties with the best
  // 4: 8x8 wrong (fastest of all, never best)                 5: 2048x1 refused
  r.records = {point({1, 1, 1}, 9.0, 0.1),    point({32, 1, 1}, 2.0, 0.02), point({16, 16, 1}, 1.0, 0.02),
               point({32, 8, 1}, 1.03, 0.02), point({8, 8, 1}, 0.5, 0.01),  point({2048, 1, 1}, 0, 0)};
  r.records[4].check.state = Check::State::Failed;
  r.records[5].refused = true;
  r.records[5].status = Status::failure("blockDim (2048, 1, 1) exceeds the per-dimension limit");
  r.records[5].timing = Timing{};
  r.suggestions.push_back({"gray_2d", lab::BlockSuggestion{256, 8, "test"}});
  r.planned = r.records.size();
  return r;
}

TEST(SweepModel, HeatmapAxesCellsAndMarks) {
  const lab::SweepResult r = sample();
  const auto facts = point_facts(r);
  const HeatGrid g = build_grid(r, facts, "gray_2d", 1, HeatmapMetric::Time);
  EXPECT_EQ(g.xs, (std::vector<unsigned>{1, 8, 16, 32, 2048}));
  EXPECT_EQ(g.ys, (std::vector<unsigned>{1, 8, 16}));
  EXPECT_EQ(g.best, 2);
  EXPECT_EQ(g.worst, 0);
  auto cell = [&](unsigned x, unsigned y) -> const HeatCell& {
    const auto c = std::find(g.xs.begin(), g.xs.end(), x) - g.xs.begin();
    const auto row = std::find(g.ys.begin(), g.ys.end(), y) - g.ys.begin();
    return g.at(static_cast<std::size_t>(row), static_cast<std::size_t>(c));
  };
  EXPECT_TRUE(cell(16, 16).best);
  EXPECT_TRUE(cell(16, 16).suggested);  // 256 threads
  EXPECT_TRUE(cell(32, 8).suggested);
  EXPECT_TRUE(cell(32, 8).ties_best);
  EXPECT_FALSE(cell(32, 1).ties_best);
  EXPECT_TRUE(cell(1, 1).worst);
  EXPECT_TRUE(cell(8, 8).wrong);
  EXPECT_FALSE(cell(8, 8).best) << "a wrong result is never the best";
  EXPECT_TRUE(cell(2048, 1).refused);
  EXPECT_EQ(cell(16, 1).record, -1) << "no such point";
  // Colours: the best is at the top of the scale, the worst at the bottom (time, log scale).
  EXPECT_DOUBLE_EQ(cell(16, 16).t, 1.0);
  EXPECT_DOUBLE_EQ(cell(1, 1).t, 0.0);
  EXPECT_GT(cell(32, 1).t, 0.0);
  EXPECT_LT(cell(32, 1).t, 1.0);
  // Throughput: higher is better, the same order.
  const HeatGrid t = build_grid(r, facts, "gray_2d", 1, HeatmapMetric::Throughput);
  EXPECT_DOUBLE_EQ(t.hi, 24000 / (1.0 * 1e6));
  // Occupancy comes from the launch statistics: a 1-thread block fills one warp slot of 64.
  const HeatGrid o = build_grid(r, facts, "gray_2d", 1, HeatmapMetric::Occupancy);
  const auto c11 = std::find(o.xs.begin(), o.xs.end(), 1u) - o.xs.begin();
  ASSERT_TRUE(o.at(0, static_cast<std::size_t>(c11)).value);
  EXPECT_DOUBLE_EQ(*o.at(0, static_cast<std::size_t>(c11)).value, 100.0 * 32 / 64);
}

TEST(SweepModel, BarsRankedFirstThenWrongThenRefused) {
  const lab::SweepResult r = sample();
  const auto facts = point_facts(r);
  const BarChart c = build_bars(r, facts, "gray_2d", HeatmapMetric::Time);
  ASSERT_EQ(c.bars.size(), 6u);
  EXPECT_EQ(c.bars[0].record, 2);
  EXPECT_TRUE(c.bars[0].best);
  EXPECT_EQ(c.bars[1].record, 3);
  EXPECT_TRUE(c.bars[1].ties_best);
  EXPECT_EQ(c.bars[3].record, 0);
  EXPECT_TRUE(c.bars[4].wrong);
  EXPECT_TRUE(c.bars[5].refused);
  EXPECT_DOUBLE_EQ(*c.bars[0].lo, 0.98);
  EXPECT_DOUBLE_EQ(c.max_value, 9.1);
  // A ladder: the best of each kernel.
  const BarChart l = build_bars(r, facts, "", HeatmapMetric::Time);
  ASSERT_EQ(l.bars.size(), 1u);
  EXPECT_EQ(l.bars[0].record, 2);
}

// Hardware counters per point: the map can be coloured by each measured counter; points without
// counters (refused, counters not read) have no value; fewer sectors per load is better.
TEST(SweepModel, MeasuredCountersColourTheMap) {
  lab::SweepResult r = sample();
  std::mt19937 rng(std::random_device{}());
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const std::vector<int> with_counters = {0, 1, 2, 3};  // 4: wrong, 5: refused
  for (int i : with_counters) {
    LaunchCounters c;
    c.dram_bandwidth_gbs = 100 + 3000 * u(rng);
    c.l2_hit_pct = 100 * u(rng);
    c.achieved_occupancy_pct = 10 + 90 * u(rng);
    c.ld_requests = 1000 + static_cast<int>(1000 * u(rng));
    c.ld_sectors = c.ld_requests * (1 + 31 * u(rng));
    r.records[static_cast<std::size_t>(i)].counters = std::make_shared<const LaunchCounters>(c);
  }
  LaunchCounters refused_counters;  // counters asked for but not readable on this point
  refused_counters.status = Status::failure("no permission to read the counters");
  r.records[4].counters = std::make_shared<const LaunchCounters>(refused_counters);
  const auto facts = point_facts(r);

  const CounterFacts cf = counter_facts(r);
  EXPECT_EQ(cf.asked, 5u);
  EXPECT_EQ(cf.measured, 4u);
  EXPECT_EQ(cf.first_failure.message, "no permission to read the counters");

  struct Case {
    HeatmapMetric metric;
    double (*get)(const LaunchCounters&);
    bool lower_is_better;
  };
  const Case cases[] = {
      {HeatmapMetric::MeasuredDram, [](const LaunchCounters& c) { return c.dram_bandwidth_gbs; }, false},
      {HeatmapMetric::MeasuredL2Hit, [](const LaunchCounters& c) { return c.l2_hit_pct; }, false},
      {HeatmapMetric::AchievedOccupancy, [](const LaunchCounters& c) { return c.achieved_occupancy_pct; }, false},
      {HeatmapMetric::MeasuredLoadSectors, [](const LaunchCounters& c) { return c.ld_sectors / c.ld_requests; }, true},
  };
  for (const Case& k : cases) {
    SCOPED_TRACE(metric_name(k.metric));
    EXPECT_TRUE(is_measured_metric(k.metric));
    EXPECT_EQ(metric_higher_is_better(k.metric), !k.lower_is_better);
    const HeatGrid g = build_grid(r, facts, "gray_2d", 1, k.metric);
    // The record whose counter is best, found here by scanning the counters themselves.
    int best = -1, worst = -1;
    for (int i : with_counters) {
      const double v = k.get(*r.records[static_cast<std::size_t>(i)].counters);
      const auto better = [&](int j) {
        const double w = k.get(*r.records[static_cast<std::size_t>(j)].counters);
        return k.lower_is_better ? v < w : v > w;
      };
      if (best < 0 || better(best)) best = i;
      if (worst < 0 || !better(worst)) worst = i;
    }
    for (const HeatCell& c : g.cells) {
      if (c.record < 0) continue;
      const LaunchRecord& rec = r.records[static_cast<std::size_t>(c.record)];
      if (c.record == 4 || c.record == 5) {
        EXPECT_FALSE(c.value) << "record " << c.record << " has no measured counters";
        continue;
      }
      ASSERT_TRUE(c.value);
      EXPECT_DOUBLE_EQ(*c.value, k.get(*rec.counters));
      if (c.record == best) { EXPECT_DOUBLE_EQ(c.t, 1.0); }
      if (c.record == worst) { EXPECT_DOUBLE_EQ(c.t, 0.0); }
    }
    // Best and worst marks stay by time, whatever the colours show.
    EXPECT_EQ(g.best, 2);
    // Bars carry the counter and no timing interval.
    const BarChart bars = build_bars(r, facts, "gray_2d", k.metric);
    for (const Bar& b : bars.bars)
      if (b.value) { EXPECT_FALSE(b.lo) << "a counter has no 95% interval"; }
  }
  // A sweep without counters: none measured, no failure to report, no values.
  const lab::SweepResult plain = sample();
  EXPECT_EQ(counter_facts(plain).asked, 0u);
  EXPECT_TRUE(counter_facts(plain).first_failure.ok());
  const HeatGrid none = build_grid(plain, point_facts(plain), "gray_2d", 1, HeatmapMetric::MeasuredDram);
  for (const HeatCell& c : none.cells) EXPECT_FALSE(c.value);
}

// Issue 24, item 14: the chart's PNG carries its caption (it is drawn inside the area the export
// cuts), and the caption names the kernel, the problem, what is shown, the device, and says
// SIMULATED for the CPU simulation's times (and only then).
TEST(SweepModel, TheChartCaptionSaysWhatWasMeasuredWhereAndWhetherSimulated) {
  lab::SweepResult r = sample();
  r.device = "CPU simulation (2 workers)";
  r.backend = to_string(BackendKind::CpuSimulation);
  const std::string cpu = sweep_chart_caption(r, "gray_2d", HeatmapMetric::Time);
  EXPECT_NE(cpu.find("gray_2d"), std::string::npos) << cpu;
  EXPECT_NE(cpu.find(r.problem), std::string::npos) << cpu;
  EXPECT_NE(cpu.find(metric_name(HeatmapMetric::Time)), std::string::npos) << cpu;
  EXPECT_NE(cpu.find("CPU simulation (2 workers)"), std::string::npos) << cpu;
  EXPECT_NE(cpu.find("SIMULATED"), std::string::npos) << cpu;
  r.backend = to_string(BackendKind::Cuda);
  r.device = "NVIDIA H200";
  const std::string gpu = sweep_chart_caption(r, "", HeatmapMetric::Throughput);
  EXPECT_EQ(gpu.find("SIMULATED"), std::string::npos) << gpu;
  EXPECT_NE(gpu.find("every kernel"), std::string::npos) << "a ladder's bars: " << gpu;
  EXPECT_NE(gpu.find("NVIDIA H200"), std::string::npos) << gpu;
}

TEST(SweepModel, NoiseFacts) {
  const lab::SweepResult r = sample();
  const NoiseFacts n = noise_facts(r, point_facts(r), "gray_2d");
  EXPECT_EQ(n.measured, 5u);
  EXPECT_EQ(n.min_repeats, 10);
  EXPECT_EQ(n.ties_with_best, 1u);
  EXPECT_NEAR(n.worst_spread, 0.02 / 1.0, 1e-12);
}

// Issue 36 item 14: simulated points timed while other programs kept the machine busier (or
// quieter) than around the best are counted and said; alike loads, and GPU times, are not.
TEST(SweepModel, NoiseFactsCountSimulatedPointsTimedUnderAnotherLoadThanTheBest) {
  lab::SweepResult r = sample();
  for (LaunchRecord& rec : r.records) {
    rec.timing.simulated = true;
    rec.timing.others_load = 0.2;
  }
  const NoiseFacts alike = noise_facts(r, point_facts(r), "gray_2d");
  EXPECT_EQ(alike.load_changed_from_best, 0u);
  EXPECT_TRUE(alike.load_note.empty());
  // The best (record 2, 16x16) and records 0 and 4 timed under load: points 1 and 3 differ from it.
  for (std::size_t i : {0u, 2u, 4u}) r.records[i].timing.others_load = 1.9;
  const NoiseFacts n = noise_facts(r, point_facts(r), "gray_2d");
  EXPECT_EQ(n.load_changed_from_best, 2u);
  // Back to quiet for the best: now 0 and 4 differ from it (4 is wrong, but timed all the same).
  r.records[2].timing.others_load = 0.2;
  EXPECT_EQ(noise_facts(r, point_facts(r), "gray_2d").load_changed_from_best, 2u);
  r.records[4].timing.others_load = 0.6;  // 0.4 cores from the best's: alike
  EXPECT_EQ(noise_facts(r, point_facts(r), "gray_2d").load_changed_from_best, 1u);
  EXPECT_NE(n.load_note.find("1.9 cores"), std::string::npos) << n.load_note;
  for (LaunchRecord& rec : r.records) rec.timing.simulated = false;  // a GPU's times: never by load
  EXPECT_EQ(noise_facts(r, point_facts(r), "gray_2d").load_changed_from_best, 0u);
}

TEST(SweepCli, SweepCommandFlags) {
  const std::vector<LabFlags> labs = {{"gray", "Grayscale", {}}, {"matmul", "Matmul", {}}};
  auto o = parse_command_line({"sweep",
                               "gray",
                               "--size",
                               "8192x8192",
                               "--kernel",
                               "gray_2d",
                               "--blocks",
                               "32x8,16x16,256",
                               "--repeats",
                               "20",
                               "--flush-l2",
                               "--json",
                               "s.json",
                               "--csv",
                               "s.csv",
                               "--backend",
                               "cpu",
                               "--set",
                               "layout=planar,rgba",
                               "--point-budget",
                               "50",
                               "--target-ci",
                               "0.02"},
                              labs);
  ASSERT_TRUE(o.ok()) << o.status().message;
  ASSERT_TRUE(o->bench);
  EXPECT_TRUE(o->bench->sweep);
  EXPECT_EQ(o->bench->block_list, "32x8,16x16,256");
  EXPECT_TRUE(o->bench->repeats_given);
  EXPECT_EQ(o->bench->repeats, 20);
  EXPECT_TRUE(o->bench->flush_l2);
  EXPECT_EQ(o->bench->json_path, "s.json");
  EXPECT_DOUBLE_EQ(o->bench->point_budget_ms, 50);
  EXPECT_DOUBLE_EQ(o->bench->target_ci, 0.02f);
  auto d = parse_command_line({"sweep", "matmul"}, labs);
  ASSERT_TRUE(d.ok());
  EXPECT_FALSE(d->bench->flush_l2) << "sweeps flush only when asked";
  EXPECT_EQ(d->bench->block_list, "all");
  // The window and headless.
  auto h = parse_command_line({"--headless", "--sweep", "--blocks", "8x8,16x16", "--kernel", "all", "--json", "x.json",
                               "--screenshot", "x.png"},
                              labs);
  ASSERT_TRUE(h.ok()) << h.status().message;
  EXPECT_TRUE(h->sweep);
  EXPECT_FALSE(h->state.sweep.all_blocks);
  EXPECT_EQ(h->state.sweep.block_list, "8x8,16x16");
  EXPECT_TRUE(h->state.sweep.ladder);
  EXPECT_EQ(h->json_path, "x.json");
  // Misplaced flags say where they belong.
  struct Case {
    std::vector<std::string> args;
    const char* expect;
  };
  for (const Case& c :
       {Case{{"bench", "gray", "--blocks", "8x8"}, "sweep"}, Case{{"sweep", "gray", "--sweep"}, "--sweep"},
        Case{{"--point-budget", "5"}, "sweep"}, Case{{"sweep", "gray", "--target-ci", "2"}, "fraction"},
        Case{{"--json", "x.json"}, "--headless"}, Case{{"sweep"}, "needs a lab"}}) {
    auto bad = parse_command_line(c.args, labs);
    ASSERT_FALSE(bad.ok()) << c.args[0];
    EXPECT_NE(bad.status().message.find(c.expect), std::string::npos) << bad.status().message;
  }
}

}  // namespace
}  // namespace bs::app
