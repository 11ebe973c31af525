// Rung 5, 2D register blocking: each thread computes a TM x TN patch of C.
//
// Same shared-memory tiles as rung 4; the (BM / TM) * (BN / TN) threads of a 1D block each own
// the TM x TN outputs at rows trow*TM.., columns tcol*TN... Per k the thread copies TM values of
// A and TN values of B from shared memory into registers and does their outer product: TM * TN
// FMAs for TM + TN loads (64 for 16 with 8 x 8), against 1 for 2 in rung 3.
//
// What it teaches: register blocking is what turns a shared-memory-bound kernel into an
// arithmetic-bound one; registers are the fastest memory and each value in them is reused
// TM or TN times. The price is registers per thread (TM*TN accumulators + TM + TN operands),
// which limits how many threads fit on a multiprocessor.
// Launch: block ((BM / TM) * (BN / TN), 1, 1), grid (ceil(N / BN), ceil(M / BM)).
#pragma once
#include "labs/matmul/matmul_common.hpp"
#include "labs/matmul/matmul_rung.hpp"
#include "labs/matmul/shared_model.hpp"

namespace bs::matmul {

template <int BM, int BN, int BK>
struct K5Smem {
  float As[BM][BK];
  float Bs[BK][BN];
};

template <int BM, int BN, int BK, int TM, int TN, class Ctx>
BS_HD void k5_blocktile_2d_thread(const Ctx& t, K5Smem<BM, BN, BK>& s, const MatmulArgs& a) {
  static_assert(BM % TM == 0 && BN % TN == 0, "the thread tile must divide the block tile");
  constexpr int kThreads = (BM / TM) * (BN / TN);
  const int tid = static_cast<int>(t.threadIdx.x);
  const int tcol = tid % (BN / TN), trow = tid / (BN / TN);
  const int row0 = static_cast<int>(t.blockIdx.y) * BM, col0 = static_cast<int>(t.blockIdx.x) * BN;

  float acc[TM][TN] = {};
  float a_reg[TM], b_reg[TN];
  for (int k0 = 0; k0 < a.K; k0 += BK) {
    for (int i = tid; i < BM * BK; i += kThreads) {
      const int r = i / BK, c = i % BK;
      const int gr = row0 + r, gk = k0 + c;
      shared_store(t, s.As[r][c], (gr < a.M && gk < a.K) ? a.A[offset2d(gr, gk, a.K)] : 0.0f, "As[r][c]");
    }
    for (int i = tid; i < BK * BN; i += kThreads) {
      const int r = i / BN, c = i % BN;
      const int gk = k0 + r, gc = col0 + c;
      shared_store(t, s.Bs[r][c], (gk < a.K && gc < a.N) ? a.B[offset2d(gk, gc, a.N)] : 0.0f, "Bs[r][c]");
    }
    t.sync();
    BS_UNROLL
    for (int k = 0; k < BK; ++k) {
      BS_UNROLL
      for (int m = 0; m < TM; ++m) a_reg[m] = shared_load(t, s.As[trow * TM + m][k], "As[trow*TM + m][k]");
      BS_UNROLL  // lanes TN words apart: TN / (32 / lanes on a row) ways on the banks (bank view)
          for (int n = 0; n < TN; ++n) b_reg[n] = shared_load(t, s.Bs[k][tcol * TN + n], "Bs[k][tcol*TN + n]");
      BS_UNROLL
      for (int m = 0; m < TM; ++m) BS_UNROLL
      for (int n = 0; n < TN; ++n) acc[m][n] += a_reg[m] * b_reg[n];
    }
    t.sync();
  }
  BS_UNROLL
  for (int m = 0; m < TM; ++m) {
    const int row = row0 + trow * TM + m;
    BS_UNROLL
    for (int n = 0; n < TN; ++n) {
      const int col = col0 + tcol * TN + n;
      if (row < a.M && col < a.N) a.C[offset2d(row, col, a.N)] = acc[m][n];
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The rung, to the lab (matmul_rung.hpp)
// ---------------------------------------------------------------------------------------------
// threads, the grid, scheme, geometry, shared bytes and owner: PatchRungBase (matmul_rung.hpp)
struct K5Blocktile2D : PatchRungBase<K5Blocktile2D> {
  static MatmulKernelInfo info() {
    MatmulKernelInfo i;
    i.id = "k5_blocktile_2d";
    i.label = "5. 2D register blocking";
    i.teaches = "each thread computes a TM x TN patch as outer products: TM*TN FMAs per TM+TN shared loads";
    i.file = "kernels/labs/matmul/k5_blocktile_2d.hpp";
    i.configs = tile_configs<K5Blocktile2D>(kK5Params);
    i.uses_shared = i.uses_barriers = true;
    i.grid_rule = "grid = (ceil(N / BN), ceil(M / BM))";
    return i;
  }
  static std::string describe(const MatmulConfig& c) {
    return tile_text(c.tile, TileFields::TwoD) + " | " + std::to_string(c.block.volume()) + " threads";
  }
  static constexpr std::size_t kCompiled = std::size(kK5Params);
  static int compiled_index(const MatmulConfig& c) { return find_in(kK5Params, c.tile); }
  static Status check(const MatmulConfig& c, const DeviceLimits&) {
    return check_tile("k5_blocktile_2d", c, threads(c.tile), TileFields::TwoD);
  }
  // The shared-memory model (shared_model.hpp): the tiles as rung 4, then per k TM As words and
  // TN Bs words.
  static constexpr bool kSharedModel = true;
  static void shared_lane(SharedLane l, const MatmulConfig& c, int K, int tid, const SharedModelOptions& o) {
    constexpr long long F = kFloatBytes;
    const TileParams& p = c.tile;
    const int per_row = p.BN / p.TN, threads = (p.BM / p.TM) * per_row;
    const int tcol = tid % per_row, trow = tid / per_row;
    const int rowa = p.BK + o.pad_words, rowb = p.BN + o.pad_words;
    const long long bs = static_cast<long long>(p.BM) * rowa * F;
    for (int t = 0; t < model_ceil_div(K, p.BK); ++t) {
      fill_plain_tiles(l, p, threads, tid, rowa, rowb, bs);
      for (int k = 0; k < p.BK; ++k) {
        for (int m = 0; m < p.TM; ++m)
          l.add((static_cast<long long>(trow * p.TM + m) * rowa + k) * F, 4, SharedOp::Load, "As[trow*TM + m][k]");
        for (int n = 0; n < p.TN; ++n)
          l.add(bs + (static_cast<long long>(k) * rowb + tcol * p.TN + n) * F, 4, SharedOp::Load, "Bs[k][tcol*TN + n]");
      }
    }
  }
  template <std::size_t I>
  struct At {
    static constexpr TileParams P = kK5Params[I];
    using Smem = K5Smem<P.BM, P.BN, P.BK>;
    static constexpr unsigned threads = (P.BM / P.TM) * (P.BN / P.TN);
    static constexpr int min_blocks = 0;
    template <class Ctx>
    static BS_HD void body(const Ctx& t, Smem& s, const MatmulArgs& a) {
      k5_blocktile_2d_thread<P.BM, P.BN, P.BK, P.TM, P.TN>(t, s, a);
    }
  };
};

}  // namespace bs::matmul
