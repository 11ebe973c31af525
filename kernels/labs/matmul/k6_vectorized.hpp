// Rung 6, vectorized 16-byte loads and a transposed A tile.
//
// Rung 5's arithmetic, with the memory instructions made wider:
// - global -> shared: each thread fetches float4s (one 16-byte load instead of four 4-byte
//   ones) from A's rows and B's rows;
// - A is stored TRANSPOSED in shared memory (As[k][m]), so the TM values of A a thread needs
//   at step k are contiguous, like B's TN values, and both come back as float4s from shared
//   memory too: per k, TM/4 + TN/4 shared loads instead of TM + TN;
// - C is written with float4 stores.
//
// What it teaches: fewer, wider instructions move the same bytes, leaving issue slots for FMAs.
// A float4 access needs a 16-byte aligned address, so vectors are used only where they are
// legal: the matrix's row length is a multiple of 4 floats, its base is aligned, and the four
// elements lie inside the matrix. Every other float4 (odd K or N, the ragged edges) is loaded
// element by element with guards, so any size stays correct; the decision is per float4 and is
// the same for a whole warp on interior tiles.
// Launch: block ((BM / TM) * (BN / TN), 1, 1), grid (ceil(N / BN), ceil(M / BM)).
#pragma once
#include "labs/matmul/matmul_common.hpp"
#include "labs/matmul/matmul_rung.hpp"
#include "labs/matmul/shared_model.hpp"

namespace bs::matmul {

template <int BM, int BN, int BK>
struct K6Smem {
  float As[BK][BM];  // transposed: As[k][m] = A[row0 + m][k0 + k]
  float Bs[BK][BN];
};

// Loads (from global memory) the 4 elements p[0..3] of a row whose valid length from p on is `valid` (may be < 4):
// one vector load when allowed, guarded scalars otherwise.
BS_HD Float4 load4_guarded(const float* p, bool row_ok, bool vector_ok, int valid) {
  if (row_ok && vector_ok && valid >= 4) return ldg4(p);
  Float4 v{0.0f, 0.0f, 0.0f, 0.0f};
  if (row_ok) {
    if (valid > 0) v.x = ldg(p);
    if (valid > 1) v.y = ldg(p + 1);
    if (valid > 2) v.z = ldg(p + 2);
    if (valid > 3) v.w = ldg(p + 3);
  }
  return v;
}

BS_HD void store4_guarded(float* p, const Float4& v, bool row_ok, bool vector_ok, int valid) {
  if (!row_ok) return;
  if (vector_ok && valid >= 4) {
    store4(p, v);
    return;
  }
  if (valid > 0) p[0] = v.x;
  if (valid > 1) p[1] = v.y;
  if (valid > 2) p[2] = v.z;
  if (valid > 3) p[3] = v.w;
}

template <int BM, int BN, int BK, int TM, int TN, class Ctx>
BS_HD void k6_vectorized_thread(const Ctx& t, K6Smem<BM, BN, BK>& s, const MatmulArgs& a) {
  static_assert(BM % TM == 0 && BN % TN == 0, "the thread tile must divide the block tile");
  static_assert(TM % 4 == 0 && TN % 4 == 0 && BK % 4 == 0 && BN % 4 == 0, "float4 paths need multiples of 4");
  constexpr int kThreads = (BM / TM) * (BN / TN);
  const int tid = static_cast<int>(t.threadIdx.x);
  const int tcol = tid % (BN / TN), trow = tid / (BN / TN);
  const int row0 = static_cast<int>(t.blockIdx.y) * BM, col0 = static_cast<int>(t.blockIdx.x) * BN;
  const bool a_vec = vec4_ok(a.A, a.K), b_vec = vec4_ok(a.B, a.N), c_vec = vec4_ok(a.C, a.N);

  float acc[TM][TN] = {};
  for (int k0 = 0; k0 < a.K; k0 += BK) {
    for (int i = tid; i < BM * BK / 4; i += kThreads) {
      const int r = i / (BK / 4), c = (i % (BK / 4)) * 4;
      const int gr = row0 + r, gk = k0 + c;
      const Float4 v = load4_guarded(a.A + offset2d(gr < a.M ? gr : 0, gk, a.K), gr < a.M, a_vec, a.K - gk);
      // The transpose happens here, on the way into shared memory (lanes BM words apart share
      // banks: the bank view shows these stores' conflicts).
      shared_store(t, s.As[c + 0][r], v.x, "As[c + 0][r]");
      shared_store(t, s.As[c + 1][r], v.y, "As[c + 1][r]");
      shared_store(t, s.As[c + 2][r], v.z, "As[c + 2][r]");
      shared_store(t, s.As[c + 3][r], v.w, "As[c + 3][r]");
    }
    for (int i = tid; i < BK * BN / 4; i += kThreads) {
      const int r = i / (BN / 4), c = (i % (BN / 4)) * 4;
      const int gk = k0 + r, gc = col0 + c;
      note_shared(t, &s.Bs[r][c], 16, SharedOp::Store, "Bs[r][c..c+3]");
      store4(&s.Bs[r][c], load4_guarded(a.B + offset2d(gk < a.K ? gk : 0, gc, a.N), gk < a.K, b_vec, a.N - gc));
    }
    t.sync();
    BS_UNROLL
    for (int k = 0; k < BK; ++k) {
      float a_reg[TM], b_reg[TN];
      BS_UNROLL
      for (int m = 0; m < TM; m += 4) {
        note_shared(t, &s.As[k][trow * TM + m], 16, SharedOp::Load, "As[k][trow*TM + m..+3]");
        const Float4 v = load4(&s.As[k][trow * TM + m]);
        a_reg[m] = v.x, a_reg[m + 1] = v.y, a_reg[m + 2] = v.z, a_reg[m + 3] = v.w;
      }
      BS_UNROLL
      for (int n = 0; n < TN; n += 4) {
        note_shared(t, &s.Bs[k][tcol * TN + n], 16, SharedOp::Load, "Bs[k][tcol*TN + n..+3]");
        const Float4 v = load4(&s.Bs[k][tcol * TN + n]);
        b_reg[n] = v.x, b_reg[n + 1] = v.y, b_reg[n + 2] = v.z, b_reg[n + 3] = v.w;
      }
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
    for (int n = 0; n < TN; n += 4) {
      const int col = col0 + tcol * TN + n;
      store4_guarded(a.C + offset2d(row < a.M ? row : 0, col, a.N),
                     Float4{acc[m][n], acc[m][n + 1], acc[m][n + 2], acc[m][n + 3]}, row < a.M, c_vec, a.N - col);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The rung, to the lab (matmul_rung.hpp)
// ---------------------------------------------------------------------------------------------
// threads, the grid, scheme, geometry, shared bytes and owner: PatchRungBase (matmul_rung.hpp)
struct K6Vectorized : PatchRungBase<K6Vectorized> {
  static constexpr int kLoadFloats = 4;  // float4
  static MatmulKernelInfo info() {
    MatmulKernelInfo i;
    i.id = "k6_vectorized";
    i.label = "6. float4 loads, transposed A tile";
    i.teaches =
        "16-byte loads from global and shared memory; A is transposed into shared memory so a thread's A values are "
        "contiguous too";
    i.file = "kernels/labs/matmul/k6_vectorized.hpp";
    i.configs = tile_configs<K6Vectorized>(kK6Params);
    i.uses_shared = i.uses_barriers = true;
    i.grid_rule = "grid = (ceil(N / BN), ceil(M / BM))";
    return i;
  }
  static std::string describe(const MatmulConfig& c) {
    return tile_text(c.tile, TileFields::Vector) + " | " + std::to_string(c.block.volume()) + " threads";
  }
  static constexpr std::size_t kCompiled = std::size(kK6Params);
  static int compiled_index(const MatmulConfig& c) { return find_in(kK6Params, c.tile); }
  static Status check(const MatmulConfig& c, const DeviceLimits&) {
    return check_tile("k6_vectorized", c, threads(c.tile), TileFields::Vector);
  }
  // The shared-memory model (shared_model.hpp): As transposed, As[BK][BM]; the A float4 of
  // element i goes to column r = i / (BK/4), rows c..c+3 = (i % (BK/4)) * 4 + 0..3 as four 4-byte
  // stores; B float4s as 16-byte stores; float4 loads of both.
  static constexpr bool kSharedModel = true;
  static void shared_lane(SharedLane l, const MatmulConfig& c, int K, int tid, const SharedModelOptions& o) {
    constexpr long long F = kFloatBytes;
    const TileParams& p = c.tile;
    const int per_row = p.BN / p.TN, threads = (p.BM / p.TM) * per_row;
    const int tcol = tid % per_row, trow = tid / per_row;
    const int rowa = p.BM + o.pad_words, rowb = p.BN + o.pad_words;
    const long long bs = static_cast<long long>(p.BK) * rowa * F;
    for (int t = 0; t < model_ceil_div(K, p.BK); ++t) {
      for (int i = tid; i < p.BM * p.BK / 4; i += threads) {
        const int r = i / (p.BK / 4), cc = (i % (p.BK / 4)) * 4;
        for (int j = 0; j < 4; ++j)
          l.add((static_cast<long long>(cc + j) * rowa + r) * F, 4, SharedOp::Store, "As[c + j][r]");
      }
      for (int i = tid; i < p.BK * p.BN / 4; i += threads) {
        const int r = i / (p.BN / 4), cc = (i % (p.BN / 4)) * 4;
        l.add(bs + (static_cast<long long>(r) * rowb + cc) * F, 16, SharedOp::Store, "Bs[r][c..c+3]");
      }
      for (int k = 0; k < p.BK; ++k) {
        for (int m = 0; m < p.TM; m += 4)
          l.add((static_cast<long long>(k) * rowa + trow * p.TM + m) * F, 16, SharedOp::Load, "As[k][trow*TM + m..+3]");
        for (int n = 0; n < p.TN; n += 4)
          l.add(bs + (static_cast<long long>(k) * rowb + tcol * p.TN + n) * F, 16, SharedOp::Load,
                "Bs[k][tcol*TN + n..+3]");
      }
    }
  }
  template <std::size_t I>
  struct At {
    static constexpr TileParams P = kK6Params[I];
    using Smem = K6Smem<P.BM, P.BN, P.BK>;
    static constexpr unsigned threads = (P.BM / P.TM) * (P.BN / P.TN);
    static constexpr int min_blocks = 0;
    template <class Ctx>
    static BS_HD void body(const Ctx& t, Smem& s, const MatmulArgs& a) {
      k6_vectorized_thread<P.BM, P.BN, P.BK, P.TM, P.TN>(t, s, a);
    }
  };
};

}  // namespace bs::matmul
