// Who computes an element of C: the thread (blockIdx, threadIdx, warp, lane) whose epilogue
// stores C[row][col], and every output that thread stores, for the UI's hover on C (rung 5's
// thread owns a TM x TN patch; rung 7's lane owns 4 x 4 fragments spread over its warp's tile).
//
// The arithmetic restates each rung's epilogue index expressions (k1_naive.hpp ...
// k7_warptile.hpp); tests/matmul/test_matmul_owner.cpp runs the real bodies on the simulator,
// records which thread wrote which element, and compares, so the two cannot drift apart.
#pragma once
#include <vector>

#include "core/dim.hpp"
#include "core/status.hpp"
#include "labs/matmul/matmul.hpp"

namespace bs::matmul {

// Rows [row, row + rows) x columns [col, col + cols) of C. Not clipped to M x N: an edge
// thread's patch may reach past the matrix (those outputs are not stored).
struct CRect {
  long long row = 0, col = 0;
  int rows = 0, cols = 0;
  friend bool operator==(const CRect&, const CRect&) = default;
};

struct ElementOwner {
  Dim3 block;                  // blockIdx
  Dim3 thread;                 // threadIdx
  unsigned linear_thread = 0;  // threadIdx.x + blockDim.x * threadIdx.y
  unsigned warp = 0, lane = 0;
  std::vector<CRect> outputs;  // everything this thread stores (one rectangle, or rung 7's fragments)
  CRect warp_tile;             // rung 7: the WM x WN tile of its warp; rows == 0 elsewhere
};

// Refuses elements outside M x N and configurations matmul_geometry cannot describe (a zero
// block or tile); it does not re-check everything check_matmul_config does.
Result<ElementOwner> element_owner(MatmulKernel kernel, const MatmulConfig& config, int M, int N,
                                   int row, int col);

}  // namespace bs::matmul
