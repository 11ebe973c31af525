// The tensor-core hierarchy of an element of C (matmul_fragments.hpp: the hover's lines, the fed
// operands, the overlay's keys) against maps built the other way round: every (thread, register)
// of a block run FORWARD through the PTX ISA's layout functions (tc_common.hpp) to the element it
// holds, the way the kernels' epilogues index C, never through fragment_place or owner().
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "labs/matmul/matmul.hpp"
#include "labs/matmul/matmul_fragments.hpp"

namespace bs::matmul {
namespace {

struct Held {
  int thread = -1, reg = -1;
};

// Block tile rows x cols -> who holds each element, from the layouts forward.
struct Forward {
  int rows = 0, cols = 0;
  std::vector<Held> at;
  int hits = 0;
  void put(int r, int c, int thread, int reg) {
    Held& h = at[static_cast<std::size_t>(r) * cols + c];
    EXPECT_EQ(h.thread, -1) << "element (" << r << ", " << c << ") held twice";
    h = {thread, reg};
    ++hits;
  }
  const Held& get(int r, int c) const { return at[static_cast<std::size_t>(r) * cols + c]; }
};

Forward forward_map(MatmulKernel k) {
  Forward f;
  switch (k) {
    case MatmulKernel::Tc1Wmma:  // 4 warps of 2 x 2 fragments, each two m16n8 halves
      f.rows = f.cols = 64;
      f.at.resize(64 * 64);
      for (int w = 0; w < 4; ++w)
        for (int l = 0; l < 32; ++l)
          for (int i = 0; i < 2; ++i)
            for (int j = 0; j < 2; ++j)
              for (int h = 0; h < 2; ++h)
                for (int e = 0; e < 4; ++e) {
                  const FragCoord c = mma_c_coord(l, e);
                  f.put((w >> 1) * 32 + i * 16 + c.row, (w & 1) * 32 + j * 16 + 8 * h + c.col, w * 32 + l,
                        (i * 2 + j) * 8 + 4 * h + e);
                }
      break;
    case MatmulKernel::Tc2MmaSync:  // 8 warps (2 x 4) of 64 x 32, 4 x 4 mma tiles, acc[i][j][e]
      f.rows = f.cols = 128;
      f.at.resize(128 * 128);
      for (int w = 0; w < 8; ++w)
        for (int l = 0; l < 32; ++l)
          for (int i = 0; i < 4; ++i)
            for (int j = 0; j < 4; ++j)
              for (int e = 0; e < 4; ++e) {
                const FragCoord c = mma_c_coord(l, e);
                f.put((w / 4) * 64 + i * 16 + c.row, (w % 4) * 32 + j * 8 + c.col, w * 32 + l, i * 16 + j * 4 + e);
              }
      break;
    case MatmulKernel::Tc3Wgmma:  // one warpgroup, d[2][64]
      f.rows = f.cols = 128;
      f.at.resize(128 * 128);
      for (int m = 0; m < 2; ++m)
        for (int t = 0; t < 128; ++t)
          for (int r = 0; r < 64; ++r) {
            const FragCoord c = wgmma_d_coord(t, r);
            f.put(64 * m + c.row, c.col, t, m * 64 + r);
          }
      break;
    default:  // T4..T6: consumers 0, 1 = warpgroups 1, 2, d[128]
      f.rows = 128, f.cols = 256;
      f.at.resize(128 * 256);
      for (int cons = 0; cons < 2; ++cons)
        for (int t = 0; t < 128; ++t)
          for (int r = 0; r < 128; ++r) {
            const FragCoord c = wgmma_d_coord(t, r);
            f.put(64 * cons + c.row, c.col, 128 * (1 + cons) + t, r);
          }
      break;
  }
  EXPECT_EQ(f.hits, f.rows * f.cols) << "the layouts leave elements unheld";
  return f;
}

constexpr MatmulKernel kTensorRungs[] = {MatmulKernel::Tc1Wmma,       MatmulKernel::Tc2MmaSync,
                                         MatmulKernel::Tc3Wgmma,      MatmulKernel::Tc4WarpSpecialized,
                                         MatmulKernel::Tc5Persistent, MatmulKernel::Tc6ClusterMulticast};

TEST(MatmulFragments, PlaceOfEveryElementMatchesTheLayoutsRunForward) {
  for (MatmulKernel k : kTensorRungs) {
    const Forward f = forward_map(k);
    int wrong = 0;
    for (int r = 0; r < f.rows; ++r)
      for (int c = 0; c < f.cols; ++c) {
        auto p = fragment_place(k, r, c);
        ASSERT_TRUE(p) << p.status().message;
        const Held& h = f.get(r, c);
        if (static_cast<int>(p->thread) != h.thread || p->reg != h.reg ||
            p->lane != static_cast<unsigned>(h.thread % 32) || p->warp != static_cast<unsigned>(h.thread / 32)) {
          if (++wrong <= 5)
            ADD_FAILURE() << matmul_kernel_info(k).id << " (" << r << ", " << c << "): model thread " << p->thread
                          << " reg " << p->reg << ", layouts say thread " << h.thread << " reg " << h.reg;
        }
        // The instruction tile holds the element.
        EXPECT_TRUE(r >= p->tile_r && r < p->tile_r + p->mma_m && c >= p->tile_c && c < p->tile_c + p->mma_n);
        if (p->warpgroup >= 0) { EXPECT_EQ(p->warpgroup, h.thread / 128); }
      }
    EXPECT_EQ(wrong, 0) << matmul_kernel_info(k).id;
  }
  // T1: the lane that stores an element is the epilogue's (lane l copies elements l, l + 32, ...
  // of each 16 x 16 fragment), not the lane that accumulated it.
  std::map<std::pair<int, int>, int> store;
  for (int lane = 0; lane < 32; ++lane)
    for (int e = lane; e < 256; e += 32) store[{e >> 4, e & 15}] = lane;
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 16; ++c)
      EXPECT_EQ(fragment_place(MatmulKernel::Tc1Wmma, 16 + r, 48 + c)->store_lane, (store[{r, c}]));
  EXPECT_FALSE(fragment_place(MatmulKernel::Warptile, 0, 0));
  EXPECT_FALSE(fragment_place(MatmulKernel::Tc2MmaSync, 128, 0));
}

// The hover's lines at odd sizes: block, warp, lane, register and k-steps against the forward map
// and the kernels' K loops counted here.
void check_hover(MatmulKernel k, int M, int N, int K, std::uint32_t seed) {
  const Forward f = forward_map(k);
  const MatmulConfig config = matmul_kernel_info(k).configs.at(0);
  const LaunchConfig lc = matmul_launch_config(k, config, M, N, K);
  const int bk = k == MatmulKernel::Tc2MmaSync ? 32 : 64;
  int steps = 0;
  for (int k0 = 0; k0 < K; k0 += bk)
    for (int kk = 0; kk < bk; kk += 16) ++steps;
  std::mt19937 rng(seed);
  for (int trial = 0; trial < 60; ++trial) {
    const int row = static_cast<int>(rng() % static_cast<unsigned>(M)),
              col = static_cast<int>(rng() % static_cast<unsigned>(N));
    const int step = static_cast<int>(rng() % 40);
    auto h = fragment_hierarchy(k, config, lc, M, N, K, row, col, step);
    ASSERT_TRUE(h) << h.status().message;
    std::string all;
    for (const std::string& l : h->lines) all += l + "\n";
    const Held& held = f.get(row % f.rows, col % f.cols);
    auto has = [&](const std::string& s) {
      EXPECT_NE(all.find(s), std::string::npos) << "C[" << row << "][" << col << "]: no '" << s << "' in\n" << all;
    };
    has("block (" + std::to_string(col / f.cols) + ", " + std::to_string(row / f.rows) + ")");
    has("warp " + std::to_string(held.thread / 32) +
        (k == MatmulKernel::Tc3Wgmma ? " (warp " + std::to_string(held.thread / 32 % 4) + " of its warpgroup)" : "") +
        ", lane " + std::to_string(held.thread % 32) + ", thread " + std::to_string(held.thread));
    has("accumulator register " + std::to_string(held.reg) + " ");
    const int shown = std::min(step, steps - 1);
    has("k-step " + std::to_string(shown) + " of " + std::to_string(steps) + " (k " + std::to_string(16 * shown) +
        "..");
    if (k == MatmulKernel::Tc3Wgmma) {
      has("warpgroup 0 (threads 0..127)");
      has("wgmma.m64n128k16 tile " + std::to_string((row % 128) / 64) + " of the 2");
      has("C rows " + std::to_string(row / 64 * 64) + ".." + std::to_string(row / 64 * 64 + 63) + ", cols " +
          std::to_string(col / 128 * 128) + ".." + std::to_string(col / 128 * 128 + 127));
    } else {
      EXPECT_EQ(all.find("warpgroup"), std::string::npos) << all;
      const int i = (row % 64) / 16, j = (col % 32) / 8;
      has("mma.sync.m16n8k16 tile " + std::to_string(i * 4 + j) + " of the 16 of its warp's 64 x 32");
      has("C rows " + std::to_string(row / 16 * 16) + ".." + std::to_string(row / 16 * 16 + 15) + ", cols " +
          std::to_string(col / 8 * 8) + ".." + std::to_string(col / 8 * 8 + 7));
    }
    EXPECT_EQ(all.find("cluster"), std::string::npos) << "no clusters launched:\n" << all;
  }
}

// Issue 36, item 10: T1's hover said an element is held by one lane but "stored by lane 15
// through the warp's staging tile" without saying why. It names the holder first, the storing
// lane second, and says in the same line that WMMA's store goes through the staging tile.
TEST(MatmulFragments, T1HoverSaysWhyTheStoringLaneIsNotTheHolder) {
  const MatmulKernel k = MatmulKernel::Tc1Wmma;
  const Forward f = forward_map(k);
  const MatmulConfig config = matmul_kernel_info(k).configs.at(0);
  const int M = 128, N = 128, K = 64;
  const LaunchConfig lc = matmul_launch_config(k, config, M, N, K);
  for (const auto& [row, col] : {std::pair{0, 0}, std::pair{5, 9}, std::pair{17, 50}, std::pair{100, 77}}) {
    auto h = fragment_hierarchy(k, config, lc, M, N, K, row, col, 0);
    ASSERT_TRUE(h) << h.status().message;
    std::string all;
    for (const std::string& l : h->lines) all += l + "\n";
    // Lane l of the epilogue copies elements l, l + 32, ... of the 16 x 16 staging tile.
    const int stored_by = ((row % 16) * 16 + col % 16) % 32;
    const int held_by = f.get(row % f.rows, col % f.cols).thread % 32;
    const std::string line =
        "held by lane " + std::to_string(held_by) + ", stored to C by lane " + std::to_string(stored_by);
    const std::size_t at = all.find(line);
    ASSERT_NE(at, std::string::npos) << "no '" << line << "' in\n" << all;
    const std::string rest = all.substr(at, all.find('\n', at) - at);
    EXPECT_NE(rest.find("staging tile"), std::string::npos) << rest;
    EXPECT_NE(rest.find("store_matrix_sync"), std::string::npos) << "the sentence says why: " << rest;
  }
}

TEST(MatmulFragments, HoverLinesForT2AtAnOddSize) { check_hover(MatmulKernel::Tc2MmaSync, 331, 277, 97, 5); }
TEST(MatmulFragments, HoverLinesForT3AtAnOddSize) { check_hover(MatmulKernel::Tc3Wgmma, 261, 389, 75, 9); }

TEST(MatmulFragments, HoverNamesTheClusterWhereTheLaunchHasOne) {
  const MatmulKernel k = MatmulKernel::Tc6ClusterMulticast;
  for (const MatmulConfig& config : matmul_kernel_info(k).configs) {
    LaunchConfig lc = matmul_launch_config(k, config, 777, 555, 99);
    lc.grid = Dim3{lc.cluster.x * 5, 1, 1};  // a persistent grid of 5 clusters
    auto h = fragment_hierarchy(k, config, lc, 777, 555, 99, 700, 300, 0);
    ASSERT_TRUE(h) << h.status().message;
    const bool clusters = lc.cluster.volume() > 1;
    EXPECT_EQ(h->lines.front().rfind("cluster (", 0) == 0, clusters) << h->lines.front();
    if (clusters) {
      const unsigned b = h->block.x;
      EXPECT_NE(
          h->lines.front().find("cluster (" + std::to_string(b / lc.cluster.x) + ", 0) of " +
                                std::to_string(lc.cluster.x) + " blocks, rank " + std::to_string(b % lc.cluster.x)),
          std::string::npos)
          << h->lines.front();
    }
  }
}

// T1/T2: the 32 lanes' A fragments cover the 16 x 16 A tile once, their B fragments the 16 x 8
// B tile once, at the k-step asked for; wgmma reads both from shared memory instead.
TEST(MatmulFragments, FedOperandsPartitionTheInstructionsTiles) {
  for (MatmulKernel k : {MatmulKernel::Tc1Wmma, MatmulKernel::Tc2MmaSync}) {
    auto base = fragment_place(k, 37, 21);
    ASSERT_TRUE(base);
    std::set<std::pair<long long, long long>> a, b;
    for (unsigned lane = 0; lane < 32; ++lane) {
      FragmentPlace p = *base;
      p.lane = lane;
      const FedOperands f = fed_operands(p, 128, 256, 3);
      EXPECT_FALSE(f.from_shared);
      ASSERT_EQ(f.a.size(), 8u);
      ASSERT_EQ(f.b.size(), 4u);
      for (const CRect& r : f.a) {
        EXPECT_TRUE(r.row >= f.a_tile.row && r.row < f.a_tile.row + 16 && r.col >= 48 && r.col < 64);
        a.insert({r.row, r.col});
      }
      for (const CRect& r : f.b) {
        EXPECT_TRUE(r.row >= 48 && r.row < 64 && r.col >= f.b_tile.col && r.col < f.b_tile.col + 8);
        b.insert({r.row, r.col});
      }
    }
    EXPECT_EQ(a.size(), 256u);
    EXPECT_EQ(b.size(), 128u);
    EXPECT_EQ(base->tile_r, 32);  // rows 32..47 hold row 37
  }
  auto w = fragment_place(MatmulKernel::Tc4WarpSpecialized, 100, 200);
  ASSERT_TRUE(w);
  const FedOperands f = fed_operands(*w, 1280, 512, 2);
  EXPECT_TRUE(f.from_shared);
  EXPECT_TRUE(f.a.empty() && f.b.empty());
  EXPECT_EQ(f.a_tile, (CRect{1280 + 64, 32, 64, 16}));
  EXPECT_EQ(f.b_tile, (CRect{32, 512, 16, 256}));
}

// The overlay's keys (one block's tile, repeated over C) for a window of C at odd offsets, against
// the forward map: lane, warp, warpgroup and mma tile.
TEST(MatmulFragments, ColourKeysOfAVisibleWindowMatchTheModel) {
  for (MatmulKernel k : kTensorRungs) {
    const Forward f = forward_map(k);
    const MatmulConfig config = matmul_kernel_info(k).configs.at(0);
    auto lane = fragment_keys(k, config, FragmentColour::Lane);
    auto warp = fragment_keys(k, config, FragmentColour::Warp);
    auto mma = fragment_keys(k, config, FragmentColour::Mma);
    auto wg = fragment_keys(k, config, FragmentColour::Warpgroup);
    ASSERT_TRUE(lane && warp && mma);
    EXPECT_EQ(lane->distinct, 32u);
    const bool wgmma = k != MatmulKernel::Tc1Wmma && k != MatmulKernel::Tc2MmaSync;
    EXPECT_EQ(static_cast<bool>(wg), wgmma);
    ASSERT_EQ(lane->rows, f.rows);
    ASSERT_EQ(lane->cols, f.cols);
    const int mma_rows = wgmma ? 64 : 16, mma_cols = wgmma ? f.cols : 8;
    for (long long row = 1000 + 37; row < 1000 + 37 + 150; ++row)
      for (long long col = 4096 + 11; col < 4096 + 11 + 300; ++col) {
        const int r = static_cast<int>(row % f.rows), c = static_cast<int>(col % f.cols);
        const std::size_t i = static_cast<std::size_t>(r) * f.cols + c;
        const Held& h = f.get(r, c);
        ASSERT_EQ(lane->keys[i], static_cast<std::uint32_t>(h.thread % 32)) << row << ", " << col;
        ASSERT_EQ(warp->keys[i], static_cast<std::uint32_t>(h.thread / 32));
        if (wgmma) { ASSERT_EQ(wg->keys[i], static_cast<std::uint32_t>(h.thread / 128)); }
        ASSERT_EQ(mma->keys[i], static_cast<std::uint32_t>((r / mma_rows) * (f.cols / mma_cols) + c / mma_cols));
      }
  }
  // FP32 rungs: warps and lanes of their own threads; no warpgroups or mma tiles.
  EXPECT_FALSE(fragment_keys(MatmulKernel::SmemTiled, matmul_kernel_info(MatmulKernel::SmemTiled).configs.at(0),
                             FragmentColour::Mma));
  auto k3 =
      fragment_keys(MatmulKernel::Naive, make_block_config(MatmulKernel::Naive, Dim3{16, 16, 1}), FragmentColour::Lane);
  ASSERT_TRUE(k3) << k3.status().message;
  EXPECT_EQ(k3->keys[static_cast<std::size_t>(3) * k3->cols + 5], (3u * 16 + 5) % 32);  // thread (5, 3) of 16 x 16
}

}  // namespace
}  // namespace bs::matmul
