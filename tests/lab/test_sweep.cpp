// The sweep engine (kernels/lab/sweep.hpp): the shapes it names (counted here by brute force,
// not by its own loop), validation before launch, verification, ranking with overlapping
// intervals, cancel and device faults (on a scripted fake lab), and whole sweeps of the real
// grayscale and matmul labs on the CPU simulation at small odd sizes.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <random>
#include <set>

#include "grayscale/gray_test_support.hpp"
#include "device/cuda_device.hpp"
#include "lab/fake_lab.hpp"
#include "lab/sweep.hpp"
#include "labs/matmul/matmul_lab.hpp"
#include "skips.hpp"

namespace bs::lab {
namespace {

bool is_power_of_two(unsigned v) { return v && !(v & (v - 1)); }

TEST(SweepShapes, EveryPowerOfTwoShapeUpTo1024Threads) {
  // Brute force over every x, y, z up to 1024.
  auto count = [](unsigned rank) {
    std::set<std::tuple<unsigned, unsigned, unsigned>> want;
    for (unsigned x = 1; x <= 1024; ++x)
      for (unsigned y = 1; y <= (rank >= 2 ? 1024u : 1u); ++y)
        for (unsigned z = 1; z <= (rank >= 3 ? 1024u : 1u); ++z)
          if (is_power_of_two(x) && is_power_of_two(y) && is_power_of_two(z) && x * y * z <= 1024)
            want.insert({x, y, z});
    return want;
  };
  for (unsigned rank : {1u, 2u, 3u}) {
    std::set<std::tuple<unsigned, unsigned, unsigned>> got;
    for (const Dim3& d : all_block_shapes(rank)) EXPECT_TRUE(got.insert({d.x, d.y, d.z}).second) << "duplicate";
    EXPECT_EQ(got, count(rank)) << "rank " << rank;
  }
  EXPECT_EQ(all_block_shapes(2).size(), 66u);  // i + j <= 10 for 2^i x 2^j
  EXPECT_EQ(all_block_shapes(1).size(), 11u);
}

TEST(SweepShapes, ListKeepsShapesAndRefusesWhatIsNotOne) {
  const BlockList l = parse_block_list("32x8, 16x16,256,,8x8x4,32y8,1x2x3x4,-4,x8");
  ASSERT_EQ(l.shapes.size(), 4u);
  EXPECT_EQ(l.shapes[0], (Dim3{32, 8, 1}));
  EXPECT_EQ(l.shapes[1], (Dim3{16, 16, 1}));
  EXPECT_EQ(l.shapes[2], (Dim3{256, 1, 1}));
  EXPECT_EQ(l.shapes[3], (Dim3{8, 8, 4}));
  ASSERT_EQ(l.refused.size(), 4u);
  EXPECT_NE(l.refused[0].find("32y8"), std::string::npos);
  EXPECT_NE(l.refused[0].find("not a block shape"), std::string::npos);
  // Zero and oversized shapes parse: the lab refuses them with its own reason.
  const BlockList z = parse_block_list("0x8,2048");
  EXPECT_EQ(z.shapes.size(), 2u);
  EXPECT_TRUE(z.refused.empty());
}

TEST(SweepRanking, OverlappingIntervalsCannotBeRanked) {
  auto rec = [](double lo, double mid, double hi, bool wrong = false) {
    LaunchRecord r;
    r.problem = "p";
    r.timing.median_ms = mid;
    r.timing.ci_low_ms = lo;
    r.timing.ci_high_ms = hi;
    if (wrong) r.check.state = Check::State::Failed;
    return r;
  };
  // 0: [1.0, 1.1]  1: [1.05, 1.2] overlaps 0   2: [2, 2.1] clear of both   3: wrong, fastest
  std::vector<LaunchRecord> v = {rec(1.0, 1.05, 1.1), rec(1.05, 1.1, 1.2), rec(2.0, 2.05, 2.1),
                                 rec(0.1, 0.1, 0.1, true)};
  LaunchRecord other = rec(0.5, 0.5, 0.5);
  other.problem = "q";  // another problem: ranked on its own
  v.push_back(other);
  const auto ranks = rank_records(v);
  ASSERT_EQ(ranks.size(), 4u);
  EXPECT_EQ(ranks[0].index, 0u);
  EXPECT_EQ(ranks[0].rank, 1);
  EXPECT_EQ(ranks[1].index, 1u);
  EXPECT_TRUE(ranks[1].ties_previous);
  EXPECT_TRUE(ranks[1].ties_best);
  EXPECT_EQ(ranks[2].index, 2u);
  EXPECT_FALSE(ranks[2].ties_previous);
  EXPECT_FALSE(ranks[2].ties_best);
  EXPECT_EQ(ranks[3].index, 4u);
  EXPECT_EQ(ranks[3].rank, 1);
}

SweepSpec quick_spec() {
  SweepSpec s;
  s.timing = TimingPolicy::until_stable(0.01, 5, 6, 40, 1);
  return s;
}

TEST(SweepEngine, RefusedPointsAreListedAndNeverLaunched) {
  test::FakeLab lab;
  SweepSpec spec = quick_spec();
  spec.kernels = {"free2d"};
  const BlockList list = parse_block_list("32x8,0x8,2048,bogus,16x16");
  spec.blocks = list.shapes;
  spec.refused_inputs = list.refused;
  std::vector<SweepProgress> seen;
  SweepHooks hooks;
  hooks.progress = [&](const SweepProgress& p) { seen.push_back(p); };
  const SweepResult r = run_sweep(lab, spec, hooks);
  EXPECT_TRUE(r.complete);
  EXPECT_EQ(r.planned, 4u);
  ASSERT_EQ(r.records.size(), 4u);
  EXPECT_TRUE(r.records[1].refused);
  EXPECT_TRUE(r.records[2].refused);
  EXPECT_EQ(lab.launches.count("0x8"), 0u) << "a refused point must never launch";
  EXPECT_EQ(lab.launches.count("2048"), 0u);
  EXPECT_GE(lab.launches["32x8"], 6 + 1);  // warm-up + at least min_repeats
  ASSERT_EQ(r.refusals.size(), 3u);        // bogus (parse), 0x8 and 2048 (the lab)
  EXPECT_NE(r.refusals[0].find("bogus"), std::string::npos);
  EXPECT_NE(r.refusals[1].find("zero dimension"), std::string::npos);
  EXPECT_NE(r.refusals[2].find("2048"), std::string::npos);
  EXPECT_NE(r.refusals[2].find("exceeds"), std::string::npos) << r.refusals[2];
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen.back().done, 4u);
  EXPECT_EQ(seen.back().total, 4u);
  EXPECT_EQ(seen.back().refused, 2u);
  EXPECT_EQ(seen.back().eta_s, 0);
  // The suggestion is carried and compared: 256 threads were not measured (16x16 is 256).
  const auto verdicts = compare_with_suggestions(r);
  ASSERT_EQ(verdicts.size(), 1u);
  EXPECT_EQ(verdicts[0].suggested, 3);  // 16x16
  EXPECT_EQ(verdicts[0].best, 3);       // the fake is fastest at 16x16
  EXPECT_NE(verdicts[0].text.find("has that many"), std::string::npos);
}

TEST(SweepEngine, WrongResultsAreFlaggedAndNeverRanked) {
  test::FakeLab lab;
  lab.wrong = {"16x16"};  // the fastest shape gives a wrong result
  SweepSpec spec = quick_spec();
  spec.kernels = {"free2d"};
  spec.blocks = {{16, 16, 1}, {32, 8, 1}, {8, 8, 1}};
  const SweepResult r = run_sweep(lab, spec);
  ASSERT_EQ(r.records.size(), 3u);
  EXPECT_TRUE(r.records[0].check.failed());
  const auto ranks = rank_records(r.records);
  for (const Ranked& k : ranks) EXPECT_NE(k.index, 0u) << "a wrong result was ranked";
  ASSERT_EQ(ranks.size(), 2u);
  EXPECT_EQ(sweep_summary(r).find("best: free2d block 16x16"), std::string::npos);
  EXPECT_NE(sweep_summary(r).find("1 wrong"), std::string::npos);
}

// Issue 35: the summary counts the points whose timed launches drifted 3% or more between their
// first and last thirds and names the one that moved most (fresh random step sizes each run).
TEST(SweepEngine, TheSummaryCountsDriftedPointsAndNamesTheMost) {
  std::mt19937 rng(std::random_device{}());
  std::uniform_real_distribution<double> small(1.05, 1.15), large(1.2, 1.5), noise(0.999, 1.001);
  const double steps[] = {1.0, small(rng), 1.0 / large(rng)};  // steady, slowed, sped up (more)
  SweepResult r;
  for (int i = 0; i < 3; ++i) {
    LaunchRecord rec;
    rec.kernel = "free2d";
    rec.config_label = "block " + std::to_string(8 << i) + "x8";
    rec.problem = "333x211";
    for (int k = 0; k < 9; ++k) rec.timing.samples_ms.push_back((k < 3 ? 1.0 : steps[i]) * noise(rng));
    summarize(rec.timing);
    rec.check.state = Check::State::Passed;
    r.records.push_back(rec);
  }
  r.planned = 3;
  r.complete = true;
  const std::string t = sweep_summary(r);
  char pct[32];
  std::snprintf(pct, sizeof pct, "%.1f%% faster", 100 * std::abs(r.records[2].timing.drift()));
  EXPECT_NE(t.find("drift: 2 of 3 points; the most, free2d block 32x8 on 333x211: the last third of its timed "
                   "launches ran " +
                   std::string(pct)),
            std::string::npos)
      << t;
}

TEST(SweepEngine, CompiledKernelsSweepEveryConfiguration) {
  test::FakeLab lab;
  SweepSpec spec = quick_spec();
  spec.kernels = {"compiled"};
  spec.blocks = {{1, 1, 1}};  // free-blockDim shapes do not apply to compiled kernels
  const SweepResult r = run_sweep(lab, spec);
  ASSERT_EQ(r.records.size(), 3u);
  EXPECT_EQ(r.records[0].config_label, "small, tile 8");
  EXPECT_EQ(r.records[2].request.compiled, 2);
  EXPECT_TRUE(r.records[2].refused);
  EXPECT_EQ(lab.launches.count("huge"), 0u);
  EXPECT_TRUE(r.suggestions.empty()) << "compiled kernels fix their own block";
}

TEST(SweepEngine, CancelKeepsWhatWasMeasured) {
  test::FakeLab lab;
  SweepSpec spec = quick_spec();
  spec.kernels = {"free2d"};
  std::atomic<bool> cancel{false};
  SweepHooks hooks;
  hooks.cancel = &cancel;
  std::size_t finished = 0;
  hooks.point_done = [&](const LaunchRecord&) {
    if (++finished == 5) cancel = true;
  };
  const SweepResult r = run_sweep(lab, spec, hooks);
  EXPECT_FALSE(r.complete);
  EXPECT_TRUE(r.cancelled);
  EXPECT_EQ(r.planned, 66u);
  EXPECT_EQ(r.records.size(), 5u) << "the five finished points are kept, nothing after";
  for (const LaunchRecord& rec : r.records) EXPECT_TRUE(rec.ok() || rec.refused);
  EXPECT_NE(r.note.find("cancelled after 5 of 66"), std::string::npos) << r.note;
}

TEST(SweepEngine, CancelDuringAPointDropsIt) {
  test::FakeLab lab;
  SweepSpec spec = quick_spec();
  spec.kernels = {"free2d"};
  spec.blocks = {{16, 16, 1}, {32, 8, 1}};
  std::atomic<bool> cancel{false};
  SweepHooks hooks;
  hooks.cancel = &cancel;
  hooks.progress = [&](const SweepProgress& p) {
    if (p.measuring && p.current.label == "32x8") cancel = true;
  };
  const SweepResult r = run_sweep(lab, spec, hooks);
  ASSERT_EQ(r.records.size(), 1u);
  EXPECT_EQ(r.records[0].config.block, (Dim3{16, 16, 1}));
  EXPECT_NE(r.note.find("32x8"), std::string::npos) << r.note;
}

TEST(SweepEngine, DeviceFaultStopsWithThePartialResults) {
  test::FakeLab lab;
  lab.fault_at = "4";  // block_text of 4x1x1
  SweepSpec spec = quick_spec();
  spec.kernels = {"free2d"};
  const SweepResult r = run_sweep(lab, spec);
  EXPECT_FALSE(r.complete);
  EXPECT_FALSE(r.fault.ok());
  EXPECT_EQ(r.fault.code, "cudaErrorIllegalAddress");
  ASSERT_EQ(r.records.size(), 3u);  // 1x1, 2x1, then the fault at 4x1
  EXPECT_TRUE(r.records[0].ok());
  EXPECT_FALSE(r.records[2].ok());
  EXPECT_NE(r.note.find("device fault at point 3 of 66"), std::string::npos) << r.note;
  EXPECT_NE(sweep_summary(r).find("device fault"), std::string::npos);
}

// A fault in a child process's context (a user kernel's runner) is that point's failure, typed as
// such (Status::owner), whatever its CUDA error name: the sweep goes on, as the app's context is
// fine. (Before, a user kernel's code was prefixed with "user kernel " so the name scan missed it.)
TEST(SweepEngine, AChildProcesssFaultFailsItsPointAndTheSweepGoesOn) {
  test::FakeLab lab;
  lab.fault_at = "4";
  lab.fault_owner = FaultOwner::Child;
  SweepSpec spec = quick_spec();
  spec.kernels = {"free2d"};
  const SweepResult r = run_sweep(lab, spec);
  EXPECT_TRUE(r.fault.ok()) << r.fault.describe();
  EXPECT_TRUE(r.complete);
  ASSERT_EQ(r.records.size(), 66u);
  EXPECT_FALSE(r.records[2].ok());
  EXPECT_EQ(r.records[2].status.code, "cudaErrorIllegalAddress");
  EXPECT_TRUE(r.records[2].status.sticky);
  EXPECT_TRUE(r.records[3].ok());
}

// The real labs on the CPU simulation, at small odd sizes: every point verified against the
// lab's reference.
TEST(SweepRealLabs, GrayEveryShapeOnAnOddImage) {
  auto lab = gray::test::cpu_lab(2);
  ASSERT_TRUE(lab);
  const int w = 13, h = 7;
  const auto rgba = gray::test::random_rgba(w, h, gray::test::fresh_seed());
  ASSERT_TRUE(lab->set_image(rgba.data(), w, h, "odd").ok());
  SweepSpec spec;
  spec.kernels = {"gray_2d"};
  spec.timing = TimingPolicy::until_stable(0.05, 2, 6, 12, 1);
  const SweepResult r = run_sweep(*lab, spec);
  EXPECT_TRUE(r.complete) << r.note;
  EXPECT_TRUE(r.simulated());
  ASSERT_EQ(r.records.size(), 66u);
  std::size_t ran = 0;
  for (const LaunchRecord& rec : r.records) {
    if (rec.refused) continue;
    ASSERT_TRUE(rec.ok()) << rec.config_label << ": " << rec.status.describe();
    EXPECT_TRUE(rec.check.passed()) << rec.config_label << ": " << rec.check.summary();
    EXPECT_GE(rec.timing.repeats(), 6);
    EXPECT_TRUE(rec.timing.simulated);
    // The grid covers the image exactly as the 2D rule says.
    EXPECT_EQ(rec.config.grid.x, ceil_div(w, rec.config.block.x));
    EXPECT_EQ(rec.config.grid.y, ceil_div(h, rec.config.block.y));
    ++ran;
  }
  EXPECT_GT(ran, 50u);
  EXPECT_EQ(rank_records(r.records).size(), ran);
  EXPECT_GT(r.kernel_ms_total, 0);
  EXPECT_NE(r.clock_note.find("CPU simulation"), std::string::npos);
  EXPECT_TRUE(r.suggestions.empty()) << "the simulator has no occupancy API";
}

TEST(SweepRealLabs, MatmulLadderOnTheSimulator) {
  lab::Backend b = gray::test::cpu_backend(2);
  auto lab = matmul::MatmulLab::create(b);
  ASSERT_TRUE(lab);
  ASSERT_TRUE((*lab)->set_random_problem("33x17x9").ok());
  SweepSpec spec;
  spec.kernels = {"k1_naive", "k3_smem_tiled"};
  spec.blocks = parse_block_list("16x16,32x8,8x8x2").shapes;
  spec.timing = TimingPolicy::until_stable(0.05, 2, 6, 12, 1);
  const SweepResult r = run_sweep(**lab, spec);
  EXPECT_TRUE(r.complete) << r.note;
  const lab::KernelInfo* k3 = (*lab)->find_kernel("k3_smem_tiled");
  ASSERT_TRUE(k3);
  EXPECT_EQ(r.records.size(), 3 + k3->configs.size());
  for (const LaunchRecord& rec : r.records) {
    if (rec.refused) continue;
    ASSERT_TRUE(rec.ok()) << rec.kernel << " " << rec.config_label << ": " << rec.status.describe();
    EXPECT_TRUE(rec.check.passed()) << rec.kernel << " " << rec.config_label << ": " << rec.check.summary();
  }
  EXPECT_EQ(sweep_header(r).kind, "sweep");
}

}  // namespace
}  // namespace bs::lab
