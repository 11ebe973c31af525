// Warp memory requests against brute force: lane addresses recomputed from the kernels' own
// index arithmetic, sectors counted byte by byte with a set.
#include "mapping/memory_access.hpp"

#include <gtest/gtest.h>

#include <random>
#include <set>

#include "brute_force.hpp"

namespace bs::mapping {
namespace {

unsigned brute_sectors(const std::vector<long long>& a, unsigned bytes) {
  std::set<long long> s;
  for (long long v : a)
    if (v >= 0)
      for (unsigned b = 0; b < bytes; ++b) s.insert((v + b) / 32);
  return static_cast<unsigned>(s.size());
}

unsigned brute_ideal(const std::vector<long long>& a, unsigned bytes) {
  std::set<long long> s;
  for (long long v : a)
    if (v >= 0)
      for (unsigned b = 0; b < bytes; ++b) s.insert(v + b);
  return static_cast<unsigned>((s.size() + 31) / 32);
}

TEST(MemoryAccess, SectorCountsMatchBruteForceOnRandomAddresses) {
  std::mt19937_64 rng(std::random_device{}());
  for (int trial = 0; trial < 3000; ++trial) {
    const unsigned bytes = std::vector<unsigned>{1, 2, 4, 8, 16}[rng() % 5];
    const long long spread = std::vector<long long>{8, 64, 256, 4096, 1 << 20}[rng() % 5];
    const long long stride = static_cast<long long>(rng() % 130);
    const long long base = static_cast<long long>(rng() % 4096);
    std::vector<long long> a(32);
    for (unsigned l = 0; l < 32; ++l) {
      if (rng() % 7 == 0)
        a[l] = kNoAccess;
      else if (trial % 2)
        a[l] = base + l * stride;
      else
        a[l] = static_cast<long long>(rng() % spread);
    }
    EXPECT_EQ(sectors_touched(a, bytes), brute_sectors(a, bytes));
    EXPECT_EQ(ideal_sectors(a, bytes), brute_ideal(a, bytes));
    const WarpAccess w = make_warp_access("x", "buf", false, bytes, a);
    EXPECT_EQ(w.sectors, w.sector_ids.size());
    EXPECT_LE(w.ideal_sectors, w.sectors);
  }
}

// The lanes of warp `warp` of block `b` and the element each computes, enumerated without mapping.
std::vector<test::BruteThread> brute_warp(IndexScheme s, const LaunchConfig& c, int w, int h,
                                          Dim3 b, unsigned warp) {
  std::vector<test::BruteThread> lanes;
  test::for_each_thread(s, c, w, h, [&](const test::BruteThread& t) {
    if (t.block == b && t.linear_in_block / 32 == warp) lanes.push_back(t);
  });
  return lanes;
}

TEST(MemoryAccess, GrayscaleLaneAddressesMatchTheKernels) {
  for (const test::Case& k : test::small_cases()) {
    if (k.config.total_threads() > 20000 || k.scheme == IndexScheme::Grid2DTransposed) continue;
    const long long n = 1ll * k.width * k.height;
    const unsigned warps = static_cast<unsigned>((k.config.block.volume() + 31) / 32);
    for (unsigned bx = 0; bx < std::min(k.config.grid.x, 3u); ++bx)
      for (unsigned warp = 0; warp < std::min(warps, 3u); ++warp) {
        const Dim3 b{bx, k.config.grid.y - 1, 0};
        auto got = gray_warp_accesses(k.scheme, k.config, k.width, k.height, b, warp);
        auto lanes = brute_warp(k.scheme, k.config, k.width, k.height, b, warp);
        ASSERT_EQ(got.size(), 4u) << test::describe(k);
        for (int plane = 0; plane < 4; ++plane) {
          std::vector<long long> expected(32, kNoAccess);
          for (const auto& t : lanes)
            if (t.works)
              expected[t.linear_in_block % 32] =
                  (plane == 3 ? 0 : plane) * n + (1ll * t.y * k.width + t.x);
          EXPECT_EQ(got[plane].lane_address, expected) << test::describe(k) << " plane " << plane;
          EXPECT_EQ(got[plane].sectors, brute_sectors(expected, 1));
          EXPECT_EQ(got[plane].ideal_sectors, brute_ideal(expected, 1));
          EXPECT_EQ(got[plane].is_write, plane == 3);
        }
      }
    if (::testing::Test::HasFailure()) return;
  }
}

TEST(MemoryAccess, MatmulMappingsShowTheCoalescingGap) {
  std::mt19937 rng(std::random_device{}());
  for (int trial = 0; trial < 40; ++trial) {
    const int M = 33 + static_cast<int>(rng() % 90), N = 33 + static_cast<int>(rng() % 90),
              K = 9 + static_cast<int>(rng() % 70);
    const int k = static_cast<int>(rng() % K);
    const Dim3 block{32, 1 + static_cast<unsigned>(rng() % 8), 1};
    for (MatmulMapping m : {MatmulMapping::RowFromY, MatmulMapping::RowFromX}) {
      const IndexScheme s = scheme_for(m);
      const LaunchConfig c = test::covering_config(s, block, N, M);
      const Dim3 b{static_cast<unsigned>(rng() % c.grid.x), static_cast<unsigned>(rng() % c.grid.y),
                   0};
      const unsigned warp = static_cast<unsigned>(rng() % ((block.volume() + 31) / 32));
      auto got = matmul_warp_accesses(m, c, M, N, K, b, warp, k);
      ASSERT_EQ(got.size(), 3u);
      std::vector<long long> ea(32, kNoAccess), eb(32, kNoAccess), ec(32, kNoAccess);
      for (const auto& t : brute_warp(s, c, N, M, b, warp)) {
        if (!t.works) continue;
        const long long row = t.y, col = t.x;
        ea[t.linear_in_block % 32] = (row * K + k) * 4;
        eb[t.linear_in_block % 32] = (1ll * k * N + col) * 4;
        ec[t.linear_in_block % 32] = (row * N + col) * 4;
      }
      EXPECT_EQ(got[0].lane_address, ea);
      EXPECT_EQ(got[1].lane_address, eb);
      EXPECT_EQ(got[2].lane_address, ec);
      for (int r = 0; r < 3; ++r) {
        EXPECT_EQ(got[r].sectors, brute_sectors(got[r].lane_address, 4));
        EXPECT_EQ(got[r].ideal_sectors, brute_ideal(got[r].lane_address, 4));
      }
      // The lesson: with the row from x, a full warp of distinct rows reads A with one sector per
      // lane; with the row from y, A is one broadcast address.
      if (got[0].active_lanes == 32) {
        if (m == MatmulMapping::RowFromX)
          EXPECT_EQ(got[0].sectors, 32u);
        else
          EXPECT_EQ(got[0].sectors, 1u);
      }
    }
  }
}

TEST(MemoryAccess, MissingWarpHasNoRequests) {
  const LaunchConfig c{Dim3{2, 1, 1}, Dim3{40, 1, 1}};
  EXPECT_TRUE(gray_warp_accesses(IndexScheme::Flat1D, c, 10, 8, Dim3{0, 0, 0}, 2).empty());
  EXPECT_EQ(gray_warp_accesses(IndexScheme::Flat1D, c, 10, 8, Dim3{0, 0, 0}, 1).size(), 4u);
  EXPECT_TRUE(
      matmul_warp_accesses(MatmulMapping::RowFromY, c, 4, 4, 4, Dim3{0, 0, 0}, 0, 4).empty());
}

}  // namespace
}  // namespace bs::mapping
