// The reference for the mapping tests: run the launch the slow way, every block and every thread
// in CUDA's numbering order, computing each thread's element exactly as the kernels write it.
// Nothing here calls bs::mapping; the tests compare mapping's answers with these.
#pragma once
#include <cstdint>
#include <vector>

#include "core/launch.hpp"
#include "mapping/thread_map.hpp"

namespace bs::mapping::test {

struct BruteThread {
  Dim3 block, thread;
  unsigned long long linear_block;     // counted in launch order (x fastest)
  unsigned long long linear_in_block;  // counted in launch order (x fastest)
  long long flat_index;                // as the kernel computes it (-1 for 2D threads off the data)
  bool works;
  int x, y;  // the element it computes, -1 when idle
};

// Calls f(const BruteThread&) for every thread of the launch.
template <class F>
void for_each_thread(IndexScheme scheme, const LaunchConfig& c, int width, int height, F&& f) {
  const long long w = width, h = height;
  unsigned long long linear_block = 0;
  for (unsigned bz = 0; bz < c.grid.z; ++bz)
    for (unsigned by = 0; by < c.grid.y; ++by)
      for (unsigned bx = 0; bx < c.grid.x; ++bx, ++linear_block) {
        unsigned long long counter = 0;
        for (unsigned tz = 0; tz < c.block.z; ++tz)
          for (unsigned ty = 0; ty < c.block.y; ++ty)
            for (unsigned tx = 0; tx < c.block.x; ++tx, ++counter) {
              BruteThread t{{bx, by, bz}, {tx, ty, tz}, linear_block, counter, -1, false, -1, -1};
              if (scheme == IndexScheme::Flat1D) {
                // i = blockIdx.x * (blockDim.x*y*z) + linear thread id
                const long long i = static_cast<long long>(bx) * c.block.x * c.block.y * c.block.z +
                                    static_cast<long long>(counter);
                t.flat_index = i;
                if (i < w * h) {
                  t.works = true;
                  t.x = static_cast<int>(i % w);
                  t.y = static_cast<int>(i / w);
                }
              } else {
                const long long gx = static_cast<long long>(bx) * c.block.x + tx;
                const long long gy = static_cast<long long>(by) * c.block.y + ty;
                const long long col = scheme == IndexScheme::Grid2D ? gx : gy;
                const long long row = scheme == IndexScheme::Grid2D ? gy : gx;
                if (col < w && row < h) {
                  t.works = true;
                  t.x = static_cast<int>(col);
                  t.y = static_cast<int>(row);
                  t.flat_index = row * w + col;
                }
              }
              f(t);
            }
      }
}

// A small launch to test: data shape, block, grid, and the scheme.
struct Case {
  IndexScheme scheme;
  int width, height;
  LaunchConfig config;
};

// The grid the launchers use: ceil-div over the data in the mapped directions.
inline LaunchConfig covering_config(IndexScheme scheme, Dim3 block, int width, int height) {
  LaunchConfig c;
  c.block = block;
  const unsigned long long w = width, h = height;
  switch (scheme) {
    case IndexScheme::Flat1D:
      c.grid = Dim3{static_cast<unsigned>((w * h + block.volume() - 1) / block.volume()), 1, 1};
      break;
    case IndexScheme::Grid2D:
      c.grid = Dim3{static_cast<unsigned>((w + block.x - 1) / block.x),
                    static_cast<unsigned>((h + block.y - 1) / block.y), 1};
      break;
    case IndexScheme::Grid2DTransposed:
      c.grid = Dim3{static_cast<unsigned>((h + block.x - 1) / block.x),
                    static_cast<unsigned>((w + block.y - 1) / block.y), 1};
      break;
  }
  return c;
}

// Odd data shapes x many block shapes x the three schemes, with covering grids, plus grids that
// are too large (empty blocks), too small (uncovered pixels) and with extra y/z extent
// (duplicated work). Kept small enough that every thread can be enumerated.
inline std::vector<Case> small_cases() {
  const std::vector<std::pair<int, int>> shapes = {
      {1, 1}, {5, 3}, {17, 13}, {31, 9}, {64, 2}, {33, 1}, {1, 47}, {40, 25}, {1, 5000}, {5000, 1}};
  const std::vector<Dim3> blocks = {{1, 1, 1},   {7, 3, 1},  {33, 1, 1},   {32, 1, 1}, {32, 33, 1},
                                    {16, 16, 1}, {1, 32, 1}, {3, 1, 1},    {64, 1, 1}, {1, 5, 1},
                                    {5, 7, 2},   {96, 1, 1}, {1000, 1, 1}, {8, 4, 1},  {1, 1024, 1},
                                    {9, 7, 1},   {31, 1, 1}};
  const IndexScheme schemes[] = {IndexScheme::Flat1D, IndexScheme::Grid2D,
                                 IndexScheme::Grid2DTransposed};
  std::vector<Case> cases;
  for (auto [w, h] : shapes)
    for (const Dim3& b : blocks)
      for (IndexScheme s : schemes) {
        const LaunchConfig c = covering_config(s, b, w, h);
        // Keep enumeration cheap: the huge 1D-in-2D shapes only with small blocks.
        if (c.total_threads() > 400000) continue;
        cases.push_back({s, w, h, c});
      }
  // Oversized, undersized and duplicating grids.
  for (IndexScheme s : schemes) {
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
    if (s == IndexScheme::Flat1D) dup.grid.y = 3;
    cases.push_back({s, 17, 13, dup});
  }
  return cases;
}

inline std::string describe(const Case& k) {
  return std::string(to_string(k.scheme)) + " data " + std::to_string(k.width) + "x" +
         std::to_string(k.height) + " grid " + to_string(k.config.grid) + " block " +
         to_string(k.config.block);
}

}  // namespace bs::mapping::test
