// Rung 4, 1D register blocking: each thread computes TM outputs of one column of C.
//
// The block owns a BM x BN tile of C and walks K in steps of BK through shared memory, as in
// rung 3, but now with (BM / TM) * BN threads in a 1D block: thread (trow, tcol) accumulates
// rows trow*TM .. trow*TM + TM-1 of column tcol in TM registers. For every B value it reads from
// shared memory it does TM multiply-adds (the A values come from a shared-memory broadcast).
//
// What it teaches: arithmetic intensity per thread. Rung 3 does 1 FMA per 2 shared-memory loads;
// here it is TM FMAs per TM + 1 loads, and the tile no longer has to equal the block, so the
// block can be larger than 32 x 32 outputs with fewer threads. Loads are spread over all
// threads with a strided loop (any tile shape works), zero-filled outside the matrices.
// Launch: block ((BM / TM) * BN, 1, 1), grid (ceil(N / BN), ceil(M / BM)).
#pragma once
#include "labs/matmul/matmul_common.hpp"
#include "labs/matmul/matmul_rung.hpp"
#include "labs/matmul/shared_model.hpp"

namespace bs::matmul {

template <int BM, int BN, int BK>
struct K4Smem {
  float As[BM][BK];
  float Bs[BK][BN];
};

template <int BM, int BN, int BK, int TM, class Ctx>
BS_HD void k4_blocktile_1d_thread(const Ctx& t, K4Smem<BM, BN, BK>& s, const MatmulArgs& a) {
  static_assert(BM % TM == 0, "TM must divide BM");
  constexpr int kThreads = (BM / TM) * BN;
  const int tid = static_cast<int>(t.threadIdx.x);
  const int tcol = tid % BN, trow = tid / BN;
  const int row0 = static_cast<int>(t.blockIdx.y) * BM, col0 = static_cast<int>(t.blockIdx.x) * BN;

  float acc[TM] = {};
  for (int k0 = 0; k0 < a.K; k0 += BK) {
    for (int i = tid; i < BM * BK; i += kThreads) {
      const int r = i / BK, c = i % BK;  // consecutive threads: consecutive k of one A row
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
      const float b = shared_load(t, s.Bs[k][tcol], "Bs[k][tcol]");
      BS_UNROLL
      for (int m = 0; m < TM; ++m) acc[m] += shared_load(t, s.As[trow * TM + m][k], "As[trow*TM + m][k]") * b;
    }
    t.sync();
  }
  const int col = col0 + tcol;
  BS_UNROLL
  for (int m = 0; m < TM; ++m) {
    const int row = row0 + trow * TM + m;
    if (row < a.M && col < a.N) a.C[offset2d(row, col, a.N)] = acc[m];
  }
}

// ---------------------------------------------------------------------------------------------
// The rung, to the lab (matmul_rung.hpp)
// ---------------------------------------------------------------------------------------------
// The grid and shared bytes: BlockTileRungBase (matmul_rung.hpp)
struct K4Blocktile1D : BlockTileRungBase<K4Blocktile1D> {
  static MatmulKernelInfo info() {
    MatmulKernelInfo i;
    i.id = "k4_blocktile_1d";
    i.label = "4. 1D register blocking";
    i.teaches =
        "each thread accumulates TM outputs of a column in registers: TM FMAs per B value "
        "read from shared memory";
    i.file = "kernels/labs/matmul/k4_blocktile_1d.hpp";
    i.configs = tile_configs<K4Blocktile1D>(kK4Params);
    i.uses_shared = i.uses_barriers = true;
    i.grid_rule = "grid = (ceil(N / BN), ceil(M / BM))";
    return i;
  }
  static unsigned threads(const TileParams& p) { return p.TM > 0 ? static_cast<unsigned>((p.BM / p.TM) * p.BN) : 0u; }
  static std::string describe(const MatmulConfig& c) {
    return tile_text(c.tile, TileFields::OneD) + " | " + std::to_string(c.block.volume()) + " threads";
  }
  static IndexScheme scheme(const MatmulConfig& c) {
    return IndexScheme::tiled(static_cast<unsigned>(c.tile.BN), static_cast<unsigned>(c.tile.BM), 1,
                              static_cast<unsigned>(c.tile.TM));
  }
  static constexpr std::size_t kCompiled = std::size(kK4Params);
  static int compiled_index(const MatmulConfig& c) { return find_in(kK4Params, c.tile); }

  static MatmulGeometry geometry(const MatmulConfig& c) {
    MatmulGeometry g;
    g.block_rows = c.tile.BM, g.block_cols = c.tile.BN, g.k_step = c.tile.BK, g.stages = 1;
    g.thread_rows = c.tile.TM;
    return g;
  }
  static Status check(const MatmulConfig& c, const DeviceLimits&) {
    return check_tile("k4_blocktile_1d", c, threads(c.tile), TileFields::OneD);
  }
  // tcol = tid % BN, trow = tid / BN; rows row0 + trow*TM .. + TM of column col0 + tcol
  static Result<ElementOwner> owner(const MatmulConfig& c, int row, int col) {
    return patch_owner(c, row, col, c.tile.TM, 1);
  }
  // The shared-memory model (shared_model.hpp): As[BM][BK], Bs[BK][BN] filled by strided loops,
  // then per k one Bs word and TM As words.
  static constexpr bool kSharedModel = true;
  static void shared_lane(SharedLane l, const MatmulConfig& c, int K, int tid, const SharedModelOptions& o) {
    constexpr long long F = kFloatBytes;
    const TileParams& p = c.tile;
    const int threads = (p.BM / p.TM) * p.BN, tcol = tid % p.BN, trow = tid / p.BN;
    const int rowa = p.BK + o.pad_words, rowb = p.BN + o.pad_words;
    const long long bs = static_cast<long long>(p.BM) * rowa * F;
    for (int t = 0; t < model_ceil_div(K, p.BK); ++t) {
      fill_plain_tiles(l, p, threads, tid, rowa, rowb, bs);
      for (int k = 0; k < p.BK; ++k) {
        l.add(bs + (static_cast<long long>(k) * rowb + tcol) * F, 4, SharedOp::Load, "Bs[k][tcol]");
        for (int m = 0; m < p.TM; ++m)
          l.add((static_cast<long long>(trow * p.TM + m) * rowa + k) * F, 4, SharedOp::Load, "As[trow*TM + m][k]");
      }
    }
  }
  template <std::size_t I>
  struct At {
    static constexpr TileParams P = kK4Params[I];
    using Smem = K4Smem<P.BM, P.BN, P.BK>;
    static constexpr unsigned threads = (P.BM / P.TM) * P.BN;
    static constexpr int min_blocks = 0;
    template <class Ctx>
    static BS_HD void body(const Ctx& t, Smem& s, const MatmulArgs& a) {
      k4_blocktile_1d_thread<P.BM, P.BN, P.BK, P.TM>(t, s, a);
    }
  };
};

}  // namespace bs::matmul
