// Rung 2, the naive kernel with the axes swapped: row from x, column from y.
//
//   row = blockIdx.x * blockDim.x + threadIdx.x;   col = blockIdx.y * blockDim.y + threadIdx.y;
//
// The arithmetic is identical to rung 1 and so is the result; only the mapping of threads to
// outputs changed. What it teaches: a warp is 32 threads with consecutive threadIdx.x, and now
// those 32 threads own 32 different ROWS of C. At each k they read A[row][k] from 32 rows
// (K floats apart: 32 separate memory transactions instead of one broadcast) and write C
// 32 rows apart, while B[k][col] became the broadcast. Same FLOPs, several times slower on a GPU:
// coalescing is about which addresses neighbouring threads touch, not about how many.
// The grid is (ceil(M / blockDim.x), ceil(N / blockDim.y)); blockDim.z must be 1.
#pragma once
#include "labs/matmul/matmul_common.hpp"

namespace bs::matmul {

template <class Ctx>
BS_HD void k2_uncoalesced_thread(const Ctx& t, NoSmem&, const MatmulArgs& a) {
  const int row = static_cast<int>(t.blockIdx.x * t.blockDim.x + t.threadIdx.x);
  const int col = static_cast<int>(t.blockIdx.y * t.blockDim.y + t.threadIdx.y);
  if (row < a.M && col < a.N) {
    const float* a_row = a.A + offset2d(row, 0, a.K);
    float sum = 0.0f;
    for (int k = 0; k < a.K; ++k) sum += a_row[k] * a.B[offset2d(k, col, a.N)];
    a.C[offset2d(row, col, a.N)] = sum;
  }
}

}  // namespace bs::matmul
