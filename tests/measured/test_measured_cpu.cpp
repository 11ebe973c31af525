// The Measured tab's and bench --counters' logic without a GPU: what the CPU backend answers,
// the memory model's sectors per request against a count made here from the kernels' own index
// formulas, the rows and the disagreement sentence, the worker thread, and the counters in the
// results JSON parsed back.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <atomic>
#include <cmath>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "../app/json_reader.hpp"
#include "core/launch_counters.hpp"
#include "lab/bench.hpp"
#include "lab/report.hpp"
#include "labs/grayscale/gray_lab.hpp"
#include "labs/matmul/matmul_lab.hpp"
#include "mapping/launch_stats.hpp"
#include "measured/bench_counters.hpp"
#include "measured/counter_worker.hpp"
#include "measured/profile_launch.hpp"
#include "measured/profile_lines.hpp"
#include "simulator/grid_simulator.hpp"
#include "wait_until.hpp"

namespace bs::measured {
namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

lab::Backend cpu_backend() {
  lab::Backend b;
  b.kind = BackendKind::CpuSimulation;
  b.sim_workers = 2;
  b.limits = sim::simulator_limits(2);
  b.label = "CPU simulation (test)";
  return b;
}

std::unique_ptr<gray::GrayLab> gray_lab(int w, int h, std::uint32_t seed) {
  auto lab = gray::GrayLab::create(cpu_backend());
  if (!lab) return nullptr;
  std::mt19937 rng(seed);
  std::vector<std::uint8_t> rgba(static_cast<std::size_t>(w) * h * 4);
  for (auto& v : rgba) v = static_cast<std::uint8_t>(rng());
  if (!(*lab)->set_image(rgba.data(), w, h, "random.png")) return nullptr;
  return std::move(lab.value());
}

std::unique_ptr<matmul::MatmulLab> matmul_lab(int M, int N, int K) {
  auto lab = matmul::MatmulLab::create(cpu_backend());
  if (!lab) return nullptr;
  matmul::MatrixSpec spec;
  spec.M = M, spec.N = N, spec.K = K;
  spec.seed = std::random_device{}();
  if (!(*lab)->set_matrices(spec)) return nullptr;
  return std::move(lab.value());
}

// Distinct 32-byte sectors of the active lanes' accesses (`bytes` each), -1 = inactive.
double sectors_of(const std::vector<long long>& addr, int bytes) {
  std::set<long long> s;
  for (long long a : addr)
    if (a >= 0)
      for (long long b = a; b < a + bytes; ++b) s.insert(b / 32);
  return static_cast<double>(s.size());
}

// ---- the CPU backend -------------------------------------------------------------------------

TEST(MeasuredCpu, TheCpuBackendSaysCountersAreAGpuFeature) {
  auto lab = gray_lab(37, 21, 1);
  ASSERT_TRUE(lab);
  const Status s = profile_refusal(*lab, "gray_1d_flat");
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(contains(s.message, "hardware counters are a GPU feature")) << s.describe();
  EXPECT_FALSE(s.hint.empty());
}

// Lines on the CPU are counted, not sampled: tests/linecount (the rungs) and tests/custom (the
// user's kernels).

TEST(MeasuredCpu, BenchCountersOnTheCpuKeepTheResultsAndSayWhy) {
  auto lab = gray_lab(53, 29, 2);
  ASSERT_TRUE(lab);
  lab::BenchSpec spec;
  spec.kernels = {"gray_1d_flat", "gray_2d"};
  spec.blocks = {Dim3{64, 1, 1}, Dim3{16, 8, 1}, Dim3{2048, 1, 1}};  // the last is refused
  spec.timing = TimingPolicy::fixed(1);
  auto records = lab::run_bench(*lab, spec);
  ASSERT_FALSE(records.empty());
  BenchCounters counters;
  int seen = 0;
  counters.attach(*lab, records, [&](const LaunchRecord& r) {
    ++seen;
    EXPECT_TRUE(r.counters);
  });
  int ran = 0;
  for (const LaunchRecord& r : records) {
    if (!r.ok()) {
      EXPECT_FALSE(r.counters) << "a refused launch has nothing to measure";
      continue;
    }
    ++ran;
    ASSERT_TRUE(r.counters);
    EXPECT_FALSE(r.counters->measured());
    EXPECT_TRUE(contains(r.counters->status.message, "GPU feature")) << r.counters->status.describe();
    EXPECT_GT(r.timing.median_ms, 0) << "the timing stays";
  }
  EXPECT_GT(ran, 0);
  EXPECT_EQ(seen, ran);

  // Parsed back from the one JSON writer: every result that ran says why it has no counters.
  lab::ResultsHeader h;
  h.kind = "bench";
  h.lab = "gray";
  const std::string json = lab::results_json(h, records, ThroughputUnit::GBPerS, lab->kernels());
  auto v = bs::test::parse_json(json);
  ASSERT_TRUE(v) << json;
  const auto& results = v->at("results").items;
  ASSERT_EQ(results.size(), records.size());
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (!records[i].ok()) {
      EXPECT_FALSE(results[i].has("counters"));
      continue;
    }
    const auto& c = results[i].at("counters");
    ASSERT_EQ(c.kind, bs::test::JsonValue::Object);
    EXPECT_FALSE(c.at("available").boolean);
    EXPECT_TRUE(contains(c.at("message").str, "GPU feature"));
    EXPECT_FALSE(c.at("hint").str.empty());
    EXPECT_GT(results[i].at("median_ms").number, 0);
  }
}

TEST(MeasuredCpu, ASweepPointGainsItsCountersOrTheReason) {
  // What a sweep point with the counter columns calls after its own lab.run.
  auto lab = matmul_lab(33, 17, 9);
  ASSERT_TRUE(lab);
  BenchCounters counters;
  KernelConfig ok_cfg;
  ok_cfg.block = Dim3{16, 16, 1};
  LaunchRecord ran = lab->run("k2_uncoalesced", ok_cfg, {});
  ASSERT_TRUE(ran.ok()) << ran.status.describe();
  counters.attach_one(*lab, ran);
  ASSERT_TRUE(ran.counters);
  EXPECT_TRUE(contains(ran.counters->status.message, "GPU feature"));
  const auto cells = lab::counter_cells(ran);
  EXPECT_TRUE(contains(cells.front(), "GPU feature")) << cells.front();

  KernelConfig bad;
  bad.block = Dim3{64, 32, 1};  // 2048 threads: refused before launch
  LaunchRecord refused = lab->run("k2_uncoalesced", bad, {});
  ASSERT_FALSE(refused.ok());
  counters.attach_one(*lab, refused);
  EXPECT_FALSE(refused.counters) << "nothing ran, nothing to measure";
}

TEST(MeasuredCpu, TheWorkerAnswersOnTheCpuAndForksOncePerProblem) {
  auto lab = gray_lab(40, 30, 3);
  ASSERT_TRUE(lab);
  LaunchRecord shown = lab->run("gray_1d_flat", KernelConfig{}, {});
  ASSERT_TRUE(shown.ok()) << shown.status.describe();
  CounterWorker worker;
  int forks = 0;
  auto fork = [&]() -> Result<std::unique_ptr<lab::Lab>> {
    ++forks;
    return lab->fork();
  };
  for (int round = 0; round < 3; ++round) {
    const std::string key = round < 2 ? "problem A" : "problem B";
    ASSERT_TRUE(worker.start({key, "gray_1d_flat", KernelConfig{}, shown}, fork).ok());
    std::optional<LaunchRecord> done;
    ASSERT_TRUE(bs::test::wait_until([&] { return (done = worker.take_finished()).has_value(); }))
        << "the worker never finished";
    EXPECT_FALSE(worker.busy());
    ASSERT_TRUE(done->counters);
    EXPECT_TRUE(contains(done->counters->status.message, "GPU feature"));
    EXPECT_EQ(done->kernel, "gray_1d_flat");
  }
  EXPECT_EQ(forks, 2) << "the copy is kept while the problem stays the same";
}

// ---- the model -------------------------------------------------------------------------------

TEST(MeasuredModel, GraySectorsPerRequestMatchACountFromTheIndexFormula) {
  // Odd sizes: the planes start off sector boundaries and the last warp is partial.
  const int w = 101, h = 37, n = w * h;
  auto lab = gray_lab(w, h, 4);
  ASSERT_TRUE(lab);
  for (unsigned threads : {256u, 96u}) {
    KernelConfig cfg;
    cfg.block = Dim3{threads, 1, 1};
    LaunchRecord r = lab->plan("gray_1d_flat", cfg);
    ASSERT_TRUE(r.ok()) << r.status.describe();
    ASSERT_LE(r.config.total_blocks(), 64u) << "the test wants every block in the sample";
    // i = blockIdx.x * blockDim.x + threadIdx.x; reads x[i], x[i + n], x[i + 2n]; writes out[i].
    double ld_s = 0, ld_r = 0, st_s = 0, st_r = 0;
    for (unsigned b = 0; b < r.config.grid.x; ++b)
      for (unsigned w0 = 0; w0 < threads; w0 += 32) {
        std::vector<long long> idx;
        for (unsigned t = w0; t < std::min(w0 + 32, threads); ++t) {
          const long long i = static_cast<long long>(b) * threads + t;
          idx.push_back(i < n ? i : -1);
        }
        if (std::all_of(idx.begin(), idx.end(), [](long long i) { return i < 0; })) continue;
        for (long long base : {0LL, static_cast<long long>(n), 2LL * n}) {
          std::vector<long long> a = idx;
          for (auto& v : a)
            if (v >= 0) v += base;
          ld_s += sectors_of(a, 1), ld_r += 1;
        }
        st_s += sectors_of(idx, 1), st_r += 1;
      }
    const SectorModel m = model_sectors(*lab, r);
    EXPECT_DOUBLE_EQ(m.ld, ld_s / ld_r) << threads << " threads; " << m.sample;
    EXPECT_DOUBLE_EQ(m.st, st_s / st_r) << threads << " threads; " << m.sample;
    EXPECT_DOUBLE_EQ(m.ld_requests, ld_r);
  }
}

TEST(MeasuredModel, MatmulCoalescedAndUncoalescedMatchACountFromTheIndexFormula) {
  const int M = 45, N = 70, K = 29;  // K under the 32 steps sampled: every step is in
  auto lab = matmul_lab(M, N, K);
  ASSERT_TRUE(lab);
  for (const char* kernel : {"k1_naive", "k2_uncoalesced"}) {
    const bool k1 = std::string(kernel) == "k1_naive";
    KernelConfig cfg;
    cfg.block = Dim3{32, 8, 1};
    LaunchRecord r = lab->plan(kernel, cfg);
    ASSERT_TRUE(r.ok()) << r.status.describe();
    ASSERT_LE(r.config.total_blocks(), 64u);
    // k1: row = by*8 + ty, col = bx*32 + tx.  k2: row = bx*32 + tx, col = by*8 + ty.
    double ld_s = 0, ld_r = 0, st_s = 0, st_r = 0;
    for (unsigned by = 0; by < r.config.grid.y; ++by)
      for (unsigned bx = 0; bx < r.config.grid.x; ++bx)
        for (unsigned ty = 0; ty < 8; ++ty) {  // one warp per row of the block
          std::vector<long long> row(32), col(32);
          bool any = false;
          for (unsigned tx = 0; tx < 32; ++tx) {
            row[tx] = k1 ? by * 8 + ty : bx * 32 + tx;
            col[tx] = k1 ? bx * 32 + tx : by * 8 + ty;
            if (row[tx] >= M || col[tx] >= N) row[tx] = col[tx] = -1;
            any |= row[tx] >= 0;
          }
          if (!any) continue;
          for (int k = 0; k < K; ++k) {
            std::vector<long long> a(32), b(32);
            for (int l = 0; l < 32; ++l) {
              a[l] = row[l] < 0 ? -1 : (row[l] * K + k) * 4;
              b[l] = row[l] < 0 ? -1 : (static_cast<long long>(k) * N + col[l]) * 4;
            }
            ld_s += sectors_of(a, 4) + sectors_of(b, 4), ld_r += 2;
          }
          std::vector<long long> c(32);
          for (int l = 0; l < 32; ++l) c[l] = row[l] < 0 ? -1 : (row[l] * N + col[l]) * 4;
          st_s += sectors_of(c, 4), st_r += 1;  // once per warp: the ratio is per request
        }
    const SectorModel m = model_sectors(*lab, r);
    EXPECT_NEAR(m.ld, ld_s / ld_r, 1e-12) << kernel << "; " << m.sample;
    EXPECT_NEAR(m.st, st_s / st_r, 1e-12) << kernel << "; " << m.sample;
    if (k1) EXPECT_LT(m.ld, 4.0) << "coalesced: B is one line, A a broadcast";
    else EXPECT_GT(m.ld, 8.0) << "uncoalesced: A touches a sector per lane";
  }
}

// Rung 5's tile loaders (the memory view models them): thread tid loads A items tid + 256 j as
// rows of 8 floats and B items as rows of 128; at 64^3 (K and N multiples of 8, rows aligned)
// every non-empty warp request of either tile covers 4 rows x 32 bytes or 128 contiguous bytes:
// 4 sectors, worked out by hand from k5_blocktile_2d.hpp.
TEST(MeasuredModel, RegisterBlockedRungsModelTheirTileLoads) {
  auto lab = matmul_lab(64, 64, 64);
  ASSERT_TRUE(lab);
  const lab::KernelInfo* k5 = lab->find_kernel("k5_blocktile_2d");
  ASSERT_TRUE(k5);
  LaunchRecord r = lab->plan(k5->id, lab->default_config(*k5));
  ASSERT_TRUE(r.ok()) << r.status.describe();
  const SectorModel m = model_sectors(*lab, r);
  EXPECT_DOUBLE_EQ(m.ld, 4.0) << m.sample;
  EXPECT_GT(m.ld_requests, 0);
}

TEST(MeasuredModel, TheModelHalfComesFromTheRecordAndTheOccupancyRules) {
  auto lab = matmul_lab(96, 80, 48);
  ASSERT_TRUE(lab);
  KernelConfig cfg;
  cfg.block = Dim3{16, 16, 1};
  LaunchRecord r = lab->run("k1_naive", cfg, {});
  ASSERT_TRUE(r.ok()) << r.status.describe();
  LaunchCounters c;
  add_model(c, *lab, r);
  EXPECT_DOUBLE_EQ(c.model_bytes, r.bytes_moved);
  EXPECT_DOUBLE_EQ(c.model_bandwidth_gbs, r.gbytes_per_s());
  // The Launch tab's statistics (another path to the same rules) give the same occupancy.
  const mapping::LaunchStats s =
      mapping::compute_stats(r.scheme, r.config, r.data_width, r.data_height, r.attributes, lab->backend().limits);
  EXPECT_DOUBLE_EQ(c.theoretical_occupancy_pct, 100.0 * s.occupancy.occupancy);
  EXPECT_DOUBLE_EQ(c.model_waves, s.waves.waves);
  EXPECT_FALSE(c.occupancy_note.empty());
}

// The shared-memory half: the matmul lab's bank model of the whole launch, against counts made
// here from k3's loops by hand (every request of k3 is one wavefront), and k5's B loads, whose
// lanes read TN words apart, with conflicts; the Measured tab's rows carry both.
TEST(MeasuredModel, SharedWavefrontsOfTheBankModel) {
  auto lab = matmul_lab(64, 96, 80);
  ASSERT_TRUE(lab);
  KernelConfig cfg;
  cfg.compiled = 1;  // T = 16 (kK3Tiles)
  LaunchRecord r = lab->plan("k3_smem_tiled", cfg);
  ASSERT_TRUE(r.ok()) << r.status.describe();
  LaunchCounters c;
  add_model(c, *lab, r);
  // 6 x 4 blocks of 8 warps, 5 phases of T = 16: 2 stores and 32 loads a phase.
  const double warps = 6.0 * 4 * 8, phases = 5;
  EXPECT_DOUBLE_EQ(c.model_shared_st_wavefronts, warps * phases * 2) << c.shared_sample;
  EXPECT_DOUBLE_EQ(c.model_shared_ld_wavefronts, warps * phases * 32);
  EXPECT_DOUBLE_EQ(c.model_shared_ld_conflicts, 0.0);
  const lab::KernelInfo* k5 = lab->find_kernel("k5_blocktile_2d");
  ASSERT_TRUE(k5);
  LaunchRecord r5 = lab->plan(k5->id, lab->default_config(*k5));
  ASSERT_TRUE(r5.ok());
  LaunchCounters c5;
  add_model(c5, *lab, r5);
  EXPECT_GT(c5.model_shared_ld_conflicts, 0.0);
  bool row = false;
  for (const CounterRow& x : counter_rows(c5)) {
    if (x.name != "shared load bank conflicts") continue;
    row = true;
    EXPECT_DOUBLE_EQ(x.model, c5.model_shared_ld_conflicts);
  }
  EXPECT_TRUE(row);
  // k1 has no shared memory: no model, and the note says so.
  KernelConfig k1;
  k1.block = Dim3{16, 16, 1};
  LaunchCounters c1;
  add_model(c1, *lab, lab->plan("k1_naive", k1));
  EXPECT_TRUE(std::isnan(c1.model_shared_ld_wavefronts));
  EXPECT_NE(c1.shared_sample.find("no shared-memory model"), std::string::npos);
}

// ---- rows and the sentence -------------------------------------------------------------------

LaunchCounters measured_example() {
  LaunchCounters c;
  c.device = "NVIDIA H200";
  c.chip = "GH100";
  c.range = "kernel";
  c.dram_read_bytes = 8396288;
  c.dram_write_bytes = 0;
  c.duration_ns = 345408;
  c.dram_bandwidth_gbs = 24.3;
  c.l2_hit_pct = 94.3;
  c.ld_sectors = 167772160, c.ld_requests = 67108864;
  c.st_sectors = 131072, c.st_requests = 32768;
  c.achieved_occupancy_pct = 94.3;
  c.sm_throughput_pct = 74.6;
  c.memory_throughput_pct = 74.6;
  c.warp_cycles_per_issue = 27.9;
  c.stalls = {{"lg_throttle", 11.6, 41.5}, {"long_scoreboard", 8.2, 29.2}};
  c.passes = 15;
  c.profile_wall_ms = 406.7;
  c.model_bytes = 12582912;  // A, B and C of 1024^3 floats
  c.model_ld_sectors_per_request = 2.5;
  c.model_st_sectors_per_request = 4;
  c.theoretical_occupancy_pct = 100;
  c.sectors_sample = "a sample";
  return c;
}

TEST(MeasuredRows, RatiosAndPoints) {
  const LaunchCounters c = measured_example();
  const auto rows = counter_rows(c);
  auto find = [&](const std::string& name) {
    for (const auto& r : rows)
      if (r.name == name) return r;
    ADD_FAILURE() << "no row " << name;
    return CounterRow{};
  };
  EXPECT_NEAR(find("DRAM bytes").comparison(), 8396288.0 / 12582912.0, 1e-12);
  EXPECT_DOUBLE_EQ(find("sectors / load").comparison(), 1.0);
  EXPECT_DOUBLE_EQ(find("sectors / store").comparison(), 1.0);
  EXPECT_NEAR(find("occupancy").comparison(), 94.3 - 100, 1e-12);
  EXPECT_TRUE(std::isnan(find("L2 hit rate").comparison())) << "no model, no ratio";
  for (const auto& r : rows) EXPECT_FALSE(r.help.empty()) << r.name;
}

TEST(MeasuredSentence, NamesTheLargestDisagreement) {
  LaunchCounters c = measured_example();
  std::string s = largest_disagreement(c);
  EXPECT_TRUE(contains(s, "DRAM moved 0.67x")) << s;
  EXPECT_TRUE(contains(s, "L2")) << s;

  c.achieved_occupancy_pct = 31;  // now occupancy is further off than the bytes
  s = largest_disagreement(c);
  EXPECT_TRUE(contains(s, "Achieved occupancy is 31%")) << s;

  c.achieved_occupancy_pct = 98;
  c.model_bytes = c.dram_bytes() * 1.02;
  s = largest_disagreement(c);
  EXPECT_TRUE(contains(s, "agree within 5%")) << s;

  c.ld_sectors = 4 * c.ld_requests;  // 4 per request against 2.5 modelled
  s = largest_disagreement(c);
  EXPECT_TRUE(contains(s, "Global loads touched 4 sectors per request")) << s;

  EXPECT_TRUE(largest_disagreement(unavailable(Status::failure("no"))).empty());
  LaunchCounters lib = measured_example();
  lib.model_bytes = lib.model_ld_sectors_per_request = lib.model_st_sectors_per_request =
      lib.theoretical_occupancy_pct = LaunchCounters::kNone;
  EXPECT_TRUE(contains(largest_disagreement(lib), "Nothing to compare")) << largest_disagreement(lib);
}

// ---- the results JSON and the sweep columns ---------------------------------------------------

TEST(MeasuredReport, CountersParseBackFromTheResultsJson) {
  auto lab = matmul_lab(40, 24, 16);
  ASSERT_TRUE(lab);
  KernelConfig cfg;
  cfg.block = Dim3{16, 16, 1};
  LaunchRecord r = lab->run("k1_naive", cfg, {});
  ASSERT_TRUE(r.ok());
  r.counters = std::make_shared<const LaunchCounters>(measured_example());
  LaunchRecord plain = r;
  plain.counters.reset();
  lab::ResultsHeader h;
  h.kind = "bench";
  h.lab = "matmul";
  const std::string json = lab::results_json(h, {r, plain}, ThroughputUnit::GflopPerS, lab->kernels());
  auto v = bs::test::parse_json(json);
  ASSERT_TRUE(v) << json;
  const auto& c = v->at("results").at(0).at("counters");
  ASSERT_EQ(c.kind, bs::test::JsonValue::Object) << json;
  EXPECT_TRUE(c.at("available").boolean);
  EXPECT_EQ(c.at("chip").str, "GH100");
  EXPECT_EQ(c.at("range").str, "kernel");
  EXPECT_EQ(c.at("passes").number, 15);
  // Counts are written whole, not rounded to 6 digits.
  EXPECT_EQ(c.at("dram_read_bytes").number, 8396288);
  EXPECT_EQ(c.at("global_ld_sectors").number, 167772160);
  EXPECT_EQ(c.at("global_ld_requests").number, 67108864);
  EXPECT_DOUBLE_EQ(c.at("ld_sectors_per_request").number, 2.5);
  EXPECT_DOUBLE_EQ(c.at("st_sectors_per_request").number, 4);
  EXPECT_NEAR(c.at("achieved_occupancy_pct").number, 94.3, 1e-9);
  EXPECT_NEAR(c.at("l2_hit_pct").number, 94.3, 1e-9);
  ASSERT_EQ(c.at("stalls").items.size(), 2u);
  EXPECT_EQ(c.at("stalls").at(0).at("reason").str, "lg_throttle");
  EXPECT_NEAR(c.at("stalls").at(0).at("share_pct").number, 41.5, 1e-9);
  const auto& model = c.at("model");
  EXPECT_EQ(model.at("bytes").number, 12582912);
  EXPECT_DOUBLE_EQ(model.at("ld_sectors_per_request").number, 2.5);
  EXPECT_DOUBLE_EQ(model.at("theoretical_occupancy_pct").number, 100);
  EXPECT_EQ(model.at("bandwidth_gbs").kind, bs::test::JsonValue::Null) << "NaN is null";
  EXPECT_FALSE(v->at("results").at(1).has("counters")) << "counters only where asked for";
}

TEST(MeasuredReport, CounterColumnsLineUpWithTheirCells) {
  LaunchRecord r;
  r.kernel = "k1_naive";
  const auto& cols = lab::counter_columns();
  EXPECT_EQ(lab::counter_cells(r).size(), cols.size()) << "no counters: empty cells";
  for (const auto& cell : lab::counter_cells(r)) EXPECT_TRUE(cell.empty());
  r.counters = std::make_shared<const LaunchCounters>(measured_example());
  auto cells = lab::counter_cells(r);
  ASSERT_EQ(cells.size(), cols.size());
  auto cell = [&](const std::string& name) {
    const auto it = std::find(cols.begin(), cols.end(), name);
    EXPECT_NE(it, cols.end()) << name;
    return it == cols.end() ? std::string() : cells[static_cast<std::size_t>(it - cols.begin())];
  };
  EXPECT_EQ(cell("counters"), "measured");
  EXPECT_EQ(cell("dram_read_bytes"), "8396288") << "counts whole";
  EXPECT_EQ(cell("ld_sectors_per_request"), "2.5");
  EXPECT_EQ(cell("model_st_sectors_per_request"), "4");
  EXPECT_EQ(cell("top_stall"), "lg_throttle");
  r.counters = std::make_shared<const LaunchCounters>(unavailable(Status::failure("no permission", "fix it")));
  cells = lab::counter_cells(r);
  EXPECT_TRUE(contains(cells[0], "no permission")) << cells[0];
  EXPECT_TRUE(cells[1].empty());
}

}  // namespace
}  // namespace bs::measured
