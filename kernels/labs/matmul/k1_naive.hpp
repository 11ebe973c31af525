// Rung 1, the lecture's naive kernel: one thread per output, row from y, column from x.
//
//   row = blockIdx.y * blockDim.y + threadIdx.y;   col = blockIdx.x * blockDim.x + threadIdx.x;
//   if (row < M && col < N) C[row][col] = sum_k A[row][k] * B[k][col];
//
// What it teaches: the 2D grid follows C's shape, and the guard handles the ragged edge tiles.
// Neighbouring threads of a warp (consecutive threadIdx.x) share `row` and take consecutive
// columns, so each step of the k-loop reads one A element for the whole warp (a broadcast) and
// 32 consecutive B elements (one coalesced 128-byte line). Every operand still comes from global
// memory (or cache) once per multiply-add: 2 loads per 2 FLOPs, so the kernel is bound by
// memory traffic, not arithmetic. blockDim.z must be 1 (checked before launch).
#pragma once
#include "labs/matmul/matmul_common.hpp"

namespace bs::matmul {

template <class Ctx>
BS_HD void k1_naive_thread(const Ctx& t, NoSmem&, const MatmulArgs& a) {
  const int row = static_cast<int>(t.blockIdx.y * t.blockDim.y + t.threadIdx.y);
  const int col = static_cast<int>(t.blockIdx.x * t.blockDim.x + t.threadIdx.x);
  if (row < a.M && col < a.N) {
    const float* a_row = a.A + offset2d(row, 0, a.K);
    float sum = 0.0f;
    for (int k = 0; k < a.K; ++k) sum += a_row[k] * a.B[offset2d(k, col, a.N)];
    a.C[offset2d(row, col, a.N)] = sum;
  }
}

}  // namespace bs::matmul
