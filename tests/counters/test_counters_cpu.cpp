// The counter path without a GPU: the words users see when counters cannot be read, the
// arithmetic from raw values to the Measurement, and the metric choice. Runs in every build.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "counters/counter_errors.hpp"
#include "counters/counters.hpp"
#include "counters/metrics.hpp"

namespace bs::counters {
namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

TEST(CounterErrors, PermissionNamesTheDriverOptionAndRoot) {
  const Status s = explain(CounterProblem::InsufficientPrivileges, "cuptiProfilerGetCounterAvailability",
                           "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES");
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(contains(s.message, "administrators")) << s.message;
  EXPECT_TRUE(contains(s.hint, kProfilingDriverOption)) << s.hint;
  EXPECT_TRUE(contains(s.hint, "root")) << s.hint;
  EXPECT_TRUE(contains(s.hint, "/etc/modprobe.d/")) << s.hint;
  EXPECT_EQ(s.call, "cuptiProfilerGetCounterAvailability");
  EXPECT_EQ(s.code, "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES");
  // One line for the status bar carries all four parts.
  const std::string line = s.describe();
  EXPECT_TRUE(contains(line, "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES")) << line;
  EXPECT_TRUE(contains(line, kProfilingDriverOption)) << line;
}

TEST(CounterErrors, EveryProblemHasACauseAndAFix) {
  for (CounterProblem p :
       {CounterProblem::InsufficientPrivileges, CounterProblem::VirtualizedDevice, CounterProblem::AnotherProfiler,
        CounterProblem::HardwareBusy, CounterProblem::UnsupportedDevice, CounterProblem::MigSlice,
        CounterProblem::ConfidentialCompute, CounterProblem::MiningProcessor, CounterProblem::Sli, CounterProblem::Wsl,
        CounterProblem::LibraryMissing, CounterProblem::LibraryTooOld, CounterProblem::GpuFeature}) {
    const Status s = explain(p);
    EXPECT_FALSE(s.ok());
    EXPECT_FALSE(s.message.empty());
    EXPECT_FALSE(s.hint.empty()) << s.message;
  }
  EXPECT_TRUE(contains(explain(CounterProblem::AnotherProfiler).hint, "ncu"));
  EXPECT_TRUE(contains(explain(CounterProblem::VirtualizedDevice).message, "virtualised"));
  EXPECT_TRUE(contains(explain(CounterProblem::LibraryMissing).hint, "LD_LIBRARY_PATH"));
  // A detail (dlopen's error, CUPTI's text) is kept in the message.
  EXPECT_TRUE(contains(explain(CounterProblem::Other, "x", "y", "the detail").message, "the detail"));
}

TEST(CounterErrors, GpuFeatureSaysSo) {
  const Status s = gpu_feature_status();
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(contains(s.message, "hardware counters are a GPU feature")) << s.message;
}

#if !defined(BLOCKSCOPE_HAS_CUDA)
TEST(CounterSessionCpuBuild, CreateAnswersThatCountersAreAGpuFeature) {
  EXPECT_FALSE(counters_built());
  auto s = CounterSession::create(0);
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(contains(s.status().message, "hardware counters are a GPU feature")) << s.status().describe();
  EXPECT_TRUE(contains(s.status().hint, "without CUDA")) << s.status().hint;
}
#else
TEST(CounterSessionCudaBuild, AMissingLibraryIsNamedWithTheFix) {
  // Loading CUPTI comes before anything touches the GPU, so this runs without one.
  auto s = CounterSession::create(0, {.cupti_library = "/nonexistent/libcupti.so.13"});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().call, "dlopen");
  EXPECT_TRUE(contains(s.status().message, "/nonexistent/libcupti.so.13")) << s.status().describe();
  EXPECT_TRUE(contains(s.status().hint, "LD_LIBRARY_PATH")) << s.status().hint;
}
#endif

TEST(Metrics, BaseAndStallReason) {
  EXPECT_EQ(base_metric("dram__bytes_read.sum"), "dram__bytes_read");
  EXPECT_EQ(base_metric("gpu__time_duration"), "gpu__time_duration");
  EXPECT_EQ(stall_reason_of("smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active"), "long_scoreboard");
  EXPECT_EQ(stall_reason_of("smsp__average_warps_issue_stalled__per_issue_active"), "");
  EXPECT_EQ(stall_reason_of("smsp__warps_issue_stalled_long_scoreboard"), "");
}

TEST(Metrics, ChooseKeepsWhatTheChipHasAndFindsItsStallReasons) {
  const std::vector<std::string> chip = {"dram__bytes_read",
                                         "dram__bytes_write",
                                         "gpu__time_duration",
                                         "lts__t_sector_hit_rate",
                                         "sm__warps_active",
                                         "smsp__average_warp_latency_per_inst_issued",
                                         "smsp__average_warps_issue_stalled_wait_per_issue_active",
                                         "smsp__average_warps_issue_stalled_barrier_per_issue_active",
                                         "smsp__warps_issue_stalled_wait" /* a counter, not the ratio */};
  const auto all = choose_metrics(chip, true, true);
  const std::vector<std::string> expected = {kDramRead,
                                             kDramWrite,
                                             kDuration,
                                             kL2HitRate,
                                             kOccupancy,
                                             kWarpLatency,
                                             "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio",
                                             "smsp__average_warps_issue_stalled_wait_per_issue_active.ratio"};
  EXPECT_EQ(all, expected);
  const auto lean = choose_metrics(chip, false, false);
  EXPECT_EQ(lean, (std::vector<std::string>{kDramRead, kDramWrite, kDuration, kL2HitRate, kOccupancy}));
}

TEST(Metrics, Units) {
  EXPECT_EQ(unit_of(kDramRead), "byte");
  EXPECT_EQ(unit_of(kDuration), "ns");
  EXPECT_EQ(unit_of(kL2HitRate), "%");
  EXPECT_EQ(unit_of(kOccupancy), "%");
  EXPECT_EQ(unit_of(kLdSectors), "sector");
  EXPECT_EQ(unit_of(kStRequests), "request");
  EXPECT_EQ(unit_of("smsp__average_warps_issue_stalled_wait_per_issue_active.ratio"),
            "warp cycles per issued instruction");
}

TEST(Metrics, AssembleDerivesBandwidthSectorsAndStalls) {
  // Values of a made-up launch, with the derived numbers worked out by hand below.
  const std::vector<std::string> names = {kDramRead,
                                          kDramWrite,
                                          kDuration,
                                          kLdSectors,
                                          kLdRequests,
                                          kStSectors,
                                          kStRequests,
                                          kOccupancy,
                                          "smsp__average_warps_issue_stalled_wait_per_issue_active.ratio",
                                          "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio",
                                          "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio"};
  const std::vector<double> values = {3000.0, 1000.0, 2.0, 500.0, 100.0, 0.0, 0.0, 87.5, 1.0, 6.0, 3.0};
  const Measurement m = assemble(names, values);
  EXPECT_DOUBLE_EQ(m.dram_read_bytes, 3000.0);
  EXPECT_DOUBLE_EQ(m.dram_bandwidth_gbs, 2000.0);  // 4000 bytes in 2 ns
  EXPECT_DOUBLE_EQ(m.ld_sectors_per_request(), 5.0);
  EXPECT_TRUE(std::isnan(m.st_sectors_per_request()));  // no store requests
  EXPECT_DOUBLE_EQ(m.achieved_occupancy_pct, 87.5);
  EXPECT_TRUE(std::isnan(m.l2_hit_pct));  // not collected
  ASSERT_EQ(m.stalls.size(), 3u);
  EXPECT_EQ(m.stalls[0].reason, "long_scoreboard");
  EXPECT_EQ(m.stalls[1].reason, "barrier");
  EXPECT_EQ(m.stalls[2].reason, "wait");
  EXPECT_DOUBLE_EQ(m.stalls[0].share_pct, 60.0);
  EXPECT_DOUBLE_EQ(m.stalls[2].share_pct, 10.0);
  ASSERT_NE(m.find(kDramWrite), nullptr);
  EXPECT_EQ(m.find(kDramWrite)->unit, "byte");
  EXPECT_EQ(m.find("no_such_metric.sum"), nullptr);
}

}  // namespace
}  // namespace bs::counters
