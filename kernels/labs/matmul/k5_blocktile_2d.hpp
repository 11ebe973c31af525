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
      s.As[r][c] = (gr < a.M && gk < a.K) ? a.A[offset2d(gr, gk, a.K)] : 0.0f;
    }
    for (int i = tid; i < BK * BN; i += kThreads) {
      const int r = i / BN, c = i % BN;
      const int gk = k0 + r, gc = col0 + c;
      s.Bs[r][c] = (gk < a.K && gc < a.N) ? a.B[offset2d(gk, gc, a.N)] : 0.0f;
    }
    t.sync();
    BS_UNROLL
    for (int k = 0; k < BK; ++k) {
      BS_UNROLL
      for (int m = 0; m < TM; ++m) a_reg[m] = s.As[trow * TM + m][k];
      BS_UNROLL
      for (int n = 0; n < TN; ++n) b_reg[n] = s.Bs[k][tcol * TN + n];
      BS_UNROLL
      for (int m = 0; m < TM; ++m)
        BS_UNROLL
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

}  // namespace bs::matmul
