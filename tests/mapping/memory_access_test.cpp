// Warp memory requests against brute force: lane addresses recomputed from the kernels' own
// index arithmetic, sectors counted byte by byte with a set.
#include "mapping/memory_access.hpp"

#include <gtest/gtest.h>

#include <map>
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
      if (rng() % 7 == 0) a[l] = kNoAccess;
      else if (trial % 2) a[l] = base + l * stride;
      else a[l] = static_cast<long long>(rng() % spread);
    }
    EXPECT_EQ(sectors_touched(a, bytes), brute_sectors(a, bytes));
    EXPECT_EQ(ideal_sectors(a, bytes), brute_ideal(a, bytes));
    const WarpAccess w = make_warp_access("x", "buf", false, bytes, a);
    EXPECT_EQ(w.sectors, w.sector_ids.size());
    EXPECT_LE(w.ideal_sectors, w.sectors);
  }
}

TEST(MemoryAccess, FlatLaneChunksAreTheThreadsElementsPassBySlot) {
  // For every flat case: the chunk each lane reaches at (pass, slot) is one of the lane's
  // elements as the brute-force loops list them, and together they are all of its body elements.
  for (const test::Case& k : test::small_cases()) {
    if (k.scheme.kind != IndexScheme::Kind::Flat || k.config.total_threads() > 20000) continue;
    const unsigned warps = static_cast<unsigned>((k.config.block.volume() + 31) / 32);
    const long long n = k.width * k.height;
    const long long body_end = n - std::min<long long>(k.scheme.tail, n - std::min<long long>(k.scheme.head, n));
    std::map<std::pair<unsigned long long, unsigned long long>, std::set<long long>> body;  // (block, thread)
    test::for_each_thread(k.scheme, k.config, k.width, k.height, [&](const test::BruteThread& t) {
      if (t.block.y || t.block.z) return;
      for (long long e : t.elements)
        if (e >= k.scheme.head && e < body_end) body[{t.block.x, t.linear_in_block}].insert(e);
    });
    for (unsigned bx = 0; bx < std::min(k.config.grid.x, 3u); ++bx)
      for (unsigned warp = 0; warp < std::min(warps, 3u); ++warp) {
        std::map<unsigned, std::set<long long>> got;
        for (long long pass = 0, any = 1; any && pass <= n; ++pass) {
          any = 0;
          for (unsigned slot = 0; slot < k.scheme.per_thread; ++slot) {
            const auto lanes =
                flat_lane_chunks(k.scheme, k.config, k.width, k.height, Dim3{bx, 0, 0}, warp, pass, slot);
            ASSERT_EQ(lanes.size(), 32u);
            for (unsigned l = 0; l < 32; ++l)
              for (long long e = lanes[l].first; e < lanes[l].first + lanes[l].count; ++e, any = 1) got[l].insert(e);
          }
        }
        for (unsigned l = 0; l < 32; ++l) {
          const unsigned long long t = warp * 32ull + l;
          if (t >= k.config.block.volume()) continue;
          EXPECT_EQ(got[l], (body[{bx, t}])) << test::describe(k) << " block " << bx << " thread " << t;
        }
      }
    if (::testing::Test::HasFailure()) return;
  }
}

}  // namespace
}  // namespace bs::mapping
