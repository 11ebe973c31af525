// Thread mapping against brute-force enumeration of every thread of small launches: pixel to
// block, thread, warp and lane, the inverse, edge blocks, and the block and warp footprints.
#include "mapping/thread_map.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "brute_force.hpp"
#include "labs/grayscale/gray_1d_flat.hpp"
#include "labs/grayscale/gray_2d.hpp"

namespace bs::mapping {
namespace {

using test::BruteThread;
using test::Case;

using Pixel = std::pair<int, int>;  // (y, x): sorts by row

std::set<Pixel> expand(const std::vector<RowSpan>& spans) {
  std::set<Pixel> out;
  for (const RowSpan& s : spans)
    for (int x = s.x_begin; x < s.x_end; ++x) out.emplace(s.y, x);
  return out;
}

// Spans must be sorted by (y, x), non-empty, and not overlap.
void expect_well_formed(const std::vector<RowSpan>& spans, const std::string& where) {
  for (std::size_t i = 0; i < spans.size(); ++i) {
    EXPECT_LT(spans[i].x_begin, spans[i].x_end) << where;
    if (i > 0) {
      const RowSpan& a = spans[i - 1];
      const RowSpan& b = spans[i];
      EXPECT_TRUE(a.y < b.y || (a.y == b.y && a.x_end <= b.x_begin)) << where;
    }
  }
}

TEST(ThreadMap, EveryThreadMatchesBruteForce) {
  const auto cases = test::small_cases();
  ASSERT_GT(cases.size(), 300u);
  for (const Case& k : cases) {
    const std::string where = test::describe(k);
    const LaunchConfig& c = k.config;
    // Per block: does every thread work? (the definition of a partial block)
    std::vector<char> all_work(c.grid.volume(), 1);
    test::for_each_thread(k.scheme, c, k.width, k.height, [&](const BruteThread& b) {
      if (!b.works) all_work[b.linear_block] = 0;
    });
    unsigned long long checked = 0;
    test::for_each_thread(k.scheme, c, k.width, k.height, [&](const BruteThread& b) {
      auto t = describe_thread(k.scheme, c, k.width, k.height, b.block, b.thread);
      ASSERT_TRUE(t.has_value()) << where;
      EXPECT_EQ(t->linear_block, b.linear_block) << where;
      EXPECT_EQ(t->linear_thread_in_block, b.linear_in_block) << where;
      EXPECT_EQ(t->global_linear_thread, b.linear_block * c.block.volume() + b.linear_in_block)
          << where;
      EXPECT_EQ(t->warp_in_block, b.linear_in_block / 32) << where;
      EXPECT_EQ(t->lane, b.linear_in_block % 32) << where;
      EXPECT_EQ(t->in_range, b.works) << where;
      EXPECT_EQ(t->flat_index, b.flat_index) << where;
      EXPECT_EQ(t->x, b.x) << where;
      EXPECT_EQ(t->y, b.y) << where;
      EXPECT_EQ(t->block_is_partial, !all_work[b.linear_block]) << where;
      auto p = pixel_for_thread(k.scheme, c, k.width, k.height, b.block, b.thread);
      EXPECT_EQ(p.has_value(), b.works) << where;
      if (p && b.works) {
        EXPECT_EQ(p->first, b.x) << where;
        EXPECT_EQ(p->second, b.y) << where;
      }
      ++checked;
    });
    EXPECT_EQ(checked, c.total_threads()) << where;
    if (::testing::Test::HasFailure()) return;  // one broken case is enough to read
  }
}

TEST(ThreadMap, EveryPixelFindsItsThread) {
  for (const Case& k : test::small_cases()) {
    const std::string where = test::describe(k);
    const LaunchConfig& c = k.config;
    // Expected: among the threads that compute the pixel, the one with the smallest
    // (blockIdx.z, blockIdx.y, threadIdx.z) -- the documented representative.
    std::map<Pixel, BruteThread> expected;
    test::for_each_thread(k.scheme, c, k.width, k.height, [&](const BruteThread& b) {
      if (!b.works) return;
      auto key = std::make_tuple(b.block.z, b.block.y, b.thread.z);
      auto [it, fresh] = expected.emplace(Pixel{b.y, b.x}, b);
      if (!fresh &&
          key < std::make_tuple(it->second.block.z, it->second.block.y, it->second.thread.z))
        it->second = b;
    });
    for (int y = -1; y <= k.height; ++y)
      for (int x = -1; x <= k.width; ++x) {
        auto t = thread_for_pixel(k.scheme, c, k.width, k.height, x, y);
        auto e = expected.find(Pixel{y, x});
        if (e == expected.end()) {
          EXPECT_FALSE(t.has_value()) << where << " pixel " << x << "," << y;
          continue;
        }
        ASSERT_TRUE(t.has_value()) << where << " pixel " << x << "," << y;
        EXPECT_EQ(t->block, e->second.block) << where << " pixel " << x << "," << y;
        EXPECT_EQ(t->thread, e->second.thread) << where << " pixel " << x << "," << y;
        EXPECT_TRUE(t->in_range);
        EXPECT_EQ(t->x, x);
        EXPECT_EQ(t->y, y);
      }
    if (::testing::Test::HasFailure()) return;
  }
}

TEST(ThreadMap, BlockAndWarpFootprintsAreTheirThreadsPixels) {
  for (const Case& k : test::small_cases()) {
    const std::string where = test::describe(k);
    const LaunchConfig& c = k.config;
    if (c.grid.volume() > 6000) continue;
    std::vector<std::set<Pixel>> by_block(c.grid.volume());
    std::map<std::pair<unsigned long long, unsigned>, std::set<Pixel>> by_warp;
    test::for_each_thread(k.scheme, c, k.width, k.height, [&](const BruteThread& b) {
      if (!b.works) return;
      by_block[b.linear_block].emplace(b.y, b.x);
      by_warp[{b.linear_block, static_cast<unsigned>(b.linear_in_block / 32)}].emplace(b.y, b.x);
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
              EXPECT_EQ(expand(ws), (by_warp[{id, w}]))
                  << where << " block " << to_string(b) << " warp " << w;
            }
        }
    if (::testing::Test::HasFailure()) return;
  }
}

TEST(ThreadMap, OneDimensionalBlockWrapsAcrossRows) {
  // 40 threads per block over a 17-wide image: block 1 covers flat indices 40..79, a run that
  // starts inside one row and ends inside a later one.
  const int w = 17, h = 13;
  LaunchConfig c = test::covering_config(IndexScheme::Flat1D, Dim3{40, 1, 1}, w, h);
  auto spans = block_footprint(IndexScheme::Flat1D, c, w, h, Dim3{1, 0, 0});
  ASSERT_EQ(spans.size(), 3u);  // tail of one row, a whole row, head of the next
  EXPECT_EQ(spans.front().y * w + spans.front().x_begin, 40);
  EXPECT_EQ(spans.back().y * w + spans.back().x_end, 80);
  int covered = 0;
  for (auto& s : spans) covered += s.x_end - s.x_begin;
  EXPECT_EQ(covered, 40);
}

// The lead's real kernel bodies write exactly the pixel thread_for_pixel names: run each body for
// one thread at a time on a zeroed output and see which byte it wrote.
template <class Body>
void check_against_body(IndexScheme scheme, Body body, int w, int h, Dim3 block) {
  const LaunchConfig c = test::covering_config(scheme, block, w, h);
  const int n = w * h;
  std::vector<std::uint8_t> src(3 * n, 200), out(n, 0);
  gray::GrayArgs args{src.data(), out.data(), w, h, n};
  struct Ctx {
    Dim3 blockIdx, threadIdx, blockDim, gridDim;
    void sync() const {}
  };
  for (unsigned by = 0; by < c.grid.y; ++by)
    for (unsigned bx = 0; bx < c.grid.x; ++bx)
      for (unsigned ty = 0; ty < block.y; ++ty)
        for (unsigned tx = 0; tx < block.x; ++tx) {
          Ctx t{{bx, by, 0}, {tx, ty, 0}, c.block, c.grid};
          body(t, args);
          auto hit = std::find_if(out.begin(), out.end(), [](std::uint8_t v) { return v != 0; });
          auto p = pixel_for_thread(scheme, c, w, h, t.blockIdx, t.threadIdx);
          if (hit == out.end()) {
            EXPECT_FALSE(p.has_value())
                << "thread " << to_string(t.threadIdx) << " of " << to_string(t.blockIdx);
            continue;
          }
          const int i = static_cast<int>(hit - out.begin());
          ASSERT_TRUE(p.has_value());
          EXPECT_EQ(p->first, i % w);
          EXPECT_EQ(p->second, i / w);
          auto back = thread_for_pixel(scheme, c, w, h, i % w, i / w);
          ASSERT_TRUE(back.has_value());
          EXPECT_EQ(back->block, t.blockIdx);
          EXPECT_EQ(back->thread, t.threadIdx);
          *hit = 0;
          EXPECT_TRUE(std::all_of(out.begin(), out.end(), [](std::uint8_t v) { return v == 0; }));
        }
}

TEST(ThreadMap, AgreesWithTheGrayscaleKernelBodies) {
  for (Dim3 b : {Dim3{32, 1, 1}, Dim3{7, 3, 1}, Dim3{33, 1, 1}, Dim3{16, 8, 1}, Dim3{1, 1, 1}}) {
    check_against_body(
        IndexScheme::Flat1D,
        [](const auto& t, const gray::GrayArgs& a) { gray::gray_1d_flat_thread(t, a); }, 23, 11, b);
    check_against_body(
        IndexScheme::Grid2D,
        [](const auto& t, const gray::GrayArgs& a) { gray::gray_2d_thread(t, a); }, 23, 11, b);
  }
}

TEST(ThreadMap, SchemeCheckNamesDuplicatedWork) {
  LaunchConfig c{Dim3{3, 2, 1}, Dim3{8, 8, 1}};
  EXPECT_TRUE(check_scheme(IndexScheme::Grid2D, c, 20, 10).ok());
  EXPECT_FALSE(check_scheme(IndexScheme::Flat1D, c, 20, 10).ok());  // gridDim.y = 2 repeats i
  c.block.z = 2;
  EXPECT_FALSE(check_scheme(IndexScheme::Grid2D, c, 20, 10).ok());
  EXPECT_FALSE(
      check_scheme(IndexScheme::Grid2D, LaunchConfig{Dim3{1, 1, 1}, Dim3{8, 8, 1}}, 0, 10).ok());
}

TEST(ThreadMap, OutsideTheLaunchIsNoThread) {
  const LaunchConfig c{Dim3{2, 2, 1}, Dim3{4, 4, 1}};
  EXPECT_FALSE(describe_thread(IndexScheme::Grid2D, c, 8, 8, Dim3{2, 0, 0}, Dim3{0, 0, 0}));
  EXPECT_FALSE(describe_thread(IndexScheme::Grid2D, c, 8, 8, Dim3{0, 0, 0}, Dim3{4, 0, 0}));
  EXPECT_FALSE(thread_for_pixel(IndexScheme::Grid2D, c, 8, 8, 8, 0));
  EXPECT_FALSE(thread_for_pixel(IndexScheme::Grid2D, c, 8, 8, 0, -1));
  EXPECT_TRUE(block_footprint(IndexScheme::Grid2D, c, 8, 8, Dim3{0, 2, 0}).empty());
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
