// The one results writer (kernels/lab/report.hpp), read back: the JSON by the tests' own JSON
// reader (tests/app/json_reader.hpp) and the CSV by an RFC 4180 reader written here, so a bug
// in the writer is not mirrored by the reader. Fields, units and the version are the ones
// docs/results-schema.md documents.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "app/json_reader.hpp"
#include "core/json_writer.hpp"
#include "lab/report.hpp"
#include "lab/sweep.hpp"

namespace bs::lab {
namespace {

// RFC 4180: fields separated by commas, rows by CRLF or LF, a quoted field may hold commas,
// quotes (doubled) and line breaks.
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string field;
  bool quoted = false, any = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
      continue;
    }
    if (c == '"') {
      quoted = true;
      any = true;
    } else if (c == ',') {
      row.push_back(field);
      field.clear();
      any = true;
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      row.push_back(field);
      rows.push_back(row);
      row.clear();
      field.clear();
      any = false;
    } else {
      field += c;
      any = true;
    }
  }
  if (any) {
    row.push_back(field);
    rows.push_back(row);
  }
  return rows;
}

// Records as a lab would return them, with fresh random timings each run.
struct Fixture {
  std::vector<LaunchRecord> records;
  std::vector<KernelInfo> kernels;
  std::vector<Ceiling> ceilings{{"device-to-device copy", 3000.0, ThroughputUnit::GBPerS, "measured", ""}};
  DeviceLimits limits;
  std::uint32_t seed = std::random_device{}();

  Fixture() {
    limits.sm_count = 132;
    limits.max_threads_per_sm = 2048;
    limits.max_blocks_per_sm = 32;
    limits.regs_per_sm = 65536;
    limits.shared_per_sm = 228 * 1024;
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> ms(0.05, 0.5);
    KernelInfo a;
    a.id = "gray_2d";
    a.group = KernelGroup::Lecture;
    KernelInfo copy;
    copy.id = "copy";
    copy.group = KernelGroup::Ceiling;
    copy.style = ConfigStyle::Compiled;
    copy.timed_only = true;
    kernels = {a, copy};
    auto rec = [&](std::string kernel, Dim3 block, std::string label) {
      LaunchRecord r;
      r.lab = "gray";
      r.kernel = std::move(kernel);
      r.config_label = std::move(label);
      r.problem = "1023x767 planar";
      r.settings = {{"layout", "planar"}, {"note", "a, \"quoted\" value"}};
      r.backend = BackendKind::Cuda;
      r.config.block = block;
      if (block.x > 0 && block.y > 0)
        r.config.grid = {static_cast<unsigned>(ceil_div(1023, block.x)), static_cast<unsigned>(ceil_div(767, block.y)),
                         1};
      r.scheme = IndexScheme::grid2d();
      r.data_width = 1023;
      r.data_height = 767;
      r.attributes.registers_per_thread = 16;
      r.attributes_measured = true;
      r.config.dynamic_shared_bytes = 96 * block.x + block.y;  // per point, as the tensor-core rungs ask
      r.bytes_moved = 4.0 * 1023 * 767;
      r.bytes_note = "3 bytes read + 1 written per pixel";
      for (int i = 0; i < 12; ++i) r.timing.samples_ms.push_back(ms(rng));
      summarize(r.timing);
      r.timing.clock = "CUDA events";
      r.timing.warmup = 2;
      r.check.state = Check::State::Passed;
      r.check.against = "double-precision CPU reference";
      r.check.measure = "max |out - ref|";
      r.check.limit = 1;
      r.check.checked = 1023ull * 767;
      return r;
    };
    records.push_back(rec("gray_2d", {32, 8, 1}, "block 32x8"));
    records.push_back(rec("gray_2d", {16, 16, 1}, "block 16x16"));
    LaunchRecord wrong = rec("gray_2d", {8, 8, 1}, "block 8x8");
    wrong.check.state = Check::State::Failed;
    wrong.check.mismatches = 3;
    wrong.check.first_bad.push_back({5, 7, 12, 200});
    records.push_back(wrong);
    LaunchRecord refused = rec("gray_2d", {2048, 1, 1}, "block 2048");
    refused.status = Status::failure("blockDim (2048, 1, 1) has 2048 threads; a block may have at most 1024",
                                     "shrink a dimension", "validate_launch", "cudaErrorInvalidConfiguration");
    refused.refused = true;
    refused.timing = Timing{};
    records.push_back(refused);
    LaunchRecord c = rec("copy", {0, 0, 0}, "cudaMemcpyAsync");
    c.config = LaunchConfig{};
    c.scheme = IndexScheme::tiled(0, 0);
    records.push_back(c);
  }
};

TEST(Report, JsonParsesBackWithEveryDocumentedField) {
  Fixture f;
  ResultsHeader h;
  h.kind = "bench";
  h.lab = "gray";
  h.backend = "CUDA";
  h.device = "NVIDIA H200 (sm_90)";
  h.versions = "driver 13.0, runtime 13.0";
  h.policy = TimingPolicy::until_stable(0.01, 200, 10, 2000, 2);
  h.ceilings = f.ceilings;
  h.limits = f.limits;
  const std::string text = results_json(h, f.records, ThroughputUnit::GBPerS, f.kernels);
  auto doc = test::parse_json(text);
  ASSERT_TRUE(doc) << "not valid JSON:\n" << text;
  EXPECT_EQ(doc->at("schema").str, "blockscope-results");
  EXPECT_EQ(doc->at("version").number, kResultsVersion);
  EXPECT_EQ(doc->at("version").number, 2);
  EXPECT_EQ(doc->at("kind").str, "bench");
  EXPECT_EQ(doc->at("throughput_unit").str, "GB/s");
  EXPECT_EQ(doc->at("timing_policy").at("min_repeats").number, 10);
  EXPECT_DOUBLE_EQ(doc->at("timing_policy").at("target_ci").number, 0.01);
  ASSERT_EQ(doc->at("ceilings").items.size(), 1u);
  EXPECT_EQ(doc->at("ceilings").at(0).at("value").number, 3000);
  EXPECT_FALSE(doc->has("sweep")) << "a bench has no sweep object";
  const auto& results = doc->at("results").items;
  ASSERT_EQ(results.size(), f.records.size());
  for (std::size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i];
    const LaunchRecord& want = f.records[i];
    SCOPED_TRACE(want.config_label + " seed " + std::to_string(f.seed));
    EXPECT_EQ(r.at("kernel").str, want.kernel);
    EXPECT_EQ(r.at("outcome").str, outcome(want));
    // settings: an object of key -> value, strings kept exactly (commas and quotes too).
    ASSERT_EQ(r.at("settings").kind, test::JsonValue::Object);
    EXPECT_EQ(r.at("settings").at("layout").str, "planar");
    EXPECT_EQ(r.at("settings").at("note").str, "a, \"quoted\" value");
    EXPECT_EQ(r.at("block").at(0).number, want.config.block.x);
    EXPECT_EQ(r.at("grid").at(1).number, want.config.grid.y);
    EXPECT_EQ(r.at("attributes").at("dynamic_shared_bytes").number, want.config.dynamic_shared_bytes);
    EXPECT_EQ(r.at("attributes").at("registers").number, 16);
    // Times to the writer's 6 significant digits.
    EXPECT_NEAR(r.at("median_ms").number, want.timing.median_ms, want.timing.median_ms * 1e-5 + 1e-12);
    EXPECT_NEAR(r.at("ci_low_ms").number, want.timing.ci_low_ms, want.timing.ci_low_ms * 1e-5 + 1e-12);
    EXPECT_EQ(r.at("repeats").number, want.timing.repeats());
    EXPECT_EQ(r.at("check").at("state").str, want.check.passed()   ? "passed"
                                             : want.check.failed() ? "failed"
                                                                   : "not_checked");
    if (want.ok() && !want.check.failed()) {
      // of_ceiling: the same-run copy first, then the measured ceiling, each a share of it.
      const auto& shares = r.at("of_ceiling");
      ASSERT_EQ(shares.kind, test::JsonValue::Object);
      ASSERT_TRUE(shares.has("device-to-device copy"));
      const double gbs = want.bytes_moved / (want.timing.median_ms * 1e6);
      EXPECT_NEAR(shares.at("device-to-device copy").number, gbs / 3000, gbs / 3000 * 1e-4);
      ASSERT_TRUE(shares.has("copy (same run)"));
      EXPECT_NEAR(r.at("throughput").number, gbs, gbs * 1e-5);
    }
    if (!want.ok()) {
      EXPECT_NE(r.at("error").str.find("at most 1024"), std::string::npos);
      EXPECT_EQ(r.at("rank").number, 0) << "a refused point is never ranked";
    }
    if (want.check.failed()) {
      EXPECT_EQ(r.at("rank").number, 0) << "a wrong result is never ranked";
      EXPECT_EQ(r.at("check").at("first_bad").at(0).at(3).number, 200);
    }
    if (want.kernel == "copy") { EXPECT_FALSE(r.has("launch")) << "a ceiling's grid is not ours to count"; }
    if (want.kernel != "copy" && want.ok()) {
      ASSERT_TRUE(r.has("launch"));
      EXPECT_GT(r.at("launch").at("occupancy").number, 0);
      EXPECT_LE(r.at("launch").at("occupancy").number, 1);
      EXPECT_FALSE(r.at("launch").at("limiter").str.empty());
      EXPECT_EQ(r.at("launch").at("threads_launched").number,
                static_cast<double>(want.config.grid.volume() * want.config.block.volume()));
      const double idle = static_cast<double>(want.config.grid.volume() * want.config.block.volume()) - 1023.0 * 767;
      EXPECT_EQ(r.at("launch").at("idle_threads").number, idle);
    }
    EXPECT_EQ(r.at("data").at(0).number, 1023);
  }
  // Ranks: the two correct gray_2d points and the copy share one problem.
  std::vector<int> ranks;
  for (const auto& r : results)
    if (r.at("rank").number > 0) ranks.push_back(static_cast<int>(r.at("rank").number));
  std::sort(ranks.begin(), ranks.end());
  EXPECT_EQ(ranks, (std::vector<int>{1, 2, 3}));
}

// Thread block clusters: the dims as launched on every record with a grid, and the GPU's count of
// resident clusters (or why there is none) in the launch object of clustered launches only; the
// CSV's columns stay as they were.
TEST(Report, ClusterDimsAndMaxActiveClustersAreCarried) {
  Fixture f;
  f.records.resize(2);  // two gray_2d points: the first without clusters, the second with
  LaunchRecord& clustered = f.records[1];
  std::mt19937 rng(f.seed);
  const unsigned cx = 1 + rng() % 4, cy = 1 + rng() % 2;  // fresh dims each run
  clustered.config.grid = {clustered.config.grid.x * cx, clustered.config.grid.y * cy, 1};
  clustered.config.cluster = {cx, cy, 1};
  const int resident = 7 + static_cast<int>(rng() % 50);
  clustered.clusters.max_active_clusters = resident;
  clustered.clusters.note = "cudaOccupancyMaxActiveClusters";
  LaunchRecord unanswered = clustered;
  unanswered.clusters = ClusterOccupancy{0, "no CUDA device"};
  f.records.push_back(unanswered);
  ResultsHeader h;
  h.kind = "bench";
  h.lab = "gray";
  h.limits = f.limits;
  const std::string text = results_json(h, f.records, ThroughputUnit::GBPerS, f.kernels);
  auto doc = test::parse_json(text);
  ASSERT_TRUE(doc) << text;
  const auto& results = doc->at("results").items;
  ASSERT_EQ(results.size(), 3u);
  const unsigned want[3] = {cx, cy, 1};
  for (int a = 0; a < 3; ++a) {
    EXPECT_EQ(results[0].at("cluster").at(a).number, 1) << a;
    EXPECT_EQ(results[1].at("cluster").at(a).number, want[a]) << a;
  }
  EXPECT_FALSE(results[0].at("launch").has("max_active_clusters")) << "no clusters: nothing to ask";
  EXPECT_FALSE(results[0].at("launch").has("max_active_clusters_source"));
  EXPECT_EQ(results[1].at("launch").at("max_active_clusters").number, resident);
  EXPECT_EQ(results[1].at("launch").at("max_active_clusters_source").str, "cudaOccupancyMaxActiveClusters");
  EXPECT_FALSE(results[2].at("launch").has("max_active_clusters"));
  EXPECT_EQ(results[2].at("launch").at("max_active_clusters_source").str, "no CUDA device");
  // The occupancy model sits beside it, computed as for any launch.
  EXPECT_GT(results[1].at("launch").at("active_blocks_per_sm").number, 0);
  const auto rows = parse_csv(results_csv(f.records, f.ceilings, ThroughputUnit::GBPerS, f.kernels, &f.limits));
  ASSERT_FALSE(rows.empty());
  EXPECT_EQ(rows.front(), csv_columns()) << "the CSV's columns did not move";
  EXPECT_EQ(std::count(csv_columns().begin(), csv_columns().end(), "cluster"), 0);
}

TEST(Report, CsvParsesBackColumnByColumn) {
  Fixture f;
  // A compiled label with a comma and quotes, which the CSV must quote.
  f.records[1].config_label = "BM=128, BN=\"64\"";
  const std::string text = results_csv(f.records, f.ceilings, ThroughputUnit::GBPerS, f.kernels, &f.limits);
  const auto rows = parse_csv(text);
  ASSERT_EQ(rows.size(), f.records.size() + 1);
  ASSERT_EQ(rows[0], csv_columns());
  auto col = [&](const std::string& name) {
    for (std::size_t i = 0; i < rows[0].size(); ++i)
      if (rows[0][i] == name) return i;
    ADD_FAILURE() << "no column " << name;
    return std::size_t{0};
  };
  for (std::size_t i = 0; i < f.records.size(); ++i) {
    const auto& row = rows[i + 1];
    const LaunchRecord& want = f.records[i];
    SCOPED_TRACE(want.config_label + " seed " + std::to_string(f.seed));
    ASSERT_EQ(row.size(), csv_columns().size());
    EXPECT_EQ(row[col("kernel")], want.kernel);
    EXPECT_EQ(row[col("config")], want.config_label);
    EXPECT_EQ(row[col("settings")], "layout=planar;note=a, \"quoted\" value");
    EXPECT_EQ(row[col("outcome")], outcome(want));
    EXPECT_EQ(row[col("block")], std::to_string(want.config.block.x) + "x" + std::to_string(want.config.block.y) + "x" +
                                     std::to_string(want.config.block.z));
    if (want.ok()) {
      EXPECT_NEAR(std::stod(row[col("median_ms")]), want.timing.median_ms, want.timing.median_ms * 1e-5);
      EXPECT_EQ(std::stoi(row[col("repeats")]), want.timing.repeats());
      EXPECT_EQ(row[col("throughput_unit")], "GB/s");
    } else {
      EXPECT_TRUE(row[col("median_ms")].empty() || std::stod(row[col("median_ms")]) == 0);
      EXPECT_NE(row[col("error")].find("at most 1024"), std::string::npos);
    }
    if (want.ok() && !want.check.failed()) {
      EXPECT_EQ(row[col("first_ceiling")], "copy (same run)");
      EXPECT_GT(std::stod(row[col("of_first_ceiling")]), 0);
      EXPECT_GE(std::stoi(row[col("rank")]), 1);
    } else {
      EXPECT_EQ(row[col("rank")], "0");
    }
    if (want.ok() && want.kernel != "copy") {
      EXPECT_GT(std::stod(row[col("occupancy")]), 0);
      EXPECT_FALSE(row[col("limiter")].empty());
      EXPECT_GT(std::stod(row[col("waves")]), 0);
    }
    EXPECT_EQ(row[col("data_width")], "1023");
  }
}

// Issue 24, item 12: counts are integers, written whole in JSON and CSV (3923205, not
// 3.9232e+06); a random count each run, above a million so %.6g would round it.
TEST(Report, LargeCountsAreWrittenExactly) {
  Fixture f;
  std::mt19937 rng(f.seed);
  const double bytes = std::uniform_int_distribution<long long>(1'000'001, 4'000'000'000LL)(rng);
  const double flops = std::uniform_int_distribution<long long>(10'000'001, 900'000'000'000LL)(rng);
  f.records.resize(1);
  f.records[0].bytes_moved = bytes;
  f.records[0].flops = flops;
  ResultsHeader h;
  h.kind = "bench";
  h.lab = "gray";
  h.ceilings = f.ceilings;
  h.limits = f.limits;
  const std::string json = results_json(h, f.records, ThroughputUnit::GBPerS, f.kernels);
  const std::string want_bytes = std::to_string(static_cast<long long>(bytes));
  const std::string want_flops = std::to_string(static_cast<long long>(flops));
  EXPECT_NE(json.find("\"bytes\":" + want_bytes + ","), std::string::npos) << "seed " << f.seed << "\n" << json;
  EXPECT_NE(json.find("\"flops\":" + want_flops + ","), std::string::npos) << "seed " << f.seed;
  const auto doc = bs::test::parse_json(json);
  ASSERT_TRUE(doc);
  EXPECT_EQ(doc->at("results").at(0).at("bytes").number, bytes);
  const auto rows = parse_csv(results_csv(f.records, f.ceilings, ThroughputUnit::GBPerS, f.kernels, &f.limits));
  ASSERT_EQ(rows.size(), 2u);
  const auto col = std::find(rows[0].begin(), rows[0].end(), "bytes") - rows[0].begin();
  EXPECT_EQ(rows[1][static_cast<std::size_t>(col)], want_bytes);
  // Fractions keep their 6 significant digits.
  EXPECT_EQ(json.find("e+"), std::string::npos) << "no count in exponent form: " << json;
}

// Issue 36, item 15: the JSON rounded a wave count of 24520.03 to 24520 (6 significant digits).
TEST(Report, JsonKeepsTheFiguresDigits) {
  bs::JsonWriter j;
  j.begin_object().field("waves", 24520.03).field("ms", 0.123456789).field("big", 123456789.5).end_object();
  EXPECT_EQ(j.str(), "{\"waves\":24520.03,\"ms\":0.123456789,\"big\":123456789.5}");
}

// Issue 24, item 13: the text table says "-" where there is nothing to compare with (no ceiling),
// and its +-95% column is a percentage of the median, as its heading says.
TEST(Report, TheTableSaysDashWithoutACeilingAndTheIntervalInPercent) {
  Fixture f;
  f.records.resize(1);
  LaunchRecord& r = f.records[0];
  r.timing.samples_ms = {2.0, 2.0, 2.1, 1.9, 2.0, 2.0};
  summarize(r.timing);
  ResultsHeader h;
  h.device = "CPU simulation";
  const std::string none = results_table(h, f.records, ThroughputUnit::GBPerS, f.kernels);  // no ceilings
  const std::size_t row = none.find("gray_2d");
  ASSERT_NE(row, std::string::npos) << none;
  const std::string line = none.substr(row, none.find('\n', row) - row);
  EXPECT_EQ(line.find("0.0%"), std::string::npos) << "no ceiling is not 0%: " << line;
  char ci[32];
  std::snprintf(ci, sizeof ci, "%.2f%%", 100 * r.timing.relative_ci());
  EXPECT_NE(line.find(ci), std::string::npos) << "the interval as a share of the median (" << ci << "): " << line;
}

// Issue 35: on an H200 the SM clock fell to ~1.5 GHz a few hundred ms into 8192^3 runs (a power
// cap), so 100 repeats mixed two speeds, and the clock spins before and after could not see it.
// Drift is the last third's median over the first third's, here by sorting (the upper median)
// on fresh random samples of odd and even counts with a step somewhere; the table names a row
// from 3% either way, and the JSON carries it from 6 repeats.
TEST(Report, DriftIsTheLastThirdsMedianOverTheFirstAndTheTableNamesItFromThreePercent) {
  const std::uint32_t seed = std::random_device{}();
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> noise(0.9, 1.1);
  auto upper_median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  for (int trial = 0; trial < 300; ++trial) {
    const int n = std::uniform_int_distribution<int>(6, 61)(rng);
    const int at = std::uniform_int_distribution<int>(0, n)(rng);
    const double step = std::uniform_real_distribution<double>(0.7, 1.4)(rng);
    Timing t;
    for (int i = 0; i < n; ++i) t.samples_ms.push_back(0.2 * noise(rng) * (i >= at ? step : 1.0));
    const std::size_t k = static_cast<std::size_t>(n / 3);
    const double first = upper_median(std::vector<double>(t.samples_ms.begin(), t.samples_ms.begin() + k));
    const double last = upper_median(std::vector<double>(t.samples_ms.end() - k, t.samples_ms.end()));
    ASSERT_NEAR(t.drift(), last / first - 1, 1e-12) << "seed " << seed << ", n " << n;
  }
  Timing few;
  few.samples_ms = {1, 2, 3, 4, 5};
  EXPECT_EQ(few.drift(), 0) << "fewer than 6 repeats: no thirds to compare";

  Fixture f;
  f.records.resize(2);
  LaunchRecord& steady = f.records[0];
  LaunchRecord& slowed = f.records[1];
  steady.timing.samples_ms.clear();
  slowed.timing.samples_ms.clear();
  const double slow = std::uniform_real_distribution<double>(1.06, 1.3)(rng);
  for (int i = 0; i < 12; ++i) {
    steady.timing.samples_ms.push_back(1.0 + 0.01 * noise(rng));
    slowed.timing.samples_ms.push_back((i < 6 ? 1.0 : slow) + 0.01 * noise(rng));
  }
  summarize(steady.timing);
  summarize(slowed.timing);
  ASSERT_LT(std::abs(steady.timing.drift()), kDriftNoted);
  ASSERT_GT(slowed.timing.drift(), kDriftNoted);
  ResultsHeader h;
  h.device = "NVIDIA H200 (sm_90)";
  const std::string table = results_table(h, f.records, ThroughputUnit::GBPerS, f.kernels);
  char pct[32];
  std::snprintf(pct, sizeof pct, "%.1f%% slower", 100 * slowed.timing.drift());
  const std::string want =
      "drift: gray_2d block 16x16 1023x767 planar: the last third of its timed launches ran " + std::string(pct);
  EXPECT_NE(table.find(want), std::string::npos) << want << "\n" << table;
  EXPECT_EQ(table.find("drift: gray_2d block 32x8"), std::string::npos) << "a steady row is not named:\n" << table;
  EXPECT_NE(table.find("the GPU's clock or its load changed"), std::string::npos) << table;
  Timing simulated = slowed.timing;
  simulated.simulated = true;
  EXPECT_EQ(drift_note(simulated), "") << "a CPU simulation's warm-up is not a GPU's clock";

  auto doc = test::parse_json(results_json(h, f.records, ThroughputUnit::GBPerS, f.kernels));
  ASSERT_TRUE(doc);
  EXPECT_NEAR(doc->at("results").at(1).at("drift").number, slowed.timing.drift(), 1e-9);
  EXPECT_NEAR(doc->at("results").at(0).at("drift").number, steady.timing.drift(), 1e-9);
  f.records[0].timing.samples_ms.resize(5);
  doc = test::parse_json(results_json(h, f.records, ThroughputUnit::GBPerS, f.kernels));
  ASSERT_TRUE(doc);
  EXPECT_FALSE(doc->at("results").at(0).has("drift")) << "no drift from fewer than 6 repeats";
}

// Issue 34: a bench over both matmul precisions printed T6 (BF16 tensor cores) at 185% "%ceil":
// the column divided by the FP32 cuBLAS runs timed beside the BF16 ladder (a BF16 kernel rightly
// beats TF32 cuBLAS) while the header named the BF16 tensor-core peak, and a merged header
// divided each problem's rows by the first problem's ceilings. Made-up figures, shares checked
// by hand: each row against its own problem's peak, never above 100%.
TEST(Report, EachRowsCeilingIsItsOwnPrecisionsPeakAndTheTableNamesIt) {
  auto kernel = [](std::string id, KernelGroup g, bool bounds = true) {
    KernelInfo k;
    k.id = std::move(id);
    k.group = g;
    k.bounds_others = bounds;
    return k;
  };
  const std::vector<KernelInfo> kernels = {kernel("k7_warptile", KernelGroup::Ladder),
                                           kernel("t6_wgmma", KernelGroup::Ladder),
                                           kernel("cublas_bf16", KernelGroup::Library),
                                           kernel("cublas_tf32", KernelGroup::Ceiling, /*bounds_others=*/false)};
  const double flops = 2.0 * 4096.0 * 4096.0 * 4096.0;
  auto rec = [&](std::string id, std::string problem, double gflops) {
    LaunchRecord r;
    r.lab = "matmul";
    r.kernel = std::move(id);
    r.problem = std::move(problem);
    r.flops = flops;
    r.timing.samples_ms = {flops / (gflops * 1e6)};
    summarize(r.timing);
    r.check.state = Check::State::Passed;
    return r;
  };
  // As a bench lists them: the FP32 problem's ceilings first, then the BF16 problem's.
  ResultsHeader h;
  h.device = "a made-up GPU";
  h.ceilings = {{"FP32 peak", 60000, ThroughputUnit::GflopPerS, "made up", "4096x4096x4096"},
                {"cuBLAS SGEMM", 50000, ThroughputUnit::GflopPerS, "made up", "4096x4096x4096"},
                {"BF16 tensor-core peak", 900000, ThroughputUnit::GflopPerS, "made up", "4096x4096x4096 bf16"},
                {"cuBLAS BF16", 700000, ThroughputUnit::GflopPerS, "made up", "4096x4096x4096 bf16"}};
  const std::vector<LaunchRecord> records = {rec("k7_warptile", "4096x4096x4096", 45000),
                                             rec("t6_wgmma", "4096x4096x4096 bf16", 630000),
                                             rec("cublas_tf32", "4096x4096x4096 bf16", 340000)};
  const Shares k7 = shares(records[0], records, h.ceilings, ThroughputUnit::GflopPerS, kernels);
  const Shares t6 = shares(records[1], records, h.ceilings, ThroughputUnit::GflopPerS, kernels);
  ASSERT_FALSE(t6.of_ceiling.empty());
  EXPECT_EQ(t6.of_ceiling.front().first, "BF16 tensor-core peak");
  EXPECT_NEAR(t6.of_ceiling.front().second, 630000.0 / 900000, 1e-9);
  for (const auto& [name, share] : t6.of_ceiling) {
    EXPECT_LE(share, 1.0) << name << ": a BF16 row above a ceiling of its own";
    EXPECT_TRUE(name != "FP32 peak" && name != "cuBLAS SGEMM") << "an FP32 ceiling bounds a BF16 row: " << name;
  }
  EXPECT_EQ(t6.of_ceiling.size(), 2u) << "the BF16 peak and cuBLAS BF16, nothing of the FP32 problem";
  ASSERT_FALSE(k7.of_ceiling.empty());
  EXPECT_EQ(k7.of_ceiling.front().first, "FP32 peak");
  EXPECT_NEAR(k7.of_ceiling.front().second, 0.75, 1e-9);
  EXPECT_EQ(k7.of_ceiling.size(), 2u);

  const std::string table = results_table(h, records, ThroughputUnit::GflopPerS, kernels);
  const std::size_t row = table.find("t6_wgmma");
  ASSERT_NE(row, std::string::npos) << table;
  const std::string line = table.substr(row, table.find('\n', row) - row);
  EXPECT_NE(line.find("70.0%"), std::string::npos) << "T6's %ceil is 630/900 of the BF16 peak: " << line;
  EXPECT_EQ(line.find("185"), std::string::npos) << line;
  // The header says what the column divides by, in the ceilings' own names.
  const std::size_t says = table.find("%ceil: each row's share of ");
  ASSERT_NE(says, std::string::npos) << table;
  const std::string said = table.substr(says, table.find('\n', says) - says);
  EXPECT_NE(said.find("FP32 peak"), std::string::npos) << said;
  EXPECT_NE(said.find("BF16 tensor-core peak"), std::string::npos) << said;
  EXPECT_EQ(said.find("tf32"), std::string::npos) << said;
  EXPECT_NE(table.find("BF16 tensor-core peak [4096x4096x4096 bf16]: 900000.0"), std::string::npos) << table;

  // The JSON's of_ceiling for T6: the same two ceilings, the peak first.
  ResultsHeader jh = h;
  const std::string json = results_json(jh, records, ThroughputUnit::GflopPerS, kernels);
  auto doc = bs::test::parse_json(json);
  ASSERT_TRUE(doc) << json;
  const auto& t6_json = doc->at("results").at(1);
  ASSERT_EQ(t6_json.at("kernel").str, "t6_wgmma");
  const auto& of = t6_json.at("of_ceiling");
  EXPECT_NEAR(of.at("BF16 tensor-core peak").number, 0.7, 1e-9);
  EXPECT_FALSE(of.has("cublas_tf32 (same run)")) << json;
}

TEST(Report, SweepJsonCarriesTheSweepObjectAndTheClock) {
  SweepResult s;
  s.lab = "gray";
  s.backend = "CUDA";
  s.planned = 4;
  s.wall_s = 1.5;
  s.kernel_ms_total = 600;
  s.clock_mhz_before = 1980;
  s.clock_mhz_after = 1755;
  s.clock_method = "clock64 over globaltimer";
  s.suggestions.push_back({"gray_2d", BlockSuggestion{768, 264, "cudaOccupancyMaxPotentialBlockSize"}});
  s.complete = false;
  s.cancelled = true;
  s.note = "cancelled after 2 of 4 points";
  Fixture f;
  s.records = {f.records[0], f.records[1]};
  const auto doc = test::parse_json(results_json(sweep_header(s), s.records, ThroughputUnit::GBPerS, f.kernels));
  ASSERT_TRUE(doc);
  EXPECT_EQ(doc->at("kind").str, "sweep");
  EXPECT_FALSE(doc->at("complete").boolean);
  EXPECT_EQ(doc->at("note").str, "cancelled after 2 of 4 points");
  EXPECT_EQ(doc->at("sm_clock_mhz_before").number, 1980);
  EXPECT_EQ(doc->at("sm_clock_mhz_after").number, 1755);
  const auto& sw = doc->at("sweep");
  EXPECT_EQ(sw.at("planned").number, 4);
  EXPECT_EQ(sw.at("wall_s").number, 1.5);
  EXPECT_EQ(sw.at("kernel_ms_total").number, 600);
  ASSERT_EQ(sw.at("suggestions").items.size(), 1u);
  EXPECT_EQ(sw.at("suggestions").at(0).at("threads").number, 768);
  EXPECT_EQ(sw.at("suggestions").at(0).at("min_grid").number, 264);
}

// An unwritable path is a Status naming it; nothing is left behind, and a good file already
// there survives a failed rewrite.
TEST(Report, UnwritablePathIsAMessageAndKeepsTheOldFile) {
  Status s = write_text_file("/nonexistent-folder-for-blockscope/x.json", "{}");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message.find("/nonexistent-folder-for-blockscope/x.json"), std::string::npos);
  const auto dir = std::filesystem::temp_directory_path() / ("bs_report_" + std::to_string(std::random_device{}()));
  std::filesystem::create_directories(dir);
  const auto path = (dir / "r.csv").string();
  ASSERT_TRUE(write_text_file(path, "good\n").ok());
  std::filesystem::create_directory(path + ".tmp");  // the temporary cannot be created now
  EXPECT_FALSE(write_text_file(path, "new\n").ok());
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "good");
  std::filesystem::remove_all(dir);
}

// The schema document names every CSV column and the current version.
// bench --lines: the per-line object carries the SASS metrics' counts where they were measured,
// only the ones the chip gave, and says why not where they were not.
TEST(Report, LinesCarryExecutedAndWavefrontsWhereCounted) {
  Fixture f;
  std::mt19937 rng(f.seed);
  f.records.resize(2);
  auto counted = std::make_shared<LineProfile>();
  counted->function = "k";
  counted->total_samples = 10;
  const long long executed = std::uniform_int_distribution<long long>(1000, 9'000'000'000LL)(rng);
  const long long ideal = std::uniform_int_distribution<long long>(1, 1'000'000)(rng);
  LineSamples l{"/src/k.cu", 7, 10, 100.0, {{"barrier", 10}}, {executed, executed * 24, 2 * ideal, ideal}};
  counted->lines = {l, LineSamples{"/src/k.cu", 9, 0, 0.0, {}, {5, 160, 0, 0}}};
  counted->instructions = {InstructionSamples{0x40, "/src/k.cu", 7, 10, {{"barrier", 10}}, l.sass}};
  counted->sass_status = Status::success();
  counted->sass_has_shared = true;  // and no thread instructions on this chip
  counted->sass_total = l.sass;
  f.records[0].lines = counted;
  auto refused = std::make_shared<LineProfile>(*counted);
  refused->sass_status = Status::failure("no permission", "set the driver option", "cuptiSassMetricsSetConfig",
                                         "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES");
  f.records[1].lines = refused;
  ResultsHeader h;
  h.kind = "bench";
  h.lab = "gray";
  h.ceilings = f.ceilings;
  h.limits = f.limits;
  const std::string text = results_json(h, f.records, ThroughputUnit::GBPerS, f.kernels);
  auto doc = test::parse_json(text);
  ASSERT_TRUE(doc) << text;
  const auto& a = doc->at("results").at(0).at("lines");
  EXPECT_TRUE(a.at("sass").at("available").boolean);
  EXPECT_EQ(a.at("sass").at("executed").number, static_cast<double>(executed));
  EXPECT_FALSE(a.at("sass").has("thread_executed")) << "the chip gave no thread instructions: not written";
  EXPECT_EQ(a.at("lines").at(0).at("shared_wavefronts").number, 2.0 * ideal);
  EXPECT_EQ(a.at("lines").at(0).at("shared_wavefronts_ideal").number, static_cast<double>(ideal));
  EXPECT_EQ(a.at("lines").at(1).at("samples").number, 0.0);
  EXPECT_EQ(a.at("lines").at(1).at("executed").number, 5.0);
  EXPECT_EQ(a.at("instructions").at(0).at("executed").number, static_cast<double>(executed));
  EXPECT_NE(text.find("\"executed\":" + std::to_string(executed)), std::string::npos) << "written exactly";
  const auto& b = doc->at("results").at(1).at("lines");
  EXPECT_FALSE(b.at("sass").at("available").boolean);
  EXPECT_EQ(b.at("sass").at("code").str, "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES");
  EXPECT_FALSE(b.at("lines").at(0).has("executed")) << "no counts where none were measured";
}

TEST(Report, SchemaDocumentListsEveryColumnAndTheVersion) {
  std::ifstream in(std::string(BLOCKSCOPE_SOURCE_DIR) + "/docs/results-schema.md");
  ASSERT_TRUE(in) << "docs/results-schema.md is missing";
  std::stringstream doc;
  doc << in.rdbuf();
  const std::string text = doc.str();
  for (const std::string& c : csv_columns()) EXPECT_NE(text.find("`" + c + "`"), std::string::npos) << c;
  EXPECT_NE(text.find("**Version: " + std::to_string(kResultsVersion) + "**"), std::string::npos);
}

}  // namespace
}  // namespace bs::lab
