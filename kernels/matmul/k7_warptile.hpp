// Rung 7, warp tiling with a double-buffered shared-memory pipeline: the rung that competes
// with cuBLAS.
//
// Three levels of tiles. The block owns BM x BN of C; each of its (BM/WM) * (BN/WN) warps owns a
// WM x WN warp tile; each lane owns TM x TN outputs, held as (TM/4) x (TN/4) fragments of 4 x 4
// spread over the warp tile: a lane's fragments sit WM/(TM/4) rows and WN/(TN/4) columns apart.
//
// Why the warp level matters: shared memory serves a warp at once. With 128x128 / 64x32 / 8x8
// the 32 lanes of a warp are 8 (along M) x 4 (along N); at each k a lane reads its A fragments
// with float4 loads from As[k][...]: the warp touches 8 distinct float4s, 128 contiguous bytes,
// one conflict-free shared-memory wavefront, and 4 distinct float4s of B (broadcast to the 8
// lanes that share them). Rung 6's contiguous 8 x 8 patches made a warp read 512 bytes of B per
// load, so shared memory, not the FMA units, set its speed.
//
// The pipeline: two shared-memory stages. While the block multiplies the tile in stage s, each
// thread has already issued the global loads of the next tile into registers; after the
// multiply it writes them into stage s^1, and ONE barrier per tile separates "everyone wrote
// s^1 and finished reading s" from the next step. The global-memory latency hides behind
// BK * TM * TN FMAs per thread.
//
// Smaller details that each cost a few percent when missing: A is stored transposed (as in
// rung 6) with each row of As padded by 4 floats, so that the transposing 4-byte stores of a warp
// fall in distinct banks; the per-step loops are fully unrolled so the accumulators live in
// registers; edge handling is per float4 (vector loads where legal, guarded scalars elsewhere), a
// uniform branch on interior tiles.
// Launch: block ((BM/WM) * (BN/WN) * 32, 1, 1), grid (ceil(N / BN), ceil(M / BM)).
#pragma once
#include "matmul/k6_vectorized.hpp"  // load4_guarded, store4_guarded
#include "matmul/matmul_common.hpp"

namespace bs::matmul {

template <int BM, int BN, int BK>
struct K7Smem {
  static constexpr int kPadA = 4;  // floats; keeps rows 16-byte aligned for float4 reads
  float As[2][BK][BM + kPadA];     // two stages, A transposed
  float Bs[2][BK][BN];
};

namespace k7_detail {

// Global -> registers: this thread's float4s of A's tile (rows row0.., columns k0..).
template <int BK, int kThreads, int kLoads>
BS_HD void fetch_a(Float4 (&staged)[kLoads], const MatmulArgs& a, int row0, int k0, int tid,
                   bool a_vec) {
  BS_UNROLL
  for (int l = 0; l < kLoads; ++l) {
    const int i = tid + l * kThreads;
    const int r = i / (BK / 4), c = (i % (BK / 4)) * 4;
    const int gr = row0 + r, gk = k0 + c;
    staged[l] = load4_guarded(a.A + offset2d(gr < a.M ? gr : 0, gk, a.K), gr < a.M, a_vec,
                              a.K - gk);
  }
}

template <int BN, int kThreads, int kLoads>
BS_HD void fetch_b(Float4 (&staged)[kLoads], const MatmulArgs& a, int col0, int k0, int tid,
                   bool b_vec) {
  BS_UNROLL
  for (int l = 0; l < kLoads; ++l) {
    const int i = tid + l * kThreads;
    const int r = i / (BN / 4), c = (i % (BN / 4)) * 4;
    const int gk = k0 + r, gc = col0 + c;
    staged[l] = load4_guarded(a.B + offset2d(gk < a.K ? gk : 0, gc, a.N), gk < a.K, b_vec,
                              a.N - gc);
  }
}

// Registers -> shared memory stage `stage` (A transposed on the way).
template <int BM, int BN, int BK, int kThreads, int kLoadsA, int kLoadsB>
BS_HD void stash(K7Smem<BM, BN, BK>& s, int stage, const Float4 (&sa)[kLoadsA],
                 const Float4 (&sb)[kLoadsB], int tid) {
  BS_UNROLL
  for (int l = 0; l < kLoadsA; ++l) {
    const int i = tid + l * kThreads;
    const int r = i / (BK / 4), c = (i % (BK / 4)) * 4;
    s.As[stage][c + 0][r] = sa[l].x;
    s.As[stage][c + 1][r] = sa[l].y;
    s.As[stage][c + 2][r] = sa[l].z;
    s.As[stage][c + 3][r] = sa[l].w;
  }
  BS_UNROLL
  for (int l = 0; l < kLoadsB; ++l) {
    const int i = tid + l * kThreads;
    const int r = i / (BN / 4), c = (i % (BN / 4)) * 4;
    store4(&s.Bs[stage][r][c], sb[l]);
  }
}

}  // namespace k7_detail

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, class Ctx>
BS_HD void k7_warptile_thread(const Ctx& t, K7Smem<BM, BN, BK>& s, const MatmulArgs& a) {
  constexpr int kWarpsN = BN / WN, kWarpsM = BM / WM;
  constexpr int kThreads = kWarpsM * kWarpsN * 32;
  constexpr int kLanesN = WN / TN, kLanesM = WM / TM;  // lanes along each side of a warp tile
  constexpr int kFragsM = TM / 4, kFragsN = TN / 4;    // 4 x 4 fragments per lane
  constexpr int kSubM = WM / kFragsM, kSubN = WN / kFragsN;  // distance between fragments
  constexpr int kLoadsA = BM * BK / 4 / kThreads, kLoadsB = BK * BN / 4 / kThreads;
  static_assert(BM % WM == 0 && BN % WN == 0, "warp tiles must tile the block tile");
  static_assert(WM % TM == 0 && WN % TN == 0 && TM % 4 == 0 && TN % 4 == 0,
                "lane tiles are made of 4 x 4 fragments");
  static_assert(kLanesN * kLanesM == 32, "a warp tile must hold exactly 32 lane tiles");
  static_assert(BK % 4 == 0 && kLoadsA >= 1 && kLoadsB >= 1 &&
                    kLoadsA * kThreads * 4 == BM * BK && kLoadsB * kThreads * 4 == BK * BN,
                "every thread loads the same number of float4s per tile");

  const int tid = static_cast<int>(t.threadIdx.x);
  const int warp = tid / 32, lane = tid % 32;
  const int warp_m = warp / kWarpsN, warp_n = warp % kWarpsN;
  const int lane_m = lane / kLanesN, lane_n = lane % kLanesN;
  const int row0 = static_cast<int>(t.blockIdx.y) * BM, col0 = static_cast<int>(t.blockIdx.x) * BN;
  const bool a_vec = vec4_ok(a.A, a.K), b_vec = vec4_ok(a.B, a.N), c_vec = vec4_ok(a.C, a.N);
  const int a_col = warp_m * WM + lane_m * 4;  // first column of As (row of C) this lane reads
  const int b_col = warp_n * WN + lane_n * 4;

  float acc[TM][TN] = {};
  Float4 staged_a[kLoadsA], staged_b[kLoadsB];

  // Prologue: tile 0 into stage 0.
  k7_detail::fetch_a<BK, kThreads>(staged_a, a, row0, 0, tid, a_vec);
  k7_detail::fetch_b<BN, kThreads>(staged_b, a, col0, 0, tid, b_vec);
  k7_detail::stash<BM, BN, BK, kThreads>(s, 0, staged_a, staged_b, tid);
  t.sync();

  const int tiles = (a.K + BK - 1) / BK;
  for (int tile = 0; tile < tiles; ++tile) {
    const int stage = tile & 1;
    const bool has_next = tile + 1 < tiles;  // the same for every thread: barriers stay uniform
    if (has_next) {  // issue the next tile's global loads now; they land during the FMAs below
      k7_detail::fetch_a<BK, kThreads>(staged_a, a, row0, (tile + 1) * BK, tid, a_vec);
      k7_detail::fetch_b<BN, kThreads>(staged_b, a, col0, (tile + 1) * BK, tid, b_vec);
    }
    BS_UNROLL
    for (int k = 0; k < BK; ++k) {
      float a_frag[TM], b_frag[TN];
      BS_UNROLL
      for (int f = 0; f < kFragsM; ++f) {
        const Float4 v = load4(&s.As[stage][k][a_col + f * kSubM]);
        a_frag[4 * f] = v.x, a_frag[4 * f + 1] = v.y, a_frag[4 * f + 2] = v.z,
        a_frag[4 * f + 3] = v.w;
      }
      BS_UNROLL
      for (int f = 0; f < kFragsN; ++f) {
        const Float4 v = load4(&s.Bs[stage][k][b_col + f * kSubN]);
        b_frag[4 * f] = v.x, b_frag[4 * f + 1] = v.y, b_frag[4 * f + 2] = v.z,
        b_frag[4 * f + 3] = v.w;
      }
      BS_UNROLL
      for (int m = 0; m < TM; ++m)
        BS_UNROLL
        for (int n = 0; n < TN; ++n) acc[m][n] += a_frag[m] * b_frag[n];
    }
    if (has_next) k7_detail::stash<BM, BN, BK, kThreads>(s, stage ^ 1, staged_a, staged_b, tid);
    t.sync();
  }

  // Epilogue: each lane writes its fragments, 4 consecutive floats per row.
  BS_UNROLL
  for (int m = 0; m < TM; ++m) {
    const int row = row0 + a_col + (m / 4) * kSubM + m % 4;
    BS_UNROLL
    for (int f = 0; f < kFragsN; ++f) {
      const int col = col0 + b_col + f * kSubN;
      store4_guarded(a.C + offset2d(row < a.M ? row : 0, col, a.N),
                     Float4{acc[m][4 * f], acc[m][4 * f + 1], acc[m][4 * f + 2], acc[m][4 * f + 3]},
                     row < a.M, c_vec, a.N - col);
    }
  }
}

}  // namespace bs::matmul
