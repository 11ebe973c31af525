// The matmul lab's memory model (Lab::warp_accesses, the Memory tab): the requests a warp makes,
// against addresses and sector counts worked out here by hand from the kernels' index
// expressions, for the lecture's naive rung and the register-blocked rungs' tile loaders.
#include <gtest/gtest.h>

#include "labs/matmul/matmul_lab.hpp"
#include "simulator/grid_simulator.hpp"

namespace {

using namespace bs;

std::unique_ptr<matmul::MatmulLab> lab_256() {
  lab::Backend b;
  b.kind = BackendKind::CpuSimulation;
  b.sim_workers = 1;
  b.limits = sim::simulator_limits(1);
  auto l = matmul::MatmulLab::create(b);
  EXPECT_TRUE(l.ok());
  EXPECT_TRUE(l.value()->set_random_problem("256x256x256").ok());
  return std::move(l.value());
}

LaunchRecord plan_compiled(lab::Lab& l, const char* id, int config) {
  const lab::KernelInfo* k = l.find_kernel(id);
  EXPECT_NE(k, nullptr) << id;
  KernelConfig c;
  c.compiled = config;
  c.block = k->configs[static_cast<std::size_t>(config)].block;
  return l.plan(id, c);
}

TEST(MatmulAccesses, NaiveWarpReadsOneARowPerHalfWarpAndABRowSegment) {
  auto l = lab_256();
  KernelConfig c;
  c.block = Dim3{16, 16, 1};
  const LaunchRecord r = l->plan("k1_naive", c);
  ASSERT_TRUE(r.ok()) << r.status.describe();
  // Warp 1 of block (2, 3): threads (0..15, 2) and (0..15, 3); rows 3*16 + 2, + 3; columns 32..47.
  const auto a = l->warp_accesses(r, Dim3{2, 3, 0}, 1, 5);
  ASSERT_EQ(a.size(), 3u);
  EXPECT_EQ(a[0].lane_address[0], (50LL * 256 + 5) * 4);   // A[50][5]
  EXPECT_EQ(a[0].lane_address[16], (51LL * 256 + 5) * 4);  // A[51][5]
  EXPECT_EQ(a[0].sectors, 2u);
  EXPECT_EQ(a[1].lane_address[7], (5LL * 256 + 39) * 4);  // B[5][39]
  EXPECT_EQ(a[1].sectors, 2u);                            // 64 bytes at 128-byte offset
  EXPECT_TRUE(a[2].is_write);
  EXPECT_EQ(a[2].lane_address[31], (51LL * 256 + 47) * 4);
}

TEST(MatmulAccesses, Rung4LoadsRowsOfTheATileAndARowOfTheBTile) {
  // k4 config 0: BM = BN = 64, BK = 8, TM = 8: 512 threads. Phase k = 13 -> k0 = 8. Warp 0:
  // A items 0..31: r = i / 8, c = i % 8 -> 4 rows of 8 floats = 4 sectors. B items 0..31: row
  // k0, columns 0..31 -> 128 contiguous bytes = 4 sectors. Stores: (row0 + (tid / 64) * 8,
  // col0 + tid % 64) -> one row of 32 floats.
  auto l = lab_256();
  const LaunchRecord r = plan_compiled(*l, "k4_blocktile_1d", 0);
  ASSERT_TRUE(r.ok()) << r.status.describe();
  const auto a = l->warp_accesses(r, Dim3{1, 2, 0}, 0, 13);
  ASSERT_EQ(a.size(), 3u);
  EXPECT_EQ(a[0].buffer, "A");
  EXPECT_EQ(a[0].lane_address[9], ((128LL + 1) * 256 + 8 + 1) * 4);  // A[row0 + 1][k0 + 1]
  EXPECT_EQ(a[0].sectors, 4u);
  EXPECT_EQ(a[0].ideal_sectors, 4u);
  EXPECT_EQ(a[1].buffer, "B");
  EXPECT_EQ(a[1].lane_address[31], (8LL * 256 + 64 + 31) * 4);  // B[k0][col0 + 31]
  EXPECT_EQ(a[1].sectors, 4u);
  EXPECT_TRUE(a[2].is_write);
  EXPECT_EQ(a[2].lane_address[5], (128LL * 256 + 64 + 5) * 4);
}

TEST(MatmulAccesses, Rung6LoadsFloat4sAndRung7StoresItsFragments) {
  // k6 config 0: BM = BN = 128, BK = 8: 256 threads, one float4 of A each: r = i / 2, c = (i % 2) * 4
  // -> 16 rows x 32 bytes = 16 sectors for warp 0; B: row k0, 32 float4s = 512 bytes = 16 sectors.
  auto l = lab_256();
  const LaunchRecord r6 = plan_compiled(*l, "k6_vectorized", 0);
  ASSERT_TRUE(r6.ok()) << r6.status.describe();
  const auto a = l->warp_accesses(r6, Dim3{0, 0, 0}, 0, 0);
  ASSERT_GE(a.size(), 2u);
  EXPECT_EQ(a[0].element_bytes, 16u);
  EXPECT_EQ(a[0].lane_address[3], (1LL * 256 + 4) * 4);  // A[1][4]
  EXPECT_EQ(a[0].sectors, 16u);
  EXPECT_EQ(a[1].sectors, 16u);
  // Rung 7: every lane of a warp stores, and each store lies inside the warp's tile of C.
  const LaunchRecord r7 = plan_compiled(*l, "k7_warptile", 0);
  ASSERT_TRUE(r7.ok()) << r7.status.describe();
  const auto w = l->warp_accesses(r7, Dim3{1, 1, 0}, 3, 0);
  ASSERT_FALSE(w.empty());
  const auto& store = w.back();
  ASSERT_TRUE(store.is_write);
  EXPECT_EQ(store.active_lanes, 32u);
  for (long long at : store.lane_address) {
    const long long e = at / 4, row = e / 256, col = e % 256;
    EXPECT_GE(row, 128);
    EXPECT_LT(row, 256);
    EXPECT_GE(col, 128);
    EXPECT_LT(col, 256);
  }
}

}  // namespace
