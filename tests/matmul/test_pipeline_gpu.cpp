// The warp-specialized pipeline, measured on the GPU (label gpu; skips visibly without a device,
// and without sm_90a says why). For T4, T5 and T6 (clusters of 2):
//   (c) the pipeline-traced launch still verifies against cuBLAS (the lab's check);
//   (d) every consumer's wait on a stage ends no earlier than its producer began issuing it, and
//       every (tile, slice) the block computes is there: the count is worked out here from the
//       tiles and slices, not from the analysis;
//   (b) per-block times add up to the kernel's duration: the recording's extent (earliest block
//       start to latest end) and the busiest SM's union of its blocks' spans, each against the
//       event-timed duration of the same traced launch (reported; target within 5%);
//   (a) the traced variant's cost: median of the traced launches against the median of the
//       plain rung, one timing policy (lab/measure.hpp), both timed alike (MatmulLab::
//       pipeline_cost, as the Pipeline tab shows it), at 4096^3 (reported; target <= 5%).
// (a) and (b) compare times, so they print their table and write JSON
// ($BS_PIPELINE_JSON, default pipeline_check.json in the working folder) with a verdict per row
// instead of failing the test on a timing. With $BS_PIPELINE_TRACE_DIR set, each 4096^3
// recording is written there as a pipeline trace file (--matmul-pipeline-trace FILE shows it).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>

#include "core/json_writer.hpp"
#include "device/cuda_device.hpp"
#include "labs/matmul/matmul_lab.hpp"
#include "labs/matmul/pipeline_trace.hpp"
#include "labs/matmul/tc4_warp_specialized.hpp"
#include "gpu_lab_support.hpp"
#include "skips.hpp"

namespace bs::matmul {
namespace {

using testing::SharedLab;
SharedLab& shared_lab() { return testing::shared_gpu_lab(Precision::Bf16); }
[[maybe_unused]] ::testing::Environment* const release_lab_at_end =
    ::testing::AddGlobalTestEnvironment(new testing::ReleaseGpuLabAtEnd(&shared_lab));

#define REQUIRE_HOPPER()                                                                                            \
  MatmulLab* lab = shared_lab().lab.get();                                                                          \
  if (!lab) { BS_SKIP_NO_GPU() << "no usable CUDA device: " << shared_lab().why_not.describe(); }                   \
  if (lab->backend().limits.compute_major != 9 || lab->backend().limits.compute_minor != 0) {                       \
    BS_SKIP() << "the pipeline-traced rungs need sm_90a; " << lab->backend().limits.name << " is not a Hopper GPU"; \
  }                                                                                                                 \
  static_assert(true)

const char* const kRungs[] = {"tc4_warp_specialized", "tc5_persistent", "tc6_cluster_multicast", "tc7_tma_store"};

// The (tile, slice) waits each consumer must have recorded, counted from the shape: every tile
// of C computed once, by two consumers, over ceil(K / 64) slices (T7's split tiles too: each of
// their slices by one cluster).
std::size_t expected_waits(const PipelineRaw& raw) {
  const std::size_t slices = static_cast<std::size_t>((raw.K + kTc4BK - 1) / kTc4BK);
  const std::size_t cluster = std::max(1u, raw.cluster.x);
  // Each block computes 128-row slices of its cluster's tiles: blocks x tiles = all 128 x 256 tiles.
  const std::size_t tiles = static_cast<std::size_t>((raw.M + kTc4BM * int(cluster) - 1) / (kTc4BM * int(cluster))) *
                            cluster * static_cast<std::size_t>((raw.N + kTc4BN - 1) / kTc4BN);
  return 2 * tiles * slices;
}

void check_recording(MatmulLab& lab, const char* id, int M, int N, int K, const char* save_dir) {
  SCOPED_TRACE(std::string(id) + " at " + std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K));
  ASSERT_TRUE(lab.set_matrices(MatrixSpec{M, N, K, Pattern::Uniform, Pattern::Normal, 77}).ok())
      << lab.status().describe();
  auto run = lab.trace_pipeline(id, KernelConfig{Dim3{384, 1, 1}, 0});
  ASSERT_TRUE(run.ok()) << run.status().describe();
  EXPECT_TRUE(run->check.passed()) << run->check.note;  // (c)
  auto a = analyse_pipeline(run->raw);
  ASSERT_TRUE(a.ok()) << a.status().describe();
  EXPECT_EQ(a->dropped, 0u) << "the buffer is sized from the launch";
  EXPECT_EQ(a->order_violations, 0u) << a->order_first_violation;  // (d)
  EXPECT_EQ(a->order_checked, expected_waits(run->raw));
  // Every block's three warpgroups recorded, on SMs the device has.
  for (const PipelineLane& l : a->lanes) EXPECT_GT(l.spans.size(), 0u) << "block " << l.block << " wg " << l.warpgroup;
  std::printf(
      "[pipeline] %-22s %5dx%5dx%5d  grid %s  consumers wait on full %5.1f%%, producer on empty %5.1f%%, "
      "timer tick %llu ns; verified: %s\n",
      id, M, N, K, to_string(run->raw.grid).c_str(), 100 * a->consumer_wait_share, 100 * a->producer_wait_share,
      static_cast<unsigned long long>(a->timer_tick_ns), run->check.passed() ? "yes" : "NO");
  if (save_dir) {
    const std::string path = std::string(save_dir) + "/" + id + "_" + std::to_string(M) + ".trace";
    EXPECT_TRUE(save_pipeline_file(run->raw, path).ok());
  }  // (no else: a dangling-else guard)
}

TEST(PipelineGpu, TracedRungsVerifyAndKeepTheirOrderAtAnOddSize) {
  REQUIRE_HOPPER();
  for (const char* id : kRungs) check_recording(*lab, id, 777, 1031, 519, nullptr);
}

TEST(PipelineGpu, CostAndCoverageAt4096) {
  REQUIRE_HOPPER();
  const char* save_dir = std::getenv("BS_PIPELINE_TRACE_DIR");
  const char* json_env = std::getenv("BS_PIPELINE_JSON");
  const std::string json_path = json_env ? json_env : "pipeline_check.json";
  const int n = 4096;
  ASSERT_TRUE(lab->set_matrices(MatrixSpec{n, n, n, Pattern::Uniform, Pattern::Normal, 5}).ok());
  const TimingPolicy policy = TimingPolicy::fixed(21, 3);
  JsonWriter j;
  j.begin_object().field("device", lab->backend().limits.name).field("size", n);
  j.field("policy", "21 timed launches after 3 warm-up, CUDA events, upper median");
  j.key("rungs").begin_array();
  std::printf(
      "\n| rung | plain median ms | traced median ms | overhead | extent / event time | busiest SM / event time | mean "
      "SM / event time | verified | order violations |\n"
      "|---|---|---|---|---|---|---|---|---|\n");
  for (const char* id : kRungs) {
    SCOPED_TRACE(id);
    auto cost = lab->pipeline_cost(id, KernelConfig{Dim3{384, 1, 1}, 0}, policy);
    ASSERT_TRUE(cost.ok()) << cost.status().describe();
    const Timing& plain = cost->plain;
    const Timing& traced = cost->traced;
    auto run = lab->trace_pipeline(id, KernelConfig{Dim3{384, 1, 1}, 0});
    ASSERT_TRUE(run.ok()) << run.status().describe();
    auto a = analyse_pipeline(run->raw);
    ASSERT_TRUE(a.ok()) << a.status().describe();
    EXPECT_TRUE(run->check.passed()) << run->check.note;
    EXPECT_EQ(a->order_violations, 0u) << a->order_first_violation;
    const double overhead = cost->overhead();
    const auto within = [](double r) { return r >= 0.95 && r <= 1.05; };
    std::printf("| %s | %.4f | %.4f | %+.2f%% %s | %.3f %s | %.3f %s | %.3f | %s | %zu of %zu |\n", id, plain.median_ms,
                traced.median_ms, 100 * overhead, overhead <= 0.05 ? "(<= 5%)" : "(OVER 5%)", a->coverage.extent_ratio,
                within(a->coverage.extent_ratio) ? "ok" : "OUT", a->coverage.busiest_ratio,
                within(a->coverage.busiest_ratio) ? "ok" : "OUT", a->coverage.mean_ratio,
                run->check.passed() ? "yes" : "NO", a->order_violations, a->order_checked);
    j.begin_object().field("rung", id).field("grid", to_string(run->raw.grid));
    j.field("plain_median_ms", plain.median_ms).field("traced_median_ms", traced.median_ms);
    j.field("overhead", overhead).field("overhead_within_5pct", overhead <= 0.05);
    j.field("event_ms_of_recorded_launch", run->raw.event_ms);
    j.field("extent_ns", static_cast<unsigned long long>(a->coverage.extent_ns));
    j.field("busiest_sm_ns", static_cast<unsigned long long>(a->coverage.busiest_sm_ns));
    j.field("mean_sm_ns", a->coverage.mean_sm_ns);
    j.field("extent_ratio", a->coverage.extent_ratio).field("busiest_ratio", a->coverage.busiest_ratio);
    j.field("mean_ratio", a->coverage.mean_ratio);
    j.field("coverage_within_5pct", within(a->coverage.extent_ratio) && within(a->coverage.busiest_ratio));
    j.field("verified", run->check.passed()).field("order_checked", static_cast<unsigned long long>(a->order_checked));
    j.field("order_violations", static_cast<unsigned long long>(a->order_violations));
    j.field("consumer_wait_share", a->consumer_wait_share).field("producer_wait_share", a->producer_wait_share);
    j.field("timer_tick_ns", static_cast<unsigned long long>(a->timer_tick_ns));
    j.field("sentence", a->sentence);
    j.end_object();
    if (save_dir) { EXPECT_TRUE(save_pipeline_file(run->raw, std::string(save_dir) + "/" + id + "_4096.trace").ok()); }
  }
  j.end_array().end_object();
  std::ofstream(json_path) << j.str() << "\n";
  std::printf(
      "\n(b) extent = latest block end - earliest block start; busiest SM = the largest union of one SM's "
      "block spans; both over the event-timed duration of the same traced launch. JSON: %s\n",
      json_path.c_str());
}

}  // namespace
}  // namespace bs::matmul
