// The reference for the mapping tests: run the launch the slow way, every block and every thread
// in CUDA's numbering order, listing each thread's elements the way a kernel's loops reach them
// (the head, then pass by pass and chunk by chunk, then the tail). Nothing here calls
// bs::mapping; the tests compare mapping's inverses and totals (owner, footprints, statistics)
// with these forward enumerations.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/index_scheme.hpp"
#include "core/launch.hpp"

namespace bs::mapping::test {

struct BruteThread {
  Dim3 block, thread;
  unsigned long long linear_block;     // counted in launch order (x fastest)
  unsigned long long linear_in_block;  // counted in launch order (x fastest)
  std::vector<long long> elements;     // flat indices the thread stores, in the order it does
  bool works() const { return !elements.empty(); }
};

// Calls f(const BruteThread&) for every thread of the launch.
template <class F>
void for_each_thread(const IndexScheme& s, const LaunchConfig& c, long long w, long long h, F&& f) {
  const long long n = w * h;
  const long long T = static_cast<long long>(c.block.volume());
  unsigned long long linear_block = 0;
  for (unsigned bz = 0; bz < c.grid.z; ++bz)
    for (unsigned by = 0; by < c.grid.y; ++by)
      for (unsigned bx = 0; bx < c.grid.x; ++bx, ++linear_block) {
        unsigned long long counter = 0;
        for (unsigned tz = 0; tz < c.block.z; ++tz)
          for (unsigned ty = 0; ty < c.block.y; ++ty)
            for (unsigned tx = 0; tx < c.block.x; ++tx, ++counter) {
              BruteThread t{{bx, by, bz}, {tx, ty, tz}, linear_block, counter, {}};
              switch (s.kind) {
                case IndexScheme::Kind::Flat: {
                  // A flat kernel's loops: g = blockIdx.x * T + thread; the scalar head; then,
                  // for every pass of the grid, per_thread chunks of `vector` elements T chunks
                  // apart; then the scalar tail.
                  const long long head = std::min<long long>(s.head, n);
                  const long long tail = std::min<long long>(s.tail, n - head);
                  const long long V = s.vector, K = s.per_thread, G = static_cast<long long>(c.grid.x) * T;
                  const long long g = static_cast<long long>(bx) * T + static_cast<long long>(counter);
                  // Scalar head and tail elements: element e belongs to thread e (e mod G in a
                  // grid-stride kernel, whose loop also steps over them a grid at a time).
                  for (long long e = g; e < head; e += G) {
                    t.elements.push_back(e);
                    if (!s.grid_stride) break;
                  }
                  for (long long base = static_cast<long long>(bx) * T * K;; base += G * K) {
                    bool any = false;
                    for (long long j = 0; j < K; ++j) {
                      const long long first = head + (base + j * T + static_cast<long long>(counter)) * V;
                      for (long long e = first; e < first + V && e < n - tail; ++e) {
                        t.elements.push_back(e);
                        any = true;
                      }
                    }
                    if (!s.grid_stride || !any) break;
                  }
                  for (long long e = g; e < tail; e += G) {
                    t.elements.push_back(n - tail + e);
                    if (!s.grid_stride) break;
                  }
                  break;
                }
                case IndexScheme::Kind::Grid2D:
                case IndexScheme::Kind::Grid2DTransposed: {
                  const long long gx = static_cast<long long>(bx) * c.block.x + tx;
                  const long long gy = static_cast<long long>(by) * c.block.y + ty;
                  const bool plain = s.kind == IndexScheme::Kind::Grid2D;
                  const long long col = plain ? gx : gy, row = plain ? gy : gx;
                  if (col < w && row < h) t.elements.push_back(row * w + col);
                  break;
                }
                case IndexScheme::Kind::Tiled: {
                  // Patches numbered row-major over the block's tile.
                  const long long per_row = s.tile_w / s.thread_w;
                  const long long x0 =
                      static_cast<long long>(bx) * s.tile_w + static_cast<long long>(counter % per_row) * s.thread_w;
                  const long long y0 =
                      static_cast<long long>(by) * s.tile_h + static_cast<long long>(counter / per_row) * s.thread_h;
                  for (long long y = y0; y < y0 + s.thread_h; ++y)
                    for (long long x = x0; x < x0 + s.thread_w; ++x)
                      if (x < w && y < h) t.elements.push_back(y * w + x);
                  break;
                }
                case IndexScheme::Kind::Recorded: break;
              }
              f(t);
            }
      }
}

// A small launch to test: data shape, block, grid, and the scheme.
struct Case {
  IndexScheme scheme;
  long long width, height;
  LaunchConfig config;
};

// The grid the labs use: enough blocks to cover the data once (grid-stride kernels: a small
// fixed grid, so the loop really loops).
inline LaunchConfig covering_config(const IndexScheme& s, Dim3 block, long long w, long long h) {
  LaunchConfig c;
  c.block = block;
  const unsigned long long T = block.volume();
  switch (s.kind) {
    case IndexScheme::Kind::Flat: {
      const long long n = w * h;
      const long long body =
          std::max<long long>(0, n - std::min<long long>(s.head, n) - std::min<long long>(s.tail, n));
      const unsigned long long chunks = (body + s.vector - 1) / s.vector;
      unsigned long long blocks = std::max<unsigned long long>(1, (chunks + T * s.per_thread - 1) / (T * s.per_thread));
      if (s.grid_stride) blocks = std::min<unsigned long long>(blocks, 2);
      c.grid = Dim3{static_cast<unsigned>(blocks), 1, 1};
      break;
    }
    case IndexScheme::Kind::Grid2D:
      c.grid = Dim3{static_cast<unsigned>((w + block.x - 1) / block.x),
                    static_cast<unsigned>((h + block.y - 1) / block.y), 1};
      break;
    case IndexScheme::Kind::Grid2DTransposed:
      c.grid = Dim3{static_cast<unsigned>((h + block.x - 1) / block.x),
                    static_cast<unsigned>((w + block.y - 1) / block.y), 1};
      break;
    case IndexScheme::Kind::Tiled:
      c.grid = Dim3{static_cast<unsigned>((w + s.tile_w - 1) / s.tile_w),
                    static_cast<unsigned>((h + s.tile_h - 1) / s.tile_h), 1};
      break;
    case IndexScheme::Kind::Recorded: break;
  }
  return c;
}

inline IndexScheme flat(unsigned vector, unsigned per_thread, bool stride, long long head, long long tail) {
  IndexScheme s;
  s.vector = vector;
  s.per_thread = per_thread;
  s.grid_stride = stride;
  s.head = head;
  s.tail = tail;
  return s;
}

// Odd data shapes x many block shapes x the schemes (the lecture's flat and 2D, the transposed
// 2D, flat with vector accesses, several chunks per thread, grid-stride loops and scalar heads
// and tails, register-blocked tiles), with covering grids, plus grids that are too large (empty
// blocks), too small (uncovered elements) and with extra y/z extent (duplicated work). Kept
// small enough that every thread can be enumerated.
inline std::vector<Case> small_cases() {
  const std::vector<std::pair<int, int>> shapes = {{1, 1},  {5, 3},  {17, 13}, {31, 9},   {64, 2},
                                                   {33, 1}, {1, 47}, {40, 25}, {1, 5000}, {5000, 1}};
  const std::vector<Dim3> blocks = {{1, 1, 1},    {7, 3, 1}, {33, 1, 1},   {32, 1, 1}, {32, 33, 1}, {16, 16, 1},
                                    {1, 32, 1},   {3, 1, 1}, {64, 1, 1},   {1, 5, 1},  {5, 7, 2},   {96, 1, 1},
                                    {1000, 1, 1}, {8, 4, 1}, {1, 1024, 1}, {9, 7, 1},  {31, 1, 1}};
  const std::vector<IndexScheme> schemes = {
      IndexScheme::flat(),      IndexScheme::grid2d(),   IndexScheme::grid2d_transposed(), flat(4, 1, false, 0, 0),
      flat(16, 1, false, 5, 3), flat(1, 3, false, 0, 0), flat(4, 2, true, 0, 0),           flat(16, 1, true, 7, 9)};
  std::vector<Case> cases;
  for (auto [w, h] : shapes)
    for (const Dim3& b : blocks)
      for (const IndexScheme& s : schemes) {
        const LaunchConfig c = covering_config(s, b, w, h);
        // Keep enumeration cheap: the huge 1D-in-2D shapes only with small blocks.
        if (c.total_threads() > 400000) continue;
        cases.push_back({s, w, h, c});
      }
  for (auto [w, h] : std::vector<std::pair<int, int>>{{17, 13}, {40, 25}, {5, 3}})
    for (auto [tw, th, pw, ph] : std::vector<std::array<unsigned, 4>>{{8, 8, 1, 4}, {16, 8, 4, 2}, {32, 32, 4, 4}}) {
      const IndexScheme s = IndexScheme::tiled(tw, th, pw, ph);
      const Dim3 b{(tw / pw) * (th / ph), 1, 1};
      cases.push_back({s, w, h, covering_config(s, b, w, h)});
    }
  // Oversized, undersized and duplicating grids.
  for (const IndexScheme& s : schemes) {
    LaunchConfig c = covering_config(s, Dim3{7, 3, 1}, 17, 13);
    LaunchConfig big = c;
    big.grid.x += 2;
    big.grid.y += 1;
    cases.push_back({s, 17, 13, big});
    LaunchConfig small = c;
    small.grid.x = std::max(1u, c.grid.x - 1);
    cases.push_back({s, 17, 13, small});
    LaunchConfig dup = c;
    dup.grid.z = 2;
    if (s.kind == IndexScheme::Kind::Flat) dup.grid.y = 3;
    cases.push_back({s, 17, 13, dup});
  }
  return cases;
}

inline std::string describe(const Case& k) {
  return bs::describe(k.scheme) + " data " + std::to_string(k.width) + "x" + std::to_string(k.height) + " grid " +
         to_string(k.config.grid) + " block " + to_string(k.config.block);
}

}  // namespace bs::mapping::test
