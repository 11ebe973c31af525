// Rung 3, shared-memory tiling, as in the lecture after the naive one: the tile is the block.
//
// A square block of T x T threads owns a T x T tile of C. The k-loop advances T columns of A and
// T rows of B at a time: every thread copies ONE element of each into shared memory, the block
// waits (sync), every thread does T multiply-adds from shared memory, the block waits again
// (nobody may overwrite the tile while a neighbour still reads it), and the next phase starts.
//
// What it teaches: each element fetched from global memory is now used T times (by the T threads
// of its row or column), so global traffic drops by a factor T; and __syncthreads is what makes
// sharing safe: both barriers are needed, and the CPU simulator gives a wrong answer without them.
// Threads outside C (edge tiles) still take part: they load zeros and reach every barrier, and
// only their final store is skipped. Early-returning before a barrier would be undefined
// behaviour on the GPU (and is reported as barrier divergence by the simulator).
// Launch: block (T, T, 1), grid (ceil(N / T), ceil(M / T)); T is compiled in (8, 16, 32).
#pragma once
#include "labs/matmul/matmul_common.hpp"

namespace bs::matmul {

template <int T>
struct K3Smem {
  float As[T][T];  // As[ty][k]: A[tile row ty][k0 + k]
  float Bs[T][T];  // Bs[k][tx]: B[k0 + k][tile column tx]
};

template <int T, class Ctx>
BS_HD void k3_smem_tiled_thread(const Ctx& t, K3Smem<T>& s, const MatmulArgs& a) {
  const int tx = static_cast<int>(t.threadIdx.x), ty = static_cast<int>(t.threadIdx.y);
  const int row = static_cast<int>(t.blockIdx.y) * T + ty;
  const int col = static_cast<int>(t.blockIdx.x) * T + tx;
  float sum = 0.0f;
  for (int k0 = 0; k0 < a.K; k0 += T) {
    // Coalesced: consecutive tx read consecutive addresses of A's row and of B's row.
    s.As[ty][tx] = (row < a.M && k0 + tx < a.K) ? a.A[offset2d(row, k0 + tx, a.K)] : 0.0f;
    s.Bs[ty][tx] = (k0 + ty < a.K && col < a.N) ? a.B[offset2d(k0 + ty, col, a.N)] : 0.0f;
    t.sync();  // the tile is complete before anyone reads it
    BS_UNROLL
    for (int k = 0; k < T; ++k) sum += s.As[ty][k] * s.Bs[k][tx];
    t.sync();  // everyone is done reading before the next phase overwrites it
  }
  if (row < a.M && col < a.N) a.C[offset2d(row, col, a.N)] = sum;
}

}  // namespace bs::matmul
