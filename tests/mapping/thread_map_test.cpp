// Thread mapping against brute-force enumeration of every thread of small launches, for every
// kind of scheme: element to block, thread, warp and lane (and pass, slot, vector lane), the
// inverse, each thread's elements, edge blocks, and the block and warp footprints.
#include "mapping/thread_map.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "brute_force.hpp"

namespace bs::mapping {
namespace {

using test::BruteThread;
using test::Case;

using Pixel = std::pair<long long, long long>;  // (y, x): sorts by row

std::set<Pixel> expand(const std::vector<RowSpan>& spans) {
  std::set<Pixel> out;
  for (const RowSpan& s : spans)
    for (long long x = s.x_begin; x < s.x_end; ++x) out.emplace(s.y, x);
  return out;
}

std::set<Pixel> expand(const std::vector<ElementRect>& rects) {
  std::set<Pixel> out;
  for (const ElementRect& r : rects)
    for (long long y = r.y; y < r.y + r.h; ++y)
      for (long long x = r.x; x < r.x + r.w; ++x) out.emplace(y, x);
  return out;
}

std::set<Pixel> pixels(const std::vector<long long>& elements, long long w) {
  std::set<Pixel> out;
  for (long long e : elements) out.emplace(e / w, e % w);
  return out;
}

// Spans must be sorted by (y, x), non-empty, and not overlap.
void expect_well_formed(const std::vector<RowSpan>& spans, const std::string& where) {
  for (std::size_t i = 0; i < spans.size(); ++i) {
    EXPECT_LT(spans[i].x_begin, spans[i].x_end) << where;
    if (i > 0) {
      const RowSpan& a = spans[i - 1];
      const RowSpan& b = spans[i];
      EXPECT_TRUE(a.y < b.y || (a.y == b.y && a.x_end < b.x_begin)) << where;
    }
  }
}

TEST(ThreadMap, EveryThreadMatchesBruteForce) {
  const auto cases = test::small_cases();
  ASSERT_GT(cases.size(), 900u);
  for (const Case& k : cases) {
    const std::string where = test::describe(k);
    const LaunchConfig& c = k.config;
    std::vector<char> all_work(c.grid.volume(), 1);
    test::for_each_thread(k.scheme, c, k.width, k.height, [&](const BruteThread& b) {
      if (!b.works()) all_work[b.linear_block] = 0;
    });
    unsigned long long checked = 0;
    test::for_each_thread(k.scheme, c, k.width, k.height, [&](const BruteThread& b) {
      auto t = describe_thread(k.scheme, c, k.width, k.height, b.block, b.thread);
      ASSERT_TRUE(t.has_value()) << where;
      EXPECT_EQ(t->linear_block, b.linear_block) << where;
      EXPECT_EQ(t->linear_thread_in_block, b.linear_in_block) << where;
      EXPECT_EQ(t->global_linear_thread, b.linear_block * c.block.volume() + b.linear_in_block) << where;
      EXPECT_EQ(t->warp_in_block, b.linear_in_block / 32) << where;
      EXPECT_EQ(t->lane, b.linear_in_block % 32) << where;
      EXPECT_EQ(t->in_range, b.works()) << where;
      if (b.works()) {
        EXPECT_EQ(t->x, b.elements.front() % k.width) << where;
        EXPECT_EQ(t->y, b.elements.front() / k.width) << where;
      }
      EXPECT_EQ(t->block_is_partial, !all_work[b.linear_block]) << where;
      EXPECT_EQ(expand(thread_elements(k.scheme, c, k.width, k.height, b.block, b.thread)), pixels(b.elements, k.width))
          << where << " thread " << to_string(b.thread) << " of block " << to_string(b.block);
      ++checked;
    });
    EXPECT_EQ(checked, c.total_threads()) << where;
    if (::testing::Test::HasFailure()) return;  // one broken case is enough to read
  }
}

TEST(ThreadMap, EveryElementFindsItsThread) {
  for (const Case& k : test::small_cases()) {
    const std::string where = test::describe(k);
    const LaunchConfig& c = k.config;
    // Expected: among the threads that store the element, the one with the smallest
    // (blockIdx.z, blockIdx.y, threadIdx.z) -- the documented representative.
    std::map<Pixel, BruteThread> expected;
    std::set<std::tuple<unsigned, unsigned, unsigned, unsigned, unsigned, unsigned>> footprint_checked;
    test::for_each_thread(k.scheme, c, k.width, k.height, [&](const BruteThread& b) {
      for (long long e : b.elements) {
        auto key = std::make_tuple(b.block.z, b.block.y, b.thread.z);
        auto [it, fresh] = expected.emplace(Pixel{e / k.width, e % k.width}, b);
        if (!fresh && key < std::make_tuple(it->second.block.z, it->second.block.y, it->second.thread.z))
          it->second = b;
      }
    });
    for (long long y = -1; y <= k.height; ++y)
      for (long long x = -1; x <= k.width; ++x) {
        auto o = owner_of(k.scheme, c, k.width, k.height, x, y);
        auto e = expected.find(Pixel{y, x});
        if (e == expected.end()) {
          EXPECT_FALSE(o.has_value()) << where << " element " << x << "," << y;
          continue;
        }
        ASSERT_TRUE(o.has_value()) << where << " element " << x << "," << y;
        EXPECT_EQ(o->thread.block, e->second.block) << where << " element " << x << "," << y;
        EXPECT_EQ(o->thread.thread, e->second.thread) << where << " element " << x << "," << y;
        EXPECT_TRUE(o->thread.in_range);
        // A thread's whole footprint is compared the first time one of its elements is met (the
        // lookup itself is still checked for every element): O(elements), not O(elements x span).
        const auto who = std::make_tuple(o->thread.block.x, o->thread.block.y, o->thread.block.z, o->thread.thread.x,
                                         o->thread.thread.y, o->thread.thread.z);
        if (footprint_checked.insert(who).second) {
          EXPECT_EQ(expand(o->owns), pixels(e->second.elements, k.width)) << where;
        }
        if (k.scheme.kind == IndexScheme::Kind::Flat && !o->scalar_edge) {
          EXPECT_EQ(o->vector_lane, static_cast<unsigned>((y * k.width + x - k.scheme.head) % k.scheme.vector))
              << where;
        }
      }
    if (::testing::Test::HasFailure()) return;
  }
}

TEST(ThreadMap, BlockAndWarpFootprintsAreTheirThreadsElements) {
  for (const Case& k : test::small_cases()) {
    const std::string where = test::describe(k);
    const LaunchConfig& c = k.config;
    if (c.grid.volume() > 6000) continue;
    std::vector<std::set<Pixel>> by_block(c.grid.volume());
    std::map<std::pair<unsigned long long, unsigned>, std::set<Pixel>> by_warp;
    test::for_each_thread(k.scheme, c, k.width, k.height, [&](const BruteThread& b) {
      for (const Pixel& p : pixels(b.elements, k.width)) {
        by_block[b.linear_block].insert(p);
        by_warp[{b.linear_block, static_cast<unsigned>(b.linear_in_block / 32)}].insert(p);
      }
    });
    const unsigned warps = static_cast<unsigned>((c.block.volume() + 31) / 32);
    unsigned long long id = 0;
    for (unsigned bz = 0; bz < c.grid.z; ++bz)
      for (unsigned by = 0; by < c.grid.y; ++by)
        for (unsigned bx = 0; bx < c.grid.x; ++bx, ++id) {
          const Dim3 b{bx, by, bz};
          auto spans = block_footprint(k.scheme, c, k.width, k.height, b);
          expect_well_formed(spans, where);
          EXPECT_EQ(expand(spans), by_block[id]) << where << " block " << to_string(b);
          if (warps <= 40 && id < 64)
            for (unsigned w = 0; w < warps; ++w) {
              auto ws = warp_footprint(k.scheme, c, k.width, k.height, b, w);
              expect_well_formed(ws, where);
              EXPECT_EQ(expand(ws), (by_warp[{id, w}])) << where << " block " << to_string(b) << " warp " << w;
            }
        }
    if (::testing::Test::HasFailure()) return;
  }
}

TEST(ThreadMap, OneDimensionalBlockWrapsAcrossRows) {
  // 40 threads per block over a 17-wide image: block 1 covers flat indices 40..79, a run that
  // starts inside one row and ends inside a later one.
  const int w = 17, h = 13;
  const IndexScheme s = IndexScheme::flat();
  LaunchConfig c = test::covering_config(s, Dim3{40, 1, 1}, w, h);
  auto spans = block_footprint(s, c, w, h, Dim3{1, 0, 0});
  ASSERT_EQ(spans.size(), 3u);  // tail of one row, a whole row, head of the next
  EXPECT_EQ(spans.front().y * w + spans.front().x_begin, 40);
  EXPECT_EQ(spans.back().y * w + spans.back().x_end, 80);
  long long covered = 0;
  for (auto& sp : spans) covered += sp.x_end - sp.x_begin;
  EXPECT_EQ(covered, 40);
}

TEST(ThreadMap, SchemeCheckNamesDuplicatedWork) {
  LaunchConfig c{Dim3{3, 2, 1}, Dim3{8, 8, 1}};
  EXPECT_TRUE(check_scheme(IndexScheme::grid2d(), c, 20, 10).ok());
  EXPECT_FALSE(check_scheme(IndexScheme::flat(), c, 20, 10).ok());  // gridDim.y = 2 repeats i
  c.block.z = 2;
  EXPECT_FALSE(check_scheme(IndexScheme::grid2d(), c, 20, 10).ok());
  EXPECT_FALSE(check_scheme(IndexScheme::grid2d(), LaunchConfig{Dim3{1, 1, 1}, Dim3{8, 8, 1}}, 0, 10).ok());
}

TEST(ThreadMap, OutsideTheLaunchIsNoThread) {
  const LaunchConfig c{Dim3{2, 2, 1}, Dim3{4, 4, 1}};
  const IndexScheme s = IndexScheme::grid2d();
  EXPECT_FALSE(describe_thread(s, c, 8, 8, Dim3{2, 0, 0}, Dim3{0, 0, 0}));
  EXPECT_FALSE(describe_thread(s, c, 8, 8, Dim3{0, 0, 0}, Dim3{4, 0, 0}));
  EXPECT_FALSE(thread_for_pixel(s, c, 8, 8, 8, 0));
  EXPECT_FALSE(thread_for_pixel(s, c, 8, 8, 0, -1));
  EXPECT_TRUE(block_footprint(s, c, 8, 8, Dim3{0, 2, 0}).empty());
  // Recorded schemes and tiles without a closed-form patch are the lab's to answer.
  EXPECT_FALSE(owner_of(IndexScheme::recorded(), c, 8, 8, 1, 1));
  EXPECT_FALSE(owner_of(IndexScheme::tiled(4, 4), c, 8, 8, 1, 1));
}

TEST(ThreadMap, LinearIdsRoundTrip) {
  for (Dim3 g : {Dim3{1, 1, 1}, Dim3{7, 3, 2}, Dim3{1, 5, 1}, Dim3{33, 1, 4}}) {
    unsigned long long id = 0;
    for (unsigned z = 0; z < g.z; ++z)
      for (unsigned y = 0; y < g.y; ++y)
        for (unsigned x = 0; x < g.x; ++x, ++id) {
          EXPECT_EQ(linear_block_id(Dim3{x, y, z}, g), id);
          EXPECT_EQ(block_from_linear(id, g), (Dim3{x, y, z}));
        }
  }
}

}  // namespace
}  // namespace bs::mapping
