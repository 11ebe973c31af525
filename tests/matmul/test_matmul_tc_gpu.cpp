// The tensor-core ladder on the CUDA backend (label gpu): every BF16 rung at odd and tile-sized
// shapes against the double CPU product of the same BF16 numbers computed here, and against the
// lab's own check (cuBLAS BF16); what ran counted on the device (the traced wrappers' census)
// against the grid and cluster the record says; the cuBLAS anchors of the same run. On a GPU
// without sm_90a the Hopper rungs must be refused with the reason, never launched. Skips
// visibly without a device.
//
// Suites: GpuTc (all shapes), GpuTcSmall (the shapes tests/matmul/gpu_check.sh and
// tests/gpu/sanitize.sh run under compute-sanitizer).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <ostream>
#include <set>
#include <string_view>

#include "device/cuda_device.hpp"
#include "labs/matmul/matmul.hpp"
#include "labs/matmul/matmul_lab.hpp"
#include "mapping/cluster.hpp"
#include "gpu_lab_support.hpp"
#include "matmul_test_support.hpp"
#include "skips.hpp"

namespace bs::matmul {
namespace {

using testing::Shape;

using testing::SharedLab;
SharedLab& shared_lab() { return testing::shared_gpu_lab(Precision::Bf16); }
[[maybe_unused]] ::testing::Environment* const release_lab_at_end =
    ::testing::AddGlobalTestEnvironment(new testing::ReleaseGpuLabAtEnd(&shared_lab));

#define REQUIRE_GPU()                      \
  MatmulLab* lab = shared_lab().lab.get(); \
  if (!lab) BS_SKIP_NO_GPU() << "no usable CUDA device: " << shared_lab().why_not.describe()

bool is_hopper(const MatmulLab& lab) {
  return lab.backend().limits.compute_major == 9 && lab.backend().limits.compute_minor == 0;
}

// Every BF16 rung, or the one named `only`.
void run_every_rung(MatmulLab& lab, const Shape& s, std::string_view only = {}) {
  const MatrixSpec spec{s.M, s.N, s.K, Pattern::Uniform, Pattern::Normal, (testing::test_seed() & 0xffffff) | 1};
  ASSERT_TRUE(lab.set_matrices(spec).ok()) << lab.status().describe();
  // The reference here: the double product of the BF16 numbers the lab holds, rounded here from
  // the generated matrices (not read back from the lab).
  std::vector<float> A = generate_matrix(s.M, s.K, spec.a, spec.seed),
                     B = generate_matrix(s.K, s.N, spec.b, spec.seed + 1);
  round_to_bf16(A), round_to_bf16(B);
  ASSERT_TRUE(std::ranges::equal(A, lab.a()));
  std::vector<float> ref(static_cast<std::size_t>(s.M) * s.N), got(ref.size());
  ASSERT_TRUE(cpu_reference(A.data(), B.data(), ref.data(), s.M, s.N, s.K).ok());
  const ErrorScale scale = error_scale(A.data(), B.data(), s.M, s.N, s.K);
  for (const auto& k : matmul_kernels(Precision::Bf16)) {
    if (!only.empty() && k.id != only) continue;
    SCOPED_TRACE(k.id + " at " + s.name());
    lab::RunOptions opt;
    opt.trace_schedule = true;
    const LaunchRecord r = lab.run(k.id, KernelConfig{k.configs[0].block, 0}, opt);
    if (k.needs == RungNeeds::Sm90a && !is_hopper(lab)) {
      EXPECT_TRUE(r.refused) << "a Hopper rung launched on " << lab.backend().limits.name;
      EXPECT_NE(r.status.message.find("sm_90a"), std::string::npos) << r.status.describe();
      continue;
    }
    ASSERT_TRUE(r.ok()) << r.status.describe();
    EXPECT_GT(r.kernel_ms(), 0.0);
    EXPECT_TRUE(r.attributes_measured);
    // What ran, counted by the traced twin: one record per block of the grid the record names.
    unsigned long long threads = 0;
    for (const auto& b : r.schedule) threads += b.threads;
    EXPECT_EQ(r.schedule.size(), r.config.grid.volume());
    EXPECT_EQ(threads, r.config.grid.volume() * r.config.block.volume());
    // The sm_90a rungs' traced blocks read their cluster (one of their own without cluster dims).
    if (is_hopper(lab) && k.needs == RungNeeds::Sm90a)
      for (const auto& b : r.schedule) {
        ASSERT_TRUE(b.cluster.has_value()) << to_string(b.block);
        EXPECT_EQ(b.cluster->id, mapping::cluster_place(b.block, r.config.grid, r.config.cluster).id);
      }
    if (k.persistent) {
      EXPECT_LE(r.config.grid.x, lab.backend().limits.sm_count) << "a persistent grid of more blocks than SMs";
      EXPECT_EQ(r.config.grid.x % r.config.cluster.x, 0u);
    } else {
      EXPECT_EQ(r.config, matmul_launch_config(k.kernel, k.configs[0], s.M, s.N, s.K));
    }
    if (k.id == "tc6_cluster_multicast") { EXPECT_EQ(r.config.cluster, (Dim3{2, 1, 1})); }
    ASSERT_TRUE(lab.download_output(got.data()).ok());
    const Verification v = verify(got.data(), ref.data(), s.M, s.N, scale);
    EXPECT_TRUE(v.passed) << "(seed " << spec.seed << "): " << v.summary();
    EXPECT_TRUE(r.check.passed()) << r.check.summary();
  }
  for (const char* id : {kCublasBf16Id, kCublasTf32Id, kCublasSgemmCeilingId}) {
    const LaunchRecord r = lab.run(id, KernelConfig{Dim3{0, 0, 0}, 0}, {});
    ASSERT_TRUE(r.ok()) << id << ": " << r.status.describe();
    ASSERT_TRUE(lab.download_output(got.data()).ok());
    EXPECT_TRUE(verify(got.data(), ref.data(), s.M, s.N, scale).passed) << id;
  }
}

}  // namespace
}  // namespace bs::matmul

namespace bs::matmul::testing {
void PrintTo(const Shape& s, std::ostream* os) { *os << s.name(); }
}  // namespace bs::matmul::testing

namespace bs::matmul {
namespace {

class GpuTc : public ::testing::TestWithParam<Shape> {};
class GpuTcSmall : public ::testing::TestWithParam<Shape> {};

TEST_P(GpuTc, EveryRungMatchesTheBf16Product) {
  REQUIRE_GPU();
  run_every_rung(*lab, GetParam());
}
TEST_P(GpuTcSmall, EveryRungMatchesTheBf16Product) {
  REQUIRE_GPU();
  run_every_rung(*lab, GetParam());
}

// T7 splits the tiles past its last whole wave only where there are more cluster tiles than
// clusters resident: 2304 x 2052 is 81 tiles of 256 x 256, past the 66 clusters of 2 an H100 or
// H200 holds, so 15 tiles of 3 k-slices are shared out: heads stored and flagged, the rest added
// by TMA reduce-add. Small enough for compute-sanitizer (tests/gpu/sanitize.sh runs it).
TEST(GpuTcSplit, T7SplitTilesMatchTheBf16Product) {
  REQUIRE_GPU();
  run_every_rung(*lab, Shape{2304, 2052, 136}, "tc7_tma_store");
}

std::string shape_name(const ::testing::TestParamInfo<Shape>& info) { return info.param.name(); }

INSTANTIATE_TEST_SUITE_P(Sizes, GpuTc,
                         ::testing::Values(Shape{1, 1, 1}, Shape{128, 256, 64}, Shape{256, 256, 64},
                                           Shape{1000, 777, 513}, Shape{129, 255, 67}, Shape{2048, 1536, 1000},
                                           Shape{513, 1031, 2}, Shape{4096, 4096, 4096}),
                         shape_name);
INSTANTIATE_TEST_SUITE_P(Sizes, GpuTcSmall, ::testing::Values(Shape{37, 53, 41}, Shape{300, 521, 129}), shape_name);

// T6 at each compiled cluster size (2, 4, 1), traced: every block's recorded cluster (%clusterid,
// %cluster_ctarank, %nclusterid, %cluster_nctarank) is the model's from its blockIdx and the
// launch's cluster dims; every cluster's blocks ran at one moment, on distinct SMs (193 KB of
// shared memory: one block per SM); the grid is whole clusters, no more than the GPU says fit at
// once (cudaOccupancyMaxActiveClusters, carried by the record); C is right. Prints each
// configuration's SM groups (SMs that shared a cluster, so lie in one GPC) and a few clusters.
TEST(GpuTcClusters, RecordedPlacementIsTheModelsAndCoScheduled) {
  REQUIRE_GPU();
  if (!is_hopper(*lab)) BS_SKIP() << "T6 needs sm_90a; " << lab->backend().limits.name << " is not a Hopper GPU";
  const MatmulKernelInfo* t6 = find_matmul_kernel("tc6_cluster_multicast");
  ASSERT_NE(t6, nullptr);
  for (const Shape& s : {Shape{4096, 4096, 4096}, Shape{1000, 777, 513}}) {
    const MatrixSpec spec{s.M, s.N, s.K, Pattern::Uniform, Pattern::Normal, (testing::test_seed() & 0xffffff) | 1};
    ASSERT_TRUE(lab->set_matrices(spec).ok()) << lab->status().describe();
    for (int config = 0; config < static_cast<int>(t6->configs.size()); ++config) {
      SCOPED_TRACE(t6->configs[static_cast<std::size_t>(config)].label + " at " + s.name());
      lab::RunOptions opt;
      opt.trace_schedule = true;
      const LaunchRecord r =
          lab->run(t6->id, KernelConfig{t6->configs[static_cast<std::size_t>(config)].block, config}, opt);
      ASSERT_TRUE(r.ok()) << r.status.describe();
      EXPECT_TRUE(r.check.passed()) << r.check.summary();
      const Dim3 c = r.config.cluster;
      EXPECT_EQ(c,
                matmul_launch_config(t6->kernel, t6->configs[static_cast<std::size_t>(config)], s.M, s.N, s.K).cluster);
      ASSERT_EQ(r.config.grid.x % c.x, 0u);
      if (c.volume() > 1) {
        EXPECT_EQ(r.clusters.note, "cudaOccupancyMaxActiveClusters");
        ASSERT_GT(r.clusters.max_active_clusters, 0);
        EXPECT_LE(r.config.grid.x / c.x, static_cast<unsigned>(r.clusters.max_active_clusters));
      } else {
        EXPECT_FALSE(r.clusters.asked()) << "no clusters launched: nothing to ask";
      }
      ASSERT_EQ(r.schedule.size(), r.config.grid.volume());
      for (const BlockTrace& b : r.schedule) {
        ASSERT_TRUE(b.cluster.has_value()) << "block " << to_string(b.block) << " recorded no cluster";
        const ClusterPlace want = mapping::cluster_place(b.block, r.config.grid, c);
        EXPECT_EQ(b.cluster->id, want.id) << to_string(b.block);
        EXPECT_EQ(b.cluster->rank, want.rank) << to_string(b.block);
        EXPECT_EQ(b.cluster->count, want.count) << to_string(b.block);
        EXPECT_EQ(b.cluster->blocks, want.blocks) << to_string(b.block);
        EXPECT_EQ(b.cluster->explicit_cluster, c.volume() > 1);
      }
      const mapping::ClusterSchedule cs = mapping::cluster_schedule(r.schedule, r.config);
      EXPECT_TRUE(cs.recorded);
      EXPECT_EQ(cs.mismatches, 0u) << cs.first_mismatch;
      EXPECT_EQ(cs.clusters.size(), r.config.grid.x / c.x);
      EXPECT_EQ(cs.co_scheduled, cs.clusters.size()) << "a cluster's blocks did not all run at one moment";
      for (const mapping::ClusterRun& run : cs.clusters) {
        const std::set<unsigned> sms(run.units.begin(), run.units.end());
        EXPECT_EQ(sms.size(), run.units.size())
            << "two blocks of one cluster on one SM: " << mapping::cluster_line(run);
      }
      std::printf("%s at %s: grid %u, %zu clusters (max active %d), %llu co-scheduled, %zu SM groups:",
                  t6->configs[static_cast<std::size_t>(config)].label.c_str(), s.name().c_str(), r.config.grid.x,
                  cs.clusters.size(), r.clusters.max_active_clusters, cs.co_scheduled, cs.sm_groups.size());
      for (std::size_t g = 0; g < cs.sm_groups.size() && g < 12; ++g) {
        std::printf(" {");
        for (std::size_t i = 0; i < cs.sm_groups[g].size(); ++i) std::printf("%s%u", i ? "," : "", cs.sm_groups[g][i]);
        std::printf("}");
      }
      std::printf("\n");
      for (std::size_t k = 0; k < cs.clusters.size() && k < 3; ++k)
        std::printf("  %s\n", mapping::cluster_line(cs.clusters[k]).c_str());
    }
  }
}

// The kernel list, and the switch back to the FP32 ladder on the same lab.
TEST(GpuTcLab, PrecisionSettingSwapsTheLadders) {
  REQUIRE_GPU();
  ASSERT_TRUE(lab->set_matrices({64, 64, 64, Pattern::Uniform, Pattern::Uniform, 3}).ok());
  EXPECT_TRUE(lab->find_kernel("tc6_cluster_multicast"));
  EXPECT_TRUE(lab->find_kernel(kCublasBf16Id));
  EXPECT_FALSE(lab->find_kernel("k7_warptile"));
  ASSERT_TRUE(lab->set_setting("precision", "fp32").ok());
  EXPECT_TRUE(lab->find_kernel("k7_warptile"));
  EXPECT_FALSE(lab->find_kernel(kCublasBf16Id));
  const LaunchRecord r = lab->run("k7_warptile", lab->default_config(*lab->find_kernel("k7_warptile")), {});
  EXPECT_TRUE(r.ok() && r.check.passed()) << r.status.describe();
  ASSERT_TRUE(lab->set_setting("precision", "bf16").ok());
}

}  // namespace
}  // namespace bs::matmul
