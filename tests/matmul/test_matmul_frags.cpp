// Fragment tags recorded by the CPU simulator (kernels/labs/matmul/fragment_record.hpp): T1 and
// T2's own bodies run on probe operands, every simulated lane decodes the values its accumulator
// registers hold, and the record must agree with the model (the traits' owner, or for T1 the
// mma C layout twice) for every element of C, at odd and tile-sized shapes and one random shape
// a run. The model is perturbed (two lanes swapped) and the comparison must then name exactly
// the elements those lanes hold. The Hopper rungs are refused here with the reason.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <set>
#include <utility>

#include "labs/matmul/fragment_record.hpp"
#include "labs/matmul/matmul_engine.hpp"
#include "labs/matmul/matmul_lab.hpp"
#include "matmul_test_support.hpp"

namespace bs::matmul {
namespace {

using testing::Shape;

struct Case {
  MatmulKernel kernel;
  Shape shape;
};

std::vector<Case> cases() {
  std::mt19937 rng(static_cast<unsigned>(testing::test_seed()));
  auto odd = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng) | 1; };
  const Shape random{odd(17, 301), odd(17, 301), odd(3, 99)};
  std::vector<Case> v;
  for (MatmulKernel k : {MatmulKernel::Tc1Wmma, MatmulKernel::Tc2MmaSync})
    for (Shape s : {Shape{37, 53, 41}, Shape{64, 64, 32}, Shape{129, 255, 67}, random}) v.push_back({k, s});
  return v;
}

struct Recorded {
  FragmentRecord record;
  FragmentModel model;
  LaunchConfig lc;
};

Recorded record(MatmulKernel k, Shape s) {
  const MatmulConfig& c = matmul_kernel_info(k).configs.front();
  auto rec = simulate_fragment_record(k, c, s.M, s.N, s.K, 2);
  EXPECT_TRUE(rec.ok()) << rec.status().describe();
  if (!rec) return {};
  const LaunchConfig lc = matmul_launch_config(k, c, s.M, s.N, rec->K);
  auto model = fragment_model(k, c, lc, s.M, s.N);
  EXPECT_TRUE(model.ok()) << model.status().describe();
  if (!model) return {};
  return {std::move(rec.value()), std::move(model.value()), lc};
}

TEST(MatmulFrags, SimulatedRecordAgreesWithTheModelForEveryElement) {
  std::printf("%-14s %-12s %10s %10s  %s\n", "rung", "size", "elements", "agree", "operands");
  for (const Case& cs : cases()) {
    SCOPED_TRACE(matmul_kernel_info(cs.kernel).id + " " + cs.shape.name());
    Recorded r = record(cs.kernel, cs.shape);
    if (!r.model) continue;
    EXPECT_FALSE(r.record.on_gpu);
    const FragmentComparison cmp = compare_with_model(r.record, r.model);
    EXPECT_EQ(cmp.elements, static_cast<long long>(cs.shape.M) * cs.shape.N);
    EXPECT_TRUE(cmp.all_agree()) << cmp.summary();
    EXPECT_EQ(cmp.untagged, 0) << cmp.summary();
    EXPECT_EQ(cmp.multiple, 0) << cmp.summary();
    EXPECT_EQ(r.record.undecodable, 0u);
    EXPECT_EQ(r.record.tile_conflicts, 0u);
    // Every tile has a block, and it is the one the grid rule gives (x over columns).
    const int tiles_n = static_cast<int>(ceil_div_u(cs.shape.N, r.record.tile_cols));
    for (std::size_t t = 0; t < r.record.tile_block.size(); ++t) {
      const int want = static_cast<int>(t % tiles_n) + static_cast<int>(r.lc.grid.x) * static_cast<int>(t / tiles_n);
      EXPECT_EQ(r.record.tile_block[t], want) << "tile " << t;
    }
    std::string ops = "-";
    if (cs.kernel == MatmulKernel::Tc2MmaSync) {
      auto om = operand_model(cs.kernel);
      ASSERT_TRUE(om.ok());
      const OperandComparison oc = compare_operands(r.record.operands, *om);
      EXPECT_EQ(oc.elements, 8 * (64 + 32) * 16);
      EXPECT_EQ(oc.agree, oc.elements) << oc.summary();
      ops = std::to_string(oc.agree) + "/" + std::to_string(oc.elements);
    } else {
      EXPECT_TRUE(r.record.operands.empty());
    }
    std::printf("%-14s %-12s %10lld %10lld  %s\n", matmul_kernel_info(cs.kernel).id.c_str(), cs.shape.name().c_str(),
                cmp.elements, cmp.agree, ops.c_str());
  }
}

// Swap lanes 3 and 7 of warp 1 in the model: the comparison must fail on exactly the elements
// those two lanes hold (counted from the unperturbed model), and nowhere else.
TEST(MatmulFrags, SwappingTwoLanesInTheModelFailsOnExactlyTheirElements) {
  for (MatmulKernel k : {MatmulKernel::Tc1Wmma, MatmulKernel::Tc2MmaSync}) {
    const Shape s{37, 53, 41};
    SCOPED_TRACE(matmul_kernel_info(k).id);
    Recorded r = record(k, s);
    if (!r.model) continue;
    const int a = 32 + 3, b = 32 + 7;
    FragmentModel swapped = [&](int row, int col) {
      ModelTag m = r.model(row, col);
      if (m.tag.thread == a) m.tag.thread = static_cast<std::int16_t>(b);
      else if (m.tag.thread == b) m.tag.thread = static_cast<std::int16_t>(a);
      return m;
    };
    std::set<std::pair<int, int>> affected;
    for (int row = 0; row < s.M; ++row)
      for (int col = 0; col < s.N; ++col) {
        const int t = r.model(row, col).tag.thread;
        if (t == a || t == b) affected.insert({row, col});
      }
    ASSERT_FALSE(affected.empty());
    const FragmentComparison cmp = compare_with_model(r.record, swapped, static_cast<std::size_t>(s.M) * s.N);
    EXPECT_FALSE(cmp.all_agree());
    EXPECT_EQ(cmp.elements - cmp.agree, static_cast<long long>(affected.size())) << cmp.summary();
    std::set<std::pair<int, int>> reported;
    for (const FragmentDifference& d : cmp.first) {
      reported.insert({d.row, d.col});
      EXPECT_EQ(d.recorded.reg, d.model.tag.reg);  // only the lane moved
      EXPECT_NE(d.recorded.thread, d.model.tag.thread);
    }
    EXPECT_EQ(reported, affected);
  }
}

// T2's operand record: a lane fed 8 A elements per mma tile row block (4 tiles: 32) and 4 B
// elements per 8-column tile (4 tiles: 16), at the places mma's layouts give; swapping two lanes
// in the operand model fails on exactly their elements.
TEST(MatmulFrags, T2OperandsFedByOneLaneAndASwappedModelFails) {
  auto rec = simulate_fragment_record(MatmulKernel::Tc2MmaSync,
                                      matmul_kernel_info(MatmulKernel::Tc2MmaSync).configs.front(), 37, 53, 41, 2);
  ASSERT_TRUE(rec.ok()) << rec.status().describe();
  const int thread = 5 * 32 + 9;  // warp 5 = (wm 1, wn 1), lane 9: g = 2, t = 1
  const std::vector<FedElement> fed = fed_by(rec->operands, thread);
  std::set<std::pair<int, int>> a, b;
  for (const FedElement& f : fed) (f.a ? a : b).insert({f.row, f.col});
  EXPECT_EQ(a.size(), 32u);
  EXPECT_EQ(b.size(), 16u);
  // By hand from the PTX ISA's figures: A rows g, g + 8 of each 16-row tile, k = 2t, 2t + 1, 2t + 8,
  // 2t + 9; B k = 2t, 2t + 1, 2t + 8, 2t + 9 of column g of each 8-column tile.
  for (int i = 0; i < 4; ++i)
    for (int r : {2, 10})
      for (int k : {2, 3, 10, 11}) EXPECT_TRUE(a.count({64 + 16 * i + r, k})) << "A " << 64 + 16 * i + r << "," << k;
  for (int j = 0; j < 4; ++j)
    for (int k : {2, 3, 10, 11}) EXPECT_TRUE(b.count({k, 32 + 8 * j + 2})) << "B " << k << "," << 32 + 8 * j + 2;
  auto model = operand_model(MatmulKernel::Tc2MmaSync);
  ASSERT_TRUE(model.ok());
  OperandRecord swapped = *model;
  long long theirs = 0;
  for (auto* side : {&swapped.a, &swapped.b})
    for (FragmentTag& t : *side) {
      if (t.thread == 3) t.thread = 7, ++theirs;
      else if (t.thread == 7) t.thread = 3, ++theirs;
    }
  const OperandComparison oc = compare_operands(rec->operands, swapped);
  EXPECT_EQ(oc.elements - oc.agree, theirs);
  EXPECT_EQ(theirs, 2 * (32 + 16));
}

// The A and B panels with "record" on draw what the record says the hovered element's lane fed
// into its instruction (recorded_feed): for every element of an odd-sized C (two blocks' tiles,
// edges included) and two k-steps, the simulator's record gives exactly the model's 8 A and 4 B
// cells; a record with two lanes swapped disagrees for the elements those lanes hold, and only
// there.
TEST(MatmulFrags, T2RecordedFeedIsTheModelsForEveryElementAndASwappedRecordIsNot) {
  const MatmulKernel k = MatmulKernel::Tc2MmaSync;
  const MatmulConfig& c = matmul_kernel_info(k).configs.front();
  const int M = 131, N = 149, K = 45;
  auto rec = simulate_fragment_record(k, c, M, N, K, 2);
  ASSERT_TRUE(rec.ok()) << rec.status().describe();
  ASSERT_FALSE(rec->operands.empty());
  OperandRecord swapped = rec->operands;
  for (auto* side : {&swapped.a, &swapped.b})
    for (FragmentTag& t : *side) t.thread = t.thread == 3 ? 7 : t.thread == 7 ? 3 : t.thread;
  const LaunchConfig lc = matmul_launch_config(k, c, M, N, rec->K);
  long long checked = 0, swapped_disagree = 0, swapped_lanes = 0;
  for (int row = 0; row < M; row += 3)
    for (int col = 0; col < N; col += 2)
      for (int step : {0, 1}) {
        auto h = fragment_hierarchy(k, c, lc, M, N, rec->K, row, col, step);
        ASSERT_TRUE(h.ok()) << h.status().describe();
        const FedOperands model = fed_operands(h->place, h->block_row0, h->block_col0, h->step);
        const RecordedFeed f = recorded_feed(rec->operands, h->place, h->block_row0, h->block_col0, h->step, model);
        ASSERT_TRUE(f.agrees) << "C[" << row << "][" << col << "] step " << step << ": " << f.a.size() << " A, "
                              << f.b.size() << " B recorded";
        EXPECT_EQ(f.a.size(), 8u);
        EXPECT_EQ(f.b.size(), 4u);
        ++checked;
        const bool theirs = h->place.thread == 3 || h->place.thread == 7;
        const RecordedFeed g = recorded_feed(swapped, h->place, h->block_row0, h->block_col0, h->step, model);
        swapped_lanes += theirs;
        swapped_disagree += !g.agrees;
        if (!theirs) { EXPECT_TRUE(g.agrees) << "thread " << h->place.thread << " was not swapped"; }
      }
  EXPECT_GT(checked, 3000);
  EXPECT_GT(swapped_lanes, 0);
  EXPECT_EQ(swapped_disagree, swapped_lanes);
}

// The record comes from the registers' values: the same body on a probe whose product names
// other elements gives other tags. Shift the probe's columns by one (Bt[j] holds column j + 1's
// code): every element is then tagged by the holder of its left neighbour, so the comparison
// fails almost everywhere. (Built from the engine-facing pieces, as the engines do.)
TEST(MatmulFrags, TheRecordFollowsTheValuesNotTheFormulas) {
  const MatmulKernel k = MatmulKernel::Tc2MmaSync;
  const MatmulConfig& c = matmul_kernel_info(k).configs.front();
  const int M = 64, N = 96, K = 32;
  FragmentProbe p = make_fragment_probe(M, N, K);
  for (int j = 0; j < N; ++j)
    p.bt[static_cast<std::size_t>(j) * p.ld + 1] = float_to_bf16(static_cast<float>((j + 1) % 256));
  const LaunchConfig lc = matmul_launch_config(k, c, M, N, p.K);
  FragmentRecord rec = empty_fragment_record(k, c, lc, M, N, K);
  std::vector<float> C(static_cast<std::size_t>(M) * N);
  const Bf16Args args{p.a.data(), p.bt.data(), C.data(), M, N, p.K, p.ld};
  unsigned counters[2] = {0, 0};
  TagFragments sink;
  sink.s.c = rec.c.data(), sink.s.hits = rec.hits.data(), sink.s.M = M, sink.s.N = N, sink.s.counters = counters;
  sim::GridSimulator sim(2);
  sim::SimOptions o;
  o.uses_barriers = true;
  using At = Tc2MmaSync::At<0>;
  auto result = sim.run_with_shared<At::Smem>(
      lc, [&](const sim::HostCtx& t, At::Smem& s) { At::tagged_body(t, s, args, sink); }, o);
  ASSERT_TRUE(result.status.ok()) << result.status.describe();
  auto model = fragment_model(k, c, lc, M, N);
  ASSERT_TRUE(model.ok());
  const FragmentComparison cmp = compare_with_model(rec, *model);
  EXPECT_LT(cmp.agree, cmp.elements / 8) << cmp.summary();
  // And the real probe, through the same pieces, agrees everywhere.
  auto real = simulate_fragment_record(k, c, M, N, K, 2);
  ASSERT_TRUE(real.ok());
  EXPECT_TRUE(compare_with_model(*real, *model).all_agree());
}

TEST(MatmulFrags, HopperRungsAreRecordedOnTheGpuOnly) {
  for (MatmulKernel k : {MatmulKernel::Tc3Wgmma, MatmulKernel::Tc4WarpSpecialized, MatmulKernel::Tc5Persistent,
                         MatmulKernel::Tc6ClusterMulticast}) {
    auto rec = simulate_fragment_record(k, matmul_kernel_info(k).configs.front(), 128, 256, 64, 1);
    ASSERT_FALSE(rec.ok());
    EXPECT_NE(rec.status().message.find("recorded on the GPU"), std::string::npos) << rec.status().describe();
    // The model still draws here.
    const MatmulConfig& c = matmul_kernel_info(k).configs.front();
    EXPECT_TRUE(fragment_model(k, c, matmul_launch_config(k, c, 128, 256, 64), 128, 256).ok());
  }
  auto fp32 = simulate_fragment_record(MatmulKernel::Warptile,
                                       matmul_kernel_info(MatmulKernel::Warptile).configs.front(), 64, 64, 64, 1);
  EXPECT_FALSE(fp32.ok());
}

TEST(MatmulFrags, TheCpuEngineRecordsThroughTheSimulator) {
  lab::Backend b;
  b.kind = BackendKind::CpuSimulation;
  b.sim_workers = 2;
  auto engine = make_cpu_engine(b);
  const MatmulKernel k = MatmulKernel::Tc1Wmma;
  const MatmulConfig& c = matmul_kernel_info(k).configs.front();
  const LaunchConfig lc = matmul_launch_config(k, c, 70, 90, 20);
  auto rec = engine->record_fragments(k, c, lc, 70, 90, 20);
  ASSERT_TRUE(rec.ok()) << rec.status().describe();
  EXPECT_EQ(rec->K, 20);
  auto model = fragment_model(k, c, lc, 70, 90);
  ASSERT_TRUE(model.ok());
  EXPECT_TRUE(compare_with_model(*rec, *model).all_agree());
  EXPECT_NE(rec->how.find("does not promise"), std::string::npos);  // WMMA's layout is not the ISA's promise
  auto hopper = engine->record_fragments(MatmulKernel::Tc3Wgmma,
                                         matmul_kernel_info(MatmulKernel::Tc3Wgmma).configs.front(), lc, 70, 90, 20);
  EXPECT_FALSE(hopper.ok());
}

// The lab's method the views call: records once, caches, leaves the lab's C alone, refuses FP32
// rungs with the reason.
TEST(MatmulFrags, TheLabRecordsOnceAndLeavesItsOwnResultAlone) {
  lab::Backend b;
  b.kind = BackendKind::CpuSimulation;
  b.sim_workers = 2;
  b.limits = sim::simulator_limits(2);
  auto created = MatmulLab::create(b);
  ASSERT_TRUE(created.ok()) << created.status().describe();
  MatmulLab& lab = **created;
  ASSERT_TRUE(lab.set_setting("precision", "bf16").ok());
  ASSERT_TRUE(lab.set_matrices({37, 53, 41, Pattern::Uniform, Pattern::Uniform, testing::test_seed()}).ok());
  KernelConfig kc;
  kc.compiled = 0;
  lab::RunOptions options;
  options.verify = true;
  const LaunchRecord shown = lab.run("tc2_mma_sync", kc, options);
  ASSERT_TRUE(shown.ok()) << shown.status.describe();
  std::vector<float> before(37 * 53), after(37 * 53);
  ASSERT_TRUE(lab.download_output(before.data()).ok());
  EXPECT_EQ(lab.cached_fragment_record(shown), nullptr);
  auto rec = lab.fragment_record(shown);
  ASSERT_TRUE(rec.ok()) << rec.status().describe();
  EXPECT_EQ(lab.cached_fragment_record(shown), *rec);
  auto again = lab.fragment_record(shown);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *rec);  // the same record, not a second probe
  ASSERT_TRUE(lab.download_output(after.data()).ok());
  EXPECT_EQ(before, after);
  EXPECT_TRUE(shown.check.passed()) << shown.check.note;
  auto model = lab.fragment_model(shown);
  ASSERT_TRUE(model.ok());
  EXPECT_TRUE(compare_with_model(**rec, *model).all_agree());

  ASSERT_TRUE(lab.set_setting("precision", "fp32").ok());
  ASSERT_TRUE(lab.set_matrices({37, 53, 41, Pattern::Uniform, Pattern::Uniform, 3}).ok());
  const LaunchRecord fp32 = lab.run("k1_naive", kc, {});
  auto refused = lab.fragment_record(fp32);
  EXPECT_FALSE(refused.ok());
}

}  // namespace
}  // namespace bs::matmul
